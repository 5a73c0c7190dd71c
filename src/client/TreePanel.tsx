/**
 * The Tree tab: a thin React shell over the pure modules (model.ts for the
 * layout, commands.ts for actions and keys, controller.ts for data). Rows are
 * virtualized: only the rows in view (plus a small overscan) are in the DOM,
 * whatever the size of the tree.
 */
import { memo, useCallback, useDeferredValue, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react'
import type { CSSProperties, KeyboardEvent as ReactKeyboardEvent, ReactNode, RefObject } from 'react'
import type { LinearExport, SessionStatus, TreeNode } from '../types.ts'
import { MAX_LABEL_LENGTH, MAX_NAME_LENGTH } from '../tree/validate.ts'
import { availableActions, KEY_HELP, keyCommand, suggestBranchName, validateBranchName, validateLabel, type InputProblem } from './commands.ts'
import type { Notice, PanelState, TreeController } from './controller.ts'
import { resolveLocale, translator, type HostLocale, type Locale, type StringKey, type Translate } from './i18n.ts'
import {
  FILTER_MODES,
  foldedTool,
  gutter,
  highlight,
  indexTree,
  laneColor,
  layoutTree,
  normalizeQuery,
  rowKind,
  rowText,
  scrollToReveal,
  visibleRange,
  type FilterMode,
  type Row,
  type TreeIndex,
} from './model.ts'
import { ROW_HEIGHT } from './styles.ts'
import { LineageStrip, type LineageActions } from './Lineage.tsx'

/** What the plugin injects into the tab (besides the host's `sessionId`). */
export interface TreePanelInjected {
  /** The session's controller (shared by every view of the session). */
  readonly tree: TreeController
  /** The host's locale service when there is one (read on every render: it may arrive late). */
  readonly hostLocale: () => HostLocale | undefined
  /** Render without the host composer's bottom clearance (standalone pages, tests). */
  readonly standalone?: boolean
  /** Sessions across sessions (`Lineage.tsx`); no strip without it. */
  readonly lineage?: LineageActions
}

export interface TreePanelProps extends TreePanelInjected {
  readonly sessionId: string
}

const NO_SUBSCRIPTION = (): (() => void) => () => {}

/** The active locale and its translate function, re-rendering when the host's locale changes. */
export function useTranslate(hostLocale: () => HostLocale | undefined): { readonly t: Translate; readonly locale: Locale } {
  const host = hostLocale()
  const subscribe = useMemo(() => (host ? (listener: () => void) => host.subscribe(listener) : NO_SUBSCRIPTION), [host])
  const locale = useSyncExternalStore(subscribe, () => resolveLocale(host), (): Locale => 'en')
  return useMemo(() => ({ t: translator(locale), locale }), [locale])
}

function mark(name: string): void {
  if (typeof performance !== 'undefined' && typeof performance.mark === 'function') performance.mark(name)
}

/** Call `fn` after the browser painted the current frame. */
function afterPaint(fn: () => void): void {
  if (typeof requestAnimationFrame !== 'function') {
    setTimeout(fn, 0)
    return
  }
  requestAnimationFrame(() => setTimeout(fn, 0))
}

function download(name: string, data: LinearExport): void {
  const blob = new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: 'application/json' })
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = name
  a.rel = 'noopener'
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

type FormState =
  | { readonly kind: 'fork'; readonly nodeId: string; readonly value: string; readonly problem?: InputProblem }
  | { readonly kind: 'label'; readonly nodeId: string; readonly value: string; readonly problem?: InputProblem }

export function TreePanel({ sessionId, tree, hostLocale, standalone, lineage }: TreePanelProps): ReactNode {
  const { t, locale } = useTranslate(hostLocale)
  const state = useSyncExternalStore(tree.subscribe, tree.getSnapshot, tree.getSnapshot)
  useState(() => {
    mark('session-tree:mount')
    return 0
  })
  useEffect(() => tree.start(), [tree])

  const [filter, setFilter] = useState<FilterMode>('all')
  const [query, setQuery] = useState('')
  const deferredQuery = useDeferredValue(query)
  const [selected, setSelected] = useState<string | null>(null)
  const [form, setForm] = useState<FormState | undefined>(undefined)
  const treeRef = useRef<HTMLDivElement>(null)
  const searchRef = useRef<HTMLInputElement>(null)

  const index = useMemo(() => (state.view ? indexTree(state.view) : undefined), [state.view])
  const layout = useMemo(() => {
    if (!index) return undefined
    mark('session-tree:layout-start')
    const result = layoutTree(index, { filter, query: deferredQuery })
    mark('session-tree:layout-end')
    if (typeof performance !== 'undefined' && typeof performance.measure === 'function') performance.measure('session-tree:layout', 'session-tree:layout-start', 'session-tree:layout-end')
    return result
  }, [index, filter, deferredQuery])

  // First paint of a tree: measured from mount to the frame after the rows were committed.
  const painted = useRef(false)
  useLayoutEffect(() => {
    if (painted.current || !layout) return
    painted.current = true
    afterPaint(() => {
      mark('session-tree:first-paint-end')
      if (typeof performance === 'undefined' || typeof performance.measure !== 'function') return
      performance.measure('session-tree:first-paint', 'session-tree:mount', 'session-tree:first-paint-end')
      // The panel's own share: from the validated `list` result to the painted frame.
      if (performance.getEntriesByName('session-tree:list-end').length > 0) performance.measure('session-tree:render', 'session-tree:list-end', 'session-tree:first-paint-end')
    })
  }, [layout])

  // Select the cursor when the tree first arrives (and when the selection disappears).
  useEffect(() => {
    if (!index) return
    if (selected === null || !index.byId.has(selected)) setSelected(index.view.cursor ?? index.order[0] ?? null)
  }, [index, selected])

  // Virtual window.
  const [viewport, setViewport] = useState({ top: 0, height: 600 })
  useLayoutEffect(() => {
    const el = treeRef.current
    if (!el) return
    const update = (): void => setViewport((v) => (v.top === el.scrollTop && v.height === el.clientHeight ? v : { top: el.scrollTop, height: el.clientHeight || v.height }))
    update()
    if (typeof ResizeObserver === 'undefined') return
    const observer = new ResizeObserver(update)
    observer.observe(el)
    return () => observer.disconnect()
  }, [layout !== undefined])
  const onScroll = useCallback(() => {
    const el = treeRef.current
    if (el) setViewport((v) => (v.top === el.scrollTop ? v : { top: el.scrollTop, height: el.clientHeight || v.height }))
  }, [])

  const reveal = useCallback((id: string | null) => {
    const el = treeRef.current
    if (!el || !layout || id === null) return
    const at = layout.indexOf.get(id)
    if (at === undefined) return
    const top = scrollToReveal(at, el.scrollTop, el.clientHeight || viewport.height, ROW_HEIGHT)
    if (top !== el.scrollTop) el.scrollTop = top
  }, [layout, viewport.height])

  // Bring the cursor into view on the first tree of this mount.
  const revealedOnce = useRef(false)
  useLayoutEffect(() => {
    if (revealedOnce.current || !layout || !index) return
    revealedOnce.current = true
    const target = index.view.cursor
    const el = treeRef.current
    const at = target === null ? undefined : layout.indexOf.get(target)
    if (el && at !== undefined) {
      el.scrollTop = Math.max(0, at * ROW_HEIGHT - el.clientHeight / 2)
      setViewport({ top: el.scrollTop, height: el.clientHeight || viewport.height })
    }
  }, [layout, index, viewport.height])

  const selectedNode = selected === null ? undefined : index?.byId.get(selected)
  const actions = availableActions(index, selected, state.status)
  const busy = state.busy !== undefined

  const focusTree = useCallback(() => treeRef.current?.focus({ preventScroll: true }), [])

  const openFork = useCallback((nodeId: string) => {
    if (!index) return
    setSelected(nodeId)
    setForm({ kind: 'fork', nodeId, value: suggestBranchName(index.branchNames) })
  }, [index])
  const openLabel = useCallback((nodeId: string) => {
    if (!index) return
    setSelected(nodeId)
    setForm({ kind: 'label', nodeId, value: index.byId.get(nodeId)?.label ?? '' })
  }, [index])

  const submitForm = useCallback(async () => {
    if (!form || !index) return
    if (form.kind === 'fork') {
      const checked = validateBranchName(form.value, index.branchNames)
      if ('problem' in checked) return setForm({ ...form, problem: checked.problem })
      setForm(undefined)
      await tree.fork(form.nodeId, checked.value)
    } else {
      const checked = validateLabel(form.value, form.nodeId, index.labels)
      if ('problem' in checked) return setForm({ ...form, problem: checked.problem })
      setForm(undefined)
      if (checked.value === null && index.byId.get(form.nodeId)?.label === undefined) return
      await tree.label(form.nodeId, checked.value)
    }
    focusTree()
  }, [form, index, tree, focusTree])

  const exportTree = useCallback(async () => {
    const data = await tree.exportLinear()
    if (data) download(`session-tree-${sessionId}.json`, data)
  }, [tree, sessionId])

  const onKeyDown = useCallback((event: ReactKeyboardEvent<HTMLDivElement>) => {
    if (!layout || event.target !== event.currentTarget) return
    const page = Math.max(1, Math.floor((treeRef.current?.clientHeight ?? 300) / ROW_HEIGHT) - 1)
    const command = keyCommand(layout, selected, index?.view.cursor ?? null, event, page)
    if (!command) return
    event.preventDefault()
    switch (command.kind) {
      case 'select':
        setSelected(command.id)
        reveal(command.id)
        break
      case 'jump':
        if (command.id !== index?.view.cursor && !busy) void tree.jump(command.id)
        break
      case 'fork':
        openFork(command.id)
        break
      case 'label':
        openLabel(command.id)
        break
      case 'summarize': {
        // The command is for the selected row, whose actions are already known.
        if (actions.summarize && !busy) void tree.summarize(actions.summarize)
        break
      }
      case 'search':
        searchRef.current?.focus()
        searchRef.current?.select()
        break
      case 'back':
        if (actions.back && !busy) void tree.back()
        break
      case 'forward':
        if (actions.forward && !busy) void tree.forward()
        break
      case 'escape':
        if (form) setForm(undefined)
        else if (query) setQuery('')
        break
    }
  }, [layout, selected, index, reveal, busy, tree, openFork, openLabel, state.status, actions.back, actions.forward, form, query])

  const onSearchKey = useCallback((event: ReactKeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault()
      if (query) setQuery('')
      else focusTree()
    } else if (event.key === 'Enter' || event.key === 'ArrowDown') {
      event.preventDefault()
      const first = layout?.rows[0]
      if (first && (selected === null || !layout.indexOf.has(selected))) setSelected(first.id)
      focusTree()
    }
  }, [query, focusTree, selected, layout])

  const onRowClick = useCallback((id: string) => {
    setSelected(id)
    setForm((f) => (f && f.nodeId !== id ? undefined : f))
    focusTree()
  }, [focusTree])

  const root = (children: ReactNode): ReactNode => (
    <div className="dst-root" data-conversation-composer-overlay="" data-standalone={standalone ? '' : undefined} data-session-tree="" lang={locale === 'zh' ? 'zh-CN' : 'en'}>
      {children}
    </div>
  )

  if (state.phase === 'loading') {
    return root(
      <div className="dst-loading" role="status">
        <span className="dst-spinner" aria-hidden="true" />
        {t('loading')}
      </div>,
    )
  }
  if (state.phase === 'error' || !index || !layout) {
    const error = state.error ?? { code: 'INTERNAL', message: 'no tree' }
    return root(
      <div className="dst-error" role="alert">
        <h3>{t('error.title')}</h3>
        <p>
          <span className="dst-code">{error.code}</span>: {error.message}
        </p>
        {error.code === 'SESSION_NOT_FOUND' && <p>{t('error.notLoaded')}</p>}
        <button type="button" className="dst-btn" onClick={() => void tree.refresh(true)}>
          {t('error.retry')}
        </button>
      </div>,
    )
  }

  const range = visibleRange(viewport.top, viewport.height, ROW_HEIGHT, layout.rows.length)
  const rows: ReactNode[] = []
  const normalized = normalizeQuery(deferredQuery)
  for (let i = range.start; i < range.end; i++) {
    const row = layout.rows[i]!
    rows.push(
      <TreeRow
        key={row.id}
        row={row}
        top={i * ROW_HEIGHT}
        index={index}
        selected={row.id === selected}
        query={normalized}
        t={t}
        onSelect={onRowClick}
      />,
    )
  }

  return root(
    <>
      <Toolbar
        t={t}
        filter={filter}
        setFilter={setFilter}
        query={query}
        setQuery={setQuery}
        searchRef={searchRef}
        onSearchKey={onSearchKey}
        shown={layout.shown}
        total={layout.total}
        canBack={actions.back && !busy}
        canForward={actions.forward && !busy}
        canExport={actions.export && !busy}
        onBack={() => void tree.back()}
        onForward={() => void tree.forward()}
        onExport={() => void exportTree()}
      />
      <StatusStrip t={t} status={state.status} index={index} />
      {lineage ? <LineageStrip sessionId={sessionId} locale={locale} status={state.status} selected={selected} actions={lineage} /> : null}
      {state.busy ? <div className="dst-progress" role="progressbar" aria-label={t('loadingAction')} /> : null}
      <Messages t={t} state={state} index={index} onDismiss={() => tree.dismissError()} onRetry={() => void tree.refresh(true)} />
      <div className="dst-body">
        <div
          ref={treeRef}
          className="dst-tree"
          role="tree"
          tabIndex={0}
          aria-label={t('tree.label')}
          aria-activedescendant={selected !== null && layout.indexOf.has(selected) ? rowDomId(selected) : undefined}
          aria-busy={busy || undefined}
          onKeyDown={onKeyDown}
          onScroll={onScroll}
        >
          {layout.rows.length === 0 ? (
            <div className="dst-empty">{layout.total === 0 ? t('empty') : t('empty.filtered')}</div>
          ) : (
            <div className="dst-tree-inner" style={{ height: layout.rows.length * ROW_HEIGHT }}>
              {rows}
            </div>
          )}
        </div>
        <Preview
          t={t}
          index={index}
          node={selectedNode}
          actions={actions}
          busy={busy}
          form={form}
          setForm={setForm}
          onSubmit={() => void submitForm()}
          onCancel={() => {
            setForm(undefined)
            focusTree()
          }}
          onJump={(id) => void tree.jump(id)}
          onFork={openFork}
          onLabel={openLabel}
          onSummarize={(branch) => void tree.summarize(branch)}
        />
      </div>
    </>,
  )
}

const rowDomId = (id: string): string => `dst-row-${id.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`

// ---------------------------------------------------------------------------

interface ToolbarProps {
  readonly t: Translate
  readonly filter: FilterMode
  readonly setFilter: (filter: FilterMode) => void
  readonly query: string
  readonly setQuery: (query: string) => void
  readonly searchRef: RefObject<HTMLInputElement>
  readonly onSearchKey: (event: ReactKeyboardEvent<HTMLInputElement>) => void
  readonly shown: number
  readonly total: number
  readonly canBack: boolean
  readonly canForward: boolean
  readonly canExport: boolean
  readonly onBack: () => void
  readonly onForward: () => void
  readonly onExport: () => void
}

function Toolbar(props: ToolbarProps): ReactNode {
  const { t } = props
  return (
    <div className="dst-toolbar">
      <div className="dst-seg" role="radiogroup" aria-label={t('filter.label')}>
        {FILTER_MODES.map((mode) => (
          <button key={mode} type="button" role="radio" aria-checked={props.filter === mode} onClick={() => props.setFilter(mode)}>
            {t(`filter.${mode}` as StringKey)}
          </button>
        ))}
      </div>
      <label className="dst-search">
        <svg viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden="true">
          <circle cx="7" cy="7" r="4.5" />
          <path d="m10.5 10.5 3.5 3.5" />
        </svg>
        <input
          ref={props.searchRef}
          type="search"
          value={props.query}
          placeholder={t('search.placeholder')}
          aria-label={t('search.label')}
          onChange={(event) => props.setQuery(event.target.value)}
          onKeyDown={props.onSearchKey}
        />
        {props.query ? (
          <button type="button" aria-label={t('search.clear')} onClick={() => props.setQuery('')}>
            ×
          </button>
        ) : null}
      </label>
      <span className="dst-count" aria-live="polite">
        {t('search.count', { shown: props.shown, total: props.total })}
      </span>
      <span className="dst-spacer" />
      <button type="button" className="dst-btn" disabled={!props.canBack} title={t('nav.backTitle')} onClick={props.onBack}>
        ← {t('nav.back')}
      </button>
      <button type="button" className="dst-btn" disabled={!props.canForward} title={t('nav.forwardTitle')} onClick={props.onForward}>
        {t('nav.forward')} →
      </button>
      <button type="button" className="dst-btn" disabled={!props.canExport} title={t('nav.exportTitle')} onClick={props.onExport}>
        ⤓ {t('nav.export')}
      </button>
    </div>
  )
}

function StatusStrip({ t, status, index }: { readonly t: Translate; readonly status: SessionStatus | undefined; readonly index: TreeIndex }): ReactNode {
  const mode = status?.surfaceMode
  return (
    <div className="dst-status" data-testid="session-tree-status">
      {mode ? (
        <span className="dst-mode" title={status?.surfaceNote}>
          <span>{t('mode.label')}</span>
          <span className="dst-pill" data-mode={mode}>
            {t(`mode.${mode}` as StringKey)}
          </span>
          {status?.surfaceNote ? <span className="dst-note">{status.surfaceNote}</span> : null}
        </span>
      ) : null}
      <span>
        {t('status.nodes', { count: index.byId.size })} · {t('status.branches', { count: index.branchNames.size })} · {t('status.labels', { count: index.labels.size })}
      </span>
    </div>
  )
}

function noticeText(t: Translate, notice: Notice): string {
  const events = 'appendedEvents' in notice && notice.appendedEvents ? ` ${t('notice.switch', { count: notice.appendedEvents })}` : ''
  switch (notice.kind) {
    case 'jump':
      return (notice.snappedFrom ? `${t('notice.snapped')} ` : '') + (notice.mode === 'projection' ? t('notice.jumpProjection') : t('notice.jump')) + events
    case 'back':
      return t('notice.back') + events
    case 'forward':
      return t('notice.forward') + events
    case 'fork':
      return t('notice.fork', { branch: notice.branch }) + events
    case 'label':
      return notice.cleared ? t('notice.labelCleared') : t('notice.label')
    case 'summarize':
      return t('notice.summarize', { branch: notice.branch })
    case 'export':
      return t('notice.export')
  }
}

function Messages({ t, state, index, onDismiss, onRetry }: { readonly t: Translate; readonly state: PanelState; readonly index: TreeIndex; readonly onDismiss: () => void; readonly onRetry: () => void }): ReactNode {
  const status = state.status
  const out: ReactNode[] = []
  if (state.actionError) {
    out.push(
      <p key="action" className="dst-banner" data-tone="error" role="alert" data-testid="session-tree-action-error">
        <span>
          <span className="dst-code">{state.actionError.code}</span>: {state.actionError.message}
        </span>
        <button type="button" className="dst-btn" onClick={onDismiss}>
          {t('error.dismiss')}
        </button>
      </p>,
    )
  }
  if (state.error) {
    out.push(
      <p key="stale" className="dst-banner" data-tone="warn" role="alert">
        <span>{t('status.stale', { code: state.error.code, message: state.error.message })}</span>
        <button type="button" className="dst-btn" onClick={onRetry}>
          {t('error.retry')}
        </button>
      </p>,
    )
  }
  if (status?.pendingSwitch) {
    out.push(
      <p key="pending" className="dst-banner" data-tone="info">
        {t('status.pending', { target: status.pendingSwitch.target ?? '∅' })}
      </p>,
    )
  }
  if (status?.quarantine && status.quarantine.length > 0) {
    out.push(
      <p key="quarantine" className="dst-banner" data-tone="warn" title={status.quarantine.map((q) => `#${q.seq} ${q.type}: ${q.reason}`).join('\n')}>
        {t('status.quarantine', { count: status.quarantine.length })}
      </p>,
    )
  }
  for (const [i, warning] of (status?.sidecarWarnings ?? []).entries()) {
    out.push(
      <p key={`sidecar-${i}`} className="dst-banner" data-tone="warn">
        {t('status.sidecar', { message: `${warning.code}: ${warning.message}` })}
      </p>,
    )
  }
  for (const warning of status?.logWarnings ?? []) {
    out.push(
      <p key={`log-${warning.code}`} className="dst-banner" data-tone="warn" data-testid="session-tree-log-warning" data-code={warning.code} title={`${warning.message}\n${warning.remedy}`}>
        {t(warning.code === 'COPIED_CALL_IDS' ? 'status.copiedCallIds' : 'status.repeatedCallIds', { count: warning.count, seq: warning.firstSeq })}
      </p>,
    )
  }
  if (index.unreachable > 0) {
    out.push(
      <p key="unreachable" className="dst-banner" data-tone="warn">
        {t('status.unreachable', { count: index.unreachable })}
      </p>,
    )
  }
  return (
    <div aria-live="polite" data-testid="session-tree-messages">
      {out}
      {state.notice && !state.actionError ? (
        <p className="dst-banner" data-tone="ok" data-testid="session-tree-notice">
          {noticeText(t, state.notice)}
        </p>
      ) : null}
    </div>
  )
}

// ---------------------------------------------------------------------------

interface TreeRowProps {
  readonly row: Row
  readonly top: number
  readonly index: TreeIndex
  readonly selected: boolean
  readonly query: string
  readonly t: Translate
  readonly onSelect: (id: string) => void
}

const TreeRow = memo(function TreeRow({ row, top, index, selected, query, t, onSelect }: TreeRowProps): ReactNode {
  const node = row.node
  const kind = rowKind(node)
  const onPath = index.cursorPath.has(row.id)
  const isCursor = index.view.cursor === row.id
  const { glyphs, clipped } = gutter(row)
  const heads = index.headsAt.get(row.id) ?? []
  const tool = foldedTool(node)
  const text = rowText(node)
  return (
    <div
      id={rowDomId(row.id)}
      className="dst-row"
      role="treeitem"
      aria-level={row.depth + 1}
      aria-selected={selected}
      aria-current={isCursor ? 'location' : undefined}
      data-node-id={row.id}
      data-path={onPath}
      data-cursor={isCursor}
      style={{ top, ...branchStyle(node.branch) }}
      onClick={() => onSelect(row.id)}
      title={text}
    >
      <span className="dst-gutter" aria-hidden="true">
        {clipped > 0 ? <span className="dst-g" data-g="more">+{clipped}</span> : null}
        {glyphs.map((g, i) => (
          <span key={i} className="dst-g" data-g={g} />
        ))}
        <span className="dst-dot" data-up={row.parentId !== null && !row.branchStart} data-down={row.childCount > 0} data-elided={row.elided}>
          <i />
        </span>
      </span>
      <span className="dst-kind" data-kind={kind} data-error={tool?.isError || undefined}>
        {t(`kind.${kind}` as StringKey)}
      </span>
      <span className="dst-text">
        {tool ? (
          <>
            <span className="dst-tool-name">
              <Highlighted text={`${tool.name}(${tool.args.replace(/\s+/g, ' ')})`} query={query} />
            </span>
            {tool.result !== undefined ? (
              <>
                <span className="dst-arrow">→</span>
                <Highlighted text={tool.result.replace(/\s+/g, ' ').slice(0, 300)} query={query} />
              </>
            ) : null}
          </>
        ) : (
          <Highlighted text={text} query={query} />
        )}
      </span>
      <span className="dst-badges">
        {node.label !== undefined ? (
          <span className="dst-badge" data-type="label">
            <TagIcon />
            <span>{node.label}</span>
          </span>
        ) : null}
        {heads.map((name) => (
          <span key={name} className="dst-badge" data-type="head" data-active={name === index.view.activeBranch} style={branchStyle(name)}>
            ⎇ {name}
          </span>
        ))}
        {row.forkCount > 1 ? (
          <span className="dst-badge" data-type="forks" title={t('row.forks', { count: row.forkCount })}>
            <ForkIcon />
            {row.forkCount}
          </span>
        ) : null}
        {isCursor ? (
          <span className="dst-badge" data-type="cursor" title={t('row.cursor')}>
            {t('row.cursorBadge')}
          </span>
        ) : null}
      </span>
    </div>
  )
})

function TagIcon(): ReactNode {
  return (
    <svg viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden="true">
      <path d="M2.5 2.5h5.2l6 6-5.2 5.2-6-6z" />
      <circle cx="5.5" cy="5.5" r="1" />
    </svg>
  )
}

function ForkIcon(): ReactNode {
  return (
    <svg viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden="true">
      <circle cx="4" cy="3" r="1.5" />
      <circle cx="4" cy="13" r="1.5" />
      <circle cx="12" cy="5" r="1.5" />
      <path d="M4 4.5v7M12 6.5c0 3-8 2-8 5" />
    </svg>
  )
}

function branchStyle(name: string): CSSProperties | undefined {
  const lane = laneColor(name)
  return lane >= 0 ? ({ '--dst-lane': `var(--dst-lane-${lane})` } as CSSProperties) : undefined
}

function Highlighted({ text, query }: { readonly text: string; readonly query: string }): ReactNode {
  if (!query) return text
  return highlight(text, query).map((part, i) => (part.match ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))
}

// ---------------------------------------------------------------------------

interface PreviewProps {
  readonly t: Translate
  readonly index: TreeIndex
  readonly node: TreeNode | undefined
  readonly actions: ReturnType<typeof availableActions>
  readonly busy: boolean
  readonly form: FormState | undefined
  readonly setForm: (form: FormState | undefined) => void
  readonly onSubmit: () => void
  readonly onCancel: () => void
  readonly onJump: (id: string) => void
  readonly onFork: (id: string) => void
  readonly onLabel: (id: string) => void
  readonly onSummarize: (branch: string) => void
}

function Preview({ t, index, node, actions, busy, form, setForm, onSubmit, onCancel, onJump, onFork, onLabel, onSummarize }: PreviewProps): ReactNode {
  const help = (
    <div className="dst-help" aria-label={t('keys.title')}>
      {KEY_HELP.map(([key, what]) => (
        <span key={key}>
          <kbd>{key}</kbd> {t(what as StringKey)}
        </span>
      ))}
    </div>
  )
  if (!node) {
    return (
      <aside className="dst-preview" data-testid="session-tree-preview">
        <p className="dst-note">{t('preview.none')}</p>
        {help}
      </aside>
    )
  }
  const kind = rowKind(node)
  const tool = foldedTool(node)
  const heads = index.headsAt.get(node.nodeId) ?? []
  const onPath = index.cursorPath.has(node.nodeId)
  const text = node.message?.content ?? node.content?.filter((p) => p.type === 'text').map((p) => (p.type === 'text' ? p.text : '')).join('\n') ?? ''
  const summary = index.view.branches.find((b) => b.name === node.branch)?.summary
  return (
    <aside className="dst-preview" data-testid="session-tree-preview" data-node-id={node.nodeId}>
      <h3>
        <span className="dst-kind" data-kind={kind}>
          {t(`kind.${kind}` as StringKey)}
        </span>
        <span>{onPath ? t('preview.onPath') : t('preview.offPath')}</span>
        {index.view.cursor === node.nodeId ? (
          <span className="dst-badge" data-type="cursor">
            {t('row.cursorBadge')}
          </span>
        ) : null}
      </h3>
      <dl className="dst-meta">
        <dt>{t('preview.id')}</dt>
        <dd className="dst-code">{node.nodeId}</dd>
        {node.branch ? (
          <>
            <dt>{t('preview.branch')}</dt>
            <dd>{node.branch}</dd>
          </>
        ) : null}
        {heads.length > 0 ? (
          <>
            <dt>{t('preview.heads')}</dt>
            <dd>{heads.join(', ')}</dd>
          </>
        ) : null}
        {node.label !== undefined ? (
          <>
            <dt>{t('preview.label')}</dt>
            <dd>{node.label}</dd>
          </>
        ) : null}
        {node.model ? (
          <>
            <dt>{t('preview.model')}</dt>
            <dd>{node.provider ? `${node.provider} / ${node.model}` : node.model}</dd>
          </>
        ) : null}
        <dt>{t('preview.created')}</dt>
        <dd>{formatTime(node.createdAt)}</dd>
      </dl>
      {tool ? (
        <>
          <div className="dst-sub">{t('preview.toolCall')}</div>
          <pre className="dst-content" data-mono="true">
            {tool.name}({prettyArgs(tool.args)})
          </pre>
          <div className="dst-sub">{tool.isError ? t('preview.toolError') : t('preview.toolResult')}</div>
          <pre className="dst-content" data-mono="true" data-error={tool.isError || undefined}>
            {tool.result ?? t('preview.noResult')}
          </pre>
        </>
      ) : (
        <pre className="dst-content" data-testid="session-tree-preview-text">
          {text || node.summary}
        </pre>
      )}
      {summary && heads.includes(node.branch) ? (
        <>
          <div className="dst-sub">{t('preview.branchSummary')}</div>
          <pre className="dst-content">{summary.summary}</pre>
        </>
      ) : null}
      {form && form.nodeId === node.nodeId ? (
        <NodeForm t={t} form={form} setForm={setForm} onSubmit={onSubmit} onCancel={onCancel} busy={busy} />
      ) : (
        <div className="dst-actions">
          {actions.jump ? (
            <button type="button" className="dst-btn dst-primary" disabled={busy} title={t('act.jumpTitle')} onClick={() => onJump(node.nodeId)}>
              {t('act.jump')}
            </button>
          ) : null}
          {actions.fork ? (
            <button type="button" className="dst-btn" disabled={busy} title={t('act.forkTitle')} onClick={() => onFork(node.nodeId)}>
              {t('act.fork')}
            </button>
          ) : null}
          {actions.label ? (
            <button type="button" className="dst-btn" disabled={busy} title={t('act.labelTitle')} onClick={() => onLabel(node.nodeId)}>
              {t('act.label')}
            </button>
          ) : null}
          {actions.summarize !== null ? (
            <button type="button" className="dst-btn" disabled={busy} title={t('act.summarizeTitle', { branch: actions.summarize })} onClick={() => onSummarize(actions.summarize!)}>
              {t('act.summarize')}
            </button>
          ) : null}
        </div>
      )}
      {help}
    </aside>
  )
}

function NodeForm({ t, form, setForm, onSubmit, onCancel, busy }: { readonly t: Translate; readonly form: FormState; readonly setForm: (form: FormState | undefined) => void; readonly onSubmit: () => void; readonly onCancel: () => void; readonly busy: boolean }): ReactNode {
  const inputRef = useRef<HTMLInputElement>(null)
  useEffect(() => {
    inputRef.current?.focus()
    inputRef.current?.select()
  }, [form.kind, form.nodeId])
  const id = `dst-form-${form.kind}`
  return (
    <form
      className="dst-form"
      data-testid={`session-tree-${form.kind}-form`}
      onSubmit={(event) => {
        event.preventDefault()
        onSubmit()
      }}
    >
      <label htmlFor={id}>{form.kind === 'fork' ? t('form.branchName') : t('form.label')}</label>
      <input
        id={id}
        ref={inputRef}
        value={form.value}
        maxLength={form.kind === 'fork' ? MAX_NAME_LENGTH : MAX_LABEL_LENGTH}
        aria-invalid={form.problem !== undefined}
        onChange={(event) => setForm({ ...form, value: event.target.value, problem: undefined } as FormState)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.preventDefault()
            onCancel()
          }
        }}
      />
      {form.problem ? (
        <span className="dst-problem" role="alert">
          {t(`problem.${form.problem}` as StringKey)}
        </span>
      ) : null}
      <span className="dst-row-actions">
        <button type="submit" className="dst-btn dst-primary" disabled={busy}>
          {form.kind === 'fork' ? t('form.create') : t('form.save')}
        </button>
        <button type="button" className="dst-btn" onClick={onCancel}>
          {t('form.cancel')}
        </button>
      </span>
    </form>
  )
}

function prettyArgs(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args)
    return typeof parsed === 'object' && parsed !== null ? JSON.stringify(parsed, null, 2) : args
  } catch {
    return args
  }
}

function formatTime(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString()
}
