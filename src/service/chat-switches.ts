/**
 * The history switches a session log records, as DSH's Chat marks them (see
 * `chat-path.ts`): where each one's row anchors, what it went to.
 */
import { markerOf } from '../harness/marker.ts'
import type { LogEvent } from '../harness/log-event.ts'
import { isRecord } from '../tree/validate.ts'

/** One switch: the seq its row anchors at, its target node, a fork's branch, the branch it landed on. */
export interface Anchor {
  readonly seq: number
  readonly target: string | null
  readonly branch?: string
  /** What the switch recorded as the branch it landed on (absent in logs of earlier versions). */
  readonly lane?: string
}

/** The model's tool (`src/tool/`): one tool, its `action` argument says what it does. */
export const TREE_TOOL = 'tree'

/** The `tree` actions that move the history (their calls anchor an in-step switch). */
export const MOVE_ACTIONS: ReadonlySet<string> = new Set(['jump', 'fork', 'back', 'forward'])

/** The tree action of a tool call (`arguments` as logged: JSON text or an object), or undefined for another tool. */
export function treeActionOf(name: unknown, args: unknown): string | undefined {
  if (name !== TREE_TOOL) return undefined
  const action = parsedArguments(args)?.action
  return typeof action === 'string' ? action : undefined
}

/** Whether a tool call moves the history (a `tree` jump, fork, back or forward). */
export function isMoveCall(name: unknown, args: unknown): boolean {
  const action = treeActionOf(name, args)
  return action !== undefined && MOVE_ACTIONS.has(action)
}

/**
 * The switches of the log. Stock: the insertion of a marker that a turn then
 * claimed (a cancelled marker switched nothing); the inbox is mirrored to
 * tell a claim from a cancellation. A model's own move inside its step: the
 * move's `tool/call`, when its issuing message was re-stated on the new path
 * before the result (the re-stated node's parent is the target). Native:
 * every selection event.
 */
export function switchAnchors(
  events: readonly LogEvent[],
  parentOf: (seq: number) => string | null | undefined,
): Anchor[] {
  const out: Anchor[] = []
  const inbox: unknown[] = []
  const inserted = new Map<unknown, Anchor>()
  const moves = new Map<string, { seq: number; branch?: string }>()
  let inTurn = false
  for (const e of events) {
    const data = isRecord(e.data) ? e.data : undefined
    if (e.type === 'tool/call' && data && typeof data.callId === 'string' && isMoveCall(data.name, data.arguments)) {
      const branch = treeActionOf(data.name, data.arguments) === 'fork' ? branchArgument(data.arguments) : undefined
      moves.set(data.callId, { seq: e.seq, ...(branch === undefined ? {} : { branch }) })
    } else if (e.type === 'tool/result') {
      const id = callIdOf(e)
      if (id !== undefined) moves.delete(id)
    } else if (e.type === 'assistant/message' && e.surfaceOp === 'append' && moves.size > 0) {
      const message = isRecord(data?.message) ? data.message : undefined
      const blocks = Array.isArray(message?.content) ? message.content : []
      for (const block of blocks) {
        const move =
          isRecord(block) && block.type === 'tool-call' && typeof block.id === 'string'
            ? moves.get(block.id)
            : undefined
        const target = move === undefined ? undefined : parentOf(e.seq)
        if (!move || target === undefined) continue
        out.push({ seq: move.seq, target, ...(move.branch === undefined ? {} : { branch: move.branch }) })
        moves.delete(block.id as string)
      }
    }
    if (e.type === 'turn/start') inTurn = true
    else if (e.type === 'turn/end') inTurn = false
    else if (e.type === 'session-tree/selection' && data) {
      const target = data.target === null || typeof data.target === 'string' ? data.target : null
      out.push({
        seq: e.seq,
        target,
        ...(typeof data.branch === 'string' ? { branch: data.branch } : {}),
        ...(typeof data.lane === 'string' ? { lane: data.lane } : {}),
      })
    } else if (e.type === 'agent/inbox/spliced' && data?.target === 'next-turn' && typeof data.start === 'number') {
      const added = Array.isArray(data.inserted) ? data.inserted : []
      const removed = inbox.splice(data.start, typeof data.removedCount === 'number' ? data.removedCount : 0, ...added)
      for (const message of added) {
        const marker = markerOf(message)
        if (marker)
          inserted.set(message, {
            seq: e.seq,
            target: marker.target,
            ...(marker.branch === undefined ? {} : { branch: marker.branch }),
            ...(marker.lane === undefined ? {} : { lane: marker.lane }),
          })
      }
      // A claim is a removal without an outcome, made inside a turn.
      for (const message of removed) {
        const anchor = inserted.get(message)
        if (anchor && data.outcome === undefined && inTurn) out.push(anchor)
      }
    }
  }
  return out.sort((a, b) => a.seq - b.seq)
}

function parsedArguments(raw: unknown): Record<string, unknown> | undefined {
  try {
    const args: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw
    return isRecord(args) ? args : undefined
  } catch {
    return undefined
  }
}

function branchArgument(raw: unknown): string | undefined {
  const branch = parsedArguments(raw)?.branch
  return typeof branch === 'string' ? branch : undefined
}

/** The call id a tool result answers. */
export function callIdOf(e: LogEvent): string | undefined {
  const message = isRecord(e.data) ? e.data.message : undefined
  const source = isRecord(message) ? message.source : undefined
  return isRecord(source) && typeof source.callId === 'string' ? source.callId : undefined
}
