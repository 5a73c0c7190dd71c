/**
 * The model history of a path: root → node, the messages the model reads
 * for it (compactions applied), and where a history may end (never between
 * a tool call and its result). Every walk fails closed: a cyclic or dangling
 * chain is `TREE_CORRUPT`, never a silently short history.
 */
import { fail, ok, type TreeResult, noNode } from './errors.ts'
import type { Rec } from './nodes.ts'
import type { TreeState } from './state.ts'
import type { LlmMessage } from './types.ts'

/** The node a read starts from: `undefined` → the cursor, `null` → before the first node. */
export function startOf(state: TreeState, from: string | null | undefined): TreeResult<Rec | null> {
  if (from === undefined) return ok(state.cursor)
  if (from === null) return ok(null)
  const rec = state.nodes.get(from)
  return rec ? ok(rec) : noNode(from)
}

/** A link that disagrees with the entry's `parentId` (links are built from validated parents: only corruption trips this). */
function broken(rec: Rec): boolean {
  const parentId = rec.entry.parentId
  return rec.parent === undefined ? parentId !== null : rec.parent.entry.nodeId !== parentId
}

function corrupt(state: TreeState, start: Rec | null, rec: Rec, steps: number): TreeResult<never> {
  if (steps > state.nodes.size)
    return fail('TREE_CORRUPT', `the path to ${JSON.stringify(start?.entry.nodeId)} is cyclic`, {
      nodeId: start?.entry.nodeId,
    })
  return fail('TREE_CORRUPT', `node ${rec.entry.nodeId} points at a missing parent ${rec.entry.parentId}`, {
    nodeId: rec.entry.nodeId,
  })
}

/** Nodes root → `start`; fails closed on a cycle (more steps than nodes) or a broken link. */
export function pathFrom(state: TreeState, start: Rec | null): TreeResult<Rec[]> {
  const out: Rec[] = []
  const limit = state.nodes.size
  let steps = 0
  for (let rec: Rec | undefined = start ?? undefined; rec; rec = rec.parent) {
    if (++steps > limit || broken(rec)) return corrupt(state, start, rec, steps)
    out.push(rec)
  }
  return ok(out.reverse())
}

/**
 * The nodes whose messages form the model history of a path, in the order
 * the model reads them: nodes without a message are left out, and a
 * compaction stands in for the nodes it `replaces`.
 */
export function historyOf(path: readonly Rec[]): Rec[] {
  let out: Rec[] = []
  for (const rec of path) {
    const entry = rec.entry
    if (entry.type === 'compaction' && entry.replaces !== undefined) {
      const replaced = new Set(entry.replaces)
      let at = -1
      const kept: Rec[] = []
      for (const item of out) {
        if (replaced.has(item.entry.nodeId)) {
          if (at === -1) at = kept.length
        } else {
          kept.push(item)
        }
      }
      if (entry.message) kept.splice(at === -1 ? kept.length : at, 0, rec)
      out = kept
    } else if (entry.message) {
      out.push(rec)
    }
  }
  return out
}

/**
 * The messages the model reads for root → `start`. Without a compaction on
 * the path that is every message on it, gathered in one walk (the shared
 * frozen message objects, no entry is copied).
 */
export function messagesOf(state: TreeState, start: Rec | null): TreeResult<LlmMessage[]> {
  if (start?.compacted) {
    const path = pathFrom(state, start)
    return path.ok ? ok(historyOf(path.value).map((rec) => rec.entry.message!)) : path
  }
  // Two walks (count, then fill from the end) beat growing an array and reversing it.
  const limit = state.nodes.size
  let steps = 0
  for (let rec: Rec | undefined = start ?? undefined; rec; rec = rec.parent) {
    if (++steps > limit) return corrupt(state, start, rec, steps)
  }
  const out: LlmMessage[] = []
  out.length = steps
  let i = steps
  for (let rec: Rec | undefined = start ?? undefined; rec; rec = rec.parent) {
    if (broken(rec)) return corrupt(state, start, rec, 0)
    const message = rec.entry.message
    if (message !== undefined) out[--i] = message
  }
  return ok(i === 0 ? out : out.slice(i))
}

/** The call a node answers with a result, if any. */
function answeredCall(rec: Rec): string | undefined {
  const entry = rec.entry
  if (entry.type !== 'tool_call' && entry.type !== 'tool_result') return undefined
  const result = entry.content?.find((part) => part.type === 'tool_result')
  if (result && result.type === 'tool_result') return result.toolCallId
  return entry.message?.toolCallId
}

/**
 * One walk of the path root → node: the calls still without a result at its end, and the
 * deepest node where every call had its result (`null`: the empty history).
 */
function scanToolCalls(
  state: TreeState,
  start: Rec | null,
): TreeResult<{ open: Set<string>; lastComplete: string | null }> {
  const path = pathFrom(state, start)
  if (!path.ok) return path
  const open = new Set<string>()
  let lastComplete: string | null = null
  for (const { entry } of path.value) {
    for (const part of entry.content ?? []) {
      if (part.type === 'tool_call' && entry.type !== 'tool_call') open.add(part.id)
      if (part.type === 'tool_result') open.delete(part.toolCallId)
    }
    if (entry.message?.toolCallId !== undefined) open.delete(entry.message.toolCallId)
    if (open.size === 0) lastComplete = entry.nodeId
  }
  return ok({ open, lastComplete })
}

/**
 * The nearest node where a history may end, for `start`: the node itself
 * when every call on its path has its result; inside a tool exchange, the
 * end of that exchange (following its chain of results); when the exchange
 * never completed, the last complete point before it.
 */
export function completeCutPoint(state: TreeState, start: Rec | null): TreeResult<string | null> {
  const scan = scanToolCalls(state, start)
  if (!scan.ok) return scan
  if (start === null || scan.value.open.size === 0) return ok(start?.entry.nodeId ?? null)
  const pending = scan.value.open
  let rec = start
  while (pending.size > 0) {
    let next: Rec | undefined
    for (const child of rec.children()) {
      const answered = answeredCall(child)
      if (answered !== undefined && pending.has(answered)) {
        next = child
        break
      }
    }
    // The exchange never completed below (a call cut off by a crash or by a
    // move made mid-step): the history can only end before it began.
    if (!next) return ok(scan.value.lastComplete)
    pending.delete(answeredCall(next)!)
    rec = next
  }
  return ok(rec.entry.nodeId)
}
