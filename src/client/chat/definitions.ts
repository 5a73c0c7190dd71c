/**
 * The plugin's two conversation Definitions for DSH's Chat: a switch row at
 * each history switch's anchor (`session-tree-switch`) and a seat before each
 * message row for the ‹ k / n › control (`session-tree-fork`). They only add
 * nodes; host rows are hidden with CSS (`rules.ts`). Each node carries what its
 * event says, so `live.ts` can hide rows before the service answers. Every
 * function is total (one throw kills the host's transcript): docs/chat.md.
 */
import type { LogEvent } from '../../harness/log-event.ts'
import { FRESH_CALL_ID_PREFIX, MARKER_ID_PREFIX, markerOf } from '../../harness/marker.ts'
import { isMoveCall } from '../../service/chat-switches.ts'
import { isRecord } from '../../tree/validate.ts'

export const SWITCH_KIND = 'session-tree-switch'
export const FORK_KIND = 'session-tree-fork'

/**
 * Where a fork seat sits relative to its message row's seq: after the
 * previous row's tail (the host's own offsets are −0.9, −0.8, +0.05 and
 * +0.1) and before the row, so the host's "last node is the user's prompt"
 * check (auto-scroll on send) still sees the prompt last.
 */
export const FORK_OFFSET = -0.3

/** The host's match, context and node shapes, as far as these Definitions use them. */
export interface ConversationMatch {
  readonly event: LogEvent
  readonly role: 'start' | 'update'
}
export interface ConversationContext<State> {
  readonly key: string
  readonly id: string
  readonly start: ConversationMatch | undefined
  readonly state: State | undefined
}
export interface ChatViewNode<Data> {
  readonly key: string
  readonly kind: string
  readonly id: string
  readonly target: 'chat'
  readonly anchorSeq: number
  readonly location: { readonly kind: 'session' }
  readonly visibility: 'visible'
  readonly data: Data
}
export interface ConversationDefinition<State, Data> {
  readonly kind: string
  readonly target: 'chat'
  match(event: LogEvent): { readonly id: string; readonly role: 'start' } | null
  start(context: ConversationContext<State>, match: ConversationMatch): State
  update(context: ConversationContext<State>, match: ConversationMatch): State
  publication(match: ConversationMatch): 'immediate'
  buildViewNode(context: ConversationContext<State>): ChatViewNode<Data>
}

/** What our nodes carry: the seq of the event they anchor at. */
export interface AnchorData {
  readonly seq: number
}

/** What a seat knows of its event, read from the event alone. */
export interface SeatData extends AnchorData {
  /** A message appended (a Chat row), a tool call (a card), a tool result (folded into its card), a replacement (never drawn). */
  readonly event?: 'message' | 'call' | 'result' | 'replace'
  /** A switch's copy: an append citing exactly one original, or a call with a fresh id. */
  readonly copy?: boolean
  /** The original a copy cites. */
  readonly copyOf?: number
  /** A tool call's, or a result's, call id. */
  readonly callId?: string
  /** A replacement: the surface seqs it shadows. */
  readonly shadowed?: readonly number[]
  /** A replacement that stands in for a message (not an empty tombstone): that message's original. */
  readonly standIn?: number
}

/** What a switch row knows of its anchor event. */
export interface SwitchData extends AnchorData {
  readonly anchor?: 'marker' | 'move' | 'selection'
  /** A native selection: the surface seqs it makes the model's history. */
  readonly selected?: readonly number[]
  /** A stock marker: the first event of the history the switch leaves. */
  readonly leaves?: number
}

/** A stock switch's marker queued for its maintenance turn, a model's move call, or a native selection. */
export function isSwitchAnchor(event: LogEvent): boolean {
  if (event.type === 'session-tree/selection') return true
  if (event.type === 'tool/call') return isRecord(event.data) && isMoveCall(event.data.name, event.data.arguments)
  if (event.type !== 'agent/inbox/spliced' || !isRecord(event.data) || !Array.isArray(event.data.inserted)) return false
  return event.data.inserted.some(
    (message) => isRecord(message) && typeof message.id === 'string' && message.id.startsWith(MARKER_ID_PREFIX),
  )
}

/** The first event of a Chat message row: an appended prompt or answer, or a tool call. */
export function isRowStart(event: LogEvent): boolean {
  if (event.type === 'tool/call') return true
  return (event.type === 'user/message' || event.type === 'assistant/message') && event.surfaceOp === 'append'
}

/** The events a seat stands before: row starts, tool results, message replacements. */
export function isSeat(event: LogEvent): boolean {
  if (isRowStart(event) || event.type === 'tool/result') return true
  return (
    (event.type === 'user/message' || event.type === 'assistant/message') &&
    isRecord(event.surfaceOp) &&
    event.surfaceOp.op === 'replace'
  )
}

const seqList = (value: unknown): number[] =>
  Array.isArray(value) ? value.filter((n): n is number => typeof n === 'number' && Number.isFinite(n)) : []

/** What a seat records of its event (total: a malformed event gives `{ seq }`). */
export function seatData(event: LogEvent): SeatData {
  const seq = event.seq
  const data = isRecord(event.data) ? event.data : {}
  const cited = seqList(event.sourceEventSeqs)
  if (event.type === 'tool/call') {
    const callId = typeof data.callId === 'string' ? data.callId : undefined
    return {
      seq,
      event: 'call',
      ...(callId === undefined ? {} : { callId, ...(callId.startsWith(FRESH_CALL_ID_PREFIX) ? { copy: true } : {}) }),
    }
  }
  if (isRecord(event.surfaceOp) && event.surfaceOp.op === 'replace' && event.type !== 'tool/result') {
    const message = event.type === 'user/message' ? data : isRecord(data.message) ? data.message : {}
    // A compaction's checkpoint keeps what it summarizes on the path: not a switch.
    if (isRecord(message.source) && typeof message.source.compactionId === 'string') return { seq, event: 'message' }
    // A stand-in cites the shadowed seqs, then its own original (the switch planner's layout); a rewind's
    // stand-in restates the first entry it shadows and cites just the shadowed ones (ending at the range's end).
    const filled = Array.isArray(message.content) && message.content.length > 0
    if (filled && cited.length > 0 && cited.at(-1) === event.surfaceOp.end)
      return { seq, event: 'replace', shadowed: cited, standIn: cited[0]! }
    const standIn = filled && cited.length > 1 ? cited.at(-1) : undefined
    return {
      seq,
      event: 'replace',
      shadowed: standIn === undefined ? cited : cited.slice(0, -1),
      ...(standIn === undefined ? {} : { standIn }),
    }
  }
  const copy = event.surfaceOp === 'append' && cited.length === 1 ? { copy: true, copyOf: cited[0]! } : {}
  if (event.type === 'tool/result') {
    const message = isRecord(data.message) ? data.message : undefined
    const source = isRecord(message?.source) ? message.source : undefined
    const callId = typeof source?.callId === 'string' ? source.callId : undefined
    return { seq, event: 'result', ...copy, ...(callId === undefined ? {} : { callId }) }
  }
  return { seq, event: 'message', ...copy }
}

/** What a switch row records of its anchor event. */
export function switchData(event: LogEvent): SwitchData {
  const seq = event.seq
  if (event.type === 'session-tree/selection') {
    const data = isRecord(event.data) ? event.data : {}
    return { seq, anchor: 'selection', selected: seqList(data.seqs) }
  }
  if (event.type === 'tool/call') return { seq, anchor: 'move' }
  const inserted = isRecord(event.data) && Array.isArray(event.data.inserted) ? event.data.inserted : []
  const leaves = inserted.map(markerOf).find((marker) => marker !== undefined)?.leaves
  return { seq, anchor: 'marker', ...(leaves === undefined ? {} : { leaves }) }
}

/**
 * Called (outside the engine's stack) for the events after which the Chat's
 * classification may have moved: a switch anchor, the end of a turn.
 */
export type ChatEventHook = (event: LogEvent) => void

function definition<D extends AnchorData>(
  kind: string,
  anchors: (event: LogEvent) => boolean,
  read: (event: LogEvent) => D,
  offset: number,
  hook?: ChatEventHook,
): ConversationDefinition<D, D> {
  const seqOf = (context: ConversationContext<D>): number => {
    const seq = context.state?.seq ?? context.start?.event.seq ?? Number(context.id)
    return Number.isFinite(seq) ? seq : 0
  }
  return {
    kind,
    target: 'chat',
    match(event) {
      try {
        if (typeof event.seq !== 'number') return null
        if (hook && (event.type === 'turn/end' || isSwitchAnchor(event))) {
          queueMicrotask(() => {
            try {
              hook(event)
            } catch {
              // A refresh that cannot start changes nothing on screen.
            }
          })
        }
        return anchors(event) ? { id: String(event.seq), role: 'start' } : null
      } catch {
        return null
      }
    },
    start: (_context, match) => {
      const seq = typeof match.event.seq === 'number' ? match.event.seq : 0
      try {
        const data = read(match.event)
        return data.seq === seq ? data : ({ seq } as D)
      } catch {
        return { seq } as D
      }
    },
    update: (context) => context.state ?? ({ seq: seqOf(context) } as D),
    publication: () => 'immediate',
    buildViewNode(context) {
      const seq = seqOf(context)
      const data = context.state?.seq === seq ? context.state : ({ seq } as D)
      return {
        key: context.key,
        kind,
        id: context.id,
        target: 'chat',
        anchorSeq: seq + offset,
        location: { kind: 'session' },
        visibility: 'visible',
        data,
      }
    },
  }
}

/** The Definition of the switch rows. `hook` hears the events that may move the Chat's classification. */
export function switchDefinition(hook?: ChatEventHook): ConversationDefinition<SwitchData, SwitchData> {
  return definition(SWITCH_KIND, isSwitchAnchor, switchData, 0, hook)
}

/** The Definition of the seats (‹ k / n › controls, and what each event says). */
export function forkDefinition(): ConversationDefinition<SeatData, SeatData> {
  return definition(FORK_KIND, isSeat, seatData, FORK_OFFSET)
}
