/**
 * A node id a request names, checked as the conversation moves check it
 * (`move.ts`): malformed (empty, padded, too long, not a string) is
 * `INVALID_ARGUMENT`, well-formed but not in the tree `NODE_NOT_FOUND`.
 */
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import { checkNodeId, Invalid } from '../tree/validate.ts'
import { clipped, quoted } from './clip.ts'

export function checkNode(tree: SessionTree, nodeId: unknown): TreeResult<string> {
  try {
    checkNodeId(nodeId)
  } catch (error) {
    if (!(error instanceof Invalid)) throw error
    return fail('INVALID_ARGUMENT', error.reason, {
      nodeId: typeof nodeId === 'string' ? clipped(nodeId) : typeof nodeId,
    })
  }
  const id = nodeId as string
  if (!tree.has(id)) return fail('NODE_NOT_FOUND', `no node ${quoted(id)}`, { nodeId: id })
  return ok(id)
}
