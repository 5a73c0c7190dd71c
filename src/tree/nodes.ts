/**
 * Links and indexes: a tree's stored nodes, chained parent → children (linked, never copied), and what is kept in
 * step with them: ids in creation order, labels, tool calls by call id, and the message, usage and cost totals
 * `info()` reports without walking the nodes. A tree holds one `Rec` per node, so a `Rec` is small: children are
 * a newest-first chain (`youngest`, then each one's `older`), which makes an append and the rollback of the
 * newest node O(1), and the lane, the cached summary and the flags share one number.
 */
import type { StoredEntry } from './entry.ts'
import { fail, ok, type TreeResult, quoted, clipped } from './errors.ts'
import { defaultSummaryParts } from './text.ts'

// `Rec.bits`: the lane (× LANE: an index into the tree's lane names), the cached summary head (× HEAD:
// 0 not derived yet, 1 + n a prefix of n characters of the message text, STRING a collapsed text kept in
// `collapsed`), and the COMPACTED, CUT and OLDER flags. One small integer instead of five fields.
const COMPACTED = 1
const CUT = 2
/** The node has an older sibling, kept in `olderOf` (most nodes are their parent's only child). */
const OLDER = 4
const HEAD = 8
const HEADS = 128
const STRING = HEADS - 1
const LANE = HEAD * HEADS

/** Each node's next older sibling, for the nodes that have one (children of a fork point). */
const olderOf = new WeakMap<Rec, Rec>()

/** Summary heads that are not a prefix of the message text (text whose start needed its whitespace collapsed). */
const collapsed = new WeakMap<Rec, string>()

/** A stored node plus its links. */
export class Rec {
  /** The entry; only `attach` and `label` replace it. */
  entry: StoredEntry
  readonly parent: Rec | undefined
  /** The newest child (the others: each child's older sibling, see `older`). */
  youngest: Rec | undefined
  /** Lane, cached summary head and flags (see `LANE`, `HEAD`, `CUT`, `COMPACTED`, `OLDER`). */
  private bits: number

  constructor(entry: StoredEntry, parent: Rec | undefined, lane: number) {
    this.entry = entry
    this.parent = parent
    this.youngest = undefined
    const compacted =
      (parent !== undefined && parent.compacted) ||
      (entry.type === 'compaction' && entry.replaces !== undefined && entry.replaces.length > 0)
    this.bits = lane * LANE + (compacted ? COMPACTED : 0)
  }

  /** Index of the display lane (see `Nodes.laneOf`). */
  get lane(): number {
    return Math.floor(this.bits / LANE)
  }

  set lane(lane: number) {
    this.bits += (lane - this.lane) * LANE
  }

  /** The next older sibling. */
  get older(): Rec | undefined {
    return Math.floor(this.bits / OLDER) % 2 === 1 ? olderOf.get(this) : undefined
  }

  set older(older: Rec | undefined) {
    const has = Math.floor(this.bits / OLDER) % 2 === 1
    if (older) olderOf.set(this, older)
    else olderOf.delete(this)
    if (has !== (older !== undefined)) this.bits += older ? OLDER : -OLDER
  }

  /** Number of direct children (counted: nodes have few, and a count per node would cost every node a field). */
  get childCount(): number {
    let count = 0
    for (let child = this.youngest; child; child = child.older) count++
    return count
  }

  /** True when a compaction on the path root → here replaces something (the model history is then more than the path's messages). */
  get compacted(): boolean {
    return this.bits % 2 === 1
  }

  /** Children in creation order. */
  children(): Rec[] {
    const out: Rec[] = []
    for (let child = this.youngest; child; child = child.older) out.push(child)
    return out.reverse()
  }

  /** The node's summary: the one it was given, or the one its content implies (derived once, then cached). */
  summary(): string {
    const entry = this.entry
    if (entry.summary !== undefined) return entry.summary
    let head = Math.floor(this.bits / HEAD) % HEADS
    if (head === 0) {
      const [text, cut] = defaultSummaryParts(entry.message, entry.content)
      // A tool call's summary is built from its call and result: caching it would keep that whole string alive.
      if (issuedCall(entry) !== undefined) return cut ? `${text}…` : text
      const own = entry.message?.content
      head = own !== undefined && own.startsWith(text) ? 1 + text.length : STRING
      if (head === STRING) collapsed.set(this, text)
      this.bits += head * HEAD + (cut ? CUT : 0)
    }
    const own = entry.message?.content ?? ''
    const text = head === STRING ? collapsed.get(this)! : head - 1 === own.length ? own : own.slice(0, head - 1)
    // A fresh string for a cut summary: a reader that flattens it (JSON does) flattens its own copy.
    return Math.floor(this.bits / CUT) % 2 === 1 ? `${text}…` : text
  }

  /** Forget the cached summary (the entry changed). */
  forgetSummary(): void {
    this.bits -= (Math.floor(this.bits / HEAD) % HEADS) * HEAD + (Math.floor(this.bits / CUT) % 2) * CUT
    collapsed.delete(this)
  }
}

/** A node's summary. */
export function summaryOf(rec: Rec): string {
  return rec.summary()
}

/** The tool call a tool-call entry issues, if any. */
export function issuedCall(entry: StoredEntry): string | undefined {
  if (entry.type !== 'tool_call') return undefined
  const call = entry.content?.find((part) => part.type === 'tool_call')
  return call && call.type === 'tool_call' ? call.id : undefined
}

export class Nodes {
  /** Every node by id; a Map keeps creation order, so it is also the list. */
  private readonly byId = new Map<string, Rec>()
  readonly labels = new Map<string, Rec>()
  /** Tool-call nodes by call id: the node, or (ids can repeat) all of them oldest first; the newest wins lookups. */
  private readonly calls = new Map<string, Rec | Rec[]>()
  messageCount = 0
  /** Per usage key: [total, number of nodes contributing]; a key leaves when its last node does. */
  private readonly usage = new Map<string, [number, number]>()
  private costTotal = 0
  private costCount = 0
  /** Ids minted so far (restored trees start at their node count). */
  private minted = 0
  /** Lane names by index (0: no lane), and back. */
  private readonly lanes: string[] = ['']
  private readonly laneIndex = new Map<string, number>([['', 0]])

  get size(): number {
    return this.byId.size
  }

  get(nodeId: string): Rec | undefined {
    return this.byId.get(nodeId)
  }

  has(nodeId: string): boolean {
    return this.byId.has(nodeId)
  }

  /** Every node in creation order. */
  all(): IterableIterator<Rec> {
    return this.byId.values()
  }

  /** A node's display lane: the branch it was created on (the oldest branch holding it), '' for none. */
  laneOf(rec: Rec): string {
    return this.lanes[rec.lane]!
  }

  setLane(rec: Rec, lane: string): void {
    rec.lane = this.laneNumber(lane)
  }

  private laneNumber(lane: string): number {
    if (lane === '') return 0
    let index = this.laneIndex.get(lane)
    if (index === undefined) {
      index = this.lanes.push(lane) - 1
      this.laneIndex.set(lane, index)
    }
    return index
  }

  /** A fresh node id (`n` + base 36), never one in use. */
  mint(): string {
    let id: string
    do id = `n${(++this.minted).toString(36)}`
    while (this.byId.has(id))
    return id
  }

  /** A restored tree mints after its `count` nodes. */
  mintAfter(count: number): void {
    this.minted = count
  }

  /** Ids of a node's children (`null`: the roots), in creation order. */
  childIds(nodeId: string | null): string[] {
    if (nodeId === null) {
      const out: string[] = []
      for (const rec of this.byId.values()) if (rec.parent === undefined) out.push(rec.entry.nodeId)
      return out
    }
    return (this.byId.get(nodeId)?.children() ?? []).map((rec) => rec.entry.nodeId)
  }

  /**
   * The tool-call node issuing `callId`: the one named (call ids can repeat
   * across a long session; a producer that knows which node issued it names
   * it), else the newest.
   */
  callNode(callId: string, nodeId: string | undefined): TreeResult<Rec> {
    const rec = nodeId === undefined ? this.toolCall(callId) : this.byId.get(nodeId)
    if (!rec) return fail('NODE_NOT_FOUND', `no tool-call node for call ${quoted(callId)}`, { callId: clipped(callId) })
    if (issuedCall(rec.entry) !== callId) {
      return fail('INVALID_ARGUMENT', `node ${rec.entry.nodeId} is not the tool call ${quoted(callId)}`, {
        callId,
        nodeId: rec.entry.nodeId,
      })
    }
    return ok(rec)
  }

  /** The newest tool-call node issuing `callId`. */
  toolCall(callId: string): Rec | undefined {
    const held = this.calls.get(callId)
    return Array.isArray(held) ? held.at(-1) : held
  }

  /** Usage totals per key, in the order keys first appeared. */
  usageTotals(): [string, number][] {
    return [...this.usage].map(([key, [total]]) => [key, total])
  }

  /** Total cost, when any node reported one. */
  cost(): number | undefined {
    return this.costCount > 0 ? this.costTotal : undefined
  }

  /** Add a node as the newest child of `parent` (or a new root). */
  link(entry: StoredEntry, parent: Rec | undefined, lane: string): Rec {
    const rec = new Rec(entry, parent, this.laneNumber(lane))
    if (parent) {
      rec.older = parent.youngest
      parent.youngest = rec
    }
    this.byId.set(entry.nodeId, rec)
    this.index(rec, +1)
    return rec
  }

  /**
   * `link` for a restore, without the lane (set from the branches after) and
   * without a lookup first: undefined when the id was taken. The tree being
   * restored is then thrown away, so the overwritten entry does not matter.
   */
  linkNew(entry: StoredEntry, parent: Rec | undefined): Rec | undefined {
    const size = this.byId.size
    const rec = new Rec(entry, parent, 0)
    this.byId.set(entry.nodeId, rec)
    if (this.byId.size === size) return undefined
    if (parent) {
      rec.older = parent.youngest
      parent.youngest = rec
    }
    this.index(rec, +1)
    return rec
  }

  /** Remove the newest node (rollback only: it is the youngest child of its parent). */
  unlink(rec: Rec): void {
    const parent = rec.parent
    if (parent) parent.youngest = rec.older
    this.index(rec, -1)
    this.byId.delete(rec.entry.nodeId)
  }

  /**
   * Swap a node's entry in place (labels, results). Its tool-call identity,
   * usage and cost never change, so only labels and the message count move
   * (re-adding usage would also reorder the usage keys `info()` reports).
   */
  replace(rec: Rec, entry: StoredEntry): void {
    const old = rec.entry
    if (old.label !== undefined && this.labels.get(old.label) === rec) this.labels.delete(old.label)
    if (old.message) this.messageCount--
    rec.entry = entry
    if (
      entry.message?.content !== old.message?.content ||
      entry.content !== old.content ||
      entry.summary !== old.summary
    )
      rec.forgetSummary()
    if (entry.label !== undefined) this.labels.set(entry.label, rec)
    if (entry.message) this.messageCount++
  }

  /** Keep labels, the tool-call index and the totals in step with a node entering (+1) or leaving (-1). */
  private index(rec: Rec, sign: 1 | -1): void {
    const entry = rec.entry
    if (entry.label !== undefined) {
      if (sign > 0) this.labels.set(entry.label, rec)
      else if (this.labels.get(entry.label) === rec) this.labels.delete(entry.label)
    }
    const callId = issuedCall(entry)
    if (callId !== undefined) {
      const held = this.calls.get(callId)
      if (sign > 0) {
        if (held === undefined) this.calls.set(callId, rec)
        else if (Array.isArray(held)) held.push(rec)
        else this.calls.set(callId, [held, rec])
      } else if (held === rec) {
        this.calls.delete(callId)
      } else if (Array.isArray(held)) {
        const at = held.lastIndexOf(rec)
        if (at >= 0) held.splice(at, 1)
        if (held.length === 1) this.calls.set(callId, held[0]!)
      }
    }
    if (entry.message) this.messageCount += sign
    const usage = entry.usage
    if (usage) {
      for (const key in usage) {
        const value = usage[key]
        if (typeof value !== 'number') continue
        const [total, count] = this.usage.get(key) ?? [0, 0]
        if (count + sign === 0) this.usage.delete(key)
        else this.usage.set(key, [total + sign * value, count + sign])
      }
    }
    if (entry.cost !== undefined) {
      this.costTotal += sign * entry.cost
      this.costCount += sign
      if (this.costCount === 0) this.costTotal = 0
    }
  }
}
