/**
 * The page's push channel (`ChangeFeed`): one held `watch` for every followed session, the followers
 * told when theirs moved, none held while the page is hidden (the browser's connections per host are
 * shared by its tabs), and polling when the service has no channel.
 */
import { describe, expect, it } from 'vitest'
import { ChangeFeed, type PageVisibility, type WatchRemote } from '../../../src/client/changes.ts'
import type { Result } from '../../../src/client/controller.ts'
import type { WatchAnswer, WatchRequest } from '../../../src/types.ts'

interface Held {
  readonly request: WatchRequest
  readonly signal: AbortSignal | undefined
  settled: boolean
  answer(changed: WatchAnswer['changed']): void
}

/** A service whose `watch` calls wait until the test answers them (or their signal ends them, as fetch does). */
function service() {
  const calls: Held[] = []
  const remote: WatchRemote = {
    watch: (request, signal) =>
      new Promise<Result<WatchAnswer>>((resolve) => {
        const call: Held = {
          request,
          signal,
          settled: false,
          answer: (changed) => {
            call.settled = true
            resolve({ ok: true, value: { changed } })
          },
        }
        signal?.addEventListener('abort', () => {
          call.settled = true
          resolve({ ok: false, error: { code: 'CLIENT_ERROR', message: 'aborted' } })
        })
        calls.push(call)
      }),
  }
  const open = () => calls.filter((c) => !c.settled)
  return { remote, calls, open }
}

class Page implements PageVisibility {
  visibilityState = 'visible'
  private readonly listeners = new Set<() => void>()
  addEventListener(_type: 'visibilitychange', listener: () => void): void {
    this.listeners.add(listener)
  }
  removeEventListener(_type: 'visibilitychange', listener: () => void): void {
    this.listeners.delete(listener)
  }
  set(state: 'visible' | 'hidden'): void {
    this.visibilityState = state
    for (const listener of [...this.listeners]) listener()
  }
  get listening(): number {
    return this.listeners.size
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
/** A follower's two callbacks: it notes `changed` in `seen` on a change, `polled` when sent to polling. */
const noting = (seen: string[], changed: string, polled: string) =>
  [() => seen.push(changed), () => seen.push(polled)] as const

describe('ChangeFeed', () => {
  it('holds one request for every followed session and tells the followers of theirs', async () => {
    const { remote, calls, open } = service()
    const feed = new ChangeFeed(async () => remote)
    const seen: string[] = []
    feed.follow('a', ...noting(seen, 'a', 'a: poll'))
    await settle()
    feed.follow('b', ...noting(seen, 'b', 'b: poll'))
    await settle()
    // The second session replaces the request in flight with one naming both.
    expect(open().map((c) => c.request.sessions.map((s) => s.agentId))).toEqual([['a', 'b']])
    open()[0]!.answer([{ agentId: 'b', revision: '1:7' }])
    await settle()
    expect(seen).toEqual(['b'])
    // Asked again with what it now holds: nothing is asked twice for a revision already heard.
    expect(open().map((c) => c.request.sessions)).toEqual([
      [
        { agentId: 'a', revision: '' },
        { agentId: 'b', revision: '1:7' },
      ],
    ])
    expect(calls).toHaveLength(3)
    feed.dispose()
    expect(open()).toEqual([])
  })

  it('starts from the revision a follower has just read: the first request waits instead of telling it what it knows', async () => {
    const { remote, open } = service()
    const feed = new ChangeFeed(async () => remote)
    const seen: string[] = []
    feed.follow('a', ...noting(seen, 'a', 'poll'), '1:5')
    await settle()
    expect(open().map((c) => c.request.sessions)).toEqual([[{ agentId: 'a', revision: '1:5' }]])
    // A second follower of the same session does not move what the feed heard.
    feed.follow('a', ...noting(seen, 'a2', 'poll'), '1:2')
    await settle()
    expect(open().map((c) => c.request.sessions)).toEqual([[{ agentId: 'a', revision: '1:5' }]])
    expect(seen).toEqual([])
    feed.dispose()
  })

  it('holds nothing while the page is hidden; shown again, it asks with the revisions it holds', async () => {
    const { remote, calls, open } = service()
    const page = new Page()
    const feed = new ChangeFeed(async () => remote, page)
    const seen: string[] = []
    const stop = feed.follow('a', ...noting(seen, 'a', 'poll'))
    await settle()
    open()[0]!.answer([{ agentId: 'a', revision: '1:3' }])
    await settle()
    expect(feed.holding).toBe(true)
    page.set('hidden')
    await settle()
    expect(open()).toEqual([])
    expect(feed.holding).toBe(false)
    const before = calls.length
    page.set('hidden')
    await settle()
    expect(calls).toHaveLength(before)
    page.set('visible')
    await settle()
    expect(open().map((c) => c.request.sessions)).toEqual([[{ agentId: 'a', revision: '1:3' }]])
    expect(seen).toEqual(['a'])
    stop()
    expect(open()).toEqual([])
    feed.dispose()
    expect(page.listening).toBe(0)
  })

  it('a follower that starts while the page is hidden waits for it to show', async () => {
    const { remote, calls, open } = service()
    const page = new Page()
    page.set('hidden')
    const feed = new ChangeFeed(async () => remote, page)
    feed.follow(
      'a',
      () => {},
      () => {},
    )
    await settle()
    expect(calls).toEqual([])
    page.set('visible')
    await settle()
    expect(open()).toHaveLength(1)
    feed.dispose()
  })

  it('a failed watch sends every follower to polling', async () => {
    const feed = new ChangeFeed(async () => ({
      watch: async () => ({ ok: false, error: { code: 'CLIENT_ERROR', message: 'the channel is down' } }),
    }))
    const seen: string[] = []
    feed.follow('a', ...noting(seen, 'a', 'a: poll'))
    await settle()
    expect(seen).toEqual(['a: poll'])
    expect(feed.unavailable).toBe(true)
    feed.follow('b', ...noting(seen, 'b', 'b: poll'))
    await settle()
    expect(seen).toEqual(['a: poll', 'b: poll'])
    feed.dispose()
  })
})
