/**
 * A move made for the model tools and `/tree`: through the service's one in-process move (`move`), and the
 * words and facts its answer reports about the files.
 */
import { ok, type TreeResult } from '../tree/errors.ts'
import type { JsonValue } from '../tree/types.ts'
import type { SessionTreeService } from '../service/service.ts'
import type { MoveResult } from '../service/wire.ts'
import { WorkspaceMoves } from '../service/workspace.ts'
import type { TreeMove } from '../service/tree-move.ts'
import type { RestoreReport } from '../workspace/types.ts'

/** A move's outcome: the conversation move, and what a files restore did. */
export type AppliedMove = MoveResult & {
  readonly files?: RestoreReport
  /** The files moved and the conversation stayed where it was. */
  readonly filesOnly?: boolean
}

/** Make `move` now (`callId`: inside the model's running step); a files-only move answers with where the conversation is. */
export async function runMove(
  service: SessionTreeService,
  agentId: string,
  move: TreeMove,
  callId?: string,
): Promise<TreeResult<AppliedMove>> {
  const restored = await service.move(agentId, move, callId)
  if (!restored.ok) return restored
  const { move: moved, files } = restored.value
  if (moved) return ok({ ...moved, ...(files ? { files } : {}) })
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
