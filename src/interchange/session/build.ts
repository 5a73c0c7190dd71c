/**
 * An imported tree → a DSH session the projector rebuilds into exactly that
 * tree, in which a switch can reach any node: every message of every branch is
 * an original event, branches depth first with the cursor's last, and between
 * branches the surface goes back the way a live stock switch does
 * (`surface/plan.ts`). Tree-only entries, labels and the cursor go to the
 * overlay. Also serves a new session from one root-to-node path.
 * docs/interchange.md, "How it is written into the log".
 */
import { SessionTree } from '../../tree/session-tree.ts'
import type { JsonValue, TreeEntryType } from '../../tree/types.ts'
import { SessionProjector } from '../../harness/projector.ts'
import { nodeIdForSeq, SESSION_ORIGIN, type SurfaceEntry } from '../../harness/surface-mirror.ts'
import { foldOverlay } from '../../harness/overlay.ts'
import { markerMessage, PLUGIN_ID } from '../../harness/marker.ts'
import { planSwitch, type SwitchPlan } from '../../surface/plan.ts'
import { type PlannedEvent } from '../../surface/copy.ts'
import { InterchangeError } from '../errors.ts'
import type { Entry, InterchangeNode, InterchangeTree } from '../model.ts'
import { oneLine } from '../../tree/text.ts'
import { assistantBlocks, inputBlocks } from './content.ts'
import {
  NO_RESULT_CODE,
  noResultText,
  openExchange,
  sendable,
  type OpenCall,
  type OpenExchange,
} from './provider-view.ts'
import type { LogEvent } from '../../harness/log-event.ts'
import { LogBuilder } from './log.ts'
import { applyLabels } from './labels.ts'
import { importedTitle } from './title.ts'
import { IMPORT_SOURCE, treeOnlyId, type BuildOptions, type BuiltSession } from './built.ts'

/** Route stamped on a tombstone (an assistant message must name a provider and a model). */
const TOMBSTONE_ROUTE = { provider: PLUGIN_ID, model: 'import' }

export function buildSession(source: InterchangeTree, options: BuildOptions): BuiltSession {
  return new SessionBuild(source, options).run()
}

class SessionBuild {
  private readonly source: InterchangeTree
  private readonly options: BuildOptions
  private readonly sessionId: string
  private readonly tree: SessionTree
  private readonly projector: SessionProjector
  private readonly log: LogBuilder
  private readonly dsh = new Map<string, string>()
  private readonly byId = new Map<string, InterchangeNode>()
  /** Nodes that have children in the source. */
  private readonly parents = new Set<string>()
  /** Where a message that closes the tool flow goes under a node: after the synthetic results of its open calls. */
  private readonly closures = new Map<string | null, string | null>()
  private readonly treeOnlyW = new Map<string, number>()
  private readonly notes: string[] = []
  /**
   * Call ids a `tool/call` of the log answers (or will). A call left open on one branch and
   * answered on another gets both under its id: the log then repeats it (the tree's nodes, the
   * planner's copies and the model's requests pair by the answer's own ids; this plugin's
   * browser half keys DSH web's tool cards apart).
   */
  private readonly answered = new Set<string>()
  /** What the source tool's provider layer repairs, counted for the notes (`provider-view.ts`). */
  private readonly repaired = { noResult: 0, answers: 0, results: 0, repeated: 0 }
  private messages = 0
  /** Fresh call ids minted for copied tool exchanges. */
  private freshCalls = 0
  private switches = 0

  constructor(source: InterchangeTree, options: BuildOptions) {
    this.source = source
    this.options = options
    this.sessionId = options.sessionId
    this.tree = new SessionTree(options.sessionId)
    this.projector = new SessionProjector(this.tree)
    this.log = new LogBuilder(this.projector, options.now)
    for (const node of source.nodes) {
      this.byId.set(node.id, node)
      if (node.parentId !== null) this.parents.add(node.parentId)
      if (node.entry.kind === 'tool_result') this.answered.add(node.entry.callId)
    }
  }

  run(): BuiltSession {
    for (const node of this.depthFirst()) {
      this.visit(node)
      // A leaf's calls get their results now: every node is a point the conversation can go on from.
      if (!this.parents.has(node.id)) this.afterOpenCalls(this.dshOf(node.id))
    }
    const cursor = this.source.cursor === null ? null : this.afterOpenCalls(this.dshOf(this.source.cursor))
    this.position(cursor)
    this.log.endTurn()
    // Named from the start (`title.ts`): a standalone event, as the title service appends one.
    const title = importedTitle(this.source.meta.title, this.log.events)
    if (title && this.options.titleInLog !== false) this.log.append('session/title', title)
    applyLabels(this.tree, this.source.nodes, this.dsh, this.notes)
    const quarantined = this.projector.quarantine
    if (quarantined.length > 0) {
      throw new InterchangeError(
        'WRITE_FAILED',
        `the plugin could not read event ${quarantined[0]!.seq} it wrote: ${quarantined[0]!.reason}`,
      )
    }
    if (this.switches > 0) this.notes.push(`${this.switches} branch change(s) written as history switches`)
    const { noResult, answers, results } = this.repaired
    if (noResult > 0)
      this.notes.push(
        `${noResult} call(s) left without a result answered ${JSON.stringify(noResultText(this.source.meta.format))}, as the source tool does before it sends them`,
      )
    if (answers > 0)
      this.notes.push(`${answers} answer(s) the model is not sent (aborted, errored or empty) kept as tree-only nodes`)
    if (results > 0) this.notes.push(`${results} result(s) answering no call the model saw kept as tree-only nodes`)
    if (this.repaired.repeated > 0)
      this.notes.push(
        `${this.repaired.repeated} of them answered on another branch too: the log repeats their call ids (REPEATED_CALL_IDS)`,
      )
    return {
      sessionId: this.sessionId,
      events: this.log.events,
      overlay: foldOverlay(this.tree, this.treeOnlyW),
      watermark: this.log.seq - 1,
      tree: this.tree,
      entries: this.source.nodes.flatMap((node) => {
        const dsh = this.dsh.get(node.id)
        return dsh === undefined
          ? []
          : [{ node: dsh, id: node.id, parentId: node.parentId, line: node.line, time: node.time }]
      }),
      notes: this.notes,
      ...(title ? { title } : {}),
    }
  }

  /** Depth first, children in source order except that the child towards the cursor comes last. */
  private *depthFirst(): Generator<InterchangeNode> {
    const children = new Map<string | null, InterchangeNode[]>()
    for (const node of this.source.nodes) {
      const list = children.get(node.parentId) ?? []
      list.push(node)
      children.set(node.parentId, list)
    }
    const towardsCursor = new Set<string>()
    for (let id = this.source.cursor; id !== null; id = this.byId.get(id)?.parentId ?? null) {
      if (towardsCursor.has(id)) break
      towardsCursor.add(id)
    }
    // Results (and tree-only entries) before messages that close the tool flow: a result is written
    // while its call's answer is on the surface as it was, before a branch that leaves the call open
    // restates that answer under fresh ids (`afterOpenCalls`). Then the child towards the cursor last.
    const rank = (node: InterchangeNode) => (closesToolFlow(node.entry) ? 2 : 0) + (towardsCursor.has(node.id) ? 1 : 0)
    const ordered = (list: readonly InterchangeNode[]) => [...list].sort((a, b) => rank(a) - rank(b))
    const stack = [...ordered(children.get(null) ?? [])].reverse()
    while (stack.length > 0) {
      const node = stack.pop()!
      yield node
      const kids = children.get(node.id)
      if (kids) stack.push(...ordered(kids).reverse())
    }
  }

  private dshOf(id: string): string {
    const found = this.dsh.get(id)
    if (found === undefined)
      throw new InterchangeError('TREE_CORRUPT', `node ${JSON.stringify(id)} was not written before its children`)
    return found
  }

  private visit(node: InterchangeNode): void {
    const entry = node.entry
    const written = node.parentId === null ? null : this.dshOf(node.parentId)
    // A message after open calls goes after their synthetic results (`provider-view.ts`).
    const parent = closesToolFlow(entry) ? this.afterOpenCalls(written) : written
    this.log.at(node.time)
    switch (entry.kind) {
      case 'user':
        this.position(parent)
        if (entry.origin === 'prompt') this.log.newTurn()
        this.userMessage(node, inputBlocks(entry.parts), entry.origin === 'prompt' ? { kind: 'user' } : IMPORT_SOURCE)
        return
      case 'assistant': {
        if (entry.leftOut !== undefined || !sendable(entry.parts)) {
          this.repaired.answers++
          const text = entry.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
          const reason = entry.leftOut ?? 'nothing to send once thinking is left out'
          this.treeOnly(
            node,
            parent,
            'custom',
            `answer not sent to the model (${reason})${text.trim() ? `: ${oneLine(text)}` : ''}`,
            { customType: 'answer-not-sent', reason },
            text,
          )
          return
        }
        this.position(parent)
        const { turn, step } = this.log.ensureStep('ifAnswered')
        const usage =
          entry.usage?.input !== undefined && entry.usage.output !== undefined
            ? {
                inputTokens: entry.usage.input,
                outputTokens: entry.usage.output,
                ...(entry.usage.cacheRead !== undefined ? { cacheReadTokens: entry.usage.cacheRead } : {}),
                ...(entry.usage.cacheWrite !== undefined ? { cacheWriteTokens: entry.usage.cacheWrite } : {}),
              }
            : undefined
        const event = this.log.append(
          'assistant/message',
          {
            turn,
            step,
            message: {
              id: this.messageId(),
              role: 'assistant',
              content: assistantBlocks(entry.parts),
              source: {
                kind: 'model',
                provider: entry.provider || this.source.meta.format,
                model: entry.model || 'unknown',
              },
            },
            ...(usage ? { usage } : {}),
          },
          { surfaceOp: 'append' },
        )
        this.log.markAnswered()
        this.dsh.set(node.id, nodeIdForSeq(event.seq))
        return
      }
      case 'tool_result': {
        this.position(parent)
        const call = this.openCall(entry.callId)
        const text = entry.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
        if (!call) {
          this.repaired.results++
          this.treeOnly(
            node,
            parent,
            'custom',
            `result not sent to the model (it answers no call the model saw: ${entry.toolName ?? entry.callId})${text.trim() ? `: ${oneLine(text)}` : ''}`,
            { customType: 'result-not-sent', callId: entry.callId },
            text,
          )
          return
        }
        const callEvent = this.toolExchange(call, inputBlocks(entry.parts), entry.isError)
        this.dsh.set(node.id, nodeIdForSeq(callEvent.seq))
        return
      }
      case 'compaction':
        this.position(parent)
        this.compaction(node, entry.contextText, entry.firstKept)
        return
      case 'branch_summary':
      case 'custom':
        // What the model read of it is a user message; otherwise it is kept in the tree only.
        if (entry.contextText !== undefined) {
          this.position(parent)
          this.userMessage(node, [{ type: 'text', text: entry.contextText }], IMPORT_SOURCE)
        } else if (entry.kind === 'branch_summary') {
          this.treeOnly(
            node,
            parent,
            'branch_summary',
            entry.summary ? oneLine(entry.summary) : 'branch summary (empty)',
            { text: entry.summary },
          )
        } else {
          this.treeOnly(node, parent, 'custom', entry.summary, { customType: entry.customType })
        }
        return
      case 'model_change':
        this.treeOnly(node, parent, 'model_change', `model: ${entry.provider}/${entry.model}`, {
          provider: entry.provider,
          model: entry.model,
        })
        return
      case 'label':
        this.treeOnly(
          node,
          parent,
          'custom',
          `label ${entry.label === null ? 'cleared' : JSON.stringify(entry.label)} on ${entry.target}`,
          { customType: 'label' },
        )
        return
    }
  }

  /** The calls left open at the end of the model's surface (after `position`). */
  private openExchange(): OpenExchange | undefined {
    return openExchange(this.projector.surfaceEntries, (seq) => this.log.eventAt(seq))
  }

  /** The open call of the model's surface (after `position`) that a result answers, if any. */
  private openCall(callId: string) {
    return this.openExchange()?.calls.find((call) => call.id === callId)
  }

  /**
   * Where a message that closes the tool flow goes under `parent`: `parent` itself, or the
   * last of the synthetic results that answer the calls still open there (written once per
   * `parent`, in the source tool's words), as the source tool repairs its history before
   * sending it (`provider-view.ts`).
   */
  private afterOpenCalls(parent: string | null): string | null {
    const known = this.closures.get(parent)
    if (known !== undefined) return known
    this.position(parent)
    const open = this.openExchange()
    let last = parent
    if (open) {
      const text = noResultText(this.source.meta.format)
      for (const call of open.calls) {
        const callEvent = this.toolExchange(call, [{ type: 'text', text }], true, {
          error: { name: 'NoResultProvided', code: NO_RESULT_CODE },
        })
        last = nodeIdForSeq(callEvent.seq)
        if (this.answered.has(call.id)) this.repaired.repeated++
        this.answered.add(call.id)
      }
      this.repaired.noResult += open.calls.length
      this.placeCursor(last)
    }
    this.closures.set(parent, last)
    return last
  }

  /** One call and its result, in one step as the agent loop writes them; the call's event (its node's seq). */
  private toolExchange(
    call: OpenCall,
    content: unknown[],
    isError: boolean,
    extra: Record<string, unknown> = {},
  ): LogEvent {
    const { turn, step } = this.log.ensureStep()
    const callEvent = this.log.append('tool/call', {
      turn,
      step,
      callId: call.id,
      name: call.name,
      arguments: call.arguments,
    })
    this.log.append(
      'tool/result',
      {
        turn,
        step,
        message: {
          id: this.messageId(),
          role: 'user',
          content: [{ type: 'tool-result', toolCallId: call.id, content, ...(isError ? { isError: true } : {}) }],
          source: { kind: 'tool', callId: call.id },
        },
        ...extra,
      },
      { surfaceOp: 'append' },
    )
    return callEvent
  }

  private userMessage(node: InterchangeNode, content: unknown[], source: unknown): void {
    this.log.ensureStep()
    const event = this.log.append(
      'user/message',
      { id: this.messageId(), role: 'user', content, source },
      { surfaceOp: 'append' },
    )
    this.dsh.set(node.id, nodeIdForSeq(event.seq))
  }

  /**
   * A compaction shadows the surface from its start to just before the first
   * kept message, and stands in there for what it shadows.
   */
  private compaction(node: InterchangeNode, text: string, firstKept: string | null): void {
    const surface = this.projector.surfaceEntries
    const kept = firstKept === null ? undefined : this.dsh.get(firstKept)
    let end = kept === undefined ? surface.length : surface.findIndex((entry) => entry.node === kept)
    if (kept !== undefined && end === -1) {
      this.notes.push(
        `compaction ${node.id}: its first kept entry is no longer in the history; nothing before the compaction is kept`,
      )
      end = surface.length
    }
    if (end === 0) {
      this.notes.push(`compaction ${node.id}: nothing to replace; its summary was added as a message`)
      this.userMessage(node, [{ type: 'text', text }], IMPORT_SOURCE)
      return
    }
    const shadowed = surface.slice(0, end).map((entry) => entry.seq)
    this.log.ensureStep('always')
    const event = this.log.append(
      'user/message',
      { id: this.messageId(), role: 'user', content: [{ type: 'text', text }], source: IMPORT_SOURCE },
      {
        surfaceOp: { op: 'replace', start: shadowed[0]!, end: shadowed.at(-1)! },
        sourceEventSeqs: shadowed,
      },
    )
    this.log.endStep()
    this.dsh.set(node.id, nodeIdForSeq(event.seq))
  }

  private treeOnly(
    node: InterchangeNode,
    parent: string | null,
    type: TreeEntryType,
    summary: string,
    extra: Record<string, JsonValue>,
    /** What the source said, kept in the tree (a branch summary's text, a left-out answer's). */
    text?: string,
  ): void {
    const id = treeOnlyId(node.id)
    const appended = this.tree.append(null, {
      nodeId: id,
      parentId: parent,
      type,
      summary: summary || type,
      createdAt: new Date(node.time > 0 ? node.time : 0).toISOString(),
      metadata: { importedFrom: this.source.meta.format, sourceId: node.id, ...extra },
      ...(type === 'model_change' && typeof extra.model === 'string' ? { model: extra.model } : {}),
      ...(type === 'model_change' && typeof extra.provider === 'string' ? { provider: extra.provider } : {}),
      ...(type === 'branch_summary' && typeof extra.text === 'string' && extra.text
        ? { content: [{ type: 'text' as const, text: extra.text }] }
        : text
          ? { content: [{ type: 'text' as const, text }] }
          : {}),
    })
    if (!appended.ok) throw new InterchangeError('WRITE_FAILED', `tree-only node ${node.id}: ${appended.error.message}`)
    this.treeOnlyW.set(id, this.projector.watermark)
    this.dsh.set(node.id, id)
  }

  /**
   * Make the next node land under `target`: the model history must end at
   * its nearest harness ancestor (the tip), and the tree's cursor on it.
   */
  private position(target: string | null): void {
    const anchor = this.harnessAnchor(target)
    if (this.projector.tip !== anchor) this.moveSurface(anchor)
    if (this.tree.cursor !== target) this.placeCursor(target)
  }

  /** Move the cursor quietly (the log op, not `jump`: no history view to build, no navigation step). */
  private placeCursor(target: string | null): void {
    const moved = this.tree.applyOp({ op: 'jump', target, record: false })
    if (!moved.ok)
      throw new InterchangeError('WRITE_FAILED', `cannot place the cursor on ${String(target)}: ${moved.error.message}`)
  }

  private harnessAnchor(id: string | null): string | null {
    for (let at = id; at !== null;) {
      const node = this.tree.stored(at)
      if (!node) return null
      if (node.origin?.source === SESSION_ORIGIN) return at
      at = node.parentId
    }
    return null
  }

  /**
   * Switch the model history to end at `anchor` with official events, the way
   * a live stock switch does (`surface/plan.ts`): a rewind restates the last
   * message it keeps (no empty tombstone answer), and a switch that restates
   * or copies tool exchanges runs in a switch turn of its own, where the
   * projector knows its events as copies (see `marker.ts`).
   */
  private moveSurface(anchor: string | null): void {
    const plan = this.rewindPlan(anchor) ?? this.switchPlan(anchor)
    const probe = plan(0, 0)
    if (probe.restated !== undefined || probe.events.some((event) => event.type === 'tool/call')) {
      this.switches++
      this.log.endTurn()
      this.log.append('agent/inbox/spliced', {
        target: 'next-turn',
        start: 0,
        inserted: [markerMessage({ v: 1, op: 'switch', id: `import-${this.switches}`, target: anchor })],
      })
      this.log.newTurn()
      this.log.append('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] })
      // The cursor is on the target before the turn ends, so settling it records no navigation step.
      this.placeCursor(anchor)
      const { turn, step } = this.log.ensureStep('always')
      this.appendPlanned(plan(turn, step).events)
      this.log.endTurn({ kind: 'blocked' })
    } else {
      const { turn, step } = this.log.ensureStep('always')
      this.appendPlanned(plan(turn, step).events)
      this.log.endStep()
    }
    if (this.projector.tip !== anchor)
      throw new InterchangeError(
        'WRITE_FAILED',
        `the history did not return to ${String(anchor)} (it ends at ${String(this.projector.tip)})`,
      )
  }

  /** The planned switch to `anchor`'s whole model history. */
  private switchPlan(anchor: string | null): (turn: number, step: number) => SwitchPlan {
    const history = this.tree.historyPath(anchor)
    if (!history.ok) throw new InterchangeError('WRITE_FAILED', history.error.message)
    return this.planner(
      this.projector.surfaceEntries,
      history.value.map((entry) => entry.nodeId),
      anchor,
    )
  }

  /**
   * The common case, in O(entries shadowed): `anchor` is still on the surface
   * (an ancestor of the tip). The planner then only needs the surface from
   * `anchor` on and a target of `anchor` alone (what comes before is the
   * shared prefix either way, left untouched), and plans a rewind: `anchor`
   * restated over everything after it, or a tombstone when it cannot be
   * (a tool exchange, or nothing to keep).
   */
  private rewindPlan(anchor: string | null): ((turn: number, step: number) => SwitchPlan) | undefined {
    const surface = this.projector.surfaceEntries
    let at = -1
    if (anchor !== null) {
      at = surface.length - 1
      while (at >= 0 && surface[at]!.node !== anchor) at--
      if (at < 0) return undefined
    }
    if (at === surface.length - 1) return undefined
    return anchor === null ? this.planner(surface, [], anchor) : this.planner(surface.slice(at), [anchor], anchor)
  }

  private planner(
    surface: readonly SurfaceEntry[],
    target: readonly string[],
    anchor: string | null,
  ): (turn: number, step: number) => SwitchPlan {
    return (turn, step) => {
      const planned = planSwitch({
        eventAt: (seq) => this.log.eventAt(seq),
        surface,
        target,
        sourceOf: (nodeId) => this.projector.sourceOf(nodeId),
        turn,
        step,
        newMessageId: () => this.messageId(),
        // Copies never repeat a call id (DSH web's Chat keys tool cards by it across the session).
        newCallId: () => `call_dst_imp${++this.freshCalls}`,
        // The builder frames the step itself; the copies are hidden from the Chat either way.
        steps: 'inflight',
        route: TOMBSTONE_ROUTE,
        // Written in a switch turn (see `moveSurface`), where the projector reads the restatement.
        restateOnRewind: true,
      })
      if (!planned.ok)
        throw new InterchangeError('WRITE_FAILED', `cannot return to ${String(anchor)}: ${planned.error.message}`)
      return planned.value
    }
  }

  private appendPlanned(events: readonly PlannedEvent[]): void {
    for (const event of events) {
      if (event.intent)
        this.log.append(event.type, event.data, {
          surfaceOp: event.intent.surfaceOp,
          ...(event.intent.sourceEventSeqs ? { sourceEventSeqs: [...event.intent.sourceEventSeqs] } : {}),
        })
      else this.log.append(event.type, event.data)
    }
  }

  private messageId(): string {
    return `${PLUGIN_ID}:import:${this.sessionId}:${++this.messages}`
  }
}

/**
 * Whether open calls must be answered before this entry: a message the model reads other than a
 * tool result, or any answer, sent or left out (pi-ai gives the calls before an aborted answer
 * their synthetic results where it meets that answer; a result after it answers nothing).
 */
function closesToolFlow(entry: Entry): boolean {
  switch (entry.kind) {
    case 'user':
    case 'assistant':
      return true
    case 'branch_summary':
    case 'custom':
      return entry.contextText !== undefined
    default:
      return false
  }
}
