/**
 * The Tree tab's Carry, shown in place of the preview: what carrying another
 * branch's file changes here would do per file (applies cleanly, merges,
 * conflict, kept; binary and deleted files said so; what each would become
 * here on demand), a decision for every conflict (Apply waits for them), an
 * optional summary of that branch, then the result. Nothing is written
 * before Apply; Back with the files undoes it. The parts are the restore
 * preview's (`RestoreView.tsx`).
 */
import { useCallback, useState, type ReactNode } from 'react'
import type { CarryDecision, CarryDiff, CarryPreview, CarryResult, SurfaceMode } from '../../types.ts'
import type { Result } from '../controller.ts'
import type { StringKey, Translate } from '../i18n.ts'
import { moveOptions, NO_SUMMARY, type SummaryChoiceState } from '../summary/choice.ts'
import { SummaryChoiceField } from '../summary/SummaryChoice.tsx'
import type { WorkspaceClient } from './client.ts'
import { carryDecisions, carryRequest, carryView, type CarryRow, type CarryView as View } from './model.ts'
import { binaryText, LoadNote } from './NodeFiles.tsx'
import {
  BlockedList,
  closeOnEscape,
  DecisionRadios,
  DiffLines,
  ErrorBanner,
  FileLine,
  useDiffLoads,
  ViewFoot,
  type DiffLoad as Load,
} from './RestoreView.tsx'
import { usePreviewFlow } from './usePreviewFlow.ts'

export interface CarryViewProps {
  readonly t: Translate
  readonly client: WorkspaceClient
  /** The node whose branch's changes are carried. */
  readonly from: string
  readonly name: (nodeId: string | null) => string
  readonly mode: SurfaceMode | undefined
  /** After a carry that changed something (the tree and markers refresh). */
  readonly onCarried: () => void
  readonly onClose: () => void
}

/** What Apply would carry: the preview as the service answered it, and its rows and conflicts. */
interface Plan {
  readonly preview: CarryPreview
  readonly view: View
}

/** A new preview keeps only the answers for files still in conflict. */
const keepDecisions = (plan: Plan, decisions: ReadonlyMap<string, CarryDecision>) =>
  new Map([...decisions].filter(([path]) => plan.view.conflicts.includes(path)))

type DiffLoad = Load<CarryDiff>

const DECISION_LABEL = { mine: 'ws.carry.mine', theirs: 'ws.carry.theirs', markers: 'ws.carry.markers' } as const

export function CarryView({ t, client, from, name, mode, onCarried, onClose }: CarryViewProps): ReactNode {
  const [diffs, toggleDiff] = useDiffLoads((path) => client.carryDiff({ from }, path))
  const [summary, setSummary] = useState<SummaryChoiceState>(NO_SUMMARY)
  const read = useCallback(async (): Promise<Result<Plan>> => {
    const preview = await client.carryPreview({ from })
    return preview.ok ? { ok: true, value: { preview: preview.value, view: carryView(preview.value) } } : preview
  }, [client, from])
  const { phase, plan, decisions, decide, apply, ref } = usePreviewFlow<Plan, CarryResult, CarryDecision>(
    read,
    keepDecisions,
  )

  const preview = plan?.preview
  const view = plan?.view
  const left = view ? view.conflicts.filter((path) => !decisions.has(path)) : []
  const options = moveOptions(summary, mode)
  const summaryBlocked = summary.kind !== 'none' && options === undefined

  const applyPlan = () => {
    if (!plan || left.length > 0 || summaryBlocked) return
    void apply(
      plan,
      () => client.carry(carryRequest(plan.preview.from, plan.view, decisions, options?.summary)),
      onCarried,
    )
  }

  const onKeyDown = closeOnEscape(onClose)

  const at = (id: string | null) => (id === null ? t('ws.restore.start') : name(id))
  const title = t('ws.carry.title', { from: name(from) })
  return (
    <aside
      ref={ref}
      className="dst-restore"
      tabIndex={-1}
      data-testid="session-tree-carry"
      data-phase={phase.kind}
      onKeyDown={onKeyDown}
      aria-label={title}
    >
      <h3>{title}</h3>
      {preview ? (
        <p className="dst-ws-note">
          {t('ws.carry.what', { from: name(preview.from), common: at(preview.common), at: at(preview.at) })}
        </p>
      ) : null}
      {phase.kind === 'loading' ? (
        <p className="dst-ws-note" role="status">
          {t('ws.carry.loading')}
        </p>
      ) : null}
      {phase.kind === 'failed' ? <ErrorBanner t={t} code={phase.code} message={phase.message} moved={false} /> : null}
      {phase.kind === 'done' ? <Done t={t} result={phase.result} name={name} /> : null}
      {preview && view && phase.kind !== 'done' ? (
        <>
          <Rows
            t={t}
            preview={preview}
            view={view}
            decisions={decisions}
            diffs={diffs}
            disabled={phase.kind === 'applying'}
            onDecide={decide}
            onDiff={(path) => void toggleDiff(path)}
          />
          {view.empty ? null : (
            <SummaryChoiceField
              t={t}
              state={summary}
              onChange={setSummary}
              mode={mode}
              busy={phase.kind === 'applying'}
              legend={t('ws.carry.legend')}
              note={t('ws.carry.summaryNote')}
            />
          )}
        </>
      ) : null}
      <ViewFoot
        t={t}
        closing={phase.kind === 'done' || (phase.kind === 'failed' && !view) || view?.empty === true}
        ready={view !== undefined && !summaryBlocked}
        applying={phase.kind === 'applying'}
        left={left.length}
        applyingLabel={t('ws.carry.applying')}
        onApply={applyPlan}
        onClose={onClose}
      />
      <p className="dst-ws-note">{t('ws.restore.keys')}</p>
    </aside>
  )
}

function tagOf(t: Translate, row: CarryRow): string {
  if (row.deletes) return t('ws.carry.action.delete')
  return t(`ws.carry.action.${row.action}`)
}

function Rows({
  t,
  preview,
  view,
  decisions,
  diffs,
  disabled,
  onDecide,
  onDiff,
}: {
  readonly t: Translate
  readonly preview: CarryPreview
  readonly view: View
  readonly decisions: ReadonlyMap<string, CarryDecision>
  readonly diffs: ReadonlyMap<string, DiffLoad>
  readonly disabled: boolean
  readonly onDecide: (path: string, decision: CarryDecision) => void
  readonly onDiff: (path: string) => void
}): ReactNode {
  if (view.empty)
    return (
      <p className="dst-ws-note" data-testid="session-tree-carry-empty">
        {t('ws.carry.nothing')}
      </p>
    )
  return (
    <>
      <div className="dst-sub" data-testid="session-tree-carry-stat">
        {t('ws.carry.stat', { ...preview.stat })}
      </div>
      {view.conflicts.length > 0 ? (
        <p className="dst-banner" data-tone="warn">
          {t('ws.carry.conflicts', { count: view.conflicts.length })}
        </p>
      ) : null}
      <ul className="dst-restore-rows" aria-label={t('ws.changed')}>
        {view.rows.map((row) => (
          <li
            key={row.path}
            data-path={row.path}
            data-action={row.action}
            data-deletes={row.deletes ? 'true' : undefined}
            data-binary={row.binary ? 'true' : undefined}
            data-conflict={row.reason}
          >
            <FileLine
              t={t}
              path={row.path}
              tag={tagOf(t, row)}
              kind={
                row.action === 'take'
                  ? row.deletes
                    ? 'delete'
                    : 'create'
                  : row.action === 'merge'
                    ? 'update'
                    : row.action
              }
              binary={row.binary}
              insertions={row.insertions}
              deletions={row.deletions}
              open={diffs.has(row.path)}
              diffTitle={t('ws.carry.diffTitle')}
              onDiff={() => onDiff(row.path)}
            />
            {row.action === 'conflict' ? (
              <DecisionRadios<CarryDecision>
                path={row.path}
                why={t(`ws.carry.reason.${row.reason ?? 'text'}` as StringKey, { count: row.hunks ?? 1 })}
                options={carryDecisions(row).map((value) => ({ value, label: t(DECISION_LABEL[value]) }))}
                decision={decisions.get(row.path)}
                disabled={disabled}
                onDecide={(d) => onDecide(row.path, d)}
              />
            ) : null}
            {diffs.has(row.path) ? <Diff t={t} row={row} load={diffs.get(row.path)!} /> : null}
          </li>
        ))}
      </ul>
      <BlockedList t={t} blocked={view.blocked} />
    </>
  )
}

function Diff({ t, row, load }: { readonly t: Translate; readonly row: CarryRow; readonly load: DiffLoad }): ReactNode {
  if (load.phase !== 'done') return <LoadNote t={t} load={load} />
  if (row.binary)
    return (
      <p className="dst-ws-note" data-testid="session-tree-carry-diff" data-binary="true">
        {binaryText(t, row.binary)}
      </p>
    )
  // A conflict shows the merge with its markers; the others what the carry writes here.
  if (load.diff.result === '')
    return (
      <p className="dst-ws-note" data-testid="session-tree-carry-diff">
        {t('ws.carry.noDiff')}
      </p>
    )
  return <DiffLines diff={load.diff.result} testId="session-tree-carry-diff" />
}

function Done({
  t,
  result,
  name,
}: {
  readonly t: Translate
  readonly result: CarryResult
  readonly name: (id: string | null) => string
}): ReactNode {
  const from = name(result.from)
  const written = [...result.taken, ...result.merged, ...result.marked]
  return (
    <div className="dst-ws" data-testid="session-tree-carry-result">
      <p className="dst-banner" data-tone="ok" role="status">
        {written.length === 0
          ? t('ws.carry.doneNone', { from })
          : t('ws.carry.done', {
              from,
              taken: result.taken.length,
              merged: result.merged.length,
              marked: result.marked.length,
            })}
      </p>
      {written.length > 0 ? (
        <p className="dst-ws-note" data-testid="session-tree-carry-written">
          {t('ws.carry.files', { paths: written.join(', ') })}
        </p>
      ) : null}
      {result.files.kept.length > 0 ? (
        <p className="dst-ws-note">{t('ws.carry.keptMine', { paths: result.files.kept.join(', ') })}</p>
      ) : null}
      {result.files.blocked.length > 0 ? (
        <p className="dst-ws-note">
          {t('ws.restore.blocked')} {result.files.blocked.map((b) => b.path).join(', ')}
        </p>
      ) : null}
      {result.summary ? (
        <p className="dst-ws-note" data-testid="session-tree-carry-summary">
          {t(result.summary.carriedNodeId === undefined ? 'ws.carry.summaryPanel' : 'ws.carry.summary', {
            branch: result.summary.branch,
          })}
        </p>
      ) : null}
      {result.summaryFailed ? (
        <p className="dst-banner" data-tone="warn" role="alert">
          {t('ws.carry.summaryFailed', { message: result.summaryFailed.message })}
        </p>
      ) : null}
      {written.length > 0 ? <p className="dst-ws-note">{t('ws.carry.undo')}</p> : null}
    </div>
  )
}
