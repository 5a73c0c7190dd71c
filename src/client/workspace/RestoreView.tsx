/**
 * The restore flow, shown in place of the preview: what the move would do to
 * the files (added, changed, deleted, with a diff stat; each file's diff on
 * demand), the files the user changed outside the agent with a decision each
 * (Apply stays disabled until every one is decided), then the result. Nothing
 * is written before Apply. Keyboard: Tab through it, Space/arrows choose, Esc
 * cancels.
 */
import { useCallback, useMemo, type ReactNode } from 'react'
import type { ConflictDecision, FileDiff, RestoreAnswer, RestoreChoice, TreeMove } from '../../types.ts'
import type { StringKey, Translate } from '../i18n.ts'
import type { WorkspaceClient } from './client.ts'
import type { Result } from '../controller.ts'
import {
  canApply,
  binarySides,
  conversationMoved,
  keepDecisions,
  planView,
  restoreRequest,
  resultView,
  undecided,
  type PlanView,
} from './model.ts'
import { DiffLines, PreviewFrame, PreviewRows, useDiffLoads, type DiffLoad } from './FilesPreview.tsx'
import { binaryText, LoadNote } from './NodeFiles.tsx'
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
    <PreviewFrame
      t={t}
      flow="restore"
      title={t(`ws.restore.title.${move.kind}`, {
        target: targetName,
        branch: move.kind === 'fork' ? move.branch : '',
      })}
      phase={phase}
      frameRef={ref}
      intro={
        <>
          <p className="dst-ws-note">{t(`ws.restore.what.${restore}`)}</p>
          {plan?.snappedFrom ? <p className="dst-ws-note">{t('ws.restore.snapped', { target: targetName })}</p> : null}
        </>
      }
      done={(result) => <Done t={t} result={result} name={(id) => (id === null ? t('ws.restore.start') : name(id))} />}
      ready={plan !== undefined}
      left={left.length}
      onApply={applyPlan}
      onClose={onClose}
    >
      {plan ? (
        <PreviewRows<ConflictDecision>
          t={t}
          flow="restore"
          nothing={
            plan.empty ? (restore === 'both' ? t('ws.restore.nothing') : t('ws.restore.nothingFiles')) : undefined
          }
          stat={t('ws.restore.stat', {
            files: plan.stat.files,
            insertions: plan.stat.insertions,
            deletions: plan.stat.deletions,
          })}
          conflicts={plan.conflicts.length}
          rows={plan.rows.map((row) => ({
            path: row.path,
            data: { 'data-action': row.action, 'data-conflict': row.conflict },
            tag: t(`ws.restore.action.${row.action}`),
            kind: row.conflict ? 'conflict' : row.action,
            binary: row.binary,
            insertions: row.insertions,
            deletions: row.deletions,
            ...(row.conflict
              ? { conflict: { why: t(`ws.restore.reason.${row.conflict}` as StringKey), options: restoreDecisions(t) } }
              : {}),
            ...(diffs.has(row.path) ? { diff: <DiffText t={t} load={diffs.get(row.path)!} /> } : {}),
          }))}
          blocked={plan.blocked}
          decisions={decisions}
          disabled={phase.kind === 'applying'}
          onDecide={decide}
          onDiff={(path) => void toggleDiff(path)}
        />
      ) : null}
    </PreviewFrame>
  )
}

/** A conflict's answers: keep what the user wrote, or overwrite it with the target's. */
function restoreDecisions(t: Translate): readonly { readonly value: ConflictDecision; readonly label: string }[] {
  return [
    { value: 'keep', label: t('ws.restore.keep') },
    { value: 'overwrite', label: t('ws.restore.overwrite') },
  ]
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
