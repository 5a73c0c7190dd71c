/**
 * The page's one push channel: a `watch` request held open for every session
 * whose Tree tab or Chat shows, answered when a revision moves. A hidden page
 * holds none (the browser's few connections per host are shared by all tabs)
 * and catches up when shown; after a failed `watch` followers poll
 * (`PolledStore`).
 */
import type { WatchAnswer, WatchRequest } from '../types.ts'
import type { Result } from './controller.ts'

export interface WatchRemote {
  watch(request: WatchRequest, signal?: AbortSignal): Promise<Result<WatchAnswer>>
}

interface Follower {
  readonly onChange: () => void
  readonly onUnavailable: () => void
}

/** How long a failed `watch` keeps the page on polling before it tries the channel again. */
const RETRY_MS = 30_000

/** What the feed reads of the page: whether it is shown (`document` in a browser). */
export interface PageVisibility {
  readonly visibilityState: string
  addEventListener(type: 'visibilitychange', listener: () => void): void
  removeEventListener(type: 'visibilitychange', listener: () => void): void
}

export class ChangeFeed {
  private readonly remote: () => Promise<WatchRemote>
  private readonly followers = new Map<string, Set<Follower>>()
  /** The revision each followed session had when the channel last answered. */
  private readonly known = new Map<string, string>()
  private current: AbortController | undefined
  private unavailableUntil = 0
  private disposed = false
  private readonly page: PageVisibility | undefined
  private readonly onVisibility = (): void => this.restart()

  constructor(remote: () => Promise<WatchRemote>, page?: PageVisibility) {
    this.remote = remote
    this.page = page
    page?.addEventListener('visibilitychange', this.onVisibility)
  }

  /** Whether a request is held now (none while the page is hidden or nobody follows). */
  get holding(): boolean {
    return this.current !== undefined
  }

  private get hidden(): boolean {
    return this.page?.visibilityState === 'hidden'
  }

  /** Whether followers should poll now (the channel failed a moment ago). */
  get unavailable(): boolean {
    return Date.now() < this.unavailableUntil
  }

  /**
   * Learn of `key`'s changes: `onChange` when its revision moves,
   * `onUnavailable` when there is no channel (then poll). `held`: the revision the
   * follower has just read, so the first request waits instead of answering at once
   * with what it already knows. Returns the end of it.
   */
  follow(key: string, onChange: () => void, onUnavailable: () => void, held?: string): () => void {
    const follower: Follower = { onChange, onUnavailable }
    if (this.disposed || this.unavailable) {
      queueMicrotask(onUnavailable)
      return () => {}
    }
    let set = this.followers.get(key)
    const fresh = set === undefined
    if (!set) this.followers.set(key, (set = new Set()))
    set.add(follower)
    if (fresh && held !== undefined && !this.known.has(key)) this.known.set(key, held)
    if (fresh) this.restart()
    return () => {
      const now = this.followers.get(key)
      if (!now?.delete(follower) || now.size > 0) return
      this.followers.delete(key)
      this.known.delete(key)
      this.restart()
    }
  }

  dispose(): void {
    this.disposed = true
    this.page?.removeEventListener('visibilitychange', this.onVisibility)
    this.current?.abort()
    this.current = undefined
    this.followers.clear()
  }

  /** The set of sessions (or the page's visibility) changed: the request in flight gives way to one that names them all. */
  private restart(): void {
    this.current?.abort()
    this.current = undefined
    if (this.followers.size > 0 && !this.disposed && !this.hidden) void this.run(new AbortController())
  }

  private async run(controller: AbortController): Promise<void> {
    this.current = controller
    while (!controller.signal.aborted && this.followers.size > 0) {
      const request: WatchRequest = {
        sessions: [...this.followers.keys()].map((agentId) => ({ agentId, revision: this.known.get(agentId) ?? '' })),
      }
      let answer: Result<WatchAnswer>
      try {
        const remote = await this.remote()
        answer = await remote.watch(request, controller.signal)
      } catch (reason) {
        answer = { ok: false, error: { code: 'CLIENT_ERROR', message: String(reason) } }
      }
      if (controller.signal.aborted) return
      // An empty answer with nothing cancelled: the service stopped; a failure: no channel. Poll for a while.
      if (!answer.ok || answer.value.changed.length === 0) return this.giveUp(controller)
      for (const { agentId, revision } of answer.value.changed) {
        if (!this.followers.has(agentId)) continue
        this.known.set(agentId, revision)
        for (const follower of [...(this.followers.get(agentId) ?? [])]) follower.onChange()
      }
    }
  }

  private giveUp(controller: AbortController): void {
    if (this.current === controller) this.current = undefined
    this.unavailableUntil = Date.now() + RETRY_MS
    const followers = [...this.followers.values()].flatMap((set) => [...set])
    this.followers.clear()
    this.known.clear()
    for (const follower of followers) follower.onUnavailable()
  }
}
