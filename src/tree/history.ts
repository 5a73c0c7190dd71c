/**
 * The model history of a path: root → node entries, the messages the model
 * reads for them (compactions applied), and where a history may end (never
 * between a tool call and its result). Every walk fails closed: a cyclic or
 * dangling chain is `TREE_CORRUPT`, never a silently short history.
 */
import { fail, ok, type TreeResult } from './errors.ts'
import type { Rec } from './nodes.ts'
import type { TreeState } from './state.ts'
import type { TreeEntry } from './types.ts'

/** The node a read starts from: `undefined` → the cursor, `null` → before the first node. */
export function startOf(state: TreeState, from: string | null | undefined): TreeResult<Rec | null> {
  if (from === undefined) return ok(state.cursor)
  if (from === null) return ok(null)
  const rec = state.nodes.get(from)
  return rec ? ok(rec) : fail('NODE_NOT_FOUND', `no node ${JSON.stringify(from)}`, { nodeId: from })
}

/** Entries root → `start`. */
export function pathFrom(state: TreeState, start: Rec | null): TreeResult<TreeEntry[]> {
  const out: TreeEntry[] = []
  let steps = 0
  for (let rec: Rec | undefined = start ?? undefined; rec; rec = rec.parent) {
    // Links are built from validated parents, so this only trips on corruption.
    if (++steps > state.nodes.size) {
      return fail('TREE_CORRUPT', `the path to ${JSON.stringify(start?.entry.nodeId)} is cyclic`, { nodeId: start?.entry.nodeId })
    }
    const parentId = rec.entry.parentId
    if (parentId === null ? rec.parent !== undefined : rec.parent?.entry.nodeId !== parentId || state.nodes.get(parentId) !== rec.parent) {
      return fail('TREE_CORRUPT', `node ${rec.entry.nodeId} points at a missing parent ${parentId}`, { nodeId: rec.entry.nodeId })
    }
    out.push(rec.entry)
  }
  return ok(out.reverse())
}

/**
 * The entries whose messages form the model history of a path, in the order
 * the model reads them: entries without a message are left out, and a
 * compaction entry stands in for the entries it `replaces`.
 */
export function historyOf(path: readonly TreeEntry[]): TreeEntry[] {
  let out: TreeEntry[] = []
  for (const entry of path) {
    if (entry.type === 'compaction' && entry.replaces !== undefined) {
      const replaced = new Set(entry.replaces)
      let at = -1
      const kept: TreeEntry[] = []
      for (const item of out) {
        if (replaced.has(item.nodeId)) {
          if (at === -1) at = kept.length
        } else {
          kept.push(item)
        }
      }
      if (entry.message) kept.splice(at === -1 ? kept.length : at, 0, entry)
      out = kept
    } else if (entry.message) {
      out.push(entry)
    }
  }
  return out
}

/** The call a node answers with a result, if any. */
function answeredCall(entry: TreeEntry): string | undefined {
  if (entry.type !== 'tool_call' && entry.type !== 'tool_result') return undefined
  const result = entry.content?.find((part) => part.type === 'tool_result')
  if (result && result.type === 'tool_result') return result.toolCallId
  return entry.message?.toolCallId
}

/**
 * One walk of the path root → node: the calls still without a result at its end, and the
 * deepest node where every call had its result (`null`: the empty history).
 */
function scanToolCalls(state: TreeState, start: Rec | null): TreeResult<{ open: Set<string>; lastComplete: string | null }> {
  const path = pathFrom(state, start)
  if (!path.ok) return path
  const open = new Set<string>()
  let lastComplete: string | null = null
  for (const entry of path.value) {
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
    for (let child = rec.firstChild; child; child = child.next) {
      const answered = answeredCall(child.entry)
      if (answered !== undefined && pending.has(answered)) {
        next = child
        break
      }
    }
    // The exchange never completed below (a call cut off by a crash or by a
    // move made mid-step): the history can only end before it began.
    if (!next) return ok(scan.value.lastComplete)
    pending.delete(answeredCall(next.entry)!)
    rec = next
  }
  return ok(rec.entry.nodeId)
}
