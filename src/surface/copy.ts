/**
 * Copies of harness events for a stock-mode switch. Each copied tool exchange
 * gets one fresh call id in every place that carries it, so calls still pair
 * with results while no id repeats in the log (DSH web's Chat throws on a
 * second `tool/call` of a known id). Pure: ids come from injected generators.
 */
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import { isRecord } from '../tree/validate.ts'
import type { NodeSource } from '../harness/surface-mirror.ts'
import type { SurfaceIntent } from '../harness/log-event.ts'
import { PLUGIN_ID } from '../harness/marker.ts'

/** One event to append, in order. */
export interface PlannedEvent {
  readonly type:
    'user/message' | 'assistant/message' | 'tool/call' | 'tool/result' | 'compaction/prune' | 'step/start' | 'step/end'
  readonly data: Record<string, unknown>
  readonly intent?: SurfaceIntent
}

/** How copies treat the original message's `source`. */
export type CopySourcePolicy = (source: unknown) => unknown

/**
 * Keep sources the harness reads as plain provenance (typed prompts, ordinary
 * plugin context — dropping the runtime-context source would make the harness
 * inject it again); re-source kinds whose owners validate their position in
 * the log (goal rounds, time readings, subagent relays, a compaction's
 * checkpoint: DSH's Chat draws a compaction where its checkpoint lands, and a
 * copy naming the compaction would move the marker there), so a copy cannot
 * corrupt their replay.
 */
export const safeCopySource: CopySourcePolicy = (source) => {
  if (isRecord(source) && source.kind === 'user') return source
  if (isRecord(source) && typeof source.compactionId === 'string')
    return { kind: 'plugin', plugin: PLUGIN_ID, form: 'relay' }
  if (isRecord(source) && source.kind === 'plugin' && source.plugin !== 'time-context') return source
  return { kind: 'plugin', plugin: PLUGIN_ID, form: 'relay' }
}

/**
 * {@link safeCopySource}, with a restated typed prompt re-sourced to this plugin (`form: 'restated'`):
 * dsh-TUI draws only user-sourced prompts, so its copy is not drawn a second time. The model's
 * request is the same (the source is not on the wire).
 */
export const undrawnCopySource: CopySourcePolicy = (source) =>
  isRecord(source) && source.kind === 'user'
    ? { kind: 'plugin', plugin: PLUGIN_ID, form: 'restated' }
    : safeCopySource(source)

/** Where copies go and how their ids are made. */
export interface CopyContext {
  readonly turn: number
  readonly step: number
  readonly newMessageId: () => string
  /** A call id never used before (provider-safe: `[A-Za-z0-9_-]`, at most 40 characters). */
  readonly newCallId: () => string
  readonly copySource?: CopySourcePolicy
}

type Ev = { readonly type: string; readonly data: Record<string, unknown> }

/**
 * Fresh call ids of one switch: an original id maps to the same fresh id
 * everywhere in that switch (its message copy, its `tool/call` copy, its result copy).
 */
export class CallIdMap {
  private readonly fresh = new Map<string, string>()
  private readonly mint: () => string

  constructor(mint: () => string) {
    this.mint = mint
  }

  /** The fresh id for an original id, minted on first use. */
  renew(original: string): string {
    let id = this.fresh.get(original)
    if (id === undefined) {
      id = this.mint()
      this.fresh.set(original, id)
    }
    return id
  }

  /** The fresh id already minted for an original id (by its message copy), if any. */
  get(original: string): string | undefined {
    return this.fresh.get(original)
  }
}

export function isMessageEvent(event: unknown): event is Ev {
  return (
    isRecord(event) && (event.type === 'user/message' || event.type === 'assistant/message') && isRecord(event.data)
  )
}

/**
 * A copy of a user or assistant message event: new id, maintenance turn/step,
 * no usage, fresh ids on its tool-call blocks. Undefined for an assistant
 * message without content (it cannot stand for anything).
 */
export function copyMessage(context: CopyContext, ids: CallIdMap, event: Ev): Omit<PlannedEvent, 'intent'> | undefined {
  const policy = context.copySource ?? safeCopySource
  if (event.type === 'user/message') {
    return {
      type: 'user/message',
      data: { ...event.data, id: context.newMessageId(), source: policy(event.data.source) },
    }
  }
  const message = event.data.message
  if (!isRecord(message) || !Array.isArray(message.content) || message.content.length === 0) return undefined
  const content = message.content.map((block: unknown) =>
    isRecord(block) && block.type === 'tool-call' && typeof block.id === 'string'
      ? { ...block, id: ids.renew(block.id) }
      : block,
  )
  return {
    type: 'assistant/message',
    data: {
      turn: context.turn,
      step: context.step,
      message: { ...message, id: context.newMessageId(), content },
      ...(event.data.interrupted === true ? { interrupted: true } : {}),
    },
  }
}

/**
 * The `tool/call` and `tool/result` copies of the completed exchange behind
 * tool node `nodeId`, under the fresh id its message copy minted; an error
 * when it has no result yet, or its events are unreadable or no copy of the
 * issuing message precedes (the caller must copy it first).
 */
export function copyToolExchange(
  context: CopyContext,
  ids: CallIdMap,
  nodeId: string,
  source: Extract<NodeSource, { kind: 'tool' }>,
  log: { eventAt(seq: number): unknown },
): TreeResult<PlannedEvent[]> {
  if (source.resultSeq === undefined)
    return fail('INVALID_CUT_POINT', `tool call ${nodeId} has no result yet`, { nodeId })
  const exchange = exchangeCopy(
    context,
    ids,
    log.eventAt(source.callSeq),
    log.eventAt(source.resultSeq),
    source.resultSeq,
  )
  if (exchange) return ok(exchange)
  return fail('INTERNAL', `tool events behind node ${nodeId} are unreadable, or its call was not issued on the path`, {
    nodeId,
  })
}

function exchangeCopy(
  context: CopyContext,
  ids: CallIdMap,
  call: unknown,
  result: unknown,
  resultSeq: number,
): PlannedEvent[] | undefined {
  if (
    !isRecord(call) ||
    !isRecord(call.data) ||
    !isRecord(result) ||
    !isRecord(result.data) ||
    !isRecord(result.data.message)
  )
    return undefined
  const original = call.data.callId
  const callId = typeof original === 'string' ? ids.get(original) : undefined
  if (callId === undefined) return undefined
  const { turn: _t, step: _s, message, ...extra } = result.data
  const resultMessage = message as Record<string, unknown>
  const source = isRecord(resultMessage.source) ? { ...resultMessage.source, callId } : resultMessage.source
  const content = Array.isArray(resultMessage.content)
    ? resultMessage.content.map((block: unknown) =>
        isRecord(block) && block.type === 'tool-result' ? { ...block, toolCallId: callId } : block,
      )
    : resultMessage.content
  return [
    {
      type: 'tool/call',
      data: { turn: context.turn, step: context.step, callId, name: call.data.name, arguments: call.data.arguments },
    },
    {
      type: 'tool/result',
      data: {
        turn: context.turn,
        step: context.step,
        message: { ...resultMessage, id: context.newMessageId(), source, content },
        ...extra,
      },
      intent: { surfaceOp: 'append', sourceEventSeqs: [resultSeq] },
    },
  ]
}
