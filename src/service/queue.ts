/**
 * One unit of work at a time per session, in arrival order. Every mutating
 * call on a session (moves, labels, summaries, the model tools' moves) runs
 * as one unit on its session's queue, so no two interleave: each result
 * describes its own effect, and a unit that fails has changed nothing.
 *
 * A unit must never wait for the agent to finish a model turn (a unit of the
 * model's own step would then wait behind it forever): units wait only for
 * work that cannot need them — a maintenance turn (no model call), a flush, a
 * session resume.
 */
export class SessionQueue {
  /** The settled-or-not end of each session's queue. */
  private readonly tails = new Map<string, Promise<unknown>>()

  /** Run `unit` after every unit queued before it for `key`; its result (or rejection) is returned as is. */
  run<T>(key: string, unit: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key)
    const result = previous === undefined ? unit() : previous.then(unit)
    const tail = result.then(settledOk, settledOk)
    this.tails.set(key, tail)
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    })
    return result
  }

  /** Whether a unit is queued or running for `key`. */
  busy(key: string): boolean {
    return this.tails.has(key)
  }
}

function settledOk(): undefined {
  return undefined
}
