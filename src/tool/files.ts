/**
 * Moves that take the workspace files along, for the model tools and `/tree`:
 * the service's `restore` with the conflicts kept (or overwritten, when a
 * person says so), and the words and facts a result reports about the files.
 */
import { ok, type TreeResult } from '../tree/errors.ts'
import type { JsonValue } from '../tree/types.ts'
import type { SessionTreeService } from '../service/service.ts'
import type { MoveResult } from '../service/wire.ts'
import type { RestoreResult, WorkspaceMove } from '../service/workspace-wire.ts'
import { WorkspaceMoves } from '../service/workspace.ts'
import type { RestoreReport } from '../workspace/types.ts'
import type { MoveOp } from './deferred.ts'

/** A move's outcome: the conversation move, and what a files restore did. */
export type AppliedMove = MoveResult & {
  readonly files?: RestoreReport
  /** The files moved and the conversation stayed where it was. */
  readonly filesOnly?: boolean
}

function workspaceMoveOf(op: MoveOp): WorkspaceMove {
  return op.kind === 'jump' || op.kind === 'fork'
    ? { kind: op.kind, nodeId: op.nodeId, ...(op.kind === 'fork' ? { branch: op.branch } : {}) }
    : { kind: op.kind }
}

/** The move through the service's `restore`: files only or both (`callId`: inside the model's running step). */
export async function runFilesMove(
  service: SessionTreeService,
  agentId: string,
  op: MoveOp,
  callId?: string,
): Promise<TreeResult<AppliedMove>> {
  const restored: TreeResult<RestoreResult> = await service.restoreFor(
    agentId,
    {
      move: workspaceMoveOf(op),
      restore: op.files ?? 'both',
      conflicts: [{ path: '*', decision: op.overwrite ? 'overwrite' : 'keep' }],
    },
    callId,
  )
  if (!restored.ok) return restored
  const { move, files } = restored.value
  if (move) return ok({ ...move, ...(files ? { files } : {}) })
  const loaded = service.treeOf(agentId)
  if (!loaded.ok) return loaded
  const { tree, mode } = loaded.value
  return ok({
    cursor: tree.cursor,
    messages: tree.messages(),
    branch: tree.activeBranch,
    mode,
    ...(files ? { files } : {}),
    filesOnly: true,
  })
}

/** What a files restore did, in words. */
export function filesText(moved: AppliedMove, target: string | null): string {
  return moved.files ? WorkspaceMoves.describe({ restore: 'files', target, files: moved.files }) : ''
}

export function filesValue(moved: AppliedMove): { [key: string]: JsonValue } {
  const files = moved.files
  return files
    ? { created: [...files.created], updated: [...files.updated], deleted: [...files.deleted], kept: [...files.kept] }
    : {}
}

export function filesOf(op: MoveOp): { files?: MoveOp['files']; overwrite?: boolean } {
  return { ...(op.files === undefined ? {} : { files: op.files }), ...(op.overwrite ? { overwrite: true } : {}) }
}
