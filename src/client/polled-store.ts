/**
 * What the Tree tab's controller and the Chat's per-session store share: an
 * immutable snapshot for React's `useSyncExternalStore`, the views that show
 * it, and how they learn of changes while at least one does: from the page's
 * push channel (`ChangeFeed`: nothing is asked until the session changes),
 * else by polling on a timer, and one read at a time. How a read asks the
 * service is each store's own (`poll`).
 */
import type { ChangeFeed } from './changes.ts'

/** Where a store learns of its session's changes without polling. */
export interface StoreFeed {
  readonly feed: ChangeFeed
  /** The session the store shows. */
  readonly key: string
}

export abstract class PolledStore<State extends object> {
  protected state: State
  private readonly listeners = new Set<() => void>()
  protected readonly intervalMs: number
  /** How many views show this store now. */
  protected users = 0
  protected disposed = false
  private timer: ReturnType<typeof setTimeout> | undefined
  private readonly changes: StoreFeed | undefined
  /** The end of following the push channel, while the store does. */
  private unfollow: (() => void) | undefined
  /** The read in flight. */
  private reading: Promise<void> | undefined
  /** The one read after it that every request made meanwhile waits for, and whether one of them forced it. */
  private following: Promise<void> | undefined
  private followForced = false

  protected constructor(initial: State, intervalMs: number, changes?: StoreFeed) {
    this.state = initial
    this.intervalMs = intervalMs
    this.changes = changes
  }

  /** Whether changes arrive pushed now (no poll timer runs). */
  get pushed(): boolean {
    return this.unfollow !== undefined
  }

  getSnapshot = (): State => this.state

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /**
   * Read now (`force`: even when the revision did not move). A request while a read is in flight gets one more
   * read after it, shared with every other request meanwhile: the read in flight may predate the change.
   */
  refresh(force = false): Promise<void> {
    if (this.reading) {
      this.followForced ||= force
      return (this.following ??= this.reading.then(() => {
        this.following = undefined
        const forced = this.followForced || this.followsForced()
        this.followForced = false
        return this.disposed ? undefined : this.refresh(forced)
      }))
    }
    this.clearTimer()
    this.reading = this.poll(force).finally(() => {
      this.reading = undefined
      if (this.following === undefined) this.schedule()
    })
    return this.reading
  }

  /** One read of the service (`force`: even when the revision did not move). */
  protected abstract poll(force: boolean): Promise<void>

  /** Whether a read after one in flight is always forced (default: only when a request meanwhile was). */
  protected followsForced(): boolean {
    return false
  }

  /** One more view of this store; the returned function ends its share (once). */
  start(): () => void {
    this.users += 1
    if (this.users === 1) this.firstView()
    let stopped = false
    return () => {
      if (stopped) return
      stopped = true
      this.users -= 1
      if (this.users === 0) this.lastViewGone()
    }
  }

  dispose(): void {
    this.disposed = true
    this.clearTimer()
    this.stopFollowing()
    this.listeners.clear()
  }

  /** The first view appeared: read now, then follow the changes. */
  protected firstView(): void {
    void this.refresh()
  }

  /** No view is left: stop polling and following. */
  protected lastViewGone(): void {
    this.clearTimer()
    this.stopFollowing()
  }

  /** After a refresh, while a view shows the store: the push channel if there is one, else the next poll. */
  protected schedule(): void {
    if (this.users === 0 || this.disposed) return
    if (this.unfollow !== undefined) return this.pollToo()
    if (this.changes !== undefined && !this.changes.feed.unavailable) {
      this.clearTimer()
      const { feed, key } = this.changes
      let ended = false
      const stop = feed.follow(
        key,
        () => this.changed(),
        () => {
          // No channel (now): poll, and try the channel again at a later poll.
          ended = true
          if (this.unfollow === stop) this.unfollow = undefined
          this.schedule()
        },
        this.heldRevision(),
      )
      if (!ended) this.unfollow = stop
      return this.pollToo()
    }
    this.pollLater()
  }

  /** What the push channel cannot say, a store may still poll for (`pollsToo`). */
  private pollToo(): void {
    if (this.pollsToo()) this.pollLater()
    else this.clearTimer()
  }

  private pollLater(): void {
    this.clearTimer()
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.refresh()
    }, this.intervalMs)
  }

  /** The session revision the store's last read showed (undefined: none yet): what the push channel starts from. */
  protected heldRevision(): string | undefined {
    return undefined
  }

  /** Whether to poll although changes are pushed: for what no push carries (default: never). */
  protected pollsToo(): boolean {
    return false
  }

  /** The push channel says the session changed: read it (a store may wait for a better moment). */
  protected changed(): void {
    void this.refresh()
  }

  private stopFollowing(): void {
    const stop = this.unfollow
    this.unfollow = undefined
    stop?.()
  }

  protected clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }

  /** A new snapshot: `patch` over the last one (an `undefined` value removes its key), then every listener. */
  protected set(patch: Partial<State>): void {
    const next = { ...this.state } as Record<string, unknown>
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete next[key]
      else next[key] = value
    }
    this.state = next as State
    for (const listener of [...this.listeners]) listener()
  }
}
