/**
 * A files preview's parts, shared by the restore (`RestoreView.tsx`) and the
 * carry (`CarryView.tsx`): the frame (title, loading, error, result, Apply /
 * Cancel), the rows (a line per file, its answers when in conflict, its diff
 * on demand) and the diffs asked for. The two flows differ in what they read
 * and write; what they show is named by the flow (`ws.<flow>.*`).
 */
import { useState, type KeyboardEvent as ReactKeyboardEvent, type ReactNode, type RefObject } from 'react'
import type { Result } from '../controller.ts'
import type { StringKey, Translate } from '../i18n.ts'
import { clipLines, type BinarySides } from './model.ts'
import { binaryText, bytes, errorLine } from './NodeFiles.tsx'
import type { PreviewPhase } from './usePreviewFlow.ts'

/** Which preview: its strings are `ws.<flow>.*`, its test ids `session-tree-<flow>*`. */
export type PreviewFlow = 'restore' | 'carry'

/** One file's diff, asked for on demand. */
export type DiffLoad<D> =
  | { readonly phase: 'loading' }
  | { readonly phase: 'done'; readonly diff: D }
  | { readonly phase: 'error'; readonly code: string }

/** The diffs open in a preview, and the toggle that asks for one (a second click closes it). */
export function useDiffLoads<D>(
  ask: (path: string) => Promise<Result<D>>,
): [ReadonlyMap<string, DiffLoad<D>>, (path: string) => Promise<void>] {
  const [diffs, setDiffs] = useState<ReadonlyMap<string, DiffLoad<D>>>(() => new Map())
  const toggle = async (path: string) => {
    if (diffs.has(path)) {
      const next = new Map(diffs)
      next.delete(path)
      return setDiffs(next)
    }
    setDiffs((d) => new Map(d).set(path, { phase: 'loading' }))
    const diff = await ask(path)
    // Closed meanwhile: stays closed.
    setDiffs((d) =>
      d.has(path)
        ? new Map(d).set(
            path,
            diff.ok ? { phase: 'done', diff: diff.value } : { phase: 'error', code: diff.error.code },
          )
        : d,
    )
  }
  return [diffs, toggle]
}

/** Esc closes a preview. */
function closeOnEscape(onClose: () => void): (event: ReactKeyboardEvent) => void {
  return (event) => {
    if (event.key !== 'Escape') return
    event.preventDefault()
    onClose()
  }
}

export interface PreviewFrameProps<P, R> {
  readonly t: Translate
  readonly flow: PreviewFlow
  readonly title: string
  readonly phase: PreviewPhase<P, R>
  /** `usePreviewFlow`'s: focused when the preview opens. */
  readonly frameRef: RefObject<HTMLElement>
  /** What the preview is about, above the rest. */
  readonly intro: ReactNode
  /** The result, once applied. */
  readonly done: (result: R) => ReactNode
  /** Apply is possible (besides the decisions left). */
  readonly ready: boolean
  /** Nothing to apply: only Close. */
  readonly nothing?: boolean
  /** Conflicts not yet decided. */
  readonly left: number
  readonly onApply: () => void
  readonly onClose: () => void
  /** The plan's rows (and whatever goes with them), while there is a plan. */
  readonly children: ReactNode
}

/** A preview in place of the node preview: nothing is written before Apply; Esc cancels. */
export function PreviewFrame<P, R>({
  t,
  flow,
  title,
  phase,
  frameRef,
  intro,
  done,
  ready,
  nothing = false,
  left,
  onApply,
  onClose,
  children,
}: PreviewFrameProps<P, R>): ReactNode {
  const applying = phase.kind === 'applying'
  return (
    <aside
      ref={frameRef}
      className="dst-restore"
      tabIndex={-1}
      data-testid={`session-tree-${flow}`}
      data-phase={phase.kind}
      onKeyDown={closeOnEscape(onClose)}
      aria-label={title}
    >
      <h3>{title}</h3>
      {intro}
      {phase.kind === 'loading' ? (
        <p className="dst-ws-note" role="status">
          {t(`ws.${flow}.loading`)}
        </p>
      ) : null}
      {phase.kind === 'failed' ? (
        <ErrorBanner t={t} code={phase.code} message={phase.message} moved={phase.moved === true} />
      ) : null}
      {phase.kind === 'done' ? done(phase.result) : null}
      {children}
      <div className="dst-restore-foot">
        {phase.kind === 'done' || (phase.kind === 'failed' && phase.plan === undefined) || nothing ? (
          <button
            type="button"
            className="dst-btn dst-primary"
            data-testid="session-tree-restore-close"
            onClick={onClose}
          >
            {t('ws.restore.close')}
          </button>
        ) : (
          <>
            <button
              type="button"
              className="dst-btn dst-primary"
              data-testid="session-tree-restore-apply"
              disabled={!ready || left > 0 || applying}
              onClick={onApply}
            >
              {applying ? t(`ws.${flow}.applying`) : t('ws.restore.apply')}
            </button>
            <button type="button" className="dst-btn" onClick={onClose} disabled={applying}>
              {t('ws.restore.cancel')}
            </button>
            {left > 0 ? (
              <span className="dst-ws-note" data-testid="session-tree-restore-undecided">
                {t('ws.restore.undecided', { count: left })}
              </span>
            ) : null}
          </>
        )}
      </div>
      <p className="dst-ws-note">{t('ws.restore.keys')}</p>
    </aside>
  )
}

function ErrorBanner({
  t,
  code,
  message,
  moved,
}: {
  readonly t: Translate
  readonly code: string
  readonly message: string
  readonly moved: boolean
}): ReactNode {
  return (
    <p
      className="dst-banner"
      data-tone="error"
      role="alert"
      data-testid="session-tree-restore-error"
      data-code={code}
      title={message}
    >
      <span>
        {moved ? `${t('ws.err.movedOnly')} ` : ''}
        {errorLine(t, code)} <span className="dst-code">{code}</span>
      </span>
    </p>
  )
}

/** One file of a preview, as the flow names it. */
export interface PreviewRow<D extends string> {
  readonly path: string
  /** The row's `data-*` attributes besides its path (the tests and the styles read them). */
  readonly data: Readonly<Record<`data-${string}`, string | undefined>>
  /** What happens to it, and its kind for the style. */
  readonly tag: string
  readonly kind: string
  readonly binary: BinarySides | undefined
  readonly insertions: number
  readonly deletions: number
  /** In conflict: why, and the answers. */
  readonly conflict?: {
    readonly why: string
    readonly options: readonly { readonly value: D; readonly label: string }[]
  }
  /** Its diff, while open. */
  readonly diff?: ReactNode
}

/** The plan's rows: the stat, the conflicts, a line per file, the files that cannot be written; or that there is nothing to do. */
export function PreviewRows<D extends string>({
  t,
  flow,
  nothing,
  stat,
  conflicts,
  rows,
  blocked,
  decisions,
  disabled,
  onDecide,
  onDiff,
}: {
  readonly t: Translate
  readonly flow: PreviewFlow
  /** Said instead of the rows when there is nothing to do. */
  readonly nothing: string | undefined
  readonly stat: string
  readonly conflicts: number
  readonly rows: readonly PreviewRow<D>[]
  readonly blocked: readonly { readonly path: string; readonly reason: string }[]
  readonly decisions: ReadonlyMap<string, D>
  readonly disabled: boolean
  readonly onDecide: (path: string, decision: D) => void
  readonly onDiff: (path: string) => void
}): ReactNode {
  if (nothing !== undefined)
    return (
      <p className="dst-ws-note" data-testid={`session-tree-${flow}-empty`}>
        {nothing}
      </p>
    )
  return (
    <>
      <div className="dst-sub" data-testid={`session-tree-${flow}-stat`}>
        {stat}
      </div>
      {conflicts > 0 ? (
        <p className="dst-banner" data-tone="warn">
          {t(`ws.${flow}.conflicts`, { count: conflicts })}
        </p>
      ) : null}
      <ul className="dst-restore-rows" aria-label={t('ws.changed')}>
        {rows.map((row) => (
          <li key={row.path} data-path={row.path} {...row.data}>
            <FileLine
              t={t}
              row={row}
              open={row.diff !== undefined}
              diffTitle={t(`ws.${flow}.diffTitle`)}
              onDiff={() => onDiff(row.path)}
            />
            {row.conflict ? (
              <DecisionRadios<D>
                path={row.path}
                why={row.conflict.why}
                options={row.conflict.options}
                decision={decisions.get(row.path)}
                disabled={disabled}
                onDecide={(d) => onDecide(row.path, d)}
              />
            ) : null}
            {row.diff}
          </li>
        ))}
      </ul>
      <BlockedList t={t} blocked={blocked} />
    </>
  )
}

/** Files that cannot be written, each with why (left as they are). */
function BlockedList({
  t,
  blocked,
}: {
  readonly t: Translate
  readonly blocked: readonly { readonly path: string; readonly reason: string }[]
}): ReactNode {
  if (blocked.length === 0) return null
  return (
    <div className="dst-ws">
      <div className="dst-ws-note">{t('ws.restore.blocked')}</div>
      <ul className="dst-ws-list">
        {blocked.map((b) => (
          <li key={b.path}>
            <span className="dst-ws-path">{b.path}</span>
            <span className="dst-ws-note">{t(`ws.restore.blocked.${b.reason}` as StringKey)}</span>
          </li>
        ))}
      </ul>
    </div>
  )
}

/** One file of a preview: what happens to it, its path, its size change, and its diff on demand. */
function FileLine({
  t,
  row,
  open,
  diffTitle,
  onDiff,
}: {
  readonly t: Translate
  readonly row: PreviewRow<string>
  readonly open: boolean
  readonly diffTitle: string
  readonly onDiff: () => void
}): ReactNode {
  const { path, binary } = row
  return (
    <div className="dst-restore-line">
      <span className="dst-ws-tag" data-kind={row.kind}>
        {row.tag}
      </span>
      <span className="dst-ws-path" title={path}>
        {path}
      </span>
      {binary ? (
        // The line says binary and its size; the hash is in its title and in the diff on demand.
        <span className="dst-ws-stat" data-binary="true" title={binaryText(t, binary)}>
          {t('ws.binary.size', { size: bytes((binary.to ?? binary.from)?.size ?? 0) })}
        </span>
      ) : (
        <span className="dst-ws-stat">
          <ins>+{row.insertions}</ins> <del>−{row.deletions}</del>
        </span>
      )}
      <button type="button" className="dst-btn" aria-expanded={open} title={diffTitle} onClick={onDiff}>
        {open ? t('ws.restore.diffHide') : t('ws.restore.diff')}
      </button>
    </div>
  )
}

/** A conflict's answers, as a radio group (Space and the arrows choose). */
function DecisionRadios<D extends string>({
  path,
  why,
  options,
  decision,
  disabled,
  onDecide,
}: {
  readonly path: string
  readonly why: string
  readonly options: readonly { readonly value: D; readonly label: string }[]
  readonly decision: D | undefined
  readonly disabled: boolean
  readonly onDecide: (d: D) => void
}): ReactNode {
  const group = `dst-decide-${path}`
  return (
    <div className="dst-restore-decide" role="radiogroup" aria-label={`${path}: ${why}`}>
      <span className="dst-ws-note">{why}</span>
      {options.map(({ value, label }) => (
        <label key={value}>
          <input
            type="radio"
            name={group}
            value={value}
            checked={decision === value}
            disabled={disabled}
            data-decision={value}
            onChange={() => onDecide(value)}
          />
          {label}
        </label>
      ))}
    </div>
  )
}

/** A unified diff, clipped to whole lines, its hunks, additions and removals marked. */
export function DiffLines({ diff, testId }: { readonly diff: string; readonly testId: string }): ReactNode {
  const lines = clipLines(diff).text.split('\n')
  return (
    <pre className="dst-ws-code dst-ws-diff" data-testid={testId} tabIndex={0}>
      {lines.map((line, i) => (
        <span
          key={i}
          className={
            line.startsWith('@@')
              ? 'dst-ws-hunk'
              : line.startsWith('+') && !line.startsWith('+++')
                ? 'dst-ws-add'
                : line.startsWith('-') && !line.startsWith('---')
                  ? 'dst-ws-del'
                  : undefined
          }
        >
          {line}
          {i < lines.length - 1 ? '\n' : ''}
        </span>
      ))}
    </pre>
  )
}
