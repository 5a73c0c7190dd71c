/**
 * The plugin's two conversation Definitions for DSH's own Chat (the host's
 * extension point `ctx.conversationEvents.register(...)`, as the
 * workflow-run plugin uses it). They only ADD nodes of their own kinds; the
 * host's rows are hidden with CSS (see `rules.ts`), never replaced.
 *
 * - `session-tree-switch`: one row at each history switch's anchor event (the
 *   marker's insertion in stock mode, the model's move call for a move inside
 *   its step, the selection in native mode).
 * - `session-tree-fork`: one (normally invisible) seat just before every
 *   message row, where a ‹ k / n › control shows when that message is a fork
 *   point on the path.
 *
 * The host's transcript engine dies on one throw (one assembler per session
 * window), so every function here is total: contexts are keyed by the event
 * seq (never a start twice), nothing throws, a node once built is always
 * built again.
 */
import { MARKER_ID_PREFIX } from '../../harness/marker.ts'
import { MOVE_TOOLS } from '../../service/chat-switches.ts'

export const SWITCH_KIND = 'session-tree-switch'
export const FORK_KIND = 'session-tree-fork'

/**
 * Where a fork seat sits relative to its message row's seq: after the
 * previous row's tail (the host's own offsets are −0.9, −0.8, +0.05 and
 * +0.1) and before the row, so the host's "last node is the user's prompt"
 * check (auto-scroll on send) still sees the prompt last.
 */
export const FORK_OFFSET = -0.3

/** A raw session event as the Chat's Definitions receive it (only what is read here). */
export interface ChatEvent {
  readonly type: string
  readonly seq: number
  readonly data?: unknown
  readonly surfaceOp?: unknown
}

/** The host's match, context and node shapes, as far as these Definitions use them. */
export interface ConversationMatch {
  readonly event: ChatEvent
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
  match(event: ChatEvent): { readonly id: string; readonly role: 'start' } | null
  start(context: ConversationContext<State>, match: ConversationMatch): State
  update(context: ConversationContext<State>, match: ConversationMatch): State
  publication(match: ConversationMatch): 'immediate'
  buildViewNode(context: ConversationContext<State>): ChatViewNode<Data>
}

/** What our nodes carry: the seq of the event they anchor at. */
export interface AnchorData {
  readonly seq: number
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

/** A stock switch's marker queued for its maintenance turn, a model's move call, or a native selection. */
export function isSwitchAnchor(event: ChatEvent): boolean {
  if (event.type === 'session-tree/selection') return true
  if (event.type === 'tool/call') return isRecord(event.data) && typeof event.data.name === 'string' && MOVE_TOOLS.has(event.data.name)
  if (event.type !== 'agent/inbox/spliced' || !isRecord(event.data) || !Array.isArray(event.data.inserted)) return false
  return event.data.inserted.some((message) => isRecord(message) && typeof message.id === 'string' && message.id.startsWith(MARKER_ID_PREFIX))
}

/** The first event of a Chat message row: an appended prompt or answer, or a tool call. */
export function isRowStart(event: ChatEvent): boolean {
  if (event.type === 'tool/call') return true
  return (event.type === 'user/message' || event.type === 'assistant/message') && event.surfaceOp === 'append'
}

/**
 * Called (outside the engine's stack) for the events after which the Chat's
 * classification may have moved: a switch anchor, the end of a turn.
 */
export type ChatEventHook = (event: ChatEvent) => void

function definition(kind: string, anchors: (event: ChatEvent) => boolean, offset: number, hook?: ChatEventHook): ConversationDefinition<AnchorData, AnchorData> {
  const seqOf = (context: ConversationContext<AnchorData>): number => {
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
    start: (_context, match) => ({ seq: typeof match.event.seq === 'number' ? match.event.seq : 0 }),
    update: (context) => context.state ?? { seq: seqOf(context) },
    publication: () => 'immediate',
    buildViewNode(context) {
      const seq = seqOf(context)
      return { key: context.key, kind, id: context.id, target: 'chat', anchorSeq: seq + offset, location: { kind: 'session' }, visibility: 'visible', data: { seq } }
    },
  }
}

/** The Definition of the switch rows. `hook` hears the events that may move the Chat's classification. */
export function switchDefinition(hook?: ChatEventHook): ConversationDefinition<AnchorData, AnchorData> {
  return definition(SWITCH_KIND, isSwitchAnchor, 0, hook)
}

/** The Definition of the fork seats. */
export function forkDefinition(): ConversationDefinition<AnchorData, AnchorData> {
  return definition(FORK_KIND, isRowStart, FORK_OFFSET)
}
