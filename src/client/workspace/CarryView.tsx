/**
 * The Tree tab's Carry, shown in place of the preview: what carrying another
 * branch's file changes here would do per file (applies cleanly, merges,
 * conflict, kept; binary and deleted files said so; what each would become
 * here on demand), a decision for every conflict (Apply waits for them), an
 * optional summary of that branch, then the result. Nothing is written
 * before Apply; Back with the files undoes it. The parts are the restore
 * preview's (`FilesPreview.tsx`).
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
  DiffLines,
  PreviewFrame,
  PreviewRows,
  useDiffLoads,
  type DiffLoad as Load,
  type PreviewRow,
} from './FilesPreview.tsx'
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

  const at = (id: string | null) => (id === null ? t('ws.restore.start') : name(id))
  return (
    <PreviewFrame
      t={t}
      flow="carry"
      title={t('ws.carry.title', { from: name(from) })}
      phase={phase}
      frameRef={ref}
      intro={
        preview ? (
          <p className="dst-ws-note">
            {t('ws.carry.what', { from: name(preview.from), common: at(preview.common), at: at(preview.at) })}
          </p>
        ) : null
      }
      done={(result) => <Done t={t} result={result} name={name} />}
      ready={view !== undefined && !summaryBlocked}
      nothing={view?.empty === true}
      left={left.length}
      onApply={applyPlan}
      onClose={onClose}
    >
      {preview && view ? (
        <>
          <PreviewRows<CarryDecision>
            t={t}
            flow="carry"
            nothing={view.empty ? t('ws.carry.nothing') : undefined}
            stat={t('ws.carry.stat', { ...preview.stat })}
            conflicts={view.conflicts.length}
            rows={view.rows.map((row) => rowOf(t, row, diffs.get(row.path)))}
            blocked={view.blocked}
            decisions={decisions}
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
    </PreviewFrame>
  )
}

/** A carry row as the preview shows it: a taken deletion says delete; a conflict offers the answers its file allows. */
function rowOf(t: Translate, row: CarryRow, diff: DiffLoad | undefined): PreviewRow<CarryDecision> {
  return {
    path: row.path,
    data: {
      'data-action': row.action,
      'data-deletes': row.deletes ? 'true' : undefined,
      'data-binary': row.binary ? 'true' : undefined,
      'data-conflict': row.reason,
    },
    tag: row.deletes ? t('ws.carry.action.delete') : t(`ws.carry.action.${row.action}`),
    kind: row.action === 'take' ? (row.deletes ? 'delete' : 'create') : row.action === 'merge' ? 'update' : row.action,
    binary: row.binary,
    insertions: row.insertions,
    deletions: row.deletions,
    ...(row.action === 'conflict'
      ? {
          conflict: {
            why: t(`ws.carry.reason.${row.reason ?? 'text'}` as StringKey, { count: row.hunks ?? 1 }),
            options: carryDecisions(row).map((value) => ({ value, label: t(DECISION_LABEL[value]) })),
          },
        }
      : {}),
    ...(diff ? { diff: <Diff t={t} row={row} load={diff} /> } : {}),
  }
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
