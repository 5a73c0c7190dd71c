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

/** One `outlineChanges` answer as a reader's caller got it: the changes, or its own failure. */
export type OutlineChangesAnswer<E> =
  { readonly ok: true; readonly value: SessionTreeOutlineChanges } | { readonly ok: false; readonly error: E }

/**
 * An outline held between reads (the Tree tab's, dsh-TUI's scene's): each read asks what changed since the
 * version it holds, so after a jump or a label only what changed travels, and merges it. An answer that does not
 * fit what it holds (another tree, a restarted host) is asked again whole.
 */
export class OutlineReader {
  private held: SessionTreeOutline | undefined
  private version: string | undefined

  /**
   * The outline now (what it holds from then on), or `ask`'s failure (what it held is kept), or undefined when
   * even a whole answer did not fit (a malformed answer: what it held is dropped, the next read starts whole).
   */
  async read<E>(
    ask: (since: string | null) => OutlineChangesAnswer<E> | Promise<OutlineChangesAnswer<E>>,
  ): Promise<
    { readonly ok: true; readonly value: SessionTreeOutline } | { readonly ok: false; readonly error: E } | undefined
  > {
    for (const since of this.version === undefined ? [null] : [this.version, null]) {
      const answer = await ask(since)
      if (!answer.ok) return answer
      const outline = applyOutlineChanges(this.held, this.version, answer.value)
      if (outline === undefined) continue
      this.held = outline
      this.version = answer.value.version
      return { ok: true, value: outline }
    }
    this.held = undefined
    this.version = undefined
    return undefined
  }
}
