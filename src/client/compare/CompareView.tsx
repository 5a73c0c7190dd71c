/**
 * The Tree tab's compare view: pick two nodes (the selected node, the
 * cursor, any branch head) → both paths after their common ancestor side by
 * side, removed words struck on the left, added words marked on the right,
 * the divergence flagged and focused. Rows are virtualized (fixed height,
 * only those in view are in the DOM); the focused row is shown in full
 * below. Keyboard: ↑/↓ (j/k), n/p for the next/previous change, Home/End,
 * PageUp/PageDown, Esc to close.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import type { KeyboardEvent as ReactKeyboardEvent, ReactNode } from 'react'
import type { CompareResult, SessionTreeOutline, SideTotals } from '../../types.ts'
import type { Result } from '../controller.ts'
import type { Locale } from '../i18n.ts'
import { scrollToReveal, visibleRange } from '../../outline/index.ts'
import {
  compareKey,
  compareTargets,
  defaultPair,
  displayRows,
  moveFocus,
  targetKey,
  type Cell,
  type CompareTarget,
  type DisplayRow,
  type Segment,
} from './model.ts'
import { compareStrings, type CompareTranslate } from './strings.ts'
import { COMPARE_CSS, COMPARE_ROW_HEIGHT } from './styles.ts'
import { useScrollViewport } from '../panel/useVirtualWindow.ts'
import { errorMessage } from '../../tree/errors.ts'

export interface CompareViewProps {
  readonly view: SessionTreeOutline
  /** The node selected in the tree when the view opened (side A by default). */
  readonly selected: string | null
  /** The node picked to compare it with ("Compare with…"; side B by default). */
  readonly picked?: string | null
  readonly locale: Locale
  readonly compare: (a: string, b: string) => Promise<Result<CompareResult>>
  /** The workspace files that differ between the two nodes compared (drawn below the rows), when checkpoints are on. */
  readonly files?: (a: string, b: string) => ReactNode
  readonly onClose: () => void
}

type Load =
  | { readonly phase: 'idle' }
  | { readonly phase: 'loading' }
  | { readonly phase: 'done'; readonly result: CompareResult }
  | { readonly phase: 'error'; readonly code: string; readonly message: string }

function targetText(t: CompareTranslate, target: CompareTarget): string {
  if (target.kind === 'branch') return t('branch', { name: target.name!, id: target.nodeId })
  return t(target.kind, { id: target.nodeId })
}

/** The two sides of a compare, in the order the columns show them. */
const SIDES = ['a', 'b'] as const

function totalsText(t: CompareTranslate, totals: SideTotals): string {
  const tokens =
    totals.tokens === null
      ? t('tokensUnknown')
      : t('tokens', { n: totals.tokens }) +
        (totals.nodesWithUsage < totals.assistantMessages
          ? t('partial', { with: totals.nodesWithUsage, of: totals.assistantMessages })
          : '')
  return [
    t('nodes', { n: totals.nodes }),
    tokens,
    ...(totals.cost === null ? [] : [t('cost', { n: Number(totals.cost.toPrecision(6)) })]),
  ].join(' · ')
}

export function CompareView({
  view,
  selected,
  picked = null,
  locale,
  compare,
  files,
  onClose,
}: CompareViewProps): ReactNode {
  const t = useMemo(() => compareStrings(locale), [locale])
  const targets = useMemo(() => compareTargets(view, selected, picked), [view, selected, picked])
  const [pair, setPair] = useState<[string, string] | undefined>(() => {
    const found = defaultPair(targets)
    return found && [targetKey(found[0]), targetKey(found[1])]
  })
  const byKey = useMemo(() => new Map(targets.map((target) => [targetKey(target), target])), [targets])
  const a = pair && byKey.get(pair[0])
  const b = pair && byKey.get(pair[1])
  const [load, setLoad] = useState<Load>({ phase: 'idle' })
  const [focus, setFocus] = useState(-1)
  const listRef = useRef<HTMLDivElement>(null)

  useEffect(() => {
    if (!a || !b) return
    let live = true
    setLoad({ phase: 'loading' })
    compare(a.nodeId, b.nodeId).then(
      (result) => {
        if (!live) return
        setLoad(
          result.ok
            ? { phase: 'done', result: result.value }
            : { phase: 'error', code: result.error.code, message: result.error.message },
        )
      },
      (reason: unknown) =>
        live &&
        setLoad({
          phase: 'error',
          code: 'CLIENT_ERROR',
          message: errorMessage(reason),
        }),
    )
    return () => {
      live = false
    }
  }, [a?.nodeId, b?.nodeId, compare])

  const display = useMemo(() => (load.phase === 'done' ? displayRows(load.result) : undefined), [load])
  // Open on the divergence: the first row that differs is focused and in view.
  useEffect(() => {
    if (!display) return
    setFocus(display.divergence >= 0 ? display.divergence : display.rows.length > 0 ? 0 : -1)
  }, [display])

  const { viewport, measure } = useScrollViewport(listRef, 400, display)

  useLayoutEffect(() => {
    const el = listRef.current
    if (!el || focus < 0) return
    const top = scrollToReveal(focus, el.scrollTop, el.clientHeight, COMPARE_ROW_HEIGHT)
    if (top !== el.scrollTop) el.scrollTop = top
  }, [focus])

  useEffect(() => {
    listRef.current?.focus()
  }, [display])

  const onKeyDown = useCallback(
    (event: ReactKeyboardEvent) => {
      const key = compareKey(event.key, { ctrl: event.ctrlKey, meta: event.metaKey, alt: event.altKey })
      if (!key) return
      event.preventDefault()
      if (key === 'close') return onClose()
      if (!display) return
      setFocus((f) => moveFocus(display, f, key, Math.max(1, Math.floor(viewport.height / COMPARE_ROW_HEIGHT) - 1)))
    },
    [display, onClose, viewport.height],
  )

  const pick = (side: 0 | 1, key: string): void =>
    setPair((p) => {
      const next: [string, string] = p ? [...p] : [key, key]
      next[side] = key
      return next
    })

  const header = (
    <div className="dst-cmp-head">
      <strong className="dst-cmp-title">{t('title')}</strong>
      {(['a', 'b'] as const).map((side, i) => (
        <label key={side} className="dst-cmp-pick">
          <span className="dst-cmp-side" data-side={side}>
            {t(side)}
          </span>
          <select
            value={pair?.[i] ?? ''}
            onChange={(event) => pick(i as 0 | 1, event.target.value)}
            aria-label={t(side)}
          >
            {targets.map((target) => (
              <option key={targetKey(target)} value={targetKey(target)}>
                {targetText(t, target)}
              </option>
            ))}
          </select>
        </label>
      ))}
      <button type="button" className="dst-btn" disabled={!pair} onClick={() => setPair((p) => p && [p[1], p[0]])}>
        ⇄ {t('swap')}
      </button>
      <button type="button" className="dst-btn dst-cmp-close" title={t('closeTitle')} onClick={onClose}>
        {t('close')}
      </button>
    </div>
  )

  let body: ReactNode
  if (!pair || !a || !b) body = <div className="dst-cmp-note">{t('needTwo')}</div>
  else if (load.phase === 'loading' || load.phase === 'idle')
    body = (
      <div className="dst-cmp-note" role="status">
        {t('loading')}
      </div>
    )
  else if (load.phase === 'error')
    body = (
      <div className="dst-cmp-note" role="alert">
        <span className="dst-code">{load.code}</span>: {load.message}
      </div>
    )
  else {
    const result = load.result
    const rows = display!.rows
    const range = visibleRange(viewport.top, viewport.height, COMPARE_ROW_HEIGHT, rows.length)
    const shown: ReactNode[] = []
    for (let i = range.start; i < range.end; i++) {
      shown.push(
        <CompareRowView
          key={rows[i]!.key}
          row={rows[i]!}
          index={i}
          top={i * COMPARE_ROW_HEIGHT}
          focused={i === focus}
          divergence={i === display!.divergence}
          t={t}
          onFocus={setFocus}
        />,
      )
    }
    const focused = focus >= 0 ? rows[focus] : undefined
    body = (
      <>
        <div className="dst-cmp-summary">
          <span>
            {a.nodeId === b.nodeId
              ? t('same')
              : result.ancestor === null
                ? t('noAncestor')
                : t('parted', { id: result.ancestor, n: result.commonLength })}
          </span>
          {rows.length > 0 ? (
            <span>{t('changed', { changed: result.changedRows, rows: result.rows.length + result.omittedRows })}</span>
          ) : null}
          {result.omittedRows > 0 ? <span>{t('omitted', { n: result.omittedRows })}</span> : null}
        </div>
        <div className="dst-cmp-cols" aria-hidden="true">
          {SIDES.map((side) => (
            <div key={side}>
              <span className="dst-cmp-side" data-side={side}>
                {t(side)}
              </span>{' '}
              {result[side].nodeId} · {totalsText(t, result[side].totals)}
            </div>
          ))}
        </div>
        <div
          ref={listRef}
          className="dst-cmp-list"
          role="listbox"
          tabIndex={0}
          aria-label={t('rows')}
          aria-activedescendant={focused ? `dst-cmp-row-${focus}` : undefined}
          onKeyDown={onKeyDown}
          onScroll={measure}
        >
          {rows.length === 0 ? (
            <div className="dst-cmp-note">{t('empty')}</div>
          ) : (
            <div style={{ position: 'relative', height: rows.length * COMPARE_ROW_HEIGHT }}>{shown}</div>
          )}
        </div>
        {focused ? <CompareDetail row={focused} t={t} /> : null}
        <div className="dst-cmp-keys">{t('keys')}</div>
        {files ? files(result.a.nodeId, result.b.nodeId) : null}
      </>
    )
  }
  return (
    <div className="dst-cmp" data-compare-view="">
      <style>{COMPARE_CSS}</style>
      {header}
      {body}
    </div>
  )
}

function Segments({ segments }: { readonly segments: readonly Segment[] }): ReactNode {
  return segments.map((segment, i) =>
    segment.mark === 'same' ? (
      <span key={i}>{segment.text}</span>
    ) : segment.mark === 'removed' ? (
      <del key={i}>{segment.text}</del>
    ) : segment.mark === 'added' ? (
      <ins key={i}>{segment.text}</ins>
    ) : (
      <span key={i} className="dst-cmp-elided">
        {segment.text}
      </span>
    ),
  )
}

function CellView({ cell, empty }: { readonly cell: Cell | undefined; readonly empty: string }): ReactNode {
  if (!cell)
    return (
      <div className="dst-cmp-cell" data-empty="">
        {empty}
      </div>
    )
  return (
    <div className="dst-cmp-cell">
      <span className="dst-cmp-meta">
        {cell.nodeId} {cell.role}
      </span>
      {cell.lines.map((line, i) => (
        <div key={i} className="dst-cmp-line">
          <Segments segments={line} />
        </div>
      ))}
    </div>
  )
}

function CompareRowView({
  row,
  index,
  top,
  focused,
  divergence,
  t,
  onFocus,
}: {
  readonly row: DisplayRow
  readonly index: number
  readonly top: number
  readonly focused: boolean
  readonly divergence: boolean
  readonly t: CompareTranslate
  readonly onFocus: (i: number) => void
}): ReactNode {
  return (
    <div
      id={`dst-cmp-row-${index}`}
      role="option"
      aria-selected={focused}
      className="dst-cmp-row"
      data-kind={row.kind}
      data-divergence={divergence ? '' : undefined}
      style={{ top, height: COMPARE_ROW_HEIGHT }}
      onClick={() => onFocus(index)}
    >
      {divergence ? <span className="dst-cmp-flag">{t('divergence')}</span> : null}
      <CellView cell={row.left} empty={t('onlyB')} />
      <CellView cell={row.right} empty={t('onlyA')} />
    </div>
  )
}

function CompareDetail({ row, t }: { readonly row: DisplayRow; readonly t: CompareTranslate }): ReactNode {
  return (
    <div className="dst-cmp-detail" data-kind={row.kind} aria-live="polite">
      <CellView cell={row.left} empty={t('onlyB')} />
      <CellView cell={row.right} empty={t('onlyA')} />
    </div>
  )
}

/**
 * A compare button: the toolbar's "Compare…" (`open`, opens the view) or a node's "Compare with…" (`with`, starts a
 * pick). One button, two entries to the same view.
 */
export function CompareButton({
  locale,
  entry,
  disabled,
  onClick,
}: {
  readonly locale: Locale
  readonly entry: 'open' | 'with'
  readonly disabled?: boolean
  readonly onClick: () => void
}): ReactNode {
  const t = compareStrings(locale)
  return (
    <button
      type="button"
      className="dst-btn"
      data-compare-open={entry === 'open' ? '' : undefined}
      data-compare-with={entry === 'with' ? '' : undefined}
      disabled={disabled}
      title={t(entry === 'open' ? 'openTitle' : 'withTitle')}
      onClick={onClick}
    >
      ⇆ {t(entry)}
    </button>
  )
}
