/**
 * The mirror of a session's model-visible surface, the projector's half that
 * tracks where the model's history ends: surface entries in model order, the
 * node each surface event shows, and our own switches (`marker.ts`) mapped
 * back. The projector builds nodes (`NodeMaker`) and places them through the
 * methods below, so this state has one owner.
 */
import type { SessionTree } from '../tree/session-tree.ts'
import { isRecord } from '../tree/validate.ts'
import { MalformedEvent } from './content.ts'
import type { SwitchMarker } from './marker.ts'
import { markerOf } from './marker.ts'

/** Origin `source` of every node the projector creates. */
export const SESSION_ORIGIN = 'session'

/** One entry of the mirrored model-visible surface. */
export interface SurfaceEntry {
  /** Seq of the surface event. */
  readonly seq: number
  /** Tree node whose message this entry shows the model (null: tombstone or unreadable). */
  readonly node: string | null
}

/** The harness events a node was made from (what a history switch copies). */
export type NodeSource =
  | { readonly kind: 'message'; readonly seq: number }
  | { readonly kind: 'tool'; readonly callSeq: number; readonly resultSeq: number | undefined }

/** Node id of the harness event at `seq`. Stable across rebuilds: the log decides it. */
export function nodeIdForSeq(seq: number): string {
  return `e${seq}`
}

/** A harness log event as the projector reads it. */
export type Event = {
  readonly type: string
  readonly seq: number
  readonly time?: number
  readonly data?: unknown
  readonly surfaceOp?: unknown
  readonly sourceEventSeqs?: unknown
}

/** Surface indexes of a replacement's span (first and last shadowed entry). */
export interface SurfaceRange {
  readonly from: number
  readonly to: number
}

/** What the mirror asks of the projector: the tree, and the nodes of events that are new history. */
export interface NodeMaker {
  /** The tree the nodes go into (the projector may rebind it). */
  tree(): SessionTree
  /** A new message event: make its node. */
  append(event: Event): void
  /** A replacement we did not write: compaction or pruning. */
  replace(event: Event, op: { start: number; end: number }): void
}

export class SurfaceMirror {
  private readonly surface: SurfaceEntry[] = []
  private readonly nodeOfSeq = new Map<number, string>()
  /** Event type of each seq in `nodeOfSeq` that is a surface original (copies must match it). */
  private readonly typeOfSeq = new Map<number, string>()
  /** Call ids announced by a switch's message copies in the open step: their `tool/call` copies make no node. */
  private readonly copiedCalls = new Set<string>()
  private tipNode: string | null = null
  private readonly inbox = new Map<string, unknown[]>()
  private openTurn: number | null = null
  private switching: { turn: number; marker: SwitchMarker } | undefined
  private readonly maker: NodeMaker

  constructor(maker: NodeMaker) {
    this.maker = maker
  }

  private get tree(): SessionTree {
    return this.maker.tree()
  }

  /** Where the model history currently ends, as a tree node (null: empty history). */
  get tip(): string | null {
    return this.tipNode
  }

  /** The model-visible surface as the log built it, in model order. */
  get surfaceEntries(): readonly SurfaceEntry[] {
    return this.surface
  }

  /** Whether a history switch turn is in progress in the log. */
  get switchInProgress(): SwitchMarker | undefined {
    return this.switching?.marker
  }

  // ------------------------------------------------ the projector's nodes

  /** A new entry at the end of the surface, showing no node yet. */
  open(seq: number): void {
    this.surface.push({ seq, node: null })
  }

  /** The last entry (the one `open` added) shows `node`. */
  show(node: string): void {
    const last = this.surface.length - 1
    this.surface[last] = { seq: this.surface[last]!.seq, node }
  }

  /** A surface original: the event at `event.seq` shows `node` (copies of it must be of its type). */
  original(event: Event, node: string): void {
    this.nodeOfSeq.set(event.seq, node)
    this.typeOfSeq.set(event.seq, event.type)
  }

  /** A node was appended where the model history ends; `event` given when it is that event's own node. */
  placed(node: string, event?: Event): void {
    this.tipNode = node
    if (event !== undefined) this.original(event, node)
  }

  /** The entries a replacement shadows (throws when its span is not on the surface). */
  shadowed(op: { start: number; end: number }): { range: SurfaceRange; entries: readonly SurfaceEntry[] } {
    const range = this.surfaceRange(op.start, op.end)
    return { range, entries: this.surface.slice(range.from, range.to + 1) }
  }

  /** One entry (the replacement `seq`, showing `node`) stands for the shadowed range. */
  cover(range: SurfaceRange, seq: number, node: string | null): void {
    this.surface.splice(range.from, range.to - range.from + 1, { seq, node })
  }

  /** The event at `seq` shows `node` without being its original (a pruned result). */
  mapSeq(seq: number, node: string): void {
    this.nodeOfSeq.set(seq, node)
  }

  /** Whether a `tool/call` is a switch's copy: in a maintenance turn, or announced by a copied message (an in-step switch). */
  copiedCall(callId: string): boolean {
    return this.copiedCalls.delete(callId) || (this.switching !== undefined && this.openTurn === this.switching.turn)
  }

  /**
   * A summary carried by a stock switch ends the switch's path: settle the
   * switch at its target first (the fork's branch, the recorded jump), so the
   * summary lands as the target's child on the new branch, as it did live.
   */
  settleBeforeCarried(): void {
    const switching = this.switching
    if (!switching || switching.turn !== this.openTurn || this.tipNode !== switching.marker.target) return
    this.settleSwitch(switching.marker)
  }

  // ------------------------------------------------------------- switches

  startTurn(turn: number): void {
    this.openTurn = turn
  }

  /** A call and its copy share one step; nothing announced earlier can still arrive. */
  endStep(): void {
    this.copiedCalls.clear()
  }

  /** Mirror inbox splices; the splice that claims our marker opens a switch turn. */
  splice(event: Event): void {
    const data = event.data
    if (!isRecord(data) || typeof data.target !== 'string' || typeof data.start !== 'number')
      throw new MalformedEvent('inbox splice without target/start')
    const list = this.inbox.get(data.target) ?? []
    this.inbox.set(data.target, list)
    const inserted = Array.isArray(data.inserted) ? data.inserted : []
    const removedCount = typeof data.removedCount === 'number' ? data.removedCount : 0
    const removed = list.splice(data.start, removedCount, ...inserted)
    // A claim is a removal without an outcome, made by the turn that enters it.
    if (data.outcome !== undefined || this.openTurn === null) return
    for (const message of removed) {
      const marker = markerOf(message)
      if (marker) this.switching = { turn: this.openTurn, marker }
    }
  }

  endTurn(turn: number): void {
    const switching = this.switching
    this.openTurn = null
    if (!switching || switching.turn !== turn) return
    this.switching = undefined
    this.settleSwitch(switching.marker)
  }

  /** After a switch: make the cursor follow the new history (a fork marker also names its branch). */
  private settleSwitch(marker: SwitchMarker): void {
    const tip = this.tipNode
    // False when the turn ended before the history reached the target (a crash or an error).
    const complete = tip === marker.target
    const tree = this.tree
    if (
      complete &&
      marker.branch !== undefined &&
      tip !== null &&
      !tree.branchHeadList().some(([name]) => name === marker.branch)
    ) {
      // Log-only rebuild of a fork: name the branch the way the user did.
      const forked = tree.fork(tip, marker.branch)
      if (forked.ok) return
    }
    if (!this.cursorFollowsTip()) tree.moveCursor(tip, { record: complete })
  }

  /**
   * A native switch (patched harness): the surface becomes exactly the
   * selected earlier events. The event also names the tree target (and the
   * branch a fork created), so the log alone rebuilds cursor and branch.
   */
  selection(event: Event): void {
    const data = event.data
    if (!isRecord(data) || !Array.isArray(data.seqs)) throw new MalformedEvent('selection without seqs')
    const entries: SurfaceEntry[] = data.seqs.map((seq) => {
      if (typeof seq !== 'number') throw new MalformedEvent('selection seq is not a number')
      return { seq, node: this.nodeOfSeq.get(seq) ?? null }
    })
    this.surface.splice(0, this.surface.length, ...entries)
    this.tipNode = this.surfaceTip()
    const target = data.target === null || typeof data.target === 'string' ? data.target : this.tipNode
    const marker: SwitchMarker =
      typeof data.branch === 'string'
        ? { v: 1, op: 'switch', id: `selection-${event.seq}`, target, branch: data.branch }
        : { v: 1, op: 'switch', id: `selection-${event.seq}`, target }
    this.settleSwitch(marker)
  }

  /** Copies and tombstones of a switch map back to the original nodes. */
  private switchCopy(event: Event, op: 'append' | { start: number; end: number }): void {
    const cited = Array.isArray(event.sourceEventSeqs)
      ? event.sourceEventSeqs.filter((s): s is number => typeof s === 'number')
      : []
    if (op === 'append') {
      const original = cited[0]
      const node = original === undefined ? undefined : this.nodeOfSeq.get(original)
      if (cited.length !== 1 || node === undefined)
        throw new MalformedEvent(`switch copy cites ${JSON.stringify(cited)}, not one known original`)
      this.surface.push({ seq: event.seq, node })
      this.nodeOfSeq.set(event.seq, node)
      this.noteCopiedCalls(event)
    } else {
      const range = this.surfaceRange(op.start, op.end)
      const originals = this.originalsOf(cited, range) as number[]
      const node = originals.length === 1 ? this.nodeOfSeq.get(originals[0]!) : this.restatedNode(event, cited, range)
      if (originals.length > 1 || (originals.length === 1 && node === undefined)) {
        this.surface.splice(range.from, range.to - range.from + 1, { seq: event.seq, node: null })
        throw new MalformedEvent(`switch replacement cites unknown originals ${JSON.stringify(originals)}`)
      }
      this.surface.splice(range.from, range.to - range.from + 1, { seq: event.seq, node: node ?? null })
      if (node !== undefined) {
        this.nodeOfSeq.set(event.seq, node)
        this.noteCopiedCalls(event)
      }
    }
    this.tipNode = this.surfaceTip()
  }

  /**
   * A rewind's stand-in restates the first entry it shadows (`surface/plan.ts`, `restateOnRewind`): it
   * cites exactly the shadowed entries, that one first, and is not empty (an empty one is a tombstone).
   */
  private restatedNode(
    event: Event,
    cited: readonly number[],
    range: { from: number; to: number },
  ): string | undefined {
    const first = this.surface[range.from]
    if (!first || first.node === null || cited.length !== range.to - range.from + 1 || cited[0] !== first.seq)
      return undefined
    if (cited.some((seq, i) => this.surface[range.from + i]?.seq !== seq)) return undefined
    // The first entry is the original (its type known) or a copy of one.
    const type = this.typeOfSeq.get(first.seq)
    if ((type !== undefined && type !== event.type) || emptyMessage(event)) return undefined
    return first.node
  }

  /** The calls a copied assistant message issues are copies too (their results map back by provenance). */
  private noteCopiedCalls(event: Event): void {
    if (event.type !== 'assistant/message' || !isRecord(event.data) || !isRecord(event.data.message)) return
    const content = event.data.message.content
    if (!Array.isArray(content)) return
    for (const block of content) {
      if (isRecord(block) && block.type === 'tool-call' && typeof block.id === 'string') this.copiedCalls.add(block.id)
    }
  }

  // -------------------------------------------------------- surface events

  surfaceEvent(event: Event): void {
    const op = surfaceOpOf(event.surfaceOp)
    if (this.switching && this.openTurn === this.switching.turn && Array.isArray(event.sourceEventSeqs)) {
      // Our copies cite an original node; anything else in the turn (say, the harness's
      // repair of a copied call cut off by a crash) is new history and projects as such.
      const cited = event.sourceEventSeqs
      if (op !== 'append' || (cited.length === 1 && typeof cited[0] === 'number' && this.nodeOfSeq.has(cited[0]))) {
        return this.switchCopy(event, op)
      }
    }
    // A switch made inside a running step (a model's own move) has no maintenance turn:
    // its copies are known by provenance alone.
    if (this.isCopy(event, op)) return this.switchCopy(event, op)
    if (op === 'append') return this.maker.append(event)
    if (this.isRewind(event, op)) return this.switchCopy(event, op)
    return this.maker.replace(event, op)
  }

  /**
   * A copy cites exactly one original of its own type that is in the tree
   * (plus, for a replacement, the entries it shadows). Harness events never
   * look like that: a result cites its call, an answer cites stream chunks, a
   * compaction cites only what it shadows.
   */
  private isCopy(event: Event, op: 'append' | { start: number; end: number }): boolean {
    const cited = Array.isArray(event.sourceEventSeqs) ? event.sourceEventSeqs : []
    let originals = cited
    if (op !== 'append') {
      const range = this.findRange(op.start, op.end)
      if (!range) return false
      originals = this.originalsOf(cited, range)
    }
    const original = originals[0]
    return (
      originals.length === 1 &&
      typeof original === 'number' &&
      this.typeOfSeq.get(original) === event.type &&
      this.nodeOfSeq.has(original)
    )
  }

  /** An empty assistant message shadowing the tail of the surface: the history went back (a rewind). */
  private isRewind(event: Event, op: { start: number; end: number }): boolean {
    if (event.type !== 'assistant/message' || op.end !== this.surface.at(-1)?.seq) return false
    const data = event.data
    const message = isRecord(data) ? data.message : undefined
    return isRecord(message) && Array.isArray(message.content) && message.content.length === 0
  }

  /** True when the cursor is the tip, or below it on nodes the harness did not make. */
  cursorFollowsTip(): boolean {
    let id = this.tree.cursor
    while (id !== null && id !== this.tipNode) {
      const node = this.tree.stored(id)
      if (!node || node.origin?.source === SESSION_ORIGIN) return false
      id = node.parentId
    }
    return id === this.tipNode
  }

  private surfaceRange(start: number, end: number): SurfaceRange {
    const range = this.findRange(start, end)
    if (!range) throw new MalformedEvent(`replace range ${start}..${end} is not on the surface`)
    return range
  }

  /** Surface indexes of a replacement's span, or undefined when the span is not on the surface. */
  private findRange(start: number, end: number): SurfaceRange | undefined {
    const from = this.surfaceIndex(start)
    const to = from === -1 ? -1 : this.surfaceIndex(end)
    return from === -1 || to === -1 || from > to ? undefined : { from, to }
  }

  /**
   * Index of an event on the surface, searched from both ends at once: a
   * rewind shadows the tail, a compaction the head, so either is found in
   * O(its distance from the nearer end), not O(surface) (an import of a long
   * session makes thousands of them).
   */
  private surfaceIndex(seq: number): number {
    const surface = this.surface
    for (let i = 0, j = surface.length - 1; i <= j; i++, j--) {
      if (surface[i]!.seq === seq) return i
      if (surface[j]!.seq === seq) return j
    }
    return -1
  }

  /** What a replacement cites besides the entries it shadows: the originals it stands for. */
  private originalsOf(cited: readonly unknown[], range: { from: number; to: number }): unknown[] {
    const shadowed = new Set(this.surface.slice(range.from, range.to + 1).map((entry) => entry.seq))
    return cited.filter((seq) => !shadowed.has(seq as number))
  }

  /**
   * The node the model history ends at: the last surface entry's node, unless a compaction
   * heading the surface stands right after it in the tree (a compaction's history is its
   * summary first, then the messages it kept, so the kept ones end the surface, not it).
   */
  private surfaceTip(): string | null {
    let last: string | null = null
    for (let i = this.surface.length - 1; i >= 0 && last === null; i--) last = this.surface[i]!.node
    if (last === null) return null
    let tip = last
    for (const entry of this.surface) {
      if (entry.node === null || entry.node === last || this.tree.entry(entry.node)?.type !== 'compaction') break
      if (this.lastMessageBefore(entry.node) === tip) tip = entry.node
    }
    return tip
  }

  /** The nearest ancestor of `nodeId` with a message (tree-only nodes in between skipped). */
  private lastMessageBefore(nodeId: string): string | null {
    let id = this.tree.entry(nodeId)?.parentId ?? null
    while (id !== null) {
      const entry = this.tree.entry(id)
      if (!entry || entry.message !== undefined) return id
      id = entry.parentId
    }
    return null
  }
}

/** A message event with no content (a stock rewind's tombstone, or nothing readable). */
function emptyMessage(event: Event): boolean {
  const data = isRecord(event.data) ? event.data : undefined
  const message = event.type === 'user/message' ? data : isRecord(data?.message) ? data.message : undefined
  return !isRecord(message) || !Array.isArray(message.content) || message.content.length === 0
}

export function surfaceOpOf(op: unknown): 'append' | { start: number; end: number } {
  if (op === 'append') return op
  if (isRecord(op) && op.op === 'replace' && typeof op.start === 'number' && typeof op.end === 'number')
    return { start: op.start, end: op.end }
  throw new MalformedEvent('surface event without a valid surfaceOp')
}
