/**
 * One session's panel state, framework-free: it reads `session` (cheap) when
 * the session changed (the page's push channel, else a poll) and fetches
 * `outline` only when the session's `revision` moved, runs the user's
 * actions one at a time, and publishes immutable snapshots to subscribers
 * (React reads them with `useSyncExternalStore`). Every remote failure keeps
 * its code: `{ code, message }` from the service, `CLIENT_ERROR` for a call
 * the client itself rejected.
 */
import type {
  BranchSummary,
  LinearExport,
  MoveBrief,
  MoveOutcome,
  SessionStatus,
  SessionTreeOutline,
  SessionTreeOutlineChanges,
  TreeNode,
  CompareResult,
  TreeMove,
  WireMoveRequest,
} from '../types.ts'
import { PolledStore } from './polled-store.ts'
import { errorMessage } from '../tree/errors.ts'
import type { ChangeFeed } from './changes.ts'
import { OutlineReader } from '../outline/index.ts'

/** What every generated remote method resolves to (`RemoteResult<T>` of the typert protocol). */
export type Result<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false
      readonly error: { readonly code: string; readonly message: string; readonly details?: unknown }
    }

/** The `sessionTree` namespace of `ctx.remote` (the generated client). */
export interface TreeRemote {
  outlineChanges(agentId: string, since: string | null): Promise<Result<SessionTreeOutlineChanges>>
  session(agentId: string): Promise<Result<SessionStatus>>
  export(agentId: string): Promise<Result<LinearExport>>
  /** Any conversation move as one value (`service/tree-move.ts`), answered without the model's history. */
  moveBrief(agentId: string, move: WireMoveRequest): Promise<Result<MoveBrief>>
  label(agentId: string, nodeId: string, label: string | null): Promise<Result<TreeNode>>
  summarize(agentId: string, branch: string): Promise<Result<BranchSummary>>
  compare(agentId: string, a: string, b: string): Promise<Result<CompareResult>>
}

export interface PanelError {
  readonly code: string
  readonly message: string
}

export type ActionKind = 'jump' | 'fork' | 'label' | 'summarize' | 'back' | 'forward' | 'export'

/** The outcome of the last action, for the notice line. */
export type Notice =
  | {
      readonly kind: 'jump' | 'back' | 'forward'
      readonly mode: MoveOutcome['mode']
      readonly snappedFrom?: string
      readonly appendedEvents?: number
      readonly summary?: BranchSummary
    }
  | {
      readonly kind: 'fork'
      readonly branch: string
      readonly mode: MoveOutcome['mode']
      readonly appendedEvents?: number
      readonly summary?: BranchSummary
    }
  | { readonly kind: 'label'; readonly cleared: boolean }
  | { readonly kind: 'summarize'; readonly branch: string }
  | { readonly kind: 'export' }

export interface PanelState {
  /** `loading` until the first tree (or error) arrives. */
  readonly phase: 'loading' | 'ready' | 'error'
  readonly view?: SessionTreeOutline
  readonly status?: SessionStatus
  /** Why loading failed (phase `error`), or why the last refresh failed while an older tree is shown. */
  readonly error?: PanelError
  /** The action in flight. */
  readonly busy?: ActionKind
  /** The action in flight has the session's model write a summary first (it may take a while). */
  readonly summarizing?: boolean
  /** The summary the last move wrote; stays until the next action or its dismissal (it is read, not glanced at). */
  readonly written?: BranchSummary
  /** The last action's failure (the tree is unchanged). */
  readonly actionError?: PanelError & { readonly action: ActionKind }
  readonly notice?: Notice
  /** Increments with every new `view`. */
  readonly generation: number
}

export interface ControllerOptions {
  /** Poll period of `session` (default 1000 ms) when there is no push channel. */
  readonly intervalMs?: number
  /** The page's push channel: with it, the panel asks the service only when the session changed. */
  readonly changes?: ChangeFeed
  /** Performance marks (`session-tree:*`), default on when `performance.mark` exists. */
  readonly marks?: boolean
  /** How long a success notice stays (default 6000 ms): it reports the action just done, not the state for ever. */
  readonly noticeMs?: number
}

const failure = (code: string, message: string): PanelError => ({ code, message })

function errorOf(reason: unknown): PanelError {
  if (reason && typeof reason === 'object' && 'code' in reason && 'message' in reason) {
    return failure(String((reason as { code: unknown }).code), String((reason as { message: unknown }).message))
  }
  return failure('CLIENT_ERROR', errorMessage(reason))
}

/** The events a move appended to the session log, for its notice (none when nothing was switched). */
function switched(move: MoveOutcome): { appendedEvents?: number; summary?: BranchSummary } {
  return {
    ...(move.switch ? { appendedEvents: move.switch.appendedEvents } : {}),
    ...(move.summary ? { summary: move.summary } : {}),
  }
}

export class TreeController extends PolledStore<PanelState> {
  private readonly marks: boolean
  private noticeTimer: ReturnType<typeof setTimeout> | undefined
  private readonly noticeMs: number
  private revision: string | undefined
  /** The push channel said the revision moved since the last read began. */
  private heard = false
  /** The outline read as what changed since the last answer. */
  private readonly outlines: OutlineReader

  /** The mounted remote namespace (a promise: mounting is asynchronous and may fail). */
  private readonly remote: () => Promise<TreeRemote>
  readonly agentId: string
  /** A change was pushed while an action ran (read when it ends). */
  private missed = false

  constructor(remote: () => Promise<TreeRemote>, agentId: string, options: ControllerOptions = {}) {
    super(
      { phase: 'loading', generation: 0 },
      options.intervalMs ?? 1000,
      options.changes ? { feed: options.changes, key: agentId } : undefined,
    )
    this.remote = remote
    this.agentId = agentId
    this.outlines = new OutlineReader()
    this.noticeMs = options.noticeMs ?? 6000
    this.marks = options.marks ?? (typeof performance !== 'undefined' && typeof performance.mark === 'function')
  }

  /** Two nodes side by side (read-only: the panel state does not change). */
  compare = async (a: string, b: string): Promise<Result<CompareResult>> => {
    try {
      return await (await this.remote()).compare(this.agentId, a, b)
    } catch (reason) {
      return { ok: false, error: errorOf(reason) }
    }
  }

  /**
   * A change pushed while an action of the panel runs waits for its end: the action shows the moved tree
   * together with its notice, and keys pressed on seeing it reach a panel that takes them again.
   */
  protected override changed(): void {
    if (this.state.busy) this.missed = true
    else {
      this.heard = true
      void this.refresh()
    }
  }

  protected override heldRevision(): string | undefined {
    return this.state.view ? this.revision : undefined
  }

  /** Another process's claim on the tree is in no push of this one: while it holds, poll to learn when it lets go. */
  protected override pollsToo(): boolean {
    return this.state.status?.readOnly !== undefined
  }

  override dispose(): void {
    super.dispose()
    if (this.noticeTimer !== undefined) clearTimeout(this.noticeTimer)
  }

  dismissError(): void {
    if (this.state.actionError) this.set({ actionError: undefined })
  }

  dismissNotice(): void {
    if (this.state.notice) this.set({ notice: undefined })
  }

  dismissWritten(): void {
    if (this.state.written) this.set({ written: undefined })
  }

  // ------------------------------------------------------------- actions

  /**
   * A move (`service/tree-move.ts`); with a `summary`, the session's model first summarizes what the move
   * leaves. True when it happened (else `actionError` says why).
   */
  move(move: TreeMove): Promise<boolean> {
    const summarized = move.summary !== undefined && move.summary.kind !== 'none'
    return this.act<MoveBrief>(
      move.kind,
      (r) => r.moveBrief(this.agentId, move),
      (v) =>
        move.kind === 'fork'
          ? { kind: 'fork', branch: v.branch ?? move.branch, mode: v.mode, ...switched(v) }
          : {
              kind: move.kind,
              mode: v.mode,
              ...(move.kind === 'jump' && v.snappedFrom ? { snappedFrom: v.snappedFrom } : {}),
              ...switched(v),
            },
      true,
      summarized,
    )
  }

  label(nodeId: string, label: string | null): Promise<boolean> {
    return this.act(
      'label',
      (r) => r.label(this.agentId, nodeId, label),
      () => ({ kind: 'label', cleared: label === null }),
    )
  }

  summarize(branch: string): Promise<boolean> {
    return this.act(
      'summarize',
      (r) => r.summarize(this.agentId, branch),
      (v) => ({ kind: 'summarize', branch: v.branch }),
    )
  }

  /** The linear export, or undefined on failure (then `actionError` says why). */
  async exportLinear(): Promise<LinearExport | undefined> {
    let exported: LinearExport | undefined
    const ok = await this.act(
      'export',
      (r) => r.export(this.agentId),
      (v) => {
        exported = v
        return { kind: 'export' }
      },
      false,
    )
    return ok ? exported : undefined
  }

  // ------------------------------------------------------------ internals

  private async act<T>(
    kind: ActionKind,
    call: (remote: TreeRemote) => Promise<Result<T>>,
    notice: (value: T) => Notice,
    changesTree = true,
    summarizing = false,
  ): Promise<boolean> {
    if (this.state.busy) return false
    this.set({
      busy: kind,
      summarizing: summarizing || undefined,
      written: undefined,
      actionError: undefined,
      notice: undefined,
    })
    let result: Result<T>
    try {
      result = await call(await this.remote())
    } catch (reason) {
      result = { ok: false, error: errorOf(reason) }
    }
    if (this.disposed) return false
    // Changes pushed meanwhile are read now: with the action's own result, or after its failure.
    const missed = this.missed
    this.missed = false
    if (!result.ok) {
      // Another process writes the tree: the status says who (and the tab turns read-only).
      if (result.error.code === 'SIDECAR_CLAIMED' || missed) await this.refresh(true)
      this.set({
        busy: undefined,
        summarizing: undefined,
        actionError: { ...failure(result.error.code, result.error.message), action: kind },
      })
      return false
    }
    // Show the moved tree together with the notice (no flash of the old cursor).
    if (changesTree || missed) await this.refresh(true)
    if (this.disposed) return true
    const shown = notice(result.value)
    const written = summarizing ? (result.value as { summary?: BranchSummary }).summary : undefined
    this.set({ busy: undefined, summarizing: undefined, notice: shown, written })
    // The notice retires on its own (or with the next change the panel did not make, see `poll`).
    if (this.noticeTimer !== undefined) clearTimeout(this.noticeTimer)
    this.noticeTimer = setTimeout(() => {
      this.noticeTimer = undefined
      if (this.state.notice === shown) this.set({ notice: undefined })
    }, this.noticeMs)
    return true
  }

  protected async poll(force: boolean): Promise<void> {
    let remote: TreeRemote
    try {
      remote = await this.remote()
    } catch (reason) {
      this.fail(errorOf(reason))
      return
    }
    const fetchList = (): Promise<Result<SessionTreeOutline>> => {
      if (this.marks) performance.mark('session-tree:list-start')
      // Even a whole answer that does not fit is an error, never a tree.
      const misfit = { code: 'CLIENT_ERROR', message: 'outlineChanges: an answer that does not fit' }
      return this.outlines
        .read((since) => remote.outlineChanges(this.agentId, since))
        .then((read) => read ?? { ok: false as const, error: misfit })
        .catch((reason: unknown) => ({ ok: false as const, error: errorOf(reason) }))
    }
    // With no tree yet, after an action or a pushed change (the revision moved) both are needed: ask together.
    const heard = this.heard
    this.heard = false
    const eager = force || heard || !this.state.view ? fetchList() : undefined
    const session = await remote
      .session(this.agentId)
      .catch((reason: unknown) => ({ ok: false as const, error: errorOf(reason) }))
    if (this.disposed) return
    if (!session.ok) {
      await eager
      this.fail(failure(session.error.code, session.error.message))
      return
    }
    const revision = session.value.revision
    if (!eager && revision === this.revision) {
      if (this.state.error || JSON.stringify(this.state.status) !== JSON.stringify(session.value))
        this.set({ status: session.value, error: undefined, phase: 'ready' })
      return
    }
    const list = await (eager ?? fetchList())
    if (this.disposed) return
    if (!list.ok) {
      this.fail(failure(list.error.code, list.error.message))
      return
    }
    if (this.marks) {
      performance.mark('session-tree:list-end')
      performance.measure('session-tree:list', 'session-tree:list-start', 'session-tree:list-end')
    }
    this.revision = revision
    // A change the panel did not make (the conversation went on) retires the last action's notice.
    const retire =
      !force && this.state.view !== undefined && this.state.notice !== undefined && this.state.busy === undefined
    this.set({
      phase: 'ready',
      view: list.value,
      status: session.value,
      error: undefined,
      generation: this.state.generation + 1,
      ...(retire ? { notice: undefined } : {}),
    })
  }

  private fail(error: PanelError): void {
    // Keep showing the last tree: an older tree with a warning beats a blank panel.
    this.set(this.state.view ? { error } : { phase: 'error', error })
  }
}
