/**
 * The Tree tab: a thin React shell over the pure modules (model.ts for the
 * layout, commands.ts for actions and keys, controller.ts for data) and the
 * parts in panel/ (toolbar, status strip, banners, rows, preview, node
 * actions, the fork/label form, the virtual window). Rows are virtualized:
 * only the rows in view (plus a small overscan) are in the DOM, whatever the
 * size of the tree.
 */
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react'
import type { KeyboardEvent as ReactKeyboardEvent, ReactNode } from 'react'
import { availableActions, keyCommand, suggestBranchName, validateBranchName, validateLabel } from './commands.ts'
import type { TreeController } from './controller.ts'
import type { HostLocale } from './i18n.ts'
import { indexTree, layoutTree, normalizeQuery, unfoldTo, type FilterMode, type TreeIndex } from '../outline/index.ts'
import { ROW_HEIGHT } from './styles.ts'
import { CompareButton, CompareView } from './compare/CompareView.tsx'
import { ComparePickBanner } from './compare/CompareWith.tsx'
import { useComparePick } from './compare/useComparePick.ts'
import { SummaryProgress } from './summary/SummaryNotes.tsx'
import { SummaryChoiceField, SummaryWritten } from './summary/SummaryChoice.tsx'
import { useSummaryChoice } from './summary/useSummaryChoice.ts'
import { LineageStrip, type LineageActions } from './Lineage.tsx'
import { ExportMenu } from './interchange/ExportMenu.tsx'
import type { InterchangeActions } from './interchange/files.ts'
import { ImportControl } from './interchange/ImportDialog.tsx'
import { useTranslate } from './useTranslate.ts'
import { download, languageTag, mark, rowDomId } from './panel/dom.ts'
import { useFollowCursor } from './panel/useFollowCursor.ts'
import { usePaintMarks } from './panel/usePaintMarks.ts'
import { Messages } from './panel/Messages.tsx'
import type { FormState } from './panel/NodeForm.tsx'
import { Preview } from './panel/Preview.tsx'
import { StatusStrip } from './panel/StatusStrip.tsx'
import { Toolbar } from './panel/Toolbar.tsx'
import { TreeRow } from './panel/TreeRow.tsx'
import { useVirtualWindow } from './panel/useVirtualWindow.ts'
import type { WorkspaceClient } from './workspace/client.ts'
import { CarryButton, nodeName, WorkspacePreviewPart } from './workspace/PreviewPart.tsx'
import { CarryView } from './workspace/CarryView.tsx'
import { RestoreView } from './workspace/RestoreView.tsx'
import { FilesCompare } from './workspace/FilesCompare.tsx'
import { useWorkspace } from './workspace/useWorkspace.ts'

/** Kept here for the modules that import it from the panel (the Chat decorations). */

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
  /** File checkpoints (`workspace/`): markers, files at a node, moves that take the files along. */
  readonly workspace?: WorkspaceClient
  /** Import and export files (`interchange/`); the plain digest Export button without it. */
  readonly interchange?: InterchangeActions
}

export interface TreePanelProps extends TreePanelInjected {
  readonly sessionId: string
}

export function TreePanel({
  sessionId,
  tree,
  hostLocale,
  standalone,
  lineage,
  workspace,
  interchange,
}: TreePanelProps): ReactNode {
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
  const [folded, setFolded] = useState<ReadonlySet<string>>(() => new Set())
  const [form, setForm] = useState<FormState | undefined>(undefined)
  /** The node whose branch's file changes the carry view shows. */
  const [carrying, setCarrying] = useState<string | undefined>(undefined)
  const { comparing, open: openCompare, close: closeCompare, pick, setPick, pickTo } = useComparePick()
  const treeRef = useRef<HTMLDivElement>(null)
  const searchRef = useRef<HTMLInputElement>(null)

  // Built from the last index: after a jump or a label only what changed is recomputed (`indexTree`).
  const lastIndex = useRef<TreeIndex | undefined>(undefined)
  const index = useMemo(() => {
    const next = state.view ? indexTree(state.view, lastIndex.current) : undefined
    lastIndex.current = next
    return next
  }, [state.view])
  const ws = useWorkspace(workspace, state.generation, index?.absorbed, index?.children)
  const layout = useMemo(() => {
    if (!index) return undefined
    mark('session-tree:layout-start')
    const result = layoutTree(index, { filter, query: deferredQuery, folded })
    mark('session-tree:layout-end')
    if (typeof performance !== 'undefined' && typeof performance.measure === 'function')
      performance.measure('session-tree:layout', 'session-tree:layout-start', 'session-tree:layout-end')
    return result
  }, [index, filter, deferredQuery, folded])

  usePaintMarks(layout)

  const { range, onScroll, reveal } = useVirtualWindow(treeRef, layout, index)

  const revealNext = useFollowCursor({ index, layout, selected, setSelected, setFolded, reveal })

  const selectedNode = selected === null ? undefined : index?.byId.get(selected)
  const actions = availableActions(index, selected, state.status)
  const busy = state.busy !== undefined
  // Another process writes this tree: nothing here may change it (the status strip says who).
  const readOnly = state.status?.readOnly !== undefined

  const focusTree = useCallback(() => treeRef.current?.focus({ preventScroll: true }), [])

  const clearSelection = useCallback(() => setSelected(null), [])
  const summary = useSummaryChoice(index, selected, state.status?.surfaceMode, clearSelection)
  const { optionsFor, summarized } = summary
  const jumpTo = useCallback(
    async (nodeId: string) => {
      if (summary.blocks(nodeId)) return
      const options = optionsFor(nodeId)
      if ((await tree.move({ kind: 'jump', nodeId, ...options })) && options) summarized()
    },
    [summary.blocks, optionsFor, tree, summarized],
  )

  const openFork = useCallback(
    (nodeId: string) => {
      if (!index) return
      setSelected(nodeId)
      setForm({ kind: 'fork', nodeId, value: suggestBranchName(index.branchNames) })
    },
    [index],
  )
  const openLabel = useCallback(
    (nodeId: string) => {
      if (!index) return
      setSelected(nodeId)
      setForm({ kind: 'label', nodeId, value: index.byId.get(nodeId)?.label ?? '' })
    },
    [index],
  )

  const submitForm = useCallback(async () => {
    if (!form || !index) return
    if (form.kind === 'fork') {
      const checked = validateBranchName(form.value, index.branchNames)
      if ('problem' in checked) return setForm({ ...form, problem: checked.problem })
      if (summary.blocks(form.nodeId)) return
      setForm(undefined)
      const { nodeId } = form
      const options = optionsFor(nodeId)
      const move = { kind: 'fork', nodeId, branch: checked.value } as const
      ws.route(
        move,
        () =>
          void tree.move({ ...move, ...options }).then((forked) => {
            if (forked && options) summarized()
          }),
      )
    } else {
      const checked = validateLabel(form.value, form.nodeId, index.labels)
      if ('problem' in checked) return setForm({ ...form, problem: checked.problem })
      setForm(undefined)
      // The keys go back to the tree now, not when the label is written: the next key may come as the badge shows.
      focusTree()
      if (checked.value === null && index.byId.get(form.nodeId)?.label === undefined) return
      await tree.label(form.nodeId, checked.value)
    }
    focusTree()
  }, [form, index, tree, focusTree, summary.blocks, optionsFor, summarized, ws.route])

  // A restore or a carry wrote files (and may have moved): the tree and the file markers are read again.
  const filesChanged = () => {
    void tree.refresh(true)
    ws.reload()
  }

  const exportTree = useCallback(async () => {
    const data = await tree.exportLinear()
    if (data) download(`session-tree-${sessionId}.json`, data)
  }, [tree, sessionId])

  const onKeyDown = useCallback(
    (event: ReactKeyboardEvent<HTMLDivElement>) => {
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
        case 'reveal': {
          // The cursor inside a fold: open the folds above it, then bring its row into view.
          const id = index?.absorbed.has(command.id) ? (index.children.get(command.id)?.[0] ?? command.id) : command.id
          setSelected(id)
          if (index) setFolded((f) => unfoldTo(index, f, id))
          revealNext.current = id
          break
        }
        case 'fold':
        case 'unfold': {
          const id = command.id
          setFolded((f) => {
            const next = new Set(f)
            if (command.kind === 'fold') next.add(id)
            else next.delete(id)
            return next
          })
          break
        }
        case 'jump':
          if (pick) pickTo(command.id)
          else if (command.id !== index?.view.cursor && !busy && !readOnly)
            ws.route({ kind: 'jump', nodeId: command.id }, () => void jumpTo(command.id))
          break
        case 'fork':
          if (!readOnly) openFork(command.id)
          break
        case 'label':
          if (!readOnly) openLabel(command.id)
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
          if (actions.back && !busy) ws.route({ kind: 'back' }, () => void tree.move({ kind: 'back' }))
          break
        case 'forward':
          if (actions.forward && !busy) ws.route({ kind: 'forward' }, () => void tree.move({ kind: 'forward' }))
          break
        case 'escape':
          if (pick) setPick(undefined)
          else if (form) setForm(undefined)
          else if (query) setQuery('')
          break
      }
    },
    [
      layout,
      selected,
      index,
      reveal,
      revealNext,
      busy,
      tree,
      openFork,
      openLabel,
      state.status,
      actions.back,
      actions.forward,
      form,
      query,
      jumpTo,
      pick,
      setPick,
      pickTo,
      ws.route,
    ],
  )

  const onSearchKey = useCallback(
    (event: ReactKeyboardEvent<HTMLInputElement>) => {
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
    },
    [query, focusTree, selected, layout],
  )

  const toggleFold = useCallback((id: string) => {
    setFolded((f) => {
      const next = new Set(f)
      if (!next.delete(id)) next.add(id)
      return next
    })
  }, [])

  const onRowClick = useCallback(
    (id: string) => {
      // Picking the second node of "Compare with…": the selection stays on the first.
      if (pick && pick.to === undefined) {
        if (!pickTo(id)) focusTree()
        return
      }
      setSelected(id)
      setForm((f) => (f && f.nodeId !== id ? undefined : f))
      focusTree()
    },
    [focusTree, pick, pickTo],
  )

  const root = (children: ReactNode): ReactNode => (
    <div
      className="dst-root"
      data-conversation-composer-overlay=""
      data-standalone={standalone ? '' : undefined}
      data-session-tree=""
      lang={languageTag(locale)}
    >
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

  if (comparing)
    return root(
      <CompareView
        view={index.view}
        selected={pick?.to !== undefined ? pick.from : selected}
        picked={pick?.to ?? null}
        locale={locale}
        compare={tree.compare}
        {...(workspace && ws.available
          ? { files: (a: string, b: string) => <FilesCompare t={t} client={workspace} a={a} b={b} /> }
          : {})}
        onClose={closeCompare}
      />,
    )
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
        onToggleFold={toggleFold}
        files={ws.markers.get(row.id)}
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
        actions={{
          t,
          canBack: actions.back && !busy,
          canForward: actions.forward && !busy,
          canExport: actions.export && !busy,
          onBack: () => ws.route({ kind: 'back' }, () => void tree.move({ kind: 'back' })),
          onForward: () => ws.route({ kind: 'forward' }, () => void tree.move({ kind: 'forward' })),
          onExport: () => void exportTree(),
          ...(interchange
            ? {
                exportMenu: (
                  <ExportMenu
                    locale={locale}
                    sessionId={sessionId}
                    actions={interchange}
                    disabled={!actions.export || busy}
                    onLinear={() => void exportTree()}
                  />
                ),
              }
            : {}),
        }}
        extra={
          <>
            <CompareButton locale={locale} entry="open" disabled={index.view.nodes.length < 2} onClick={openCompare} />
            {interchange ? <ImportControl locale={locale} actions={interchange} /> : null}
          </>
        }
      />
      <StatusStrip t={t} status={state.status} index={index} />
      {lineage ? (
        <LineageStrip
          sessionId={sessionId}
          locale={locale}
          status={state.status}
          selected={selected}
          actions={lineage}
        />
      ) : null}
      {state.busy ? <div className="dst-progress" role="progressbar" aria-label={t('loadingAction')} /> : null}
      {pick && pick.to === undefined ? (
        <ComparePickBanner locale={locale} from={pick.from} onCancel={() => setPick(undefined)} />
      ) : null}
      {state.busy === 'summarize' || state.summarizing ? <SummaryProgress t={t} /> : null}
      {state.written ? <SummaryWritten t={t} summary={state.written} onDismiss={() => tree.dismissWritten()} /> : null}
      <Messages
        t={t}
        state={state}
        index={index}
        onDismiss={() => tree.dismissError()}
        onDismissNotice={() => tree.dismissNotice()}
        onRetry={() => void tree.refresh(true)}
      />
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
        {ws.restoring && workspace ? (
          <RestoreView
            key={JSON.stringify(ws.restoring)}
            t={t}
            client={workspace}
            move={ws.restoring.move}
            restore={ws.restoring.restore}
            name={(id) => nodeName(index, id)}
            onRestored={filesChanged}
            onClose={() => {
              ws.close()
              focusTree()
            }}
          />
        ) : carrying !== undefined && workspace ? (
          <CarryView
            key={carrying}
            t={t}
            client={workspace}
            from={carrying}
            name={(id) => nodeName(index, id)}
            mode={state.status?.surfaceMode}
            onCarried={filesChanged}
            onClose={() => {
              setCarrying(undefined)
              focusTree()
            }}
          />
        ) : (
          <Preview
            t={t}
            locale={locale}
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
            summaryChoice={
              summary.offered ? (
                <SummaryChoiceField
                  t={t}
                  state={summary.choice}
                  onChange={summary.setChoice}
                  mode={state.status?.surfaceMode}
                  busy={busy}
                />
              ) : undefined
            }
            moveBlocked={summary.blocked}
            more={
              selected !== null && index.view.nodes.length > 1 ? (
                <>
                  <CompareButton
                    locale={locale}
                    entry="with"
                    disabled={pick !== undefined}
                    onClick={() => setPick({ from: selected })}
                  />
                  {workspace && ws.available && !readOnly && !index.cursorPath.has(selected) ? (
                    <CarryButton t={t} disabled={busy} onCarry={() => setCarrying(selected)} />
                  ) : null}
                </>
              ) : undefined
            }
            onJump={(id) => ws.route({ kind: 'jump', nodeId: id }, () => void jumpTo(id))}
            onFork={openFork}
            onLabel={openLabel}
            onSummarize={(branch) => void tree.summarize(branch)}
            workspace={
              selectedNode ? (
                <WorkspacePreviewPart
                  t={t}
                  client={workspace}
                  state={ws}
                  nodeId={selectedNode.nodeId}
                  parentId={selectedNode.parentId}
                  generation={state.generation}
                />
              ) : null
            }
          />
        )}
      </div>
    </>,
  )
}
