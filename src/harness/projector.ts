/**
 * Projects a harness session log into a `SessionTree`, one event at a time.
 *
 * The tree's shape for harness nodes is decided by the log alone: a new
 * message goes where the model's history currently ends (the "tip"), which
 * the projector tracks by mirroring the model-visible surface. Our own
 * history switches (see `marker.ts`) are recognised and map back to the
 * original nodes, so the tree never shows a copy twice and the cursor after
 * a switch can be rebuilt from the log without any sidecar.
 *
 * Guarantees: each event is projected once (a watermark makes projection
 * idempotent), unknown event types are skipped, and a malformed event is
 * quarantined with its reason — projection never throws.
 */
import type { SessionTree } from '../tree/session-tree.ts'
import type { JsonValue, LlmMessage, NodeOrigin } from '../tree/types.ts'
import { isRecord } from '../tree/validate.ts'
import type { QuarantinedEvent } from '../service/wire.ts'
import { flattenContent, MalformedEvent, parseArguments } from './content.ts'
import { markerOf, type SwitchMarker } from './marker.ts'
import { carriedSummaryOf } from './carried-summary.ts'
import { CallIdLedger, type LogWarning } from './warnings.ts'

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

type Event = { readonly type: string; readonly seq: number; readonly time?: number; readonly data?: unknown; readonly surfaceOp?: unknown; readonly sourceEventSeqs?: unknown }

/** Node id of the harness event at `seq`. Stable across rebuilds: the log decides it. */
export function nodeIdForSeq(seq: number): string {
  return `e${seq}`
}

export class SessionProjector {
  private currentTree: SessionTree
  /** Parent overrides for a rebuild from a folded sidecar (see `sync.ts`); the cursor is ignored meanwhile. */
  private adoptions: ReadonlyMap<string, string> | undefined
  /** Highest seq projected (-1 before the first event). */
  private last = -1
  private readonly quarantined: QuarantinedEvent[] = []
  private readonly usage = new Map<string, number>()
  private readonly surface: SurfaceEntry[] = []
  private readonly nodeOfSeq = new Map<number, string>()
  /** Event type of each seq in `nodeOfSeq` that is a surface original (copies must match it). */
  private readonly typeOfSeq = new Map<number, string>()
  private readonly sources = new Map<string, NodeSource>()
  private readonly pendingCalls = new Map<string, string>()
  /** Call ids announced by a switch's message copies in the open step: their `tool/call` copies make no node. */
  private readonly copiedCalls = new Set<string>()
  private readonly callIds = new CallIdLedger()
  private tipNode: string | null = null
  private readonly inbox = new Map<string, unknown[]>()
  private openTurn: number | null = null
  private switching: { turn: number; marker: SwitchMarker } | undefined
  private route: string | undefined
  private compactionModel: { provider?: string; model?: string } | undefined

  constructor(tree: SessionTree) {
    this.currentTree = tree
  }

  get tree(): SessionTree {
    return this.currentTree
  }

  /** Continue on an equivalent tree (same nodes), e.g. one restored with the sidecar overlay applied. */
  rebind(tree: SessionTree): void {
    this.currentTree = tree
  }

  /** While set, harness nodes go under their recorded adopter or the tip, whatever the cursor says. */
  setAdoptions(adoptions: ReadonlyMap<string, string> | undefined): void {
    this.adoptions = adoptions
  }

  /** Highest harness seq already projected. */
  get watermark(): number {
    return this.last
  }

  /** Where the model history currently ends, as a tree node (null: empty history). */
  get tip(): string | null {
    return this.tipNode
  }

  /** Events that could not be read, with the reason. */
  get quarantine(): readonly QuarantinedEvent[] {
    return this.quarantined
  }

  /** Problems of the log that DSH's own front ends trip over (repeated call ids). */
  get logWarnings(): LogWarning[] {
    return this.callIds.warnings()
  }

  /** Usage reported by empty assistant messages, which get no node. */
  get hostedUsage(): Record<string, number> {
    return Object.fromEntries(this.usage)
  }

  /** The model-visible surface as the log built it, in model order. */
  get surfaceEntries(): readonly SurfaceEntry[] {
    return this.surface
  }

  /** Whether a history switch turn is in progress in the log. */
  get switchInProgress(): SwitchMarker | undefined {
    return this.switching?.marker
  }

  /** The harness events a node came from; undefined for tree-only nodes. */
  sourceOf(nodeId: string): NodeSource | undefined {
    return this.sources.get(nodeId)
  }

  /** Project one event. Never throws; already-projected seqs are ignored. */
  project(raw: unknown): void {
    if (!isRecord(raw) || typeof raw.seq !== 'number' || !Number.isSafeInteger(raw.seq)) {
      // Without a seq there is nothing to key a quarantine entry on.
      this.quarantined.push({ seq: -1, type: isRecord(raw) && typeof raw.type === 'string' ? raw.type : 'unknown', reason: 'event without an integer seq' })
      return
    }
    const event = raw as unknown as Event
    if (event.seq <= this.last) return
    try {
      this.handle(event)
    } catch (error) {
      this.quarantined.push({
        seq: event.seq,
        type: typeof event.type === 'string' ? event.type : 'unknown',
        reason: error instanceof Error ? error.message : String(error),
      })
    } finally {
      this.last = event.seq
    }
  }

  private handle(event: Event): void {
    if (typeof event.type !== 'string') throw new MalformedEvent('event without a type')
    const data = event.data
    switch (event.type) {
      case 'agent/inbox/spliced':
        return this.splice(event)
      case 'turn/start':
        this.openTurn = numberField(data, 'turn')
        return
      case 'turn/end':
        return this.endTurn(numberField(data, 'turn'))
      case 'step/end':
        // A call and its copy share one step; nothing announced earlier can still arrive.
        this.copiedCalls.clear()
        return
      case 'user/message':
      case 'assistant/message':
      case 'tool/result':
        return this.surfaceEvent(event)
      case 'tool/call':
        return this.toolCall(event)
      case 'request/header':
        return this.requestHeader(event)
      case 'session-tree/selection':
        return this.selection(event)
      case 'compaction/summary':
        if (isRecord(data)) {
          this.compactionModel = {
            ...(typeof data.provider === 'string' ? { provider: data.provider } : {}),
            ...(typeof data.model === 'string' ? { model: data.model } : {}),
          }
        }
        return
      default:
        // Unknown or log-only types carry nothing the tree shows.
        return
    }
  }

  // ------------------------------------------------------------- switches

  /** Mirror inbox splices; the splice that claims our marker opens a switch turn. */
  private splice(event: Event): void {
    const data = event.data
    if (!isRecord(data) || typeof data.target !== 'string' || typeof data.start !== 'number') throw new MalformedEvent('inbox splice without target/start')
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

  private endTurn(turn: number): void {
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
    if (complete && marker.branch !== undefined && tip !== null && !tree.branchHeadList().some(([name]) => name === marker.branch)) {
      // Log-only rebuild of a fork: name the branch the way the user did.
      const forked = tree.fork(tip, marker.branch)
      if (forked.ok) return
    }
    if (!this.cursorFollowsTip()) tree.jump(tip, { record: complete })
  }

  /**
   * A summary carried by a stock switch ends the switch's path: settle the
   * switch at its target first (the fork's branch, the recorded jump), so the
   * summary lands as the target's child on the new branch, as it did live.
   */
  private settleBeforeCarried(): void {
    const switching = this.switching
    if (!switching || switching.turn !== this.openTurn || this.tipNode !== switching.marker.target) return
    this.settleSwitch(switching.marker)
  }

  /**
   * A native switch (patched harness): the surface becomes exactly the
   * selected earlier events. The event also names the tree target (and the
   * branch a fork created), so the log alone rebuilds cursor and branch.
   */
  private selection(event: Event): void {
    const data = event.data
    if (!isRecord(data) || !Array.isArray(data.seqs)) throw new MalformedEvent('selection without seqs')
    const entries: SurfaceEntry[] = data.seqs.map((seq) => {
      if (typeof seq !== 'number') throw new MalformedEvent('selection seq is not a number')
      return { seq, node: this.nodeOfSeq.get(seq) ?? null }
    })
    this.surface.splice(0, this.surface.length, ...entries)
    this.tipNode = this.surfaceTip()
    const target = data.target === null || typeof data.target === 'string' ? data.target : this.tipNode
    const marker: SwitchMarker = typeof data.branch === 'string'
      ? { v: 1, op: 'switch', id: `selection-${event.seq}`, target, branch: data.branch }
      : { v: 1, op: 'switch', id: `selection-${event.seq}`, target }
    this.settleSwitch(marker)
  }

  /** Copies and tombstones of a switch map back to the original nodes. */
  private switchCopy(event: Event, op: 'append' | { start: number; end: number }): void {
    const cited = Array.isArray(event.sourceEventSeqs) ? event.sourceEventSeqs.filter((s): s is number => typeof s === 'number') : []
    if (op === 'append') {
      const original = cited[0]
      const node = original === undefined ? undefined : this.nodeOfSeq.get(original)
      if (cited.length !== 1 || node === undefined) throw new MalformedEvent(`switch copy cites ${JSON.stringify(cited)}, not one known original`)
      this.surface.push({ seq: event.seq, node })
      this.nodeOfSeq.set(event.seq, node)
      this.noteCopiedCalls(event)
    } else {
      const range = this.surfaceRange(op.start, op.end)
      const originals = this.originalsOf(cited, range) as number[]
      const node = originals.length === 1 ? this.nodeOfSeq.get(originals[0]!) : undefined
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

  private surfaceEvent(event: Event): void {
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
    if (op === 'append') return this.appendEvent(event)
    if (this.isRewind(event, op)) return this.switchCopy(event, op)
    return this.replaceEvent(event, op)
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
    return originals.length === 1 && typeof original === 'number' && this.typeOfSeq.get(original) === event.type && this.nodeOfSeq.has(original)
  }

  /** An empty assistant message shadowing the tail of the surface: the history went back (a rewind). */
  private isRewind(event: Event, op: { start: number; end: number }): boolean {
    if (event.type !== 'assistant/message' || op.end !== this.surface.at(-1)?.seq) return false
    const data = event.data
    const message = isRecord(data) ? data.message : undefined
    return isRecord(message) && Array.isArray(message.content) && message.content.length === 0
  }

  private appendEvent(event: Event): void {
    const data = event.data
    switch (event.type) {
      case 'user/message': {
        // Surface bookkeeping first, so a malformed message still keeps later ranges resolvable.
        const entry = { seq: event.seq, node: null as string | null }
        this.surface.push(entry)
        const message = requireMessage(data)
        const flat = flattenContent(message.content)
        const source = isRecord(message.source) ? message.source : {}
        const kind = typeof source.kind === 'string' ? source.kind : 'unknown'
        const carried = carriedSummaryOf(message)
        if (carried) this.settleBeforeCarried()
        const node = this.place(event, { role: 'user', content: flat.text }, {
          content: flat.parts,
          origin: origin(event.seq, message.id, kind, kind !== 'user'),
          ...(carried
            ? { metadata: { plugin: source.plugin as string, branchSummary: carried.facts as unknown as JsonValue }, ...(carried.line ? { summary: carried.line } : {}) }
            : kind === 'plugin' && typeof source.plugin === 'string' ? { metadata: { plugin: source.plugin } } : {}),
        })
        this.surface[this.surface.length - 1] = { ...entry, node }
        this.sources.set(node, { kind: 'message', seq: event.seq })
        return
      }
      case 'assistant/message': {
        const entry = { seq: event.seq, node: null as string | null }
        this.surface.push(entry)
        if (!isRecord(data)) throw new MalformedEvent('assistant/message without data')
        const message = requireMessage(data.message)
        const flat = flattenContent(message.content)
        const usage = isRecord(data.usage) ? numericRecord(data.usage) : undefined
        if (!Array.isArray(message.content) || message.content.length === 0) {
          // An empty message only hosts usage (a max-tokens step): no node.
          for (const [key, value] of Object.entries(usage ?? {})) this.usage.set(key, (this.usage.get(key) ?? 0) + value)
          return
        }
        const source = isRecord(message.source) ? message.source : {}
        const node = this.place(event, { role: 'assistant', content: flat.text }, {
          content: flat.parts,
          origin: origin(event.seq, message.id, 'model', false),
          ...(typeof source.model === 'string' ? { model: source.model } : {}),
          ...(typeof source.provider === 'string' ? { provider: source.provider } : {}),
          ...(usage ? { usage } : {}),
          ...(data.interrupted === true ? { metadata: { interrupted: true } } : {}),
        })
        this.surface[this.surface.length - 1] = { ...entry, node }
        this.sources.set(node, { kind: 'message', seq: event.seq })
        this.rehomeCalls(event, flat.parts)
        return
      }
      case 'tool/result': {
        const entry = { seq: event.seq, node: null as string | null }
        this.surface.push(entry)
        if (!isRecord(data)) throw new MalformedEvent('tool/result without data')
        const message = requireMessage(data.message)
        const flat = flattenContent(message.content)
        const result = flat.parts.find((part) => part.type === 'tool_result')
        if (!result || result.type !== 'tool_result') throw new MalformedEvent('tool/result without a tool-result block')
        const callNode = this.pendingCalls.get(result.toolCallId)
        const errorCode = isRecord(data.error) && typeof data.error.code === 'string' ? data.error.code : undefined
        if (callNode !== undefined) {
          this.pendingCalls.delete(result.toolCallId)
          const attached = this.tree.attachToolResult(result.toolCallId, {
            content: result.content,
            ...(result.isError ? { isError: true } : {}),
            ...(errorCode ? { error: errorCode } : {}),
          }, { nodeId: callNode })
          if (!attached.ok) throw new MalformedEvent(attached.error.message)
          const source = this.sources.get(callNode)
          if (source?.kind === 'tool') this.sources.set(callNode, { ...source, resultSeq: event.seq })
          this.surface[this.surface.length - 1] = { ...entry, node: callNode }
          this.nodeOfSeq.set(event.seq, callNode)
          this.typeOfSeq.set(event.seq, event.type)
          return
        }
        // A result whose call is not in the tree stands alone.
        const node = this.place(event, { role: 'tool', content: result.content, toolCallId: result.toolCallId }, {
          type: 'tool_result',
          content: flat.parts,
          origin: origin(event.seq, message.id, 'tool', false),
          ...(result.isError ? { error: errorCode ?? 'error' } : {}),
        })
        this.surface[this.surface.length - 1] = { ...entry, node }
        this.sources.set(node, { kind: 'message', seq: event.seq })
        return
      }
    }
  }

  /** A replacement we did not write: compaction (a summary) or a pruned tool result. */
  private replaceEvent(event: Event, op: { start: number; end: number }): void {
    const range = this.surfaceRange(op.start, op.end)
    const shadowed = this.surface.slice(range.from, range.to + 1)
    if (event.type === 'tool/result') {
      // Pruning rewrites one result's content for the model; the tree keeps the original.
      const node = shadowed[0]?.node ?? null
      this.surface.splice(range.from, range.to - range.from + 1, { seq: event.seq, node })
      if (node !== null) this.nodeOfSeq.set(event.seq, node)
      return
    }
    const replaces = shadowed.flatMap((entry) => (entry.node === null ? [] : [entry.node]))
    let message: LlmMessage | null = null
    let parts: ReturnType<typeof flattenContent>['parts'] = []
    let messageId: unknown
    try {
      if (event.type === 'user/message') {
        const m = requireMessage(event.data)
        const flat = flattenContent(m.content)
        message = { role: 'user', content: flat.text }
        parts = flat.parts
        messageId = m.id
      } else {
        const data = event.data
        const m = requireMessage(isRecord(data) ? data.message : undefined)
        const flat = flattenContent(m.content)
        if (flat.parts.length > 0) message = { role: 'assistant', content: flat.text }
        parts = flat.parts
        messageId = m.id
      }
    } catch (error) {
      this.surface.splice(range.from, range.to - range.from + 1, { seq: event.seq, node: null })
      throw error
    }
    const model = this.compactionModel
    this.compactionModel = undefined
    const node = this.place(event, message, {
      type: 'compaction',
      content: parts,
      replaces,
      summary: message ? undefined : `compacted ${replaces.length} message(s)`,
      origin: origin(event.seq, messageId, event.type === 'user/message' ? 'compaction' : 'replacement', false),
      ...(model?.model ? { model: model.model } : {}),
      ...(model?.provider ? { provider: model.provider } : {}),
    })
    this.surface.splice(range.from, range.to - range.from + 1, { seq: event.seq, node: message ? node : null })
    this.sources.set(node, { kind: 'message', seq: event.seq })
  }

  /**
   * An assistant message that issues a call still waiting for its result
   * (a model's own move re-stated its in-flight message on the selected path):
   * the call continues here, so its result lands on the path the model reads.
   */
  private rehomeCalls(event: Event, parts: ReturnType<typeof flattenContent>['parts']): void {
    let index = 0
    for (const part of parts) {
      if (part.type !== 'tool_call') continue
      const pending = this.pendingCalls.get(part.id)
      const source = pending === undefined ? undefined : this.sources.get(pending)
      if (source?.kind !== 'tool') continue
      const node = this.place(event, null, {
        type: 'tool_call',
        content: [{ type: 'tool_call', id: part.id, name: part.name, arguments: part.arguments }],
        origin: origin(event.seq, part.id, 'tool', false),
      }, `${nodeIdForSeq(event.seq)}.${++index}`)
      this.pendingCalls.set(part.id, node)
      this.sources.set(node, { kind: 'tool', callSeq: source.callSeq, resultSeq: undefined })
    }
  }

  private toolCall(event: Event): void {
    const data = event.data
    if (!isRecord(data) || typeof data.callId !== 'string' || typeof data.name !== 'string') throw new MalformedEvent('tool/call without callId or name')
    // A switch's copy of a call: in a maintenance turn, or announced by a copied message (an in-step switch).
    const copy = this.copiedCalls.delete(data.callId) || (this.switching !== undefined && this.openTurn === this.switching.turn)
    this.callIds.record(data.callId, event.seq, copy)
    if (copy) return
    const args = parseArguments(data.arguments)
    const node = this.place(event, null, {
      type: 'tool_call',
      content: [{ type: 'tool_call', id: data.callId, name: data.name, arguments: args }],
      origin: origin(event.seq, data.callId, 'tool', false),
    })
    this.pendingCalls.set(data.callId, node)
    this.sources.set(node, { kind: 'tool', callSeq: event.seq, resultSeq: undefined })
  }

  private requestHeader(event: Event): void {
    const data = event.data
    const config = isRecord(data) && isRecord(data.header) && isRecord(data.header.config) ? data.header.config : undefined
    if (!config || typeof config.provider !== 'string' || typeof config.model !== 'string') throw new MalformedEvent('request/header without provider/model')
    const route = `${config.provider}/${config.model}`
    const previous = this.route
    this.route = route
    if (previous === undefined || previous === route) return
    this.place(event, null, {
      type: 'model_change',
      summary: `model: ${previous} → ${route}`,
      model: config.model,
      provider: config.provider,
      origin: origin(event.seq, undefined, 'request', false),
    })
  }

  // ------------------------------------------------------------- placement

  /**
   * Append a node where the model history ends. When the cursor sits below
   * the tip on tree-only nodes (say, a branch summary the user just wrote),
   * the node goes under the cursor; any other cursor position (a jump the
   * harness did not follow, in projection mode) yields to the truth: the tip.
   */
  private place(
    event: Event,
    message: LlmMessage | null,
    options: {
      type?: 'tool_call' | 'tool_result' | 'compaction' | 'model_change'
      content?: ReturnType<typeof flattenContent>['parts']
      origin: NodeOrigin
      model?: string
      provider?: string
      usage?: Record<string, JsonValue>
      metadata?: Record<string, JsonValue>
      summary?: string | undefined
      replaces?: string[]
      error?: string
    },
    explicitId?: string,
  ): string {
    const nodeId = explicitId ?? nodeIdForSeq(event.seq)
    const parentId = this.adoptions
      ? this.adoptions.get(nodeId) ?? this.tipNode
      : this.cursorFollowsTip() ? this.tree.cursor : this.tipNode
    const { summary, ...rest } = options
    const appended = this.tree.append(message, {
      ...rest,
      ...(summary === undefined ? {} : { summary }),
      nodeId,
      parentId,
      createdAt: timeOf(event),
    })
    if (!appended.ok) throw new MalformedEvent(appended.error.message)
    this.tipNode = nodeId
    if (explicitId === undefined) {
      this.nodeOfSeq.set(event.seq, nodeId)
      this.typeOfSeq.set(event.seq, event.type)
    }
    return nodeId
  }

  /** True when the cursor is the tip, or below it on nodes the harness did not make. */
  cursorFollowsTip(): boolean {
    let id = this.tree.cursor
    while (id !== null && id !== this.tipNode) {
      const node = this.tree.get(id)
      if (!node || node.origin?.source === SESSION_ORIGIN) return false
      id = node.parentId
    }
    return id === this.tipNode
  }

  private surfaceRange(start: number, end: number): { from: number; to: number } {
    const range = this.findRange(start, end)
    if (!range) throw new MalformedEvent(`replace range ${start}..${end} is not on the surface`)
    return range
  }

  /** Surface indexes of a replacement's span, or undefined when the span is not on the surface. */
  private findRange(start: number, end: number): { from: number; to: number } | undefined {
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

  /** The last surface entry that shows a node. */
  private surfaceTip(): string | null {
    for (let i = this.surface.length - 1; i >= 0; i--) {
      const node = this.surface[i]!.node
      if (node !== null) return node
    }
    return null
  }
}

function numberField(data: unknown, key: string): number {
  const value = isRecord(data) ? data[key] : undefined
  if (typeof value !== 'number') throw new MalformedEvent(`missing numeric ${key}`)
  return value
}

function surfaceOpOf(op: unknown): 'append' | { start: number; end: number } {
  if (op === 'append') return op
  if (isRecord(op) && op.op === 'replace' && typeof op.start === 'number' && typeof op.end === 'number') return { start: op.start, end: op.end }
  throw new MalformedEvent('surface event without a valid surfaceOp')
}

function requireMessage(value: unknown): { id?: unknown; content: unknown; source?: unknown } {
  if (!isRecord(value)) throw new MalformedEvent('event without a message')
  return value as { id?: unknown; content: unknown; source?: unknown }
}

function numericRecord(value: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const [key, v] of Object.entries(value)) if (typeof v === 'number' && Number.isFinite(v)) out[key] = v
  return out
}

function origin(seq: number, ref: unknown, kind: string, injected: boolean): NodeOrigin {
  return {
    source: SESSION_ORIGIN,
    seq,
    ...(typeof ref === 'string' ? { ref } : {}),
    kind,
    ...(injected ? { injected: true } : {}),
  }
}

function timeOf(event: Event): string {
  const time = typeof event.time === 'number' && Number.isFinite(event.time) ? event.time : 0
  return new Date(time).toISOString()
}
