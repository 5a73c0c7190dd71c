/**
 * One session's Chat decoration state, framework-free: the `chatPath` answer
 * (refetched when the revision moves, polled while our nodes are mounted), the
 * expanded switch runs, the last ‹ k / n › move, and the stylesheet. Fails
 * closed: no answer, no rule (our own rows stay hidden by the static sheet).
 */
import type { ChatPath, MoveBrief, SessionStatus, WireMoveRequest } from '../../types.ts'
import { FORK_KIND, FORK_OFFSET, SWITCH_KIND } from './definitions.ts'
import type { Result } from '../controller.ts'
import { chatCss, chatRules, NO_RULES, NOTHING_KNOWN, type ChatRules } from './rules.ts'
import { type ChatRow } from './live.ts'
import { PolledStore } from '../polled-store.ts'
import { errorMessage } from '../../tree/errors.ts'
import { appendStylesheet } from '../stylesheet.ts'
import type { ChangeFeed } from '../changes.ts'

/** The remote methods the Chat uses (the generated client satisfies it, see `remote.ts`). */
export interface ChatRemote {
  session(agentId: string): Promise<Result<SessionStatus>>
  chatPath(agentId: string): Promise<Result<ChatPath>>
  /** The move, answered without the model's history (megabytes on a long session; the Chat reads `chatPath`). */
  moveBrief(agentId: string, move: WireMoveRequest): Promise<Result<MoveBrief>>
}

export interface ChatError {
  readonly code: string
  readonly message: string
}

export interface ChatState {
  readonly path?: ChatPath
  /** Why the last refresh failed (the Chat then shows everything). */
  readonly error?: ChatError
  /** Lead switch seqs whose hidden rows are shown. */
  readonly expanded: ReadonlySet<number>
  /** A ‹ k / n › move in flight, by the fork seq it was made from. */
  readonly moving?: number
  /** The last move's failure, by fork seq. */
  readonly moveError?: ChatError & { readonly seq: number }
  /** A "Show" that is loading older history pages, by lead seq (the rows it reveals are not all loaded yet). */
  readonly filling?: number
  /** Expanded runs whose first hidden row is still in an older page (no pager, or the pages stopped coming). */
  readonly partial?: ReadonlySet<number>
  readonly rules: ChatRules
}

/** DSH's history pager for one session's Chat (`ctx.sessions.scope(id).conversation`). */
export interface ChatPager {
  /** Pull one older page (resolves once it is in, or when there is none). */
  loadOlder(): Promise<void>
}

/** At most this many pages are loaded for one "Show" (a page is 50 messages). */
const MAX_FILL_PAGES = 200
/** How long a loaded page may take to reach the Chat's rows before "Show" stops asking (the host applies it in a frame). */
const PAGE_SETTLE_MS = 3000

/** One node of the host Chat's snapshot, as far as the rules read it. */
export interface ChatNode {
  readonly kind: string
  readonly anchorSeq: number
  readonly data?: unknown
  readonly location?: unknown
}

/** The host Chat snapshot's node store. */
export interface ChatNodes {
  get(key: string): ChatNode | undefined
}

/** The turn a host row belongs to (its location's turn), if it says. */
function turnOf(location: unknown): number | undefined {
  if (typeof location !== 'object' || location === null) return undefined
  const turn = (location as { turn?: unknown }).turn
  const n = typeof turn === 'object' && turn !== null ? (turn as { turn?: unknown }).turn : undefined
  return typeof n === 'number' ? n : undefined
}

export interface ChatStoreOptions {
  readonly intervalMs?: number
  /** The page's push channel: with it, the Chat asks the service only when the session changed. */
  readonly changes?: ChangeFeed
  readonly document?: Document
  /** The host's history pager of a session, when it offers one. */
  readonly pager?: (sessionId: string) => ChatPager | undefined
}

const errorOf = (reason: unknown): ChatError =>
  reason && typeof reason === 'object' && 'code' in reason && 'message' in reason
    ? { code: String((reason as { code: unknown }).code), message: String((reason as { message: unknown }).message) }
    : { code: 'CLIENT_ERROR', message: errorMessage(reason) }

export class ChatStore extends PolledStore<ChatState> {
  readonly sessionId: string
  private readonly remote: () => Promise<ChatRemote>
  private readonly doc: Document | undefined
  private revision: string | undefined
  private order: readonly string[] = []
  private nodes: ChatNodes | undefined
  /** Whether the host has older history pages to load (its snapshot's `hasMore`). */
  private hasMore = false
  private readonly pager: ((sessionId: string) => ChatPager | undefined) | undefined
  private observed: (() => void) | undefined
  private column: Element | undefined
  private style: HTMLStyleElement | undefined
  private css = ''

  constructor(remote: () => Promise<ChatRemote>, sessionId: string, options: ChatStoreOptions = {}) {
    super(
      { expanded: new Set(), rules: NO_RULES },
      options.intervalMs ?? 1000,
      options.changes ? { feed: options.changes, key: sessionId } : undefined,
    )
    this.remote = remote
    this.sessionId = sessionId
    this.doc = options.document ?? (typeof document === 'undefined' ? undefined : document)
    this.pager = options.pager
  }

  /** The first mounted node of this session's Chat: its rules apply at once (from what is known), then a poll. */
  protected override firstView(): void {
    this.apply()
    super.firstView()
  }

  /** No node of this session's Chat is mounted: no rules, no polls. */
  protected override lastViewGone(): void {
    super.lastViewGone()
    this.writeCss('')
  }

  override dispose(): void {
    super.dispose()
    this.writeCss('')
    this.style?.remove()
    this.style = undefined
  }

  /** The host Chat's current rows (its snapshot's `order` and node store). */
  observe(order: readonly string[], nodes: ChatNodes, hasMore = false): void {
    if (order === this.order && nodes === this.nodes && hasMore === this.hasMore) return
    this.order = order
    this.nodes = nodes
    this.hasMore = hasMore
    this.apply()
    const observed = this.observed
    this.observed = undefined
    observed?.()
  }

  /** The Chat column our nodes sit in: the scope of the stylesheet. */
  attach(column: Element | null): void {
    if (!column || column === this.column) return
    this.column = column
    column.setAttribute('data-session-tree-chat', this.sessionId)
    this.mark()
  }

  /** Show or hide the rows of one switch run. */
  toggle(leadSeq: number): void {
    const expanded = new Set(this.state.expanded)
    const opening = !expanded.delete(leadSeq)
    if (opening) expanded.add(leadSeq)
    this.set({ expanded })
    this.apply()
    if (opening) void this.fill(leadSeq)
    else this.markPartial(leadSeq, false)
  }

  /**
   * "Show" reveals what the run hid, and DSH's Chat holds the tail pages only:
   * load older pages until the run's first hidden row is in. If that cannot
   * be done (no pager, pages stop coming) the run is marked partial and its
   * row says so.
   */
  private async fill(leadSeq: number): Promise<void> {
    const need = this.state.path?.switches.find((s) => s.seq === leadSeq && s.lead)?.firstRow
    if (need === undefined || this.isLoaded(need)) return this.markPartial(leadSeq, false)
    let pager: ChatPager | undefined
    try {
      pager = this.pager?.(this.sessionId)
    } catch {
      pager = undefined
    }
    if (!pager || !this.hasMore) return this.markPartial(leadSeq, true)
    this.set({ filling: leadSeq })
    try {
      for (let pages = 0; pages < MAX_FILL_PAGES && this.hasMore && !this.isLoaded(need); pages++) {
        if (this.disposed || !this.state.expanded.has(leadSeq)) return
        const moved = new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), PAGE_SETTLE_MS)
          this.observed = () => {
            clearTimeout(timer)
            resolve(true)
          }
        })
        await pager.loadOlder()
        if (!(await moved)) break
      }
    } catch {
      // A page that fails to load leaves the run partial (the host logs its own error).
    } finally {
      this.observed = undefined
      if (!this.disposed) this.set({ filling: undefined })
    }
    if (!this.disposed) this.markPartial(leadSeq, !this.isLoaded(need))
  }

  /** Whether the Chat holds the row of event `seq` (our seat stands before every message row). */
  private isLoaded(seq: number): boolean {
    const nodes = this.nodes
    if (!nodes) return false
    for (const key of this.order) {
      const node = nodes.get(key)
      if (
        node?.kind === FORK_KIND &&
        typeof node.anchorSeq === 'number' &&
        Math.round(node.anchorSeq - FORK_OFFSET) === seq
      )
        return true
    }
    return false
  }

  private markPartial(leadSeq: number, partial: boolean): void {
    const now = new Set(this.state.partial ?? [])
    if (partial === now.has(leadSeq)) return
    if (partial) now.add(leadSeq)
    else now.delete(leadSeq)
    this.set({ partial: now.size === 0 ? undefined : now })
  }

  /** Move the model's history to `target` (a ‹ k / n › press at the fork whose row is `seq`). */
  async move(seq: number, target: string): Promise<boolean> {
    if (this.state.moving !== undefined) return false
    this.set({ moving: seq, moveError: undefined })
    let result: Result<MoveBrief>
    try {
      result = await (await this.remote()).moveBrief(this.sessionId, { kind: 'jump', nodeId: target })
    } catch (reason) {
      result = { ok: false, error: errorOf(reason) }
    }
    if (this.disposed) return false
    await this.refresh(true)
    this.set({ moving: undefined, ...(result.ok ? {} : { moveError: { ...errorOf(result.error), seq } }) })
    return result.ok
  }

  /** A change seen while a read was in flight may not move the revision (a switch's turn): read its path anyway. */
  protected override followsForced(): boolean {
    return true
  }

  /** The push channel says the revision moved: `chatPath` at once (it names its revision; a `session` read first only adds a round trip). */
  protected override changed(): void {
    void this.refresh(true)
  }

  protected override heldRevision(): string | undefined {
    return this.state.path ? this.revision : undefined
  }

  /**
   * A poke for the event at `seq` (a switch anchor or a turn end of some session): refresh when some node of this
   * session's Chat is mounted, unless the answer held already classified that seq (the host replaying its window),
   * or the push channel carries the session's changes (a poke only asks whether the revision moved, and the channel
   * says so itself: asking too cost a round trip on the host per switch).
   */
  refreshIfLive(seq?: number): Promise<void> {
    const known = this.state.path?.watermark
    if (this.pushed || (seq !== undefined && known !== undefined && seq <= known)) return Promise.resolve()
    return this.users > 0 && !this.disposed ? this.refresh() : Promise.resolve()
  }

  protected async poll(force: boolean): Promise<void> {
    try {
      const remote = await this.remote()
      // Forced (a pushed change, a move, a read after one in flight): the status could only say "read it".
      if (!force) {
        const status = await remote.session(this.sessionId)
        if (!status.ok) return this.fail(status.error)
        if (status.value.revision !== undefined && status.value.revision === this.revision && this.state.path) return
      }
      const path = await remote.chatPath(this.sessionId)
      if (this.disposed) return
      if (!path.ok) return this.fail(path.error)
      this.revision = path.value.revision
      this.set({ path: path.value, error: undefined })
      this.apply()
    } catch (reason) {
      this.fail(errorOf(reason))
    }
  }

  private fail(error: ChatError): void {
    if (this.disposed) return
    // Fail closed: no rules, the host's Chat shows every row.
    this.revision = undefined
    this.set({ path: undefined, error: errorOf(error), rules: NO_RULES })
    this.writeCss('')
  }

  /** Recompute the rules from the answer and the Chat's rows, and write them. */
  private apply(): void {
    const path = this.state.path
    let rules: ChatRules = NO_RULES
    try {
      const nodes = this.nodes
      const rows: ChatRow[] = []
      if (nodes)
        for (const key of this.order) {
          const node = nodes.get(key)
          if (!node || typeof node.anchorSeq !== 'number') continue
          if (node.kind === SWITCH_KIND || node.kind === FORK_KIND)
            rows.push({ key, kind: node.kind, anchorSeq: node.anchorSeq, data: node.data })
          else {
            const turn = turnOf(node.location)
            rows.push(
              turn === undefined
                ? { key, kind: node.kind, anchorSeq: node.anchorSeq }
                : { key, kind: node.kind, anchorSeq: node.anchorSeq, turn },
            )
          }
        }
      // Before the first answer the events are read live; after a failure there is no rule.
      rules = chatRules(path ?? (this.state.error ? undefined : NOTHING_KNOWN), rows, this.state.expanded)
    } catch (error) {
      this.fail(errorOf(error))
      return
    }
    if (rules !== this.state.rules) this.set({ rules })
    this.writeCss(this.users > 0 ? chatCss(this.sessionId, rules) : '')
  }

  private writeCss(css: string): void {
    if (css !== this.css && this.doc) {
      this.css = css
      if (!this.style && css !== '') {
        this.style = appendStylesheet(`chat:${this.sessionId}`, this.doc)
      }
      if (this.style) this.style.textContent = css
    }
    this.mark()
  }

  /** Tell the page (and tests) which answer the Chat shows: `data-session-tree-revision` on the column. */
  private mark(): void {
    const column = this.column
    if (!column) return
    const path = this.state.path
    if (path && this.users > 0) {
      column.setAttribute('data-session-tree-revision', path.revision)
      column.setAttribute('data-session-tree-state', 'ready')
    } else {
      column.removeAttribute('data-session-tree-revision')
      column.setAttribute('data-session-tree-state', this.state.error ? 'error' : 'loading')
    }
  }
}
