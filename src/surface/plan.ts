/**
 * Plans a stock-mode history switch: the official surface events that turn
 * the model-visible history into exactly the target path.
 *
 * The shared prefix is left untouched (provider prefix caches keep working).
 * The diverging tail is shadowed by ONE `replace` event — a copy of the first
 * target message after the prefix, or an empty assistant "tombstone" when
 * that message cannot stand in (a tool result) or nothing follows (a rewind) —
 * priced by a `compaction/prune` event right before it when a token meter runs.
 * The rest of the target path is appended as copies, each citing its
 * original, with a `tool/call` copy before every `tool/result` copy so the
 * harness's call/result pairing holds inside the one maintenance step. Copied
 * tool exchanges get fresh call ids (`copy.ts`), so no call id repeats.
 *
 * Pure: reads events and the mirrored surface, returns events to append.
 */
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import { isRecord } from '../tree/validate.ts'
import type { NodeSource, SurfaceEntry } from '../harness/projector.ts'
import {
  CallIdMap,
  copyMessage,
  copyToolExchange,
  isMessageEvent,
  type CopyContext,
  type PlannedEvent,
} from './copy.ts'

export { safeCopySource, type PlannedEvent } from './copy.ts'

export interface SwitchPlan {
  readonly events: readonly PlannedEvent[]
  /** Surface seqs the replacement shadows (empty: a pure extension). */
  readonly shadowed: readonly number[]
  /** Messages copied (the replacement included when it is a copy). */
  readonly copies: number
  /** Length of the untouched shared prefix, in surface entries. */
  readonly sharedPrefix: number
  /**
   * The shadowed surface seq that the replacement restates (a rewind's stand-in, see
   * `restateOnRewind`): on the target path, so not history the switch leaves.
   */
  readonly restated?: number
}

export interface PlanInput extends CopyContext {
  /** Event at a seq (the harness log). */
  readonly eventAt: (seq: number) => unknown
  /** The current model-visible surface, mapped to tree nodes. */
  readonly surface: readonly SurfaceEntry[]
  /** Node ids of the target's model history, in model order. */
  readonly target: readonly string[]
  readonly sourceOf: (nodeId: string) => NodeSource | undefined
  /** Provider route stamped on a tombstone (assistant messages must name one). */
  readonly route: { readonly provider: string; readonly model: string }
  /**
   * The token meter's price of the surface node at a seq, when a meter is
   * loaded: the replacement is then preceded by its shadow price (see below).
   */
  readonly priceOf?: (seq: number) => number
  /**
   * `own`: the plan opens its own steps (a maintenance turn), from `step` on,
   * one per copied assistant message; `inflight`: every copy goes into the
   * running step `step`. DSH web's Chat and Trajectory show one assistant
   * message per step (the last one), and the Trajectory places a tool row
   * under the assistant message that issued it, so copies in their own steps
   * show as they were, each tool exchange under its call.
   */
  readonly steps: 'own' | 'inflight'
  /**
   * Events appended after the target path, as they are (no citation: new
   * history). A move made inside a running step re-states the in-flight
   * assistant message here, so its pending call still precedes its result.
   */
  readonly tail?: readonly PlannedEvent[]
  /**
   * A rewind (nothing of the target follows the prefix) restates the prefix's last message, when
   * it is a plain one, instead of an empty "tombstone" answer: the replacement then shadows that
   * message too and cites exactly what it shadows (the restated one first; DSH refuses a repeated
   * citation). Only for switches in a maintenance turn of their own (the projector reads such a
   * replacement there as restating the first entry it shadows).
   */
  readonly restateOnRewind?: boolean
  /**
   * In own steps, close each step holding an answer copy with an empty answer of that step whose
   * `stream` is known empty: dsh-TUI keys answers by (turn, step) and removes the row of such an
   * answer, so the copy is not drawn a second time. The model sees nothing of it (an empty answer
   * derives no message).
   */
  readonly eraseAnswerCopies?: boolean
}

export function planSwitch(input: PlanInput): TreeResult<SwitchPlan> {
  const { surface, target } = input
  // Shared prefix: tombstones show nothing and may stay where they are.
  let j = 0
  let d = 0
  /** Surface index where each matched target entry sits. */
  const matchedAt: number[] = []
  for (; d < surface.length; d++) {
    const node = surface[d]!.node
    if (node === null) continue
    if (j < target.length && node === target[j]) {
      matchedAt.push(d)
      j++
      continue
    }
    break
  }
  // A copied tool exchange pairs with a copy of its issuing message (fresh call ids),
  // so the prefix never ends between a message and the exchanges it issued.
  while (j > 0 && j < target.length && input.sourceOf(target[j]!)?.kind === 'tool') {
    j--
    d = matchedAt[j]!
  }
  // A replacement needs a stand-in: when the first target entry after the prefix cannot be one (a
  // rewind), the prefix gives up its last message if that is a plain one (a prompt, an answer
  // without tool calls), restated as the stand-in. Its copy sends the provider the same bytes
  // (message ids are not on the wire), so the cached prefix is unchanged, and no empty "tombstone"
  // assistant message enters the log (DSH web's Trajectory lists one as an empty assistant row).
  let restated: number | undefined
  if (
    input.restateOnRewind &&
    d < surface.length &&
    j > 0 &&
    !standsIn(input, target[j]) &&
    plainMessage(input, target[j - 1]!)
  ) {
    j--
    d = matchedAt[j]!
    restated = surface[d]!.seq
  }
  const tail = surface.slice(d)
  const rest = target.slice(j)
  const extra = input.tail ?? []
  if (tail.length === 0 && rest.length === 0 && extra.length === 0)
    return ok({ events: [], shadowed: [], copies: 0, sharedPrefix: d })

  const ids = new CallIdMap(input.newCallId)
  const events: PlannedEvent[] = []
  const own = input.steps === 'own'
  let step = input.step
  let stepHasAssistant = false
  let stepHasCopy = false
  const endStep = (): void => {
    if (stepHasCopy && input.eraseAnswerCopies) events.push(eraser(input, step))
    stepHasCopy = false
    events.push({ type: 'step/end', data: { turn: input.turn, step } })
  }
  /** Append in order; in own steps, a further assistant message opens the next step. */
  const push = (event: PlannedEvent): void => {
    if (own && event.type === 'assistant/message') {
      if (stepHasAssistant) {
        endStep()
        step++
        events.push({ type: 'step/start', data: { turn: input.turn, step } })
      }
      stepHasAssistant = true
      if (event.intent?.sourceEventSeqs !== undefined && hasText(event)) stepHasCopy = true
    }
    events.push('step' in event.data ? { ...event, data: { ...event.data, step } } : event)
  }
  if (own) events.push({ type: 'step/start', data: { turn: input.turn, step } })
  let copies = 0
  let k = 0
  const shadowed = tail.map((entry) => entry.seq)
  if (tail.length > 0) {
    const op = { op: 'replace' as const, start: shadowed[0]!, end: shadowed.at(-1)! }
    if (input.priceOf) {
      // The token meter's shadow-price protocol (as DSH's tool-result pruner uses it): the event right
      // before a replacement prices the range it shadows, so the browser's context meter, which folds
      // the log in O(1) state, subtracts it (a replacement without a price would count as zero).
      events.push({
        type: 'compaction/prune',
        data: {
          shadowedRange: { start: op.start, end: op.end },
          shadowedSeqs: [...shadowed],
          shadowedTokenCount: shadowed.reduce((sum, seq) => sum + input.priceOf!(seq), 0),
        },
      })
    }
    const first = rest[0]
    const firstSource = first === undefined ? undefined : input.sourceOf(first)
    const firstEvent = firstSource?.kind === 'message' ? input.eventAt(firstSource.seq) : undefined
    const standIn = isMessageEvent(firstEvent) ? copyMessage(input, ids, firstEvent) : undefined
    if (standIn && firstSource?.kind === 'message') {
      // A restated entry is its own original (or a copy of it) in the shadowed range: cited once, first.
      // So is an answer the prefix gave up because the target leaves its tool exchange on another branch
      // (an import's tree can branch between a call and its result).
      const cited =
        restated === undefined && shadowed[0] !== firstSource.seq ? [...shadowed, firstSource.seq] : [...shadowed]
      push({ ...standIn, intent: { surfaceOp: op, sourceEventSeqs: cited } })
      copies++
      k = 1
    } else {
      push({
        type: 'assistant/message',
        data: emptyAnswer(input, step),
        intent: { surfaceOp: op, sourceEventSeqs: shadowed },
      })
    }
  }
  for (; k < rest.length; k++) {
    const nodeId = rest[k]!
    const source = input.sourceOf(nodeId)
    if (!source)
      return fail(
        'INVALID_CUT_POINT',
        `node ${nodeId} did not come from this session's log and cannot be replayed to the model`,
        { nodeId },
      )
    if (source.kind === 'message') {
      const original = input.eventAt(source.seq)
      if (!isMessageEvent(original)) {
        return fail('INVALID_CUT_POINT', `node ${nodeId} (a lone tool result) cannot be replayed without its call`, {
          nodeId,
        })
      }
      const copy = copyMessage(input, ids, original)
      if (!copy)
        return fail('INTERNAL', `event ${source.seq} behind node ${nodeId} is unreadable`, { nodeId, seq: source.seq })
      push({ ...copy, intent: { surfaceOp: 'append', sourceEventSeqs: [source.seq] } })
      copies++
    } else {
      const exchange = copyToolExchange(input, ids, nodeId, source, input)
      if (!exchange.ok) return exchange
      for (const event of exchange.value) push(event)
      copies++
    }
  }
  for (const event of extra) push(event)
  if (own) endStep()
  return ok({ events, shadowed, copies, sharedPrefix: d, ...(restated === undefined ? {} : { restated }) })
}

/** An empty answer of `step` (a tombstone): the model sees nothing of it. */
function emptyAnswer(input: PlanInput, step: number): Record<string, unknown> {
  return {
    turn: input.turn,
    step,
    message: {
      id: input.newMessageId(),
      role: 'assistant',
      content: [],
      source: { kind: 'model', provider: input.route.provider, model: input.route.model },
    },
  }
}

/** An empty answer of `step` that erases the step's answer row in dsh-TUI (see `eraseAnswerCopies`). */
function eraser(input: PlanInput, step: number): PlannedEvent {
  return {
    type: 'assistant/message',
    data: { ...emptyAnswer(input, step), stream: [] },
    intent: { surfaceOp: 'append' },
  }
}

/** An assistant message with a text block (dsh-TUI draws a row for it). */
function hasText(event: PlannedEvent): boolean {
  const message = event.data.message
  const content = isRecord(message) ? message.content : undefined
  return (
    Array.isArray(content) && content.some((block) => isRecord(block) && block.type === 'text' && block.text !== '')
  )
}

/** Whether a target node can stand in for a shadowed range: a message (not a tool exchange) whose event is readable. */
function standsIn(input: PlanInput, nodeId: string | undefined): boolean {
  const source = nodeId === undefined ? undefined : input.sourceOf(nodeId)
  return source?.kind === 'message' && isMessageEvent(input.eventAt(source.seq))
}

/** A prompt, or an answer with content and no tool calls: its copy is byte-identical on the wire. */
function plainMessage(input: PlanInput, nodeId: string): boolean {
  const source = input.sourceOf(nodeId)
  const event = source?.kind === 'message' ? input.eventAt(source.seq) : undefined
  if (!isMessageEvent(event)) return false
  if (event.type === 'user/message') return true
  const content = isRecord(event.data.message) ? event.data.message.content : undefined
  return (
    Array.isArray(content) &&
    content.length > 0 &&
    !content.some((block) => isRecord(block) && block.type === 'tool-call')
  )
}
