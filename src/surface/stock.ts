/**
 * Stock mode: switch the model-visible history of an unpatched harness with
 * official events only, durably in its log, as one maintenance turn of the idle
 * agent: a marker (`marker.ts`) wakes it, our front-of-waterfall pre-step
 * listener appends the plan (`plan.ts`, checked first by `dryRun`) and ends the
 * turn with no model call. docs/model-history.md, "Stock mode in detail".
 */
import { randomUUID } from 'node:crypto'
import { snapshotJsonValue } from '@deepseek-ai/dsh-session'
import { fail, ok, type TreeResult, errorMessage } from '../tree/errors.ts'
import { isRecord } from '../tree/validate.ts'
import type { SessionProjector } from '../harness/projector.ts'
import type { HostListen } from '../harness/host.ts'
import {
  FRESH_CALL_ID_PREFIX,
  markerMessage,
  markerOf,
  RESTATED_ID_PREFIX,
  type SwitchMarker,
} from '../harness/marker.ts'
import { planSwitch } from './plan.ts'
import { eventLookup, surfacePricer, type Estimator } from './price.ts'
import { WITHIN_STEP_REFUSALS, type WithinStepRefusal } from './errors.ts'
import { undrawnCopySource, type CopySourcePolicy, type PlannedEvent } from './copy.ts'

/** Who draws the transcript a switch writes into (see `StockSwitcher.drawnBy`). */
export type TranscriptReader = 'any' | 'dsh-tui'
import {
  frontListener,
  headerRoute,
  isFree,
  NO_MODEL_CALL,
  type FrontListener,
  type LiveAgent,
  type ModelRoute,
  type LiveSession,
  type PreStepDecision,
  type PreStepPayload,
} from '../harness/live.ts'

// The live-agent slice moved to `harness/live.ts`; these names stay importable from here.

/** What a completed switch did. */
export interface SwitchReport {
  readonly noop: boolean
  /** Events the whole switch appended to the harness log (marker splices and turn included). */
  readonly appendedEvents: number
  readonly copies: number
  readonly shadowed: number
  readonly sharedPrefix: number
  /** Prompts queued during the switch and re-queued after it. */
  readonly requeued: number
}

/** Each session's projector, kept current by the sync (`TreeSync` is one). */
export interface ProjectorSource {
  get(sessionId: string): { readonly projector: SessionProjector } | undefined
}

export interface StockSwitcherOptions {
  readonly trees: ProjectorSource
  /** Awaited durability checkpoint (`ctx.sessions.flush`). */
  readonly flush: (session: LiveSession) => Promise<void>
  readonly copySource?: CopySourcePolicy
  /** How long to wait for the maintenance turn (default 30 s). */
  readonly timeoutMs?: number
  /**
   * The harness token meter's estimator (`ctx.tokenMeter.estimateMessage`), when one is loaded:
   * each replacement is then priced for the meter's projections (the browser's context meter).
   */
  readonly estimator?: () => Estimator | undefined
  /** The host's `on`: the switcher hears `agent/pre-step` itself (tests without it call `preStep`). */
  readonly listen?: HostListen
}

interface Job {
  readonly marker: SwitchMarker
  /** Events appended after the target path (a carried summary). */
  readonly tail?: readonly PlannedEvent[]
  resolve(result: TreeResult<{ copies: number; shadowed: number; sharedPrefix: number }>): void
}

export class StockSwitcher {
  private readonly jobs = new Map<string, Job>()
  private readonly options: StockSwitcherOptions
  /** Put back at the front of the pre-step waterfall right before a marker wakes the agent. */
  private readonly listener: FrontListener | undefined
  /**
   * Who draws the transcript, so copies are shaped for it. `any`: copies as they are (DSH web's
   * Chat and Trajectory read `surfaceOp`; a rewind restates its last kept message, as the
   * Trajectory shows no empty answer). `dsh-tui` (the terminal half sets it while dsh-TUI is
   * loaded): its renderer reads no `surfaceOp`, draws only user-sourced prompts and keys answers
   * by (turn, step), so restated prompts get this plugin's source, each answer copy's step ends
   * with an empty answer that erases its row, and a rewind leaves an empty answer.
   */
  drawnBy: TranscriptReader = 'any'

  constructor(options: StockSwitcherOptions) {
    this.options = options
    // Outermost, so the switch's quiet `enter` reaches the loop as it is (`harness/live.ts` NO_MODEL_CALL).
    this.listener =
      options.listen &&
      frontListener(options.listen, (payload: PreStepPayload, next: () => Promise<PreStepDecision>) =>
        this.preStep(payload, next),
      )
  }

  /**
   * Switch the model history of an idle agent to the model history of
   * `target` (a tree node, or null for the empty history).
   */
  async switch(
    agent: LiveAgent,
    target: string | null,
    branch?: string,
    lane?: string,
    tail?: readonly PlannedEvent[],
  ): Promise<TreeResult<SwitchReport>> {
    if (!isFree(agent)) {
      return fail('AGENT_BUSY', 'the agent is running; switch the history when it is idle', {
        agentId: agent.id,
        status: agent.status,
      })
    }
    const preview = this.plan(agent.session, target, 0, 1, 'own', tail)
    if (!preview.ok) return preview
    if (preview.value.events.length === 0) {
      return ok({
        noop: true,
        appendedEvents: 0,
        copies: 0,
        shadowed: 0,
        sharedPrefix: preview.value.sharedPrefix,
        requeued: 0,
      })
    }
    const restated = preview.value.restated
    const leaves = this.leaves(
      agent.session,
      preview.value.shadowed.filter((seq) => seq !== restated),
    )
    const marker: SwitchMarker = {
      v: 1,
      op: 'switch',
      id: randomUUID(),
      target,
      ...(branch === undefined ? {} : { branch }),
      ...(lane === undefined ? {} : { lane }),
      ...(leaves === undefined ? {} : { leaves }),
    }
    const message = markerMessage(marker)
    const before = agent.session.seq
    const done = new Promise<TreeResult<{ copies: number; shadowed: number; sharedPrefix: number }>>((resolve) => {
      this.jobs.set(message.id, { marker, resolve, ...(tail ? { tail } : {}) })
    })
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<TreeResult<never>>((resolve) => {
      timer = setTimeout(
        () => resolve(fail('INTERNAL', 'the maintenance turn did not run in time')),
        this.options.timeoutMs ?? 30_000,
      )
    })
    try {
      this.listener?.front()
      agent.send(message, 'next-turn', true)
      const result = await Promise.race([done, timeout])
      if (!result.ok) {
        // Never claimed in time: take the marker back, so the switch cannot happen after this answer.
        if (agent.inbox.nextTurn.some((queued) => queued.id === message.id)) agent.inbox.remove(message.id)
        return result
      }
      await agent.whenIdle()
      const appendedEvents = agent.session.seq - before
      const requeued = this.requeueStranded(agent)
      await this.options.flush(agent.session)
      return ok({
        noop: false,
        appendedEvents,
        copies: result.value.copies,
        shadowed: result.value.shadowed,
        sharedPrefix: result.value.sharedPrefix,
        requeued,
      })
    } finally {
      if (timer !== undefined) clearTimeout(timer)
      this.jobs.delete(message.id)
    }
  }

  /** The first event of the history a plan shadows: the earliest event of the nodes behind the shadowed surface. */
  private leaves(session: LiveSession, shadowed: readonly number[]): number | undefined {
    const projector = this.options.trees.get(session.id)?.projector
    if (!projector || shadowed.length === 0) return undefined
    const nodeAt = new Map(projector.surfaceEntries.map((entry) => [entry.seq, entry.node]))
    let first: number | undefined
    for (const seq of shadowed) {
      const node = nodeAt.get(seq)
      const source = node == null ? undefined : projector.sourceOf(node)
      if (!source) continue
      const start = source.kind === 'message' ? source.seq : source.callSeq
      if (first === undefined || start < first) first = start
    }
    return first
  }

  /**
   * The `agent/pre-step` listener. A claimed marker is executed as a switch —
   * also a marker left in the inbox by a crash (its switch is completed now).
   */
  async preStep(payload: PreStepPayload, next: () => Promise<PreStepDecision>): Promise<PreStepDecision> {
    const index = payload.messages.findIndex((m) => markerOf(m) !== undefined)
    if (index === -1) return next()
    const message = payload.messages[index] as { id: string }
    const marker = markerOf(message)!
    const agent = payload.agent
    // Context claimed together with the marker goes back for the next real step.
    const others = payload.messages.filter((_, i) => i !== index)
    for (const other of [...others].reverse()) agent.inbox.prepend('next-step', other)
    const job = this.jobs.get(message.id)
    // A marker left by a crash has no job: its switch completes without the tail (say, a summary).
    const result = this.execute(agent.session, marker, payload.turn, payload.step, job?.tail)
    job?.resolve(result)
    return NO_MODEL_CALL
  }

  private execute(
    session: LiveSession,
    marker: SwitchMarker,
    turn: number,
    step: number,
    tail?: readonly PlannedEvent[],
  ): TreeResult<{ copies: number; shadowed: number; sharedPrefix: number }> {
    const planned = this.plan(session, marker.target, turn, step, 'own', tail)
    if (!planned.ok) return planned
    const events = planned.value.events
    const checked = dryRun(session, events)
    if (!checked.ok) return checked
    let open: number | undefined
    try {
      for (const event of events) {
        if (event.type === 'step/start') open = event.data.step as number
        appendPlanned(session, event)
        if (event.type === 'step/end') open = undefined
      }
    } catch (error) {
      return fail('INTERNAL', `the harness refused the switch: ${errorMessage(error)}`)
    } finally {
      // Never leave a step open: the token meter and the invariants need it closed.
      if (open !== undefined) {
        try {
          session.append('step/end', { turn, step: open })
        } catch {
          /* the turn end closes it on reload */
        }
      }
    }
    return ok({
      copies: planned.value.copies,
      shadowed: planned.value.shadowed.length,
      sharedPrefix: planned.value.sharedPrefix,
    })
  }

  private plan(
    session: LiveSession,
    target: string | null,
    turn: number,
    step: number,
    steps: 'own' | 'inflight',
    tail?: readonly PlannedEvent[],
  ) {
    const projector = this.options.trees.get(session.id)?.projector
    if (!projector) return fail('SESSION_NOT_FOUND', `session ${session.id} has no tree`)
    const surface = projector.surfaceEntries
    const live = session.surface.nodes
    if (surface.length !== live.length || surface.some((entry, i) => entry.seq !== live[i])) {
      return fail('INTERNAL', 'the tree lags behind the harness surface; try again')
    }
    const tree = projector.tree
    const history = tree.historyIds(target)
    if (!history.ok) return history
    const eventAt = eventLookup(session)
    const estimate = this.options.estimator?.()
    return planSwitch({
      eventAt,
      ...(estimate ? { priceOf: surfacePricer(session, estimate) } : {}),
      surface,
      target: history.value,
      sourceOf: (nodeId) => projector.sourceOf(nodeId),
      turn,
      step,
      // What a move inside a running step restates is marked as such (see RESTATED_ID_PREFIX).
      newMessageId: steps === 'inflight' ? restatedId : () => randomUUID(),
      newCallId: freshCallId,
      route: routeOf(session),
      steps,
      // In a maintenance turn of its own, a rewind restates the last message it keeps (no empty answer).
      restateOnRewind: steps === 'own' && this.drawnBy === 'any',
      eraseAnswerCopies: this.drawnBy === 'dsh-tui',
      ...(this.drawnBy === 'dsh-tui'
        ? { copySource: undrawnCopySource }
        : this.options.copySource
          ? { copySource: this.options.copySource }
          : {}),
      ...(tail ? { tail } : {}),
    })
  }

  /**
   * Switch the model history from inside a running step — a move the model
   * made with a tool. No maintenance turn: the copies go into the open step,
   * and the in-flight assistant message that issued `callId` is re-stated
   * after the target path (its call's result, appended by the loop when the
   * tool returns, must follow it). The next request of this very turn then
   * holds the target path, that call and its result.
   */
  switchWithinStep(
    session: LiveSession,
    target: string | null,
    callId: string,
    carried?: readonly PlannedEvent[],
  ): TreeResult<{ copies: number; shadowed: number; sharedPrefix: number; appendedEvents: number }> {
    const inflight = inflightCall(session, callId)
    if (!inflight.ok) return inflight
    const { turn, step, message } = inflight.value
    // The live call keeps its id: its result comes from the loop. Only copies get fresh ids.
    const restated: PlannedEvent = {
      type: 'assistant/message',
      data: { turn, step, message: { ...message, id: restatedId() } },
      intent: { surfaceOp: 'append' },
    }
    // A carried summary ends the selected path; the in-flight call still comes last.
    const planned = this.plan(session, target, turn, step, 'inflight', [...(carried ?? []), restated])
    if (!planned.ok) return planned
    const checked = dryRun(session, planned.value.events)
    if (!checked.ok) return checked
    const before = session.seq
    try {
      for (const event of planned.value.events) appendPlanned(session, event)
    } catch (error) {
      return fail('INTERNAL', `the harness refused the switch: ${errorMessage(error)}`)
    }
    return ok({
      copies: planned.value.copies,
      shadowed: planned.value.shadowed.length,
      sharedPrefix: planned.value.sharedPrefix,
      appendedEvents: session.seq - before,
    })
  }

  /** A prompt queued while the switch ran is stranded by the loop; queue it again. */
  private requeueStranded(agent: LiveAgent): number {
    if (agent.status !== 'idle') return 0
    const stranded = [...agent.inbox.nextTurn]
    for (const message of stranded) {
      agent.inbox.remove(message.id)
      agent.followup(message)
    }
    return stranded.length
  }
}

/** A call id no provider made: `call_dst_` and 20 random hex digits (29 characters, provider-safe). */
export function freshCallId(): string {
  return `${FRESH_CALL_ID_PREFIX}${randomUUID().replaceAll('-', '').slice(0, 20)}`
}

/** The message id of a copy a model's in-step move writes. */
const restatedId = (): string => `${RESTATED_ID_PREFIX}${randomUUID()}`

function appendPlanned(session: LiveSession, event: PlannedEvent): void {
  if (event.intent) session.append(event.type, event.data, event.intent)
  else session.append(event.type, event.data)
}

/**
 * The running step's assistant message that issued `callId`: it must be the
 * last message the model sees, and its only call (parallel siblings would
 * lose their results).
 */
function inflightCall(
  session: LiveSession,
  callId: string,
): TreeResult<{ turn: number; step: number; message: Record<string, unknown> }> {
  const last = session.surface.nodes.at(-1)
  const event =
    last === undefined
      ? undefined
      : (eventLookup(session)(last) as { type?: string; data?: Record<string, unknown> } | undefined)
  const message = event?.type === 'assistant/message' && isRecord(event.data?.message) ? event.data.message : undefined
  const content = Array.isArray(message?.content) ? (message.content as { type?: string; id?: string }[]) : []
  const calls = content.filter((block) => block.type === 'tool-call')
  if (!message || !calls.some((block) => block.id === callId)) {
    return refuseWithinStep('not-last', callId)
  }
  if (calls.length !== 1) {
    return refuseWithinStep('shared-message', callId)
  }
  const turn = event!.data!.turn
  const step = event!.data!.step
  if (typeof turn !== 'number' || typeof step !== 'number')
    return fail('INTERNAL', 'the in-flight message names no turn and step')
  return ok({ turn, step, message })
}

/** Provider/model for a tombstone: the latest request header, else the latest assistant message. */
function routeOf(session: LiveSession): ModelRoute {
  const header = headerRoute(session)
  if (header) return header
  const events = session.events
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as {
      type?: string
      data?: { message?: { source?: { provider?: unknown; model?: unknown } } }
    }
    const source = event.type === 'assistant/message' ? event.data?.message?.source : undefined
    if (typeof source?.provider === 'string' && typeof source.model === 'string')
      return { provider: source.provider, model: source.model }
  }
  return { provider: 'unknown', model: 'unknown' }
}

/** A within-step switch that must wait for the end of the turn; the reason is in `details.reason`. */
function refuseWithinStep(reason: WithinStepRefusal, callId: string): TreeResult<never> {
  return fail('AGENT_BUSY', `${WITHIN_STEP_REFUSALS[reason]}; the move waits for the end of the turn`, {
    callId,
    reason,
  })
}

/**
 * Validate the plan the way a reload validates a stored log (envelopes, seq continuity, surface transitions):
 * the harness's own `Session` reads the log with the planned events after it. Exported for its tests.
 * `fromRestore` where it exists: `create` deep-copies and freezes the whole log (~1.3 s of each jump at 100,000
 * events); only the planned events are copied, which is where `create` would refuse data that is not lossless JSON.
 */
export function dryRun(session: LiveSession, planned: readonly PlannedEvent[]): TreeResult<void> {
  const SessionClass = session.constructor as unknown as {
    create?: (id: string, seed: unknown[], header: unknown) => unknown
    fromRestore?: (id: string, seed: unknown[], header: unknown) => unknown
  }
  if (typeof SessionClass.create !== 'function') return ok(undefined)
  const now = Date.now()
  const extra = planned.map((event, i) => ({
    type: event.type,
    seq: session.seq + i,
    time: now,
    data: event.data,
    ...(event.intent ?? {}),
  }))
  try {
    const header = headerOf(session)
    if (typeof SessionClass.fromRestore === 'function' && header !== undefined) {
      const fresh: unknown[] = []
      for (const event of extra) {
        const copy = snapshotJsonValue(event as never)
        if (copy === undefined) throw new Error(`planned event at seq ${event.seq} is not losslessly JSON-serializable`)
        fresh.push(copy)
      }
      SessionClass.fromRestore(session.id, [...session.events, ...fresh], snapshotJsonValue(header as never))
    } else SessionClass.create(session.id, [...session.events, ...extra], header)
    return ok(undefined)
  } catch (error) {
    return fail('INTERNAL', `the planned switch would not reload: ${errorMessage(error)}`)
  }
}

function headerOf(session: LiveSession): unknown {
  return isRecord(session.header) ? session.header : undefined
}
