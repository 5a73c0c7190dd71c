/**
 * What the Tree tab's controller and the Chat's per-session store share: an
 * immutable snapshot for React's `useSyncExternalStore`, the views that show
 * it (polling runs only while at least one does), and the poll timer. How a
 * poll asks the service is each store's own (`refresh`).
 */
export abstract class PolledStore<State extends object> {
  protected state: State
  private readonly listeners = new Set<() => void>()
  protected readonly intervalMs: number
  /** How many views show this store now. */
  protected users = 0
  protected disposed = false
  private timer: ReturnType<typeof setTimeout> | undefined

  protected constructor(initial: State, intervalMs: number) {
    this.state = initial
    this.intervalMs = intervalMs
  }

  getSnapshot = (): State => this.state

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /** Ask the service now (`force`: even when the revision did not move). */
  abstract refresh(force?: boolean): Promise<void>

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
    this.listeners.clear()
  }

  /** The first view appeared: poll. */
  protected firstView(): void {
    void this.refresh()
  }

  /** No view is left: stop polling. */
  protected lastViewGone(): void {
    this.clearTimer()
  }

  /** The next poll, one interval from now, while a view shows the store. */
  protected schedule(): void {
    if (this.users === 0 || this.disposed) return
    this.clearTimer()
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.refresh()
    }, this.intervalMs)
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
