/**
 * Plans a stock-mode history switch: the official surface events that turn
 * the model-visible history into exactly the target path.
 *
 * The shared prefix is left untouched (provider prefix caches keep working).
 * The diverging tail is shadowed by ONE `replace` event — a copy of the first
 * target message after the prefix, or an empty assistant "tombstone" when
 * that message cannot stand in (a tool result) or nothing follows (a rewind).
 * The rest of the target path is appended as copies, each citing its
 * original, with a `tool/call` copy before every `tool/result` copy so the
 * harness's call/result pairing holds inside the one maintenance step.
 *
 * Pure: reads events and the mirrored surface, returns events to append.
 */
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import { isRecord } from '../tree/validate.ts'
import type { NodeSource, SurfaceEntry } from '../harness/projector.ts'
import { PLUGIN_ID } from '../harness/marker.ts'

/** One event to append, in order. */
export interface PlannedEvent {
  readonly type: 'user/message' | 'assistant/message' | 'tool/call' | 'tool/result'
  readonly data: Record<string, unknown>
  readonly intent?: {
    readonly surfaceOp: 'append' | { readonly op: 'replace'; readonly start: number; readonly end: number }
    readonly sourceEventSeqs: number[]
  }
}

export interface SwitchPlan {
  readonly events: readonly PlannedEvent[]
  /** Surface seqs the replacement shadows (empty: a pure extension). */
  readonly shadowed: readonly number[]
  /** Messages copied (the replacement included when it is a copy). */
  readonly copies: number
  /** Length of the untouched shared prefix, in surface entries. */
  readonly sharedPrefix: number
}

/** How copies treat the original message's `source`. */
export type CopySourcePolicy = (source: unknown) => unknown

/**
 * Keep sources the harness reads as plain provenance (typed prompts, ordinary
 * plugin context — dropping the runtime-context source would make the harness
 * inject it again); re-source kinds whose owners validate their position in
 * the log (goal rounds, time readings, subagent relays), so a copy cannot
 * corrupt their replay.
 */
export const safeCopySource: CopySourcePolicy = (source) => {
  if (isRecord(source) && source.kind === 'user') return source
  if (isRecord(source) && source.kind === 'plugin' && source.plugin !== 'time-context') return source
  return { kind: 'plugin', plugin: PLUGIN_ID, form: 'relay' }
}

export interface PlanInput {
  /** Event at a seq (the harness log). */
  readonly eventAt: (seq: number) => unknown
  /** The current model-visible surface, mapped to tree nodes. */
  readonly surface: readonly SurfaceEntry[]
  /** Node ids of the target's model history, in model order. */
  readonly target: readonly string[]
  readonly sourceOf: (nodeId: string) => NodeSource | undefined
  /** Maintenance turn and step the copies are stamped with. */
  readonly turn: number
  readonly step: number
  readonly newMessageId: () => string
  /** Provider route stamped on a tombstone (assistant messages must name one). */
  readonly route: { readonly provider: string; readonly model: string }
  readonly copySource?: CopySourcePolicy
  /**
   * Events appended after the target path, as they are (no citation: new
   * history). A move made inside a running step re-states the in-flight
   * assistant message here, so its pending call still precedes its result.
   */
  readonly tail?: readonly PlannedEvent[]
}

export function planSwitch(input: PlanInput): TreeResult<SwitchPlan> {
  const { surface, target } = input
  // Shared prefix: tombstones show nothing and may stay where they are.
  let j = 0
  let d = 0
  for (; d < surface.length; d++) {
    const node = surface[d]!.node
    if (node === null) continue
    if (j < target.length && node === target[j]) {
      j++
      continue
    }
    break
  }
  const tail = surface.slice(d)
  const rest = target.slice(j)
  const extra = input.tail ?? []
  if (tail.length === 0 && rest.length === 0 && extra.length === 0) return ok({ events: [], shadowed: [], copies: 0, sharedPrefix: d })

  const events: PlannedEvent[] = []
  let copies = 0
  let k = 0
  const shadowed = tail.map((entry) => entry.seq)
  if (tail.length > 0) {
    const op = { op: 'replace' as const, start: shadowed[0]!, end: shadowed.at(-1)! }
    const first = rest[0]
    const firstSource = first === undefined ? undefined : input.sourceOf(first)
    const firstEvent = firstSource?.kind === 'message' ? input.eventAt(firstSource.seq) : undefined
    const standIn = firstEvent !== undefined && isMessageEvent(firstEvent) ? copyMessage(input, firstEvent as Ev) : undefined
    if (standIn && firstSource?.kind === 'message') {
      events.push({ ...standIn, intent: { surfaceOp: op, sourceEventSeqs: [...shadowed, firstSource.seq] } })
      copies++
      k = 1
    } else {
      events.push({
        type: 'assistant/message',
        data: {
          turn: input.turn,
          step: input.step,
          message: { id: input.newMessageId(), role: 'assistant', content: [], source: { kind: 'model', provider: input.route.provider, model: input.route.model } },
        },
        intent: { surfaceOp: op, sourceEventSeqs: shadowed },
      })
    }
  }
  for (; k < rest.length; k++) {
    const nodeId = rest[k]!
    const source = input.sourceOf(nodeId)
    if (!source) return fail('INVALID_CUT_POINT', `node ${nodeId} did not come from this session's log and cannot be replayed to the model`, { nodeId })
    if (source.kind === 'message') {
      const original = input.eventAt(source.seq)
      if (!isMessageEvent(original)) {
        return fail('INVALID_CUT_POINT', `node ${nodeId} (a lone tool result) cannot be replayed without its call`, { nodeId })
      }
      const copy = copyMessage(input, original as Ev)
      if (!copy) return fail('INTERNAL', `event ${source.seq} behind node ${nodeId} is unreadable`, { nodeId, seq: source.seq })
      events.push({ ...copy, intent: { surfaceOp: 'append', sourceEventSeqs: [source.seq] } })
      copies++
    } else {
      if (source.resultSeq === undefined) {
        return fail('INVALID_CUT_POINT', `tool call ${nodeId} has no result yet`, { nodeId })
      }
      const call = input.eventAt(source.callSeq) as Ev
      const result = input.eventAt(source.resultSeq) as Ev
      if (!isRecord(call?.data) || !isRecord(result?.data) || !isRecord(result.data.message)) {
        return fail('INTERNAL', `tool events behind node ${nodeId} are unreadable`, { nodeId })
      }
      events.push({
        type: 'tool/call',
        data: { turn: input.turn, step: input.step, callId: call.data.callId, name: call.data.name, arguments: call.data.arguments },
      })
      const { turn: _t, step: _s, message, ...extra } = result.data
      events.push({
        type: 'tool/result',
        data: { turn: input.turn, step: input.step, message: { ...(message as object), id: input.newMessageId() }, ...extra },
        intent: { surfaceOp: 'append', sourceEventSeqs: [source.resultSeq] },
      })
      copies++
    }
  }
  events.push(...extra)
  return ok({ events, shadowed, copies, sharedPrefix: d })
}

type Ev = { readonly type: string; readonly data: Record<string, unknown> }

function isMessageEvent(event: unknown): boolean {
  return isRecord(event) && (event.type === 'user/message' || event.type === 'assistant/message') && isRecord(event.data)
}

/** A copy of a user or assistant message event: new id, maintenance turn/step, no usage. */
function copyMessage(input: PlanInput, event: Ev): Omit<PlannedEvent, 'intent'> | undefined {
  const policy = input.copySource ?? safeCopySource
  if (event.type === 'user/message') {
    return { type: 'user/message', data: { ...event.data, id: input.newMessageId(), source: policy(event.data.source) } }
  }
  const message = event.data.message
  if (!isRecord(message) || !Array.isArray(message.content) || message.content.length === 0) return undefined
  return {
    type: 'assistant/message',
    data: {
      turn: input.turn,
      step: input.step,
      message: { ...message, id: input.newMessageId() },
      ...(event.data.interrupted === true ? { interrupted: true } : {}),
    },
  }
}
