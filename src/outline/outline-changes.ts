/** An outline kept current from `outlineChanges` answers: only the nodes that changed travel. */
import type { SessionTreeOutline, SessionTreeOutlineChanges } from '../tree/types.ts'

/**
 * The outline after `changes`, from `held` (the outline of the answer whose version `changes.base` names):
 * undefined when `changes` does not apply to it (another base, positions out of order or past the count, a
 * whole answer of the wrong length), so the caller asks again for every node rather than show a wrong tree.
 * A whole answer (`base` null) applies to anything.
 */
export function applyOutlineChanges(
  held: SessionTreeOutline | undefined,
  heldVersion: string | undefined,
  changes: SessionTreeOutlineChanges,
): SessionTreeOutline | undefined {
  const { version: _version, base, nodeCount, changedAt, nodes: changed, ...position } = changes
  let nodes: SessionTreeOutline['nodes']
  if (base === null) {
    if (changed.length !== nodeCount || changedAt.length !== 0) return undefined
    nodes = changed
  } else {
    if (held === undefined || base !== heldVersion || changedAt.length !== changed.length) return undefined
    // Unchanged nodes keep their objects: a view that compares by identity sees what moved.
    const next = held.nodes.slice(0, nodeCount)
    let last = -1
    for (let i = 0; i < changedAt.length; i++) {
      const at = changedAt[i]!
      // Ascending, and at most one past what is filled (no hole); past the count fails the length check below.
      if (!Number.isInteger(at) || at <= last || at > next.length) return undefined
      next[at] = changed[i]!
      last = at
    }
    if (next.length !== nodeCount) return undefined
    nodes = next
  }
  return { ...position, nodes }
}
