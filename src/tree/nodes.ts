/**
 * Links and indexes: the stored nodes of one tree, chained parent → children
 * (nodes are linked, never copied), and what is kept in step with them: ids,
 * creation order, labels, tool calls by call id, and the message, usage and
 * cost totals `info()` reports without walking the nodes.
 */
import type { TreeEntry } from './types.ts'

/** A stored node plus its links. */
export class Rec {
  entry: TreeEntry
  /** Display lane: the branch the node was created on (the oldest branch holding it). */
  lane: string
  readonly parent: Rec | undefined
  /** Nodes above this one (0 for a root). */
  readonly depth: number
  /** Creation index. */
  readonly order: number
  firstChild: Rec | undefined = undefined
  lastChild: Rec | undefined = undefined
  prev: Rec | undefined = undefined
  next: Rec | undefined = undefined
  childCount = 0

  constructor(entry: TreeEntry, parent: Rec | undefined, lane: string, order: number) {
    this.entry = entry
    this.lane = lane
    this.parent = parent
    this.depth = parent ? parent.depth + 1 : 0
    this.order = order
  }
}

/** The tool call a tool-call entry issues, if any. */
export function issuedCall(entry: TreeEntry): string | undefined {
  if (entry.type !== 'tool_call') return undefined
  const call = entry.content?.find((part) => part.type === 'tool_call')
  return call && call.type === 'tool_call' ? call.id : undefined
}

export class Nodes {
  private readonly byId = new Map<string, Rec>()
  /** Every node in creation order. */
  readonly order: Rec[] = []
  readonly labels = new Map<string, Rec>()
  /** Tool-call nodes by call id, oldest first (ids can repeat; the newest wins lookups). */
  private readonly calls = new Map<string, Rec[]>()
  messageCount = 0
  /** Per usage key: [total, number of nodes contributing]; a key leaves when its last node does. */
  private readonly usage = new Map<string, [number, number]>()
  private costTotal = 0
  private costCount = 0
  /** Ids minted so far (restored trees start at their node count). */
  private minted = 0

  get size(): number {
    return this.order.length
  }

  get(nodeId: string): Rec | undefined {
    return this.byId.get(nodeId)
  }

  has(nodeId: string): boolean {
    return this.byId.has(nodeId)
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
    if (nodeId === null) return this.order.filter((rec) => rec.parent === undefined).map((rec) => rec.entry.nodeId)
    const out: string[] = []
    for (let child = this.byId.get(nodeId)?.firstChild; child; child = child.next) out.push(child.entry.nodeId)
    return out
  }

  /** The newest tool-call node issuing `callId`. */
  toolCall(callId: string): Rec | undefined {
    return this.calls.get(callId)?.at(-1)
  }

  /** Usage totals per key, in the order keys first appeared. */
  usageTotals(): [string, number][] {
    return [...this.usage].map(([key, [total]]) => [key, total])
  }

  /** Total cost, when any node reported one. */
  cost(): number | undefined {
    return this.costCount > 0 ? this.costTotal : undefined
  }

  /** Add a node as the last child of `parent` (or a new root). */
  link(entry: TreeEntry, parent: Rec | undefined, lane: string): Rec {
    const rec = new Rec(entry, parent, lane, this.order.length)
    if (parent) {
      rec.prev = parent.lastChild
      if (parent.lastChild) parent.lastChild.next = rec
      else parent.firstChild = rec
      parent.lastChild = rec
      parent.childCount++
    }
    this.byId.set(entry.nodeId, rec)
    this.order.push(rec)
    this.index(rec, +1)
    return rec
  }

  /** Remove the newest node (rollback only: it is the last child of its parent). */
  unlink(rec: Rec): void {
    const parent = rec.parent
    if (parent) {
      if (rec.prev) rec.prev.next = rec.next
      else parent.firstChild = rec.next
      if (rec.next) rec.next.prev = rec.prev
      else parent.lastChild = rec.prev
      parent.childCount--
    }
    this.index(rec, -1)
    this.byId.delete(rec.entry.nodeId)
    this.order.pop()
  }

  /**
   * Swap a node's entry in place (labels, results). Its tool-call identity,
   * usage and cost never change, so only labels and the message count move
   * (re-adding usage would also reorder the usage keys `info()` reports).
   */
  replace(rec: Rec, entry: TreeEntry): void {
    const old = rec.entry
    if (old.label !== undefined && this.labels.get(old.label) === rec) this.labels.delete(old.label)
    if (old.message) this.messageCount--
    rec.entry = entry
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
      const stack = this.calls.get(callId)
      if (sign > 0) {
        if (stack) stack.push(rec)
        else this.calls.set(callId, [rec])
      } else if (stack) {
        const at = stack.lastIndexOf(rec)
        if (at >= 0) stack.splice(at, 1)
        if (stack.length === 0) this.calls.delete(callId)
      }
    }
    if (entry.message) this.messageCount += sign
    if (entry.usage) {
      for (const [key, value] of Object.entries(entry.usage)) {
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
