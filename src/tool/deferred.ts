/**
 * Deferred moves: a cursor move asked for during a turn that cannot switch the
 * history inside the running step (the model's move made with other calls, or
 * while another waits, or outside stock mode; a person's `/tree`). It is
 * recorded here, the tree untouched, and applied through the service once the
 * agent is idle (`agent/status` → `idle`; a turn started first is held back
 * with `NO_MODEL_CALL`). At most one waits per session, in memory only; nothing
 * here throws into the loop. Why: docs/tools.md, "When a move takes effect".
 */
import { randomUUID } from 'node:crypto'
import { fail, type TreeError, type TreeResult, errorMessage } from '../tree/errors.ts'
import type { MoveResult } from '../service/wire.ts'
import type { TreeMove } from '../service/tree-move.ts'
import { isFree, type LiveAgent, type PreStepPayload } from '../harness/live.ts'
import { markerOf } from '../harness/marker.ts'
import { isRecord } from '../tree/validate.ts'

/** Who asked. */
export type MoveRequester = 'model' | 'user'

export interface PendingMove {
  readonly id: string
  readonly sessionId: string
  /** The move asked for (`service/tree-move.ts`). */
  readonly op: TreeMove
  readonly by: MoveRequester
  readonly requestedAt: string
  /** The turn running when the move was asked for (from the session log). */
  readonly turn: number | undefined
}

export interface MoveOutcome {
  readonly move: PendingMove
  /** `cancelled`: by `back` before it applied; `dropped`: its turn was cancelled or the plugin unloaded. */
  readonly status: 'applied' | 'failed' | 'dropped' | 'cancelled'
  readonly result?: MoveResult
  /** Why it failed (`failed`). */
  readonly error?: TreeError
  /** Why it was dropped (`dropped`). */
  readonly reason?: string
  readonly at: string
}

/** Applies a move on an idle agent (the service). */
export type MoveRunner = (agentId: string, op: TreeMove, by: MoveRequester) => Promise<TreeResult<MoveResult>>

/** A user message held back from a turn that started before the move (the harness `UserMessage`). */
type Message = { readonly id: string; readonly source?: unknown }
interface Held {
  readonly message: Message
  readonly target: 'next-turn' | 'next-step'
}

interface Entry {
  move: PendingMove
  readonly agent: LiveAgent
  state: 'waiting' | 'applying'
  readonly held: Held[]
  busyRetries: number
  readonly settled: Settled
}

/** A promise with its resolver (Promise.withResolvers is ES2024). */
interface Settled {
  readonly promise: Promise<MoveOutcome>
  resolve(outcome: MoveOutcome): void
}

function settledPromise(): Settled {
  let resolve!: (outcome: MoveOutcome) => void
  const promise = new Promise<MoveOutcome>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

/** How often an apply may meet a busy agent before the move is given up. */
const MAX_BUSY_RETRIES = 5

export interface DeferredMovesOptions {
  readonly run: MoveRunner
  /** A move starts waiting: the turn that may be held is ahead (the tool puts its pre-step listener at the front). */
  readonly waiting?: () => void
  readonly warn?: (message: string) => void
  readonly now?: () => Date
}

export class DeferredMoves {
  private readonly entries = new Map<string, Entry>()
  private readonly outcomes = new Map<string, MoveOutcome>()
  private readonly options: DeferredMovesOptions
  private disposed = false

  constructor(options: DeferredMovesOptions) {
    this.options = options
  }

  /** The move waiting for a session, if any. */
  pending(sessionId: string): PendingMove | undefined {
    return this.entries.get(sessionId)?.move
  }

  /** How the last deferred move of a session ended. */
  lastOutcome(sessionId: string): MoveOutcome | undefined {
    return this.outcomes.get(sessionId)
  }

  /** Resolves when the session's pending move settles (at once with the last outcome when none waits). */
  settled(sessionId: string): Promise<MoveOutcome | undefined> {
    const entry = this.entries.get(sessionId)
    return entry ? entry.settled.promise : Promise.resolve(this.outcomes.get(sessionId))
  }

  /**
   * Record a move for when the agent is idle. A move already waiting is
   * replaced (and returned); one already being applied is not touched.
   */
  schedule(
    agent: LiveAgent,
    op: TreeMove,
    by: MoveRequester,
  ): TreeResult<{ move: PendingMove; replaced?: PendingMove }> {
    if (this.disposed) return fail('INTERNAL', 'the session-tree tool is shutting down')
    const existing = this.entries.get(agent.id)
    if (existing?.state === 'applying') {
      return fail('AGENT_BUSY', 'an earlier move is being applied right now; try again after it', { agentId: agent.id })
    }
    const move: PendingMove = {
      id: randomUUID(),
      sessionId: agent.id,
      op,
      by,
      requestedAt: this.now(),
      turn: openTurn(agent.session.events),
    }
    let replaced: PendingMove | undefined
    if (existing) {
      replaced = existing.move
      existing.move = move
      existing.busyRetries = 0
    } else {
      this.entries.set(agent.id, { move, agent, state: 'waiting', held: [], busyRetries: 0, settled: settledPromise() })
    }
    this.options.waiting?.()
    // Normally the agent is mid-turn; if it is already idle, apply right away.
    if (isFree(agent)) queueMicrotask(() => void this.apply(agent))
    return { ok: true, value: replaced ? { move, replaced } : { move } }
  }

  /** Cancel the waiting move (the tree was never touched). */
  cancel(sessionId: string): PendingMove | undefined {
    const entry = this.entries.get(sessionId)
    if (!entry || entry.state !== 'waiting') return undefined
    this.settle(entry, { move: entry.move, status: 'cancelled', at: this.now() })
    return entry.move
  }

  /** `agent/status` listener (trigger A). */
  onStatus(agent: LiveAgent, status: string): void {
    if (status !== 'idle' || !this.entries.has(agent.id)) return
    void this.apply(agent)
  }

  /**
   * Trigger B, for the `agent/pre-step` listener: the first step of a turn
   * that started while a move was waiting is held back until the move is
   * applied. Returns true when it held the step (the listener then rejects
   * it: the turn ends without a model call, and the idle notification applies
   * the move and delivers the held messages again).
   */
  hold(payload: PreStepPayload): boolean {
    const entry = this.entries.get(payload.agent.id)
    if (!entry || entry.state !== 'waiting' || payload.step !== 1) return false
    if (entry.move.turn !== undefined && payload.turn <= entry.move.turn) return false
    // A history switch's own maintenance turn belongs to the service.
    if (payload.messages.some((message) => markerOf(message) !== undefined)) return false
    const promptId = claimedPrompt(payload.agent.session.events, payload.messages as readonly Message[])
    for (const message of payload.messages as readonly Message[]) {
      entry.held.push({ message, target: message.id === promptId ? 'next-turn' : 'next-step' })
    }
    return true
  }

  /** Apply the waiting move of an idle agent. */
  async apply(agent: LiveAgent): Promise<void> {
    const entry = this.entries.get(agent.id)
    if (!entry || entry.state !== 'waiting' || this.disposed) return
    if (agent.status !== 'idle') return
    const ended = lastTurnEnd(agent.session.events)
    if (
      entry.move.by === 'model' &&
      entry.move.turn !== undefined &&
      ended?.turn === entry.move.turn &&
      (ended.reason === 'aborted' || ended.reason === 'disposed')
    ) {
      this.settle(entry, {
        move: entry.move,
        status: 'dropped',
        reason: `the turn that asked for it was ${ended.reason}`,
        at: this.now(),
      })
      return
    }
    entry.state = 'applying'
    const move = entry.move
    let result: TreeResult<MoveResult>
    try {
      result = await this.options.run(agent.id, move.op, move.by)
    } catch (error) {
      result = fail('INTERNAL', errorMessage(error))
    }
    if (!result.ok && result.error.code === 'AGENT_BUSY' && entry.busyRetries < MAX_BUSY_RETRIES && !this.disposed) {
      // Someone else's work got in first; the next idle (or the next turn's first step) tries again.
      entry.busyRetries++
      entry.state = 'waiting'
      return
    }
    if (entry.move !== move) {
      // Replaced while it was applied: impossible by construction (schedule refuses), kept for safety.
      entry.state = 'waiting'
      return
    }
    if (!result.ok)
      this.options.warn?.(
        `deferred ${move.op.kind} for session ${agent.id} failed: ${result.error.code}: ${result.error.message}`,
      )
    this.settle(
      entry,
      result.ok
        ? { move, status: 'applied', result: result.value, at: this.now() }
        : { move, status: 'failed', error: result.error, at: this.now() },
    )
  }

  /** Forget every waiting move; held messages are delivered again so no prompt is lost. */
  dispose(): void {
    this.disposed = true
    for (const entry of [...this.entries.values()]) {
      this.settle(entry, {
        move: entry.move,
        status: 'dropped',
        reason: 'the session-tree tool was unloaded',
        at: this.now(),
      })
    }
  }

  private settle(entry: Entry, outcome: MoveOutcome): void {
    if (this.entries.get(entry.move.sessionId) === entry) this.entries.delete(entry.move.sessionId)
    this.outcomes.set(entry.move.sessionId, outcome)
    this.redeliver(entry)
    entry.settled.resolve(outcome)
  }

  /** Give held messages back to the agent in their original order and lists. */
  private redeliver(entry: Entry): void {
    const held = entry.held.splice(0)
    if (held.length === 0) return
    const agent = entry.agent
    const wakes = held.some((item) => item.target === 'next-turn')
    held.forEach((item, i) => {
      try {
        if (item.target === 'next-turn') agent.followup(item.message)
        else agent.send(item.message, 'next-step', !wakes && i === held.length - 1)
      } catch (error) {
        this.options.warn?.(`could not re-deliver a held message to ${agent.id}: ${errorMessage(error)}`)
      }
    })
  }

  private now(): string {
    return (this.options.now?.() ?? new Date()).toISOString()
  }
}

function eventOf(value: unknown): { type: string; data: Record<string, unknown> } | undefined {
  if (!isRecord(value) || typeof value.type !== 'string') return undefined
  return { type: value.type, data: isRecord(value.data) ? value.data : {} }
}

/** The turn open at the end of the log, if any. */
export function openTurn(events: readonly unknown[]): number | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = eventOf(events[i])
    if (event?.type === 'turn/end') return undefined
    if (event?.type === 'turn/start') return typeof event.data.turn === 'number' ? event.data.turn : undefined
  }
  return undefined
}

/** The last closed turn and how it ended. */
export function lastTurnEnd(events: readonly unknown[]): { turn: number; reason: string } | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = eventOf(events[i])
    if (event?.type !== 'turn/end') continue
    const reason =
      isRecord(event.data.reason) && typeof event.data.reason.kind === 'string' ? event.data.reason.kind : 'unknown'
    return typeof event.data.turn === 'number' ? { turn: event.data.turn, reason } : undefined
  }
  return undefined
}

/**
 * Which claimed message came from the next-turn queue. A turn's first claim
 * takes all next-step input, then one queued prompt; the log's claim splices
 * (pure deletions without an outcome) say whether a prompt was taken.
 */
function claimedPrompt(events: readonly unknown[], claimed: readonly Message[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = eventOf(events[i])
    if (!event || event.type === 'turn/start') break
    if (event.type !== 'agent/inbox/spliced') continue
    const data = event.data
    if (
      data.target === 'next-turn' &&
      data.outcome === undefined &&
      typeof data.removedCount === 'number' &&
      data.removedCount > 0
    ) {
      return claimed.at(-1)?.id
    }
  }
  return undefined
}
