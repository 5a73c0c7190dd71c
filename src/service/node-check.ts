/**
 * A node id a request names (a move's target, a workspace request's node):
 * malformed (empty, padded, too long, control characters, not a string) is
 * `INVALID_ARGUMENT`, not a missing node; well-formed but not in the tree `NODE_NOT_FOUND`.
 */
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import { checkNodeId, MAX_ID_LENGTH, validated } from '../tree/validate.ts'
import { clipped, quoted } from './clip.ts'

export function checkNode(tree: SessionTree, nodeId: unknown): TreeResult<string> {
  if (typeof nodeId === 'string' && nodeId.length > MAX_ID_LENGTH) {
    // A huge id is echoed clipped, with its length.
    return fail('INVALID_ARGUMENT', `nodeId ${quoted(nodeId)} is longer than ${MAX_ID_LENGTH} characters`, {
      nodeId: clipped(nodeId),
    })
  }
  const checked = validated(() => checkNodeId(nodeId))
  if (!checked.ok)
    return fail('INVALID_ARGUMENT', checked.error.message, {
      nodeId: typeof nodeId === 'string' ? clipped(nodeId) : typeof nodeId,
    })
  const id = checked.value
  if (!tree.has(id)) return fail('NODE_NOT_FOUND', `no node ${quoted(id)}`, { nodeId: id })
  return ok(id)
}
