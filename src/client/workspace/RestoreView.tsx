/**
 * The restore flow, shown in place of the preview: what the move would do to
 * the files (added, changed, deleted, with a diff stat; each file's diff on
 * demand), the files the user changed outside the agent with a decision each
 * (Apply stays disabled until every one is decided), then the result. Nothing
 * is written before Apply. Keyboard: Tab through it, Space/arrows choose, Esc
 * cancels.
 */
import { useCallback, useMemo, useState, type KeyboardEvent as ReactKeyboardEvent, type ReactNode } from 'react'
import type { ConflictDecision, FileDiff, RestoreAnswer, RestoreChoice, TreeMove } from '../../types.ts'
import type { StringKey, Translate } from '../i18n.ts'
import type { WorkspaceClient } from './client.ts'
import type { Result } from '../controller.ts'
import {
  canApply,
  binarySides,
  clipLines,
  conversationMoved,
  keepDecisions,
  planView,
  restoreRequest,
  resultView,
  undecided,
  type BinarySides,
  type Decisions,
  type PlanView,
} from './model.ts'
import { binaryText, bytes, errorLine, LoadNote } from './NodeFiles.tsx'
import { usePreviewFlow } from './usePreviewFlow.ts'

export interface RestoreViewProps {
  readonly t: Translate
  readonly client: WorkspaceClient
  readonly move: TreeMove
  readonly restore: Exclude<RestoreChoice, 'conversation'>
  /** How a node is named to the user (its id and a few words). */
  readonly name: (nodeId: string | null) => string
  /** After a restore that changed something (the tree and markers refresh). */
  readonly onRestored: () => void
  readonly onClose: () => void
}

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
export function closeOnEscape(onClose: () => void): (event: ReactKeyboardEvent) => void {
  return (event) => {
    if (event.key !== 'Escape') return
    event.preventDefault()
    onClose()
  }
}

export function RestoreView({ t, client, move, restore, name, onRestored, onClose }: RestoreViewProps): ReactNode {
  const request = useMemo(() => ({ move, restore }), [move, restore])
  const [diffs, toggleDiff] = useDiffLoads((path) => client.diff(request, path))
  const read = useCallback(async (): Promise<Result<PlanView>> => {
    const preview = await client.preview(request)
    return preview.ok ? { ok: true, value: planView(preview.value) } : preview
  }, [client, request])
  const { phase, plan, decisions, decide, apply, ref } = usePreviewFlow<PlanView, RestoreAnswer, ConflictDecision>(
    read,
    keepDecisions,
  )

  const applyPlan = () => {
    if (!plan || !canApply(plan, decisions)) return
    void apply(
      plan,
      () => client.restore(restoreRequest(move, restore, plan, decisions)),
      onRestored,
      conversationMoved,
    )
  }

  const onKeyDown = closeOnEscape(onClose)

  const target =
    plan?.target !== undefined
      ? plan.target
      : phase.kind === 'done'
        ? phase.result.target
        : move.kind === 'jump' || move.kind === 'fork'
          ? (move.nodeId ?? null)
          : undefined
  const targetName = target === undefined ? '…' : target === null ? t('ws.restore.start') : name(target)
  const left = plan ? undecided(plan, decisions) : []
  return (
    <aside
      ref={ref}
      className="dst-restore"
      tabIndex={-1}
      data-testid="session-tree-restore"
      data-phase={phase.kind}
      onKeyDown={onKeyDown}
      aria-label={t(`ws.restore.title.${move.kind}`, {
        target: targetName,
        branch: move.kind === 'fork' ? move.branch : '',
      })}
    >
      <h3>
        {t(`ws.restore.title.${move.kind}`, { target: targetName, branch: move.kind === 'fork' ? move.branch : '' })}
      </h3>
      <p className="dst-ws-note">{t(`ws.restore.what.${restore}`)}</p>
      {plan?.snappedFrom ? <p className="dst-ws-note">{t('ws.restore.snapped', { target: targetName })}</p> : null}
      {phase.kind === 'loading' ? (
        <p className="dst-ws-note" role="status">
          {t('ws.restore.loading')}
        </p>
      ) : null}
      {phase.kind === 'failed' ? (
        <ErrorBanner t={t} code={phase.code} message={phase.message} moved={phase.moved === true} />
      ) : null}
      {phase.kind === 'done' ? (
        <Done t={t} result={phase.result} name={(id) => (id === null ? t('ws.restore.start') : name(id))} />
      ) : null}
      {plan && phase.kind !== 'done' ? (
        <PlanRows
          t={t}
          plan={plan}
          restore={restore}
          decisions={decisions}
          diffs={diffs}
          disabled={phase.kind === 'applying'}
          onDecide={decide}
          onDiff={(path) => void toggleDiff(path)}
        />
      ) : null}
      <ViewFoot
        t={t}
        closing={phase.kind === 'done' || (phase.kind === 'failed' && !plan)}
        ready={plan !== undefined}
        applying={phase.kind === 'applying'}
        left={left.length}
        applyingLabel={t('ws.restore.applying')}
        onApply={applyPlan}
        onClose={onClose}
      />
      <p className="dst-ws-note">{t('ws.restore.keys')}</p>
    </aside>
  )
}

/** Apply / Cancel and what is left to decide; Close once there is nothing to apply. */
export function ViewFoot({
  t,
  closing,
  ready,
  applying,
  left,
  applyingLabel,
  onApply,
  onClose,
}: {
  readonly t: Translate
  readonly closing: boolean
  readonly ready: boolean
  readonly applying: boolean
  readonly left: number
  readonly applyingLabel: string
  readonly onApply: () => void
  readonly onClose: () => void
}): ReactNode {
  return (
    <div className="dst-restore-foot">
      {closing ? (
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
            {applying ? applyingLabel : t('ws.restore.apply')}
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
  )
}

export function ErrorBanner({
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

function Done({
  t,
  result,
  name,
}: {
  readonly t: Translate
  readonly result: RestoreAnswer
  readonly name: (id: string | null) => string
}): ReactNode {
  const view = resultView(result)
  const target = name(view.target)
  return (
    <div className="dst-ws" data-testid="session-tree-restore-result">
      <p className="dst-banner" data-tone="ok" role="status">
        {view.none
          ? t('ws.restore.doneNone', { target })
          : t('ws.restore.done', { target, created: view.created, updated: view.updated, deleted: view.deleted })}
      </p>
      {view.moved ? <p className="dst-ws-note">{t('ws.restore.moved', { target })}</p> : null}
      {view.kept.length > 0 ? (
        <p className="dst-ws-note" data-testid="session-tree-restore-kept">
          {t('ws.restore.kept', { paths: view.kept.join(', ') })}
        </p>
      ) : null}
      {view.blocked.length > 0 ? (
        <p className="dst-ws-note">
          {t('ws.restore.blocked')} {view.blocked.join(', ')}
        </p>
      ) : null}
      {!view.none ? <p className="dst-ws-note">{t('ws.restore.undo')}</p> : null}
    </div>
  )
}

interface PlanRowsProps {
  readonly t: Translate
  readonly plan: PlanView
  readonly restore: Exclude<RestoreChoice, 'conversation'>
  readonly decisions: Decisions
  readonly diffs: ReadonlyMap<string, DiffLoad<FileDiff>>
  readonly disabled: boolean
  readonly onDecide: (path: string, decision: ConflictDecision) => void
  readonly onDiff: (path: string) => void
}

function PlanRows({ t, plan, restore, decisions, diffs, disabled, onDecide, onDiff }: PlanRowsProps): ReactNode {
  if (plan.empty)
    return (
      <p className="dst-ws-note" data-testid="session-tree-restore-empty">
        {restore === 'both' ? t('ws.restore.nothing') : t('ws.restore.nothingFiles')}
      </p>
    )
  return (
    <>
      <div className="dst-sub" data-testid="session-tree-restore-stat">
        {t('ws.restore.stat', {
          files: plan.stat.files,
          insertions: plan.stat.insertions,
          deletions: plan.stat.deletions,
        })}
      </div>
      {plan.conflicts.length > 0 ? (
        <p className="dst-banner" data-tone="warn">
          {t('ws.restore.conflicts', { count: plan.conflicts.length })}
        </p>
      ) : null}
      <ul className="dst-restore-rows" aria-label={t('ws.changed')}>
        {plan.rows.map((row) => (
          <li key={row.path} data-path={row.path} data-action={row.action} data-conflict={row.conflict}>
            <FileLine
              t={t}
              path={row.path}
              tag={t(`ws.restore.action.${row.action}`)}
              kind={row.conflict ? 'conflict' : row.action}
              binary={row.binary}
              insertions={row.insertions}
              deletions={row.deletions}
              open={diffs.has(row.path)}
              diffTitle={t('ws.restore.diffTitle')}
              onDiff={() => onDiff(row.path)}
            />
            {row.conflict ? (
              <DecisionRadios<ConflictDecision>
                path={row.path}
                why={t(`ws.restore.reason.${row.conflict}` as StringKey)}
                options={[
                  { value: 'keep', label: t('ws.restore.keep') },
                  { value: 'overwrite', label: t('ws.restore.overwrite') },
                ]}
                decision={decisions.get(row.path)}
                disabled={disabled}
                onDecide={(d) => onDecide(row.path, d)}
              />
            ) : null}
            {diffs.has(row.path) ? <DiffText t={t} load={diffs.get(row.path)!} /> : null}
          </li>
        ))}
      </ul>
      <BlockedList t={t} blocked={plan.blocked} />
    </>
  )
}

/** Files that cannot be written, each with why (left as they are). */
export function BlockedList({
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
export function FileLine({
  t,
  path,
  tag,
  kind,
  binary,
  insertions,
  deletions,
  open,
  diffTitle,
  onDiff,
}: {
  readonly t: Translate
  readonly path: string
  readonly tag: string
  readonly kind: string
  readonly binary: BinarySides | undefined
  readonly insertions: number
  readonly deletions: number
  readonly open: boolean
  readonly diffTitle: string
  readonly onDiff: () => void
}): ReactNode {
  return (
    <div className="dst-restore-line">
      <span className="dst-ws-tag" data-kind={kind}>
        {tag}
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
          <ins>+{insertions}</ins> <del>−{deletions}</del>
        </span>
      )}
      <button type="button" className="dst-btn" aria-expanded={open} title={diffTitle} onClick={onDiff}>
        {open ? t('ws.restore.diffHide') : t('ws.restore.diff')}
      </button>
    </div>
  )
}

/** A conflict's answers, as a radio group (Space and the arrows choose). */
export function DecisionRadios<D extends string>({
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

function DiffText({ t, load }: { readonly t: Translate; readonly load: DiffLoad<FileDiff> }): ReactNode {
  if (load.phase !== 'done') return <LoadNote t={t} load={load} />
  const binary = binarySides(load.diff.current, load.diff.target)
  if (binary)
    return (
      <p className="dst-ws-note" data-testid="session-tree-restore-diff" data-binary="true">
        {binaryText(t, binary)}
      </p>
    )
  return <DiffLines diff={load.diff.diff} testId="session-tree-restore-diff" />
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
