/**
 * The seed of a new session whose history is one root-to-node path of another
 * ("Open as new session"): official events laid out as the agent loop writes
 * them, after the source's settings, a title and the provenance splice pair.
 * Copies get fresh ids and cite nothing (the source's seqs mean nothing in the
 * new log). Pure. docs/lineage.md, "How it is made".
 */
import type { LogEvent } from '../harness/log-event.ts'
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import { isRecord } from '../tree/validate.ts'
import type { NodeSource } from '../harness/surface-mirror.ts'
import { PLUGIN_ID } from '../harness/marker.ts'
import { CallIdMap, copyMessage, copyToolExchange, isMessageEvent, type CopyContext } from './copy.ts'

/** One event of a seed, as `ctx.sessions.create({seed})` takes it. */
export interface SeedEvent extends LogEvent {
  readonly data: Record<string, unknown>
  /** A seed only appends: it cites and replaces nothing. */
  readonly surfaceOp?: 'append'
  readonly sourceEventSeqs?: never
}

/** Where a session came from, as the seed's provenance record says it. */
export interface SeedProvenance {
  readonly session: string
  readonly node: string
  /** ISO-8601. */
  readonly time: string
}

export interface SeedInput {
  /** The source log, indexed by seq. */
  readonly eventAt: (seq: number) => unknown
  /** Every source event, for the settings that precede the path. */
  readonly events: readonly unknown[]
  /** Node ids of the path's model history, root first. */
  readonly path: readonly string[]
  readonly sourceOf: (nodeId: string) => NodeSource | undefined
  readonly provenance: SeedProvenance
  /** The new session's title (shown in the sidebar). */
  readonly title: string
  readonly newMessageId: () => string
  readonly newCallId: () => string
  readonly now: number
}

/** The id prefix of the provenance splice's message: how the plugin recognizes its own forks. */
export const PROVENANCE_ID_PREFIX = `${PLUGIN_ID}:provenance:`

/** Settings the new session inherits, the last value of each in the source log. */
const INHERITED = ['permission/preset', 'sandbox/mode', 'approval/policy'] as const

type Ev = { readonly type: string; readonly data: Record<string, unknown> }

function eventOf(raw: unknown): Ev | undefined {
  return isRecord(raw) && typeof raw.type === 'string' && isRecord(raw.data) ? (raw as Ev) : undefined
}

function isTypedPrompt(event: Ev): boolean {
  return event.type === 'user/message' && isRecord(event.data.source) && event.data.source.kind === 'user'
}

export function buildSeed(input: SeedInput): TreeResult<SeedEvent[]> {
  const seed: SeedEvent[] = []
  const push = (type: string, data: Record<string, unknown>, append = false): void => {
    seed.push({ type, seq: seed.length, time: input.now, data, ...(append ? { surfaceOp: 'append' as const } : {}) })
  }
  const inherited = new Map<string, Record<string, unknown>>()
  for (const raw of input.events) {
    const event = eventOf(raw)
    if (event && (INHERITED as readonly string[]).includes(event.type)) inherited.set(event.type, event.data)
  }
  for (const type of INHERITED) {
    const data = inherited.get(type)
    if (data) push(type, data)
  }
  push('session/title', { title: input.title, messageSeqs: [], source: { kind: 'user' } })
  const record = { [PLUGIN_ID]: { v: 1, op: 'forked-from', ...input.provenance } }
  push('agent/inbox/spliced', {
    target: 'next-turn',
    start: 0,
    inserted: [
      {
        id: `${PROVENANCE_ID_PREFIX}${input.newMessageId()}`,
        role: 'user',
        content: [{ type: 'text', text: JSON.stringify(record) }],
        source: { kind: 'plugin', plugin: PLUGIN_ID },
      },
    ],
  })
  push('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] })

  const ids = new CallIdMap(input.newCallId)
  let turn = 0
  let step = 0
  let stepOpen = false
  let stepHasAssistant = false
  const context = (): CopyContext => ({ turn, step, newMessageId: input.newMessageId, newCallId: input.newCallId })
  const closeStep = (): void => {
    if (stepOpen) push('step/end', { turn, step })
    stepOpen = false
  }
  const openStep = (): void => {
    closeStep()
    step++
    push('step/start', { turn, step })
    stepOpen = true
    stepHasAssistant = false
  }
  const closeTurn = (): void => {
    if (turn === 0) return
    closeStep()
    push('turn/end', { turn, reason: { kind: 'completed' } })
  }
  const openTurn = (): void => {
    closeTurn()
    turn++
    step = 0
    push('turn/start', { turn })
    openStep()
  }

  for (const nodeId of input.path) {
    const source = input.sourceOf(nodeId)
    if (!source)
      return fail(
        'INVALID_CUT_POINT',
        `node ${nodeId} did not come from this session's log and cannot be copied into a new session`,
        { nodeId },
      )
    if (source.kind === 'message') {
      const original = eventOf(input.eventAt(source.seq))
      if (!original || !isMessageEvent(original)) {
        return fail('INVALID_CUT_POINT', `node ${nodeId} (a lone tool result) cannot be copied without its call`, {
          nodeId,
        })
      }
      if (original.type === 'user/message') {
        if (turn === 0 || isTypedPrompt(original)) openTurn()
      } else if (!stepOpen || stepHasAssistant) {
        if (turn === 0) openTurn()
        else openStep()
      }
      const copy = copyMessage(context(), ids, original)
      if (!copy)
        return fail('INTERNAL', `event ${source.seq} behind node ${nodeId} is unreadable`, { nodeId, seq: source.seq })
      push(copy.type, copy.data, true)
      if (copy.type === 'assistant/message') stepHasAssistant = true
      continue
    }
    const exchange = copyToolExchange(context(), ids, nodeId, source, input)
    if (!exchange.ok) return exchange
    for (const event of exchange.value) push(event.type, event.data, event.intent !== undefined)
  }
  closeTurn()
  return ok(seed)
}

/** The provenance a seed of ours carries, or undefined (a host fork, or a session of its own). */
export function seedProvenance(events: readonly unknown[], seedLength: number): SeedProvenance | undefined {
  for (let seq = 0; seq < Math.min(seedLength, events.length); seq++) {
    const event = eventOf(events[seq])
    if (event?.type !== 'agent/inbox/spliced' || !Array.isArray(event.data.inserted)) continue
    for (const message of event.data.inserted) {
      if (!isRecord(message) || typeof message.id !== 'string' || !message.id.startsWith(PROVENANCE_ID_PREFIX)) continue
      const block = Array.isArray(message.content) ? message.content[0] : undefined
      try {
        const parsed = isRecord(block) && typeof block.text === 'string' ? JSON.parse(block.text)[PLUGIN_ID] : undefined
        if (
          isRecord(parsed) &&
          typeof parsed.session === 'string' &&
          typeof parsed.node === 'string' &&
          typeof parsed.time === 'string'
        ) {
          return { session: parsed.session, node: parsed.node, time: parsed.time }
        }
      } catch {
        /* not ours after all */
      }
    }
  }
  return undefined
}
