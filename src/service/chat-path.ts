/**
 * The read behind `chatPath`: what DSH's own Chat should show of a raw log so
 * it reads as the model's history. Every event is classed `shown` (on the
 * path, or anything it cannot place: never hide what the model may read),
 * `abandoned` or `copy`; rowless events take their turn's class. Also the
 * hidden-run summaries and the fork points. Pure; O(events + nodes).
 * docs/chat.md.
 */
import type { SessionProjector } from '../harness/projector.ts'
import { isRecord } from '../tree/validate.ts'
import type { LogEvent as Event } from '../harness/log-event.ts'
import { callIdOf, switchAnchors, type Anchor } from './chat-switches.ts'
import type { SurfaceMode } from './wire.ts'

/** An inclusive run of event seqs: `[first, last]`. */
export type SeqRange = readonly [number, number]

/** One history switch as the Chat marks it. */
export interface ChatSwitch {
  /** Seq of the event the Chat row anchors at: the marker's insertion (stock) or the selection (native). */
  readonly seq: number
  /** `fork` when the switch created a branch. */
  readonly kind: 'switch' | 'fork'
  /** Tree node the history was switched to (`null`: the empty history). */
  readonly target: string | null
  /** The branch it went to (the fork's new branch, else the target's lane; '' when none). */
  readonly branch: string
  /** One line of the target node, for a tooltip. */
  readonly targetSummary?: string
  /**
   * True for the last switch of a run of hidden rows: its row carries the
   * run's summary. The other switches of the run show only while the run is
   * expanded.
   */
  readonly lead: boolean
  /** Seq of the lead switch of this switch's run (its own seq when `lead`). */
  readonly leadSeq: number
  /** Messages of the run that the model no longer reads (prompts, answers, tool calls; copies not counted). Lead only (0 otherwise). */
  readonly hiddenMessages: number
  /** Seqs the run hid that were once the conversation: what "Show" reveals. Copies are never revealed. Lead only. */
  readonly reveal: readonly SeqRange[]
  /**
   * Seq of the first message row "Show" reveals (lead only, when it reveals any):
   * DSH's Chat loads its history in pages, and the Chat loads older pages on
   * "Show" until this row is in.
   */
  readonly firstRow?: number
}

/** A node on the path whose parent has other children: where ‹ k / n › moves between branches. */
export interface ChatFork {
  /** Seq of the node's first event: the Chat row it belongs to. */
  readonly seq: number
  readonly nodeId: string
  /** What the row is, for placing the control. */
  readonly row: 'user' | 'assistant' | 'tool'
  /** 1-based position among the siblings, in creation order. */
  readonly index: number
  readonly count: number
  /** Per sibling (creation order): where a move to it goes, the head of its lane. */
  readonly targets: readonly string[]
}

/** `chatPath` result. */
export interface ChatPath {
  readonly sessionId: string
  /** The `session` revision this answer was computed at. */
  readonly revision: string
  readonly mode: SurfaceMode
  /** Highest seq classified; later events are not known yet (the Chat shows them). */
  readonly watermark: number
  /** Tree node the model's history ends at. */
  readonly tip: string | null
  /** Every hidden seq (abandoned and copies), as sorted disjoint ranges. */
  readonly hidden: readonly SeqRange[]
  readonly switches: readonly ChatSwitch[]
  readonly forks: readonly ChatFork[]
}

type Category = 'shown' | 'abandoned' | 'copy'

const SURFACE = new Set(['user/message', 'assistant/message', 'tool/result'])

export interface ChatPathInput {
  readonly sessionId: string
  readonly revision: string
  readonly mode: SurfaceMode
  readonly events: readonly unknown[]
  readonly projector: SessionProjector
}

export function buildChatPath(input: ChatPathInput): ChatPath {
  const { projector } = input
  const tree = projector.tree
  const events = input.events.filter(
    (e): e is Event => isRecord(e) && typeof e.type === 'string' && typeof e.seq === 'number',
  )
  const typeAt = new BySeq<string>(events.length)
  for (const e of events) typeAt.set(e.seq, e.type)

  // Originals: the events each node came from.
  const nodeAt = new BySeq<string>(events.length)
  for (const [nodeId, source] of projector.sourced()) {
    if (!tree.has(nodeId)) continue
    if (source.kind === 'message') nodeAt.set(source.seq, nodeId)
    else {
      nodeAt.set(source.callSeq, nodeId)
      if (source.resultSeq !== undefined) nodeAt.set(source.resultSeq, nodeId)
    }
  }
  const path = tree.pathIds(projector.tip)
  if (!path.ok) throw new Error(`${path.error.code}: ${path.error.message}`)
  const onPath = new Set(path.value)

  // Row events: the ones a Chat row is made of.
  const rowClass = new BySeq<Category>(events.length)
  const copyCalls = new Map<string, number[]>()
  for (const e of events) {
    const isRow = SURFACE.has(e.type) || e.type === 'tool/call'
    if (!isRow) continue
    const node = nodeAt.get(e.seq)
    if (node !== undefined) rowClass.set(e.seq, onPath.has(node) ? 'shown' : 'abandoned')
    else if (e.type === 'tool/call') {
      // Classified by its result below (a copied call cites nothing).
      const id = isRecord(e.data) && typeof e.data.callId === 'string' ? e.data.callId : undefined
      if (id !== undefined) {
        const calls = copyCalls.get(id) ?? []
        calls.push(e.seq)
        copyCalls.set(id, calls)
      }
    } else if (isCopy(e, nodeAt, typeAt)) rowClass.set(e.seq, 'copy')
  }
  // A call with no node of its own takes the class of the first result that answers it.
  for (const e of events) {
    if (e.type !== 'tool/result' || e.surfaceOp !== 'append') continue
    const id = callIdOf(e)
    const pending = id === undefined ? undefined : copyCalls.get(id)
    if (pending === undefined || pending.length === 0 || pending[0]! > e.seq) continue
    const call = pending.shift()!
    const cls = rowClass.get(e.seq)
    if (cls !== undefined) rowClass.set(call, cls)
  }

  // Turns: a turn with rows, none shown, is hidden whole (its tail, errors, retries too).
  const turnOf = new BySeq<number>(events.length)
  const turnRows = new Map<number, Category[]>()
  let open: number | undefined
  for (const e of events) {
    const explicit = isRecord(e.data) && typeof e.data.turn === 'number' ? e.data.turn : undefined
    if (e.type === 'turn/start' && explicit !== undefined) open = explicit
    const turn = explicit ?? open
    if (turn !== undefined) turnOf.set(e.seq, turn)
    const cls = rowClass.get(e.seq)
    if (turn !== undefined && cls !== undefined) {
      const rows = turnRows.get(turn) ?? []
      rows.push(cls)
      turnRows.set(turn, rows)
    }
    if (e.type === 'turn/end' && explicit === open) open = undefined
  }
  const turnClass = new Map<number, Category>()
  for (const [turn, rows] of turnRows) {
    turnClass.set(turn, rows.includes('shown') ? 'shown' : rows.includes('abandoned') ? 'abandoned' : 'copy')
  }
  const classOf = (seq: number): Category => {
    const row = rowClass.get(seq)
    if (row !== undefined) return row
    const turn = turnOf.get(seq)
    return turn === undefined ? 'shown' : (turnClass.get(turn) ?? 'shown')
  }

  // Switches that happened: a marker a turn claimed (stock), a model's move inside its step, a selection (native).
  const anchors = switchAnchors(events, (seq) => {
    const node = nodeAt.get(seq)
    return node === undefined ? undefined : tree.parentOf(node)
  })
  const hidden: [number, number][] = []
  for (const e of events) {
    if (classOf(e.seq) !== 'shown') addSeq(hidden, e.seq)
  }

  // Runs of hidden rows between shown rows; each gets its last switch as the lead.
  const switches: ChatSwitch[] = []
  // Runs are disjoint and ascending: `index` walks the events once over all of them.
  let run: { anchors: Anchor[]; rows: number[] } = { anchors: [], rows: [] }
  let index = 0
  const closeRun = (to: number): void => {
    const lead = run.anchors.at(-1)
    const reveal: [number, number][] = []
    for (; index < events.length && events[index]!.seq <= to; index++) {
      const e = events[index]!
      if (lead && classOf(e.seq) === 'abandoned') addSeq(reveal, e.seq)
    }
    if (lead) {
      const messages = new Set<string>()
      let firstRow: number | undefined
      for (const seq of run.rows) {
        const node = nodeAt.get(seq)
        if (node !== undefined && rowClass.get(seq) === 'abandoned' && readable(tree.stored(node))) {
          messages.add(node)
          if (firstRow === undefined || seq < firstRow) firstRow = seq
        }
      }
      for (const anchor of run.anchors) {
        const isLead = anchor === lead
        switches.push({
          ...describe(anchor, tree),
          lead: isLead,
          leadSeq: lead.seq,
          hiddenMessages: isLead ? messages.size : 0,
          reveal: isLead ? reveal : [],
          ...(isLead && firstRow !== undefined ? { firstRow } : {}),
        })
      }
    }
    run = { anchors: [], rows: [] }
  }
  let next = 0
  for (const e of events) {
    while (next < anchors.length && anchors[next]!.seq <= e.seq) run.anchors.push(anchors[next++]!)
    const cls = rowClass.get(e.seq)
    if (cls === undefined) continue
    if (cls === 'shown') closeRun(e.seq - 1)
    else run.rows.push(e.seq)
  }
  while (next < anchors.length) run.anchors.push(anchors[next++]!)
  closeRun(events.at(-1)?.seq ?? 0)

  return {
    sessionId: input.sessionId,
    revision: input.revision,
    mode: input.mode,
    watermark: events.at(-1)?.seq ?? -1,
    tip: projector.tip,
    hidden,
    switches,
    forks: forksOf(path.value, projector),
  }
}

/**
 * A table keyed by event seq: an array for the log's seqs (contiguous from 0), a map for any other number a
 * malformed event carries. At 100,000 events a `Map` keyed by number was most of a `chatPath` read.
 */
class BySeq<T> {
  private readonly dense: (T | undefined)[]
  private readonly other = new Map<number, T>()

  /** `size`: the log's length, so the array never grows. */
  constructor(size: number) {
    this.dense = new Array<T | undefined>(size)
  }

  get(seq: number): T | undefined {
    return seq >>> 0 === seq ? this.dense[seq] : this.other.get(seq)
  }

  has(seq: number): boolean {
    return this.get(seq) !== undefined
  }

  set(seq: number, value: T): void {
    if (seq >>> 0 === seq) this.dense[seq] = value
    else this.other.set(seq, value)
  }
}

/** Extend sorted ranges with a seq above every seq in them. */
function addSeq(ranges: [number, number][], seq: number): void {
  const last = ranges.at(-1)
  if (last && last[1] === seq - 1) last[1] = seq
  else ranges.push([seq, seq])
}

/** A surface event that restates one original of its own type (a switch's copy), or a replacement we did not keep as a node. */
function isCopy(e: Event, nodeAt: BySeq<string>, typeAt: BySeq<string>): boolean {
  // The Chat draws no replacement but a compaction checkpoint, and compactions are nodes.
  if (e.surfaceOp !== 'append') return true
  const cited = Array.isArray(e.sourceEventSeqs) ? e.sourceEventSeqs : []
  const original = cited[0]
  return cited.length === 1 && typeof original === 'number' && nodeAt.has(original) && typeAt.get(original) === e.type
}

function describe(
  anchor: Anchor,
  tree: SessionProjector['tree'],
): Omit<ChatSwitch, 'lead' | 'leadSeq' | 'hiddenMessages' | 'reveal'> {
  const node = anchor.target === null ? undefined : tree.get(anchor.target)
  return {
    seq: anchor.seq,
    kind: anchor.branch === undefined ? 'switch' : 'fork',
    target: anchor.target,
    // The branch the switch recorded (a fork's new one, else the one it landed on); earlier logs: the target's lane today.
    branch: anchor.branch ?? anchor.lane ?? node?.branch ?? '',
    ...(node ? { targetSummary: node.summary } : {}),
  }
}

/** A node a person reads as a message: a prompt, an answer with text, a tool call (not a call-only assistant turn). */
function readable(node: ReturnType<SessionProjector['tree']['stored']>): boolean {
  if (!node) return false
  if (node.type === 'tool_call') return true
  if (node.message?.role === 'assistant') return node.message.content.trim() !== ''
  return node.message !== undefined
}

/** Fork points on the path: each node whose parent has other children that came from the log. */
function forksOf(path: readonly string[], projector: SessionProjector): ChatFork[] {
  const tree = projector.tree
  const out: ChatFork[] = []
  for (const nodeId of path) {
    const node = tree.stored(nodeId)
    const source = projector.sourceOf(nodeId)
    if (!node || !source) continue
    const siblings = tree.children(node.parentId).filter((id) => projector.sourceOf(id) !== undefined)
    if (siblings.length < 2) continue
    const row = node.type === 'tool_call' ? 'tool' : node.message?.role === 'user' ? 'user' : 'assistant'
    out.push({
      seq: source.kind === 'message' ? source.seq : source.callSeq,
      nodeId,
      row,
      index: siblings.indexOf(nodeId) + 1,
      count: siblings.length,
      targets: siblings.map((id) => (id === nodeId ? (projector.tip ?? id) : laneHead(id, projector))),
    })
  }
  return out
}

/** Where a move to a sibling goes: down its own lane (else the newest child) to a leaf. */
function laneHead(nodeId: string, projector: SessionProjector): string {
  const tree = projector.tree
  const lane = tree.laneOf(nodeId)
  let at = nodeId
  for (let guard = tree.nodeCount; guard > 0; guard--) {
    const children = tree.children(at).filter((id) => projector.sourceOf(id) !== undefined)
    if (children.length === 0) break
    at = children.find((id) => tree.laneOf(id) === lane) ?? children.at(-1)!
  }
  return at
}
