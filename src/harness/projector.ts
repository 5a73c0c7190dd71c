/**
 * Projects a harness session log into a `SessionTree`, one event at a time. A
 * new message goes where the model's history ends (tracked by
 * `surface-mirror.ts`); our own history switches (`marker.ts`) map back to
 * the original nodes, so the cursor can be rebuilt from the log alone.
 * Idempotent (a watermark); a malformed event is quarantined, never thrown.
 */
import type { SessionTree } from '../tree/session-tree.ts'
import type { SwitchMarker } from './marker.ts'
import type { JsonValue, LlmMessage, NodeOrigin } from '../tree/types.ts'
import { isRecord } from '../tree/validate.ts'
import { flattenContent, MalformedEvent, parseArguments } from './content.ts'
import { CallIdLedger, type LogWarning, type QuarantinedEvent } from './warnings.ts'
import { nodeIdForSeq, SurfaceMirror, type Event, type NodeSource, type SurfaceEntry } from './surface-mirror.ts'
import { numberField, numericRecord, origin, requireMessage, timeOf } from './event-fields.ts'
import { carriedSummaryOf } from './carried-summary.ts'
import { errorMessage } from '../tree/errors.ts'

export class SessionProjector {
  private currentTree: SessionTree
  /** Where the model's history ends; it asks this projector for the nodes of new history. */
  private readonly mirror = new SurfaceMirror({
    tree: () => this.currentTree,
    append: (event) => this.appendEvent(event),
    replace: (event, op) => this.replaceEvent(event, op),
  })
  /** Parent overrides for a rebuild from a folded sidecar (see `sync.ts`); the cursor is ignored meanwhile. */
  private adoptions: ReadonlyMap<string, string> | undefined
  /** Highest seq projected (-1 before the first event). */
  private last = -1
  private readonly quarantined: QuarantinedEvent[] = []
  private readonly usage = new Map<string, number>()
  private readonly sources = new Map<string, NodeSource>()
  private readonly pendingCalls = new Map<string, string>()
  private readonly callIds = new CallIdLedger()
  private route: string | undefined
  private compactionModel: { provider?: string; model?: string } | undefined

  constructor(tree: SessionTree) {
    this.currentTree = tree
  }

  get tree(): SessionTree {
    return this.currentTree
  }

  /** Where the model history currently ends, as a tree node (null: empty history). */
  get tip(): string | null {
    return this.mirror.tip
  }

  /** The model-visible surface as the log built it, in model order. */
  get surfaceEntries(): readonly SurfaceEntry[] {
    return this.mirror.surfaceEntries
  }

  /** Whether a history switch turn is in progress in the log. */
  get switchInProgress(): SwitchMarker | undefined {
    return this.mirror.switchInProgress
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

  /** Every node the log made, with the events it came from (in projection order). */
  sourced(): IterableIterator<[string, NodeSource]> {
    return this.sources.entries()
  }

  /** The harness events a node came from; undefined for tree-only nodes. */
  sourceOf(nodeId: string): NodeSource | undefined {
    return this.sources.get(nodeId)
  }

  /** Project one event. Never throws; already-projected seqs are ignored. */
  project(raw: unknown): void {
    if (!isRecord(raw) || typeof raw.seq !== 'number' || !Number.isSafeInteger(raw.seq)) {
      // Without a seq there is nothing to key a quarantine entry on.
      this.quarantined.push({
        seq: -1,
        type: isRecord(raw) && typeof raw.type === 'string' ? raw.type : 'unknown',
        reason: 'event without an integer seq',
      })
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
        reason: errorMessage(error),
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
        return this.mirror.splice(event)
      case 'turn/start':
        return this.mirror.startTurn(numberField(data, 'turn'))
      case 'turn/end':
        return this.mirror.endTurn(numberField(data, 'turn'))
      case 'step/end':
        return this.mirror.endStep()
      case 'user/message':
      case 'assistant/message':
      case 'tool/result':
        return this.mirror.surfaceEvent(event)
      case 'tool/call':
        return this.toolCall(event)
      case 'request/header':
        return this.requestHeader(event)
      case 'session-tree/selection':
        return this.mirror.selection(event)
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

  /** A new message event (new history, not a switch's copy): its node. */
  private appendEvent(event: Event): void {
    switch (event.type) {
      case 'user/message': {
        // Surface bookkeeping first, so a malformed message still keeps later ranges resolvable.
        this.mirror.open(event.seq)
        const message = requireMessage(event.data)
        const flat = flattenContent(message.content)
        const source = isRecord(message.source) ? message.source : {}
        const kind = typeof source.kind === 'string' ? source.kind : 'unknown'
        const carried = carriedSummaryOf(message)
        if (carried) this.mirror.settleBeforeCarried()
        const node = this.place(
          event,
          { role: 'user', content: flat.text },
          {
            content: flat.parts,
            origin: origin(event.seq, message.id, kind, kind !== 'user'),
            ...(carried
              ? {
                  metadata: { plugin: source.plugin as string, branchSummary: carried.facts as unknown as JsonValue },
                  ...(carried.line ? { summary: carried.line } : {}),
                }
              : kind === 'plugin' && typeof source.plugin === 'string'
                ? { metadata: { plugin: source.plugin } }
                : {}),
          },
        )
        this.shown(event, node)
        return
      }
      case 'assistant/message': {
        const { data, message, flat } = this.opened(event)
        const usage = isRecord(data.usage) ? numericRecord(data.usage) : undefined
        if (!Array.isArray(message.content) || message.content.length === 0) {
          // An empty message only hosts usage (a max-tokens step): no node.
          for (const [key, value] of Object.entries(usage ?? {}))
            this.usage.set(key, (this.usage.get(key) ?? 0) + value)
          return
        }
        const source = isRecord(message.source) ? message.source : {}
        const node = this.place(
          event,
          { role: 'assistant', content: flat.text },
          {
            content: flat.parts,
            origin: origin(event.seq, message.id, 'model', false),
            ...(typeof source.model === 'string' ? { model: source.model } : {}),
            ...(typeof source.provider === 'string' ? { provider: source.provider } : {}),
            ...(usage ? { usage } : {}),
            ...(data.interrupted === true ? { metadata: { interrupted: true } } : {}),
          },
        )
        this.shown(event, node)
        this.rehomeCalls(event, flat.parts)
        return
      }
      case 'tool/result': {
        const { data, message, flat } = this.opened(event)
        const result = flat.parts.find((part) => part.type === 'tool_result')
        if (!result || result.type !== 'tool_result')
          throw new MalformedEvent('tool/result without a tool-result block')
        const callNode = this.pendingCalls.get(result.toolCallId)
        const errorCode = isRecord(data.error) && typeof data.error.code === 'string' ? data.error.code : undefined
        if (callNode !== undefined) {
          this.pendingCalls.delete(result.toolCallId)
          const attached = this.tree.attachToolResult(
            result.toolCallId,
            {
              content: result.content,
              ...(result.isError ? { isError: true } : {}),
              ...(errorCode ? { error: errorCode } : {}),
            },
            { nodeId: callNode },
          )
          if (!attached.ok) throw new MalformedEvent(attached.error.message)
          const source = this.sources.get(callNode)
          if (source?.kind === 'tool') this.sources.set(callNode, { ...source, resultSeq: event.seq })
          this.mirror.show(callNode)
          this.mirror.original(event, callNode)
          return
        }
        // A result whose call is not in the tree stands alone.
        const node = this.place(
          event,
          { role: 'tool', content: result.content, toolCallId: result.toolCallId },
          {
            type: 'tool_result',
            content: flat.parts,
            origin: origin(event.seq, message.id, 'tool', false),
            ...(result.isError ? { error: errorCode ?? 'error' } : {}),
          },
        )
        this.shown(event, node)
        return
      }
    }
  }

  /**
   * An assistant message or tool result opened on the surface: its data, message and flattened content.
   * Surface bookkeeping first, so a malformed event still keeps later ranges resolvable.
   */
  private opened(event: Event): {
    readonly data: Record<string, unknown>
    readonly message: ReturnType<typeof requireMessage>
    readonly flat: ReturnType<typeof flattenContent>
  } {
    this.mirror.open(event.seq)
    const data = event.data
    if (!isRecord(data)) throw new MalformedEvent(`${event.type} without data`)
    const message = requireMessage(data.message)
    return { data, message, flat: flattenContent(message.content) }
  }

  /** A message event's new node: shown on the surface, sourced from the event. */
  private shown(event: Event, node: string): void {
    this.mirror.show(node)
    this.sources.set(node, { kind: 'message', seq: event.seq })
  }

  /** A replacement we did not write: compaction (a summary) or a pruned tool result. */
  private replaceEvent(event: Event, op: { start: number; end: number }): void {
    const { range, entries: shadowed } = this.mirror.shadowed(op)
    if (event.type === 'tool/result') {
      // Pruning rewrites one result's content for the model; the tree keeps the original.
      const node = shadowed[0]?.node ?? null
      this.mirror.cover(range, event.seq, node)
      if (node !== null) this.mirror.mapSeq(event.seq, node)
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
      this.mirror.cover(range, event.seq, null)
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
    this.mirror.cover(range, event.seq, message ? node : null)
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
      const node = this.place(
        event,
        null,
        {
          type: 'tool_call',
          content: [{ type: 'tool_call', id: part.id, name: part.name, arguments: part.arguments }],
          origin: origin(event.seq, part.id, 'tool', false),
        },
        `${nodeIdForSeq(event.seq)}.${++index}`,
      )
      this.pendingCalls.set(part.id, node)
      this.sources.set(node, { kind: 'tool', callSeq: source.callSeq, resultSeq: undefined })
    }
  }

  private toolCall(event: Event): void {
    const data = event.data
    if (!isRecord(data) || typeof data.callId !== 'string' || typeof data.name !== 'string')
      throw new MalformedEvent('tool/call without callId or name')
    this.callIds.record(data.callId, event.seq)
    if (this.mirror.copiedCall(data.callId)) return
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
    const config =
      isRecord(data) && isRecord(data.header) && isRecord(data.header.config) ? data.header.config : undefined
    if (!config || typeof config.provider !== 'string' || typeof config.model !== 'string')
      throw new MalformedEvent('request/header without provider/model')
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
      ? (this.adoptions.get(nodeId) ?? this.mirror.tip)
      : this.mirror.cursorFollowsTip()
        ? this.tree.cursor
        : this.mirror.tip
    const { summary, ...rest } = options
    const appended = this.tree.append(message, {
      ...rest,
      ...(summary === undefined ? {} : { summary }),
      nodeId,
      parentId,
      createdAt: timeOf(event),
    })
    if (!appended.ok) throw new MalformedEvent(appended.error.message)
    this.mirror.placed(nodeId, explicitId === undefined ? event : undefined)
    return nodeId
  }
}
