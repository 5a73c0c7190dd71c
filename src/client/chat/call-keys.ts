/**
 * Context ids for DSH's tool Definitions that stay unique when a log repeats a
 * call id (pure); the keying rule and why: docs/chat.md, "Logs that repeat a
 * call id". An id once given to a seq is given again (the host re-dispatches).
 * One table serves the page: two sessions sharing a call id (a host "Branch"
 * child and its parent) never get one id twice within one of them; at worst a
 * result pairs with the other session's call (a card without it, never a throw).
 */

/**
 * Separates the call id from the seq of a repeated call. Not NUL: the key
 * becomes the row's `data-chat-flow-key`, and CSS cannot match a NUL (it
 * reads an escaped one as U+FFFD), so the Chat's rules could not hide it.
 */
export const REPEAT_SEPARATOR = '\u241e'

interface CallSeqs {
  /** The seq that keeps the bare id (the first one seen). */
  readonly bare: number
  /** Every call seq seen for this id, ascending. */
  readonly seqs: number[]
}

/** Index of the greatest element below `seq` in ascending `seqs`, or −1. */
function lastBelow(seqs: readonly number[], seq: number): number {
  let lo = 0
  let hi = seqs.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (seqs[mid]! < seq) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return found
}

export class CallKeys {
  readonly #calls = new Map<string, CallSeqs>()

  /** The context id of a `tool/call` of `callId` at `seq`. */
  call(callId: string, seq: number): string {
    const known = this.#calls.get(callId)
    if (known === undefined) {
      this.#calls.set(callId, { bare: seq, seqs: [seq] })
      return callId
    }
    if (seq === known.bare) return callId
    const at = lastBelow(known.seqs, seq)
    if (known.seqs[at + 1] !== seq) known.seqs.splice(at + 1, 0, seq)
    return callId + REPEAT_SEPARATOR + String(seq)
  }

  /** The context id of an event at `seq` that follows a call of `callId` (its result, a code dispatch). */
  follower(callId: string, seq: number): string {
    const known = this.#calls.get(callId)
    if (known === undefined) return callId
    const at = lastBelow(known.seqs, seq)
    if (at < 0) return callId
    const owner = known.seqs[at]!
    return owner === known.bare ? callId : callId + REPEAT_SEPARATOR + String(owner)
  }
}
