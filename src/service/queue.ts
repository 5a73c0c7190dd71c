/**
 * One unit of work at a time per session, in arrival order: every mutating
 * call runs as one unit, so each result describes its own effect. A unit never
 * waits for a model turn (the model's own step would wait behind it forever):
 * docs/service.md, "Concurrent calls".
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
}

function settledOk(): undefined {
  return undefined
}
