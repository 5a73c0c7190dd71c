/**
 * Keeps a tree store in step with live harness sessions (docs/service.md, "How the tree follows the harness"). A
 * session's tree is built once from its log (`attach`), then each new event is projected behind a watermark
 * (`project`): O(1) amortized, idempotent. A user's operation (`begin`/`mutate`) is journaled to the sidecar with
 * the watermark it ran at and the actor the caller names (never inferred), and replayed at that point on a
 * rebuild, so the tree comes back exactly; one that cannot be journaled is rolled back (`mutate`) or left to the
 * caller to report (`begin`), never a silent ok. Nothing here throws into the harness: problems become warnings.
 */
import { SessionTree } from '../tree/session-tree.ts'
import { runCommand, type AnswerOf, type TreeCommand } from '../tree/command.ts'
import type { SessionTreeStore } from '../tree/store.ts'
import { fail, ok, type TreeResult, errorMessage } from '../tree/errors.ts'
import type { JsonObject, SessionTreeLogEntry, TreeEntry } from '../tree/types.ts'
import type { SidecarWarning } from './warnings.ts'
import type { ClaimLook, JournalActor, TreeSidecar } from '../sidecar/index.ts'
import { checkOverlay, foldOverlay, isHarnessNode, type OverlayState } from './overlay.ts'
import { SessionProjector } from './projector.ts'
import { guarded, type HostListen } from './host.ts'

/** The part of a harness `Session` the sync reads. */
export interface SessionSource {
  readonly id: string
  readonly events: readonly unknown[]
}

/** Everything the plugin keeps for one session. */
export interface TreeSessionState {
  readonly sessionId: string
  readonly projector: SessionProjector
  /** Problems met while loading or writing the sidecar. */
  readonly warnings: SidecarWarning[]
  /** Creation watermark of each tree-only node (what folding needs). */
  readonly treeOnlyW: Map<string, number>
}

/**
 * A user operation already applied to the tree and not yet journaled (`begin`).
 * Exactly one of `commit` or `rollback` must follow.
 */
export interface PendingOperation<T> {
  readonly value: T
  /** Journal the operation's log entries (tagged with the watermark it ran at). A failure (SIDECAR_IO) leaves it pending. */
  commit(): TreeResult<void>
  /** Undo the operation (and what was projected since: only harness events that did not happen in the log). */
  rollback(): void
}

export class TreeSync {
  private readonly states = new Map<string, TreeSessionState>()
  /** Sessions with a user operation in flight: their tree log must stay whole until it settles. */
  private readonly inflight = new Map<string, number>()
  private readonly generations = new Map<string, number>()
  private readonly store: SessionTreeStore
  private readonly sidecar: TreeSidecar | undefined
  /** Who wants to know when a session's tree may have changed (the service's push channel to the browser). */
  private readonly listeners = new Set<(sessionId: string) => void>()

  constructor(store: SessionTreeStore, sidecar?: TreeSidecar) {
    this.store = store
    this.sidecar = sidecar
  }

  get(sessionId: string): TreeSessionState | undefined {
    return this.states.get(sessionId)
  }

  /** How many times this session's state was built in this process (part of a view revision). */
  generation(sessionId: string): number {
    return this.generations.get(sessionId) ?? 0
  }

  /** Call `listener` with a session's id whenever its tree may have changed (built, projected, moved, undone, dropped). */
  onChange(listener: (sessionId: string) => void): () => void {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  private changed(sessionId: string): void {
    for (const listener of [...this.listeners])
      try {
        listener(sessionId)
      } catch {
        /* a listener's failure is its own */
      }
  }

  /** Sessions currently attached. */
  list(): string[] {
    return [...this.states.keys()]
  }

  /**
   * Follow the harness's sessions as they live: a tree when one is created, each event projected as it is
   * appended (the first one of a session it does not hold attaches it), let go when it is disposed. A failure
   * reaches `warn` and costs the tree, never the session.
   */
  follow(listen: HostListen, warn: (error: unknown) => void): void {
    listen('session/created', (session: SessionSource) => guarded(warn, () => this.attach(session)))
    listen('session/event', (session: SessionSource, event: unknown) =>
      guarded(warn, () => {
        if (this.states.has(session.id)) this.project(session.id, event)
        else this.attach(session)
      }),
    )
    listen('session/disposed', (session: { readonly id: string }) => guarded(warn, () => this.detach(session.id)))
  }

  /**
   * Build the tree of a session from its log (plus the sidecar), or return
   * the existing state. Replaces any stale tree of the same id in the store.
   */
  attach(session: SessionSource): TreeSessionState {
    const existing = this.states.get(session.id)
    if (existing) return existing
    const state = this.build(session)
    this.generations.set(session.id, this.generation(session.id) + 1)
    this.states.set(session.id, state)
    this.store.replace(session.id, state.projector.tree)
    this.changed(session.id)
    return state
  }

  /** Project one new event of an attached session (a no-op for seqs already seen). */
  project(sessionId: string, event: unknown): void {
    const state = this.states.get(sessionId)
    if (!state) return
    const before = state.projector.tree.logSeq
    state.projector.project(event)
    // The projector's own operations need no journal; keep the in-memory log short.
    if (!this.inflight.has(sessionId)) state.projector.tree.trimLog(state.projector.tree.logSeq)
    if (state.projector.tree.logSeq !== before) this.changed(sessionId)
  }

  /** Who writes this session's sidecar (another process makes it read-only here); undefined without a sidecar. */
  writer(sessionId: string): ClaimLook | undefined {
    return this.sidecar?.writer(sessionId)
  }

  /** Whether another process changed this attached session's sidecar since it was loaded here (then rebuild before a change). */
  changedElsewhere(sessionId: string): boolean {
    return this.states.has(sessionId) && this.sidecar?.changedElsewhere(sessionId) === true
  }

  /** Forget a session in this process (its sidecar stays on disk; its writer claim goes). */
  detach(sessionId: string): void {
    this.states.delete(sessionId)
    this.store.drop(sessionId)
    // What the sidecar remembers about its files goes too; a later attach inspects them again.
    this.sidecar?.forget(sessionId)
    this.changed(sessionId)
  }

  /**
   * Apply a user's command to a session's tree and journal what it
   * changed. A failed operation changes nothing and writes nothing; an
   * operation the sidecar cannot journal is rolled back and fails with
   * SIDECAR_IO (it would not survive a restart).
   */
  mutate<C extends TreeCommand>(sessionId: string, command: C, actor: JournalActor): TreeResult<AnswerOf<C>> {
    const pending = this.begin(sessionId, command, actor)
    if (!pending.ok) return pending
    const saved = pending.value.commit()
    if (saved.ok) return ok(pending.value.value)
    pending.value.rollback()
    return saved
  }

  /**
   * Apply a user's command now and journal it later (`commit`),
   * for operations the harness must follow first (a history switch). Its log
   * entries and watermark are taken now, in the same synchronous step, so
   * nothing projected meanwhile is mistaken for the user's.
   */
  begin<C extends TreeCommand>(
    sessionId: string,
    command: C,
    actor: JournalActor,
  ): TreeResult<PendingOperation<AnswerOf<C>>> {
    const state = this.states.get(sessionId)
    if (!state) return notAttached(sessionId)
    const tree = state.projector.tree
    const mark = tree.checkpoint()
    const before = tree.logSeq
    const w = state.projector.watermark
    let result: TreeResult<AnswerOf<C>>
    try {
      result = runCommand(tree, command)
    } catch (error) {
      result = fail('INTERNAL', errorMessage(error))
    }
    if (!result.ok) {
      // A failure changes nothing, also when the operation failed half-way through its steps.
      if (tree.logSeq !== before) tree.rollback(mark)
      if (!this.inflight.has(sessionId)) tree.trimLog(tree.logSeq)
      return result
    }
    const entries = tree.log(before)
    if (tree.logSeq !== before) this.changed(sessionId)
    // Until it settles, the tree log must stay whole (a rollback replays it backwards).
    this.inflight.set(sessionId, (this.inflight.get(sessionId) ?? 0) + 1)
    let settled = false
    const once = (): void => {
      if (settled) throw new Error('a pending operation settles once')
    }
    const settle = (): void => {
      settled = true
      const left = this.inflight.get(sessionId)! - 1
      if (left === 0) this.inflight.delete(sessionId)
      else this.inflight.set(sessionId, left)
      // Persisted or undone: the in-memory log need not keep it.
      if (left === 0 && state.projector.tree === tree) tree.trimLog(tree.logSeq)
    }
    return ok({
      value: result.value,
      commit: () => {
        once()
        // A failed commit leaves the operation pending: the caller rolls it back or keeps it.
        const saved = this.persist(state, entries, w, actor)
        if (saved.ok) settle()
        return saved
      },
      rollback: () => {
        once()
        // The state may have been rebuilt meanwhile (detach + attach): then there is nothing to undo here.
        if (this.states.get(sessionId) === state && state.projector.tree === tree) tree.rollback(mark)
        settle()
        this.changed(sessionId)
      },
    })
  }

  /**
   * Journal user operations made at watermark `w`; fold the journal when it
   * grows. A record that cannot be written fails the call (SIDECAR_IO); a
   * failed fold is only a warning (the journal still holds every record).
   */
  private persist(
    state: TreeSessionState,
    entries: readonly SessionTreeLogEntry[],
    w: number,
    actor: JournalActor,
  ): TreeResult<void> {
    const sidecar = this.sidecar
    if (!sidecar || entries.length === 0) return ok(undefined)
    // One operation, one write: its records land together or not at all.
    const written = sidecar.appendAll(
      state.sessionId,
      entries.map(({ seq: _seq, ...op }) => ({ w, op: op as unknown as JsonObject, at: op.at, actor })),
    )
    if (!written.ok) {
      // Kept in the status too: whatever the caller answers, the sidecar needs a person's look.
      warnOnce(state, { code: written.error.code, message: written.error.message })
      return written
    }
    for (const entry of entries) noteTreeOnly(state, entry, w)
    if (sidecar.needsCompaction(state.sessionId)) {
      const last = written.value.at(-1)!.n
      const folded = sidecar.compact(state.sessionId, {
        n: last,
        w: state.projector.watermark,
        state: foldOverlay(state.projector.tree, state.treeOnlyW) as unknown as JsonObject,
      })
      if (!folded.ok) warnOnce(state, { code: folded.error.code, message: folded.error.message })
    }
    return ok(undefined)
  }

  private build(session: SessionSource): TreeSessionState {
    const warnings: SidecarWarning[] = []
    const treeOnlyW = new Map<string, number>()
    const projector = new SessionProjector(new SessionTree(session.id))
    const state: TreeSessionState = { sessionId: session.id, projector, warnings, treeOnlyW }
    const events = session.events
    const load = this.sidecar?.load(session.id)
    for (const problem of load?.problems ?? [])
      warnings.push({
        code: problem.code,
        message: `${problem.message} (${problem.file}${problem.offset === undefined ? '' : ` at byte ${problem.offset}`})`,
      })

    let overlay: OverlayState | undefined
    let foldW = -1
    if (load?.fold) {
      const checked = checkOverlay(load.fold.state)
      if (checked.ok) {
        overlay = checked.value
        foldW = load.fold.w
      } else {
        warnings.push({ code: 'INVALID_SNAPSHOT', message: `sidecar overlay ignored: ${checked.error.message}` })
      }
    }

    let index = 0
    if (overlay) {
      // Replay the log up to the fold, placing tree-only nodes where they were made.
      projector.setAdoptions(new Map(overlay.adoptions))
      const pending = [...overlay.treeOnly]
      const insertUpTo = (w: number) => {
        while (pending.length > 0 && pending[0]!.w <= w) {
          const { w: at, entry } = pending.shift()!
          if (insertTreeOnly(projector, entry)) treeOnlyW.set(entry.nodeId, at)
          else
            warnings.push({ code: 'INVALID_SNAPSHOT', message: `sidecar node ${entry.nodeId} could not be restored` })
        }
      }
      for (; index < events.length; index++) {
        const seq = seqOf(events[index])
        if (seq !== undefined && seq > foldW) break
        insertUpTo(seq === undefined ? projector.watermark : seq - 1)
        projector.project(events[index])
      }
      insertUpTo(foldW)
      projector.setAdoptions(undefined)
      const restored = projector.tree.withMarks(overlay)
      if (restored.ok) projector.rebind(restored.value)
      else warnings.push({ code: 'INVALID_SNAPSHOT', message: `sidecar overlay ignored: ${restored.error.message}` })
    }

    // Then the rest of the log, with journal records re-applied where they happened.
    const records = load?.records ?? []
    let r = 0
    const applyUpTo = (w: number) => {
      for (; r < records.length && records[r]!.w <= w; r++) applyRecord(state, records[r]!.op, records[r]!.w)
    }
    for (; index < events.length; index++) {
      const seq = seqOf(events[index])
      applyUpTo(seq === undefined ? projector.watermark : seq - 1)
      projector.project(events[index])
    }
    for (; r < records.length; r++) applyRecord(state, records[r]!.op, records[r]!.w)
    projector.tree.trimLog(projector.tree.logSeq)
    return state
  }
}

/** Add a warning unless the same one is already there (a broken sidecar fails every write alike). */
function warnOnce(state: TreeSessionState, warning: SidecarWarning): void {
  if (!state.warnings.some((w) => w.code === warning.code && w.message === warning.message))
    state.warnings.push(warning)
}

function applyRecord(state: TreeSessionState, op: JsonObject, w: number): void {
  const tree = state.projector.tree
  const result = tree.applyOp(op)
  if (!result.ok) {
    state.warnings.push({
      code: result.error.code,
      message: `sidecar record (${String(op.op)}) not re-applied: ${result.error.message}`,
    })
    return
  }
  noteTreeOnly(state, op as { op?: unknown; node?: TreeEntry }, w)
}

/** Remember the watermark a tree-only node (one the harness log does not hold) was appended at. */
function noteTreeOnly(
  state: TreeSessionState,
  record: { readonly op?: unknown; readonly node?: TreeEntry },
  w: number,
): void {
  if (record.op === 'append' && record.node && !isHarnessNode(record.node)) state.treeOnlyW.set(record.node.nodeId, w)
}

function notAttached(sessionId: string): TreeResult<never> {
  return fail('SESSION_NOT_FOUND', `session ${JSON.stringify(sessionId)} is not attached`)
}

/** Re-create a tree-only node under its recorded parent without moving the projection. */
function insertTreeOnly(projector: SessionProjector, entry: TreeEntry): boolean {
  const tree = projector.tree
  const { nodeId, parentId, message, ...rest } = entry
  const appended = tree.append(message ?? null, { ...rest, nodeId, parentId })
  tree.moveCursor(projector.tip, { record: false })
  return appended.ok
}

function seqOf(event: unknown): number | undefined {
  const seq = (event as { seq?: unknown } | null)?.seq
  return typeof seq === 'number' ? seq : undefined
}
