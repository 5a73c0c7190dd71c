import { describe, expect, it } from 'vitest'
import { PolledStore } from '../../../src/client/polled-store.ts'

/** A store whose reads finish when the test says: each read is recorded with its `force`, then waits. */
class HeldStore extends PolledStore<{ reads: number }> {
  readonly reads: { force: boolean; finish: () => void }[] = []
  private readonly forcedAfter: boolean
  constructor(forcedAfter = false) {
    super({ reads: 0 }, 60_000)
    this.forcedAfter = forcedAfter
  }
  protected override poll(force: boolean): Promise<void> {
    return new Promise((resolve) => {
      this.reads.push({ force, finish: resolve })
    })
  }
  protected override followsForced(): boolean {
    return this.forcedAfter
  }
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('PolledStore: one read at a time', () => {
  it('requests made while a read is in flight get one read after it, which they all wait for', async () => {
    const store = new HeldStore()
    void store.refresh()
    let done = 0
    const waits = [store.refresh(), store.refresh(true), store.refresh()].map((p) => p.then(() => (done += 1)))
    expect(store.reads.map((r) => r.force)).toEqual([false])
    store.reads[0]!.finish()
    await settled()
    // One more read, forced because one of the requests was; nobody is answered before it ends.
    expect(store.reads.map((r) => r.force)).toEqual([false, true])
    expect(done).toBe(0)
    store.reads[1]!.finish()
    await Promise.all(waits)
    expect(done).toBe(3)
    expect(store.reads).toHaveLength(2)
  })

  it('the read after is plain when no request was forced, forced when the store says it always is', async () => {
    for (const [forcedAfter, expected] of [
      [false, false],
      [true, true],
    ] as const) {
      const store = new HeldStore(forcedAfter)
      void store.refresh()
      const after = store.refresh()
      store.reads[0]!.finish()
      await settled()
      expect(store.reads.map((r) => r.force)).toEqual([false, expected])
      store.reads[1]!.finish()
      await after
    }
  })

  it('a request after the read ended starts a new read of its own', async () => {
    const store = new HeldStore()
    const first = store.refresh()
    store.reads[0]!.finish()
    await first
    const second = store.refresh(true)
    expect(store.reads.map((r) => r.force)).toEqual([false, true])
    store.reads[1]!.finish()
    await second
  })
})
