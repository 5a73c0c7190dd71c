/**
 * The append-only multi-branch conversation tree of one session.
 *
 * Nodes are only ever added; navigation moves a cursor; branches are named
 * pointers to head nodes. Every mutation is a logged operation, so the tree
 * can be journaled (`log`), replayed (`replay`), checkpointed and rolled back
 * without copying nodes. All operations return results; only the constructor
 * (malformed snapshot) and `messages` (corrupt tree) throw.
 */
import { fail, ok, SessionTreeError, type ErrorCode, type TreeResult } from './errors.ts'
import { defaultSummary, fallbackSummary, oneLine, renderMessages } from './text.ts'
import {
  canonicalEntry,
  canonicalSummary,
  checkBranchName,
  checkContent,
  checkEntry,
  checkEntryType,
  checkLabel,
  checkMessage,
  checkNodeId,
  checkNodeIds,
  checkOrigin,
  checkPosition,
  checkSummary,
  checkTime,
  copyJsonObject,
  deepFreeze,
  Invalid,
  isRecord,
  recordOf,
  shareStrings,
  type EntryDraft,
  type Mutable,
} from './validate.ts'
import {
  SNAPSHOT_VERSION,
  type AppendOptions,
  type BranchSummarizer,
  type BranchSummary,
  type BranchView,
  type ForkView,
  type JumpTarget,
  type JumpView,
  type LinearExport,
  type LlmMessage,
  type MoveOptions,
  type SessionTreeLogEntry,
  type SessionTreeOp,
  type SessionTreeSessionInfo,
  type SessionTreeOutline,
  type SessionTreeSnapshot,
  type SessionTreeView,
  type TreeEntry,
  type TreeNode,
  type TreePosition,
} from './types.ts'

/** Name of the branch a new tree starts on. */
export const MAIN_BRANCH = 'main'
/** How many positions navigation history keeps in each direction. */
export const HISTORY_LIMIT = 100
/** Default time budget of a branch summarizer. */
export const SUMMARIZE_TIMEOUT_MS = 30_000

/** Opaque token of `checkpoint()`; only valid for the tree that made it. */
export interface TreeCheckpoint {
  readonly sessionId: string
  readonly logSeq: number
  /** @internal */ readonly state: unknown
}

/** Options of a tree. */
export interface SessionTreeOptions {
  /** Clock for new nodes and summaries (tests pin it). */
  readonly now?: () => Date
  /**
   * How many operations the in-memory log keeps (default 10,000; older ones
   * are dropped in batches, and checkpoints older than the kept log become
   * invalid). A journal reads `log()` as operations happen.
   */
  readonly logLimit?: number
}

/** A stored node plus its links; nodes are chained, never copied. */
interface Rec {
  entry: TreeEntry
  /** Display lane: the branch the node was created on (the oldest branch holding it). */
  lane: string
  readonly parent: Rec | undefined
  readonly depth: number
  readonly order: number
  firstChild: Rec | undefined
  lastChild: Rec | undefined
  prev: Rec | undefined
  next: Rec | undefined
  childCount: number
}

interface MutableState {
  cursor: Rec | null
  active: string
  selected: Rec | null
  heads: Map<string, Rec>
  summaries: Map<string, BranchSummary>
  back: TreePosition[]
  forward: TreePosition[]
}

function badArgument<T>(error: unknown): TreeResult<T> {
  if (error instanceof Invalid) return fail('INVALID_ARGUMENT', error.reason)
  throw error
}

export class SessionTree {
  readonly sessionId: string
  private readonly now: () => Date
  private readonly recs = new Map<string, Rec>()
  private readonly order: Rec[] = []
  private readonly labels = new Map<string, Rec>()
  /** Tool-call nodes by call id, oldest first (ids can repeat; the newest wins lookups). */
  private readonly toolCalls = new Map<string, Rec[]>()
  private state: MutableState = {
    cursor: null,
    active: MAIN_BRANCH,
    selected: null,
    heads: new Map(),
    summaries: new Map(),
    back: [],
    forward: [],
  }
  private messageCount = 0
  /** Per usage key: [total, number of nodes contributing]; a key leaves when its last node does. */
  private readonly usageTotals = new Map<string, [number, number]>()
  private costTotal = 0
  private costCount = 0
  /** Identity of each retained log entry (with `logEntries`); checkpoints name the entry they stand on. */
  private logUids: number[] = []
  private baseUid = 0
  private nextUid = 1
  private minted = 0
  private clonedFrom: { sessionId: string; nodeId: string | null } | undefined
  /** In-memory log; `logBase` is the seq before its first entry. */
  private logEntries: SessionTreeLogEntry[] = []
  /** Previous entry for `label`/`attach` records, aligned with `logEntries` (rollback only). */
  private undoEntries: (TreeEntry | undefined)[] = []
  private logBase = 0
  /** Branch names by head node (derived from `state.heads`): O(1) "which branch ends here". */
  private headsOf = new Map<Rec, string[]>()
  /** Creation rank of each branch (older first), derived from `state.heads` order. */
  private branchRank = new Map<string, number>()
  private nextRank = 0
  /** Highest numeric suffix per stem among branch names (`main-7` → main: 7), derived from `state.heads`. */
  private stemMax = new Map<string, number>()
  /** Retained in-memory log entries; older ones are dropped (journals persist them as they happen). */
  private readonly logLimit: number

  /**
   * Create an empty tree, or restore one from a versioned snapshot.
   * @throws SessionTreeError (`INVALID_SNAPSHOT`) when the snapshot is malformed; nothing is half-loaded.
   */
  constructor(sessionId: string, snapshot?: unknown, options: SessionTreeOptions = {}) {
    if (typeof sessionId !== 'string' || sessionId === '') {
      throw new SessionTreeError({ code: 'INVALID_ARGUMENT', message: 'sessionId must be a non-empty string' })
    }
    this.sessionId = sessionId
    this.now = options.now ?? (() => new Date())
    this.logLimit = options.logLimit ?? 10_000
    if (snapshot !== undefined) {
      try {
        this.restore(snapshot)
      } catch (error) {
        if (error instanceof Invalid) {
          throw new SessionTreeError({ code: 'INVALID_SNAPSHOT', message: error.reason })
        }
        throw error
      }
    }
  }

  // ---------------------------------------------------------------- reading

  /** Current leaf, or `null` before the first node. */
  get cursor(): string | null {
    return this.state.cursor?.entry.nodeId ?? null
  }

  /** Node bound to context-aware UI commands (never moves the cursor). */
  get selectedNode(): string | null {
    return this.state.selected?.entry.nodeId ?? null
  }

  /** Branch the next append joins. */
  get activeBranch(): string {
    return this.state.active
  }

  get nodeCount(): number {
    return this.order.length
  }

  /** Seq of the last logged operation (0 for a fresh tree). */
  get logSeq(): number {
    return this.logBase + this.logEntries.length
  }

  has(nodeId: string): boolean {
    return this.recs.has(nodeId)
  }

  /** One node as views serve it, or undefined. */
  get(nodeId: string): TreeNode | undefined {
    const rec = this.recs.get(nodeId)
    return rec && this.nodeView(rec)
  }

  /** One node's entry as stored (no view fields), or undefined. */
  entry(nodeId: string): TreeEntry | undefined {
    return this.recs.get(nodeId)?.entry
  }

  /** Direct child ids in creation order. */
  children(nodeId: string | null): string[] {
    if (nodeId === null) return this.order.filter((rec) => rec.parent === undefined).map((rec) => rec.entry.nodeId)
    const out: string[] = []
    for (let child = this.recs.get(nodeId)?.firstChild; child; child = child.next) out.push(child.entry.nodeId)
    return out
  }

  /**
   * Messages the model reads for the path root→node (default: the cursor).
   * Nodes without a message (summaries, model changes) add nothing.
   * @throws SessionTreeError `NODE_NOT_FOUND` for an unknown node, `TREE_CORRUPT` for a cyclic or dangling path.
   */
  messages(from?: string | null): LlmMessage[] {
    const history = this.historyPath(from)
    if (!history.ok) throw new SessionTreeError(history.error)
    return history.value.map((entry) => entry.message!)
  }

  /**
   * The entries whose messages form the model history of the path root→node,
   * in the order the model reads them: entries without a message are left out,
   * and a compaction entry stands in for the entries it `replaces`.
   */
  historyPath(from?: string | null): TreeResult<TreeEntry[]> {
    const path = this.path(from)
    if (!path.ok) return path
    let out: TreeEntry[] = []
    for (const entry of path.value) {
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
    return ok(out)
  }

  /** Entries root→node; fails closed on a cyclic or dangling chain. */
  path(from?: string | null): TreeResult<TreeEntry[]> {
    const start = from === undefined ? this.state.cursor : from === null ? null : this.recs.get(from)
    if (start === undefined) return fail('NODE_NOT_FOUND', `no node ${JSON.stringify(from)}`, { nodeId: from })
    const out: TreeEntry[] = []
    let steps = 0
    for (let rec: Rec | undefined = start ?? undefined; rec; rec = rec.parent) {
      // Links are built from validated parents, so this only trips on corruption.
      if (++steps > this.order.length) {
        return fail('TREE_CORRUPT', `the path to ${JSON.stringify(from)} is cyclic`, { nodeId: start?.entry.nodeId })
      }
      const parentId = rec.entry.parentId
      if (parentId === null ? rec.parent !== undefined : rec.parent?.entry.nodeId !== parentId || this.recs.get(parentId) !== rec.parent) {
        return fail('TREE_CORRUPT', `node ${rec.entry.nodeId} points at a missing parent ${parentId}`, { nodeId: rec.entry.nodeId })
      }
      out.push(rec.entry)
    }
    return ok(out.reverse())
  }

  /** Nodes (view form) root→node, default the cursor; empty when the node is unknown. */
  currentPath(from?: string | null): TreeNode[] {
    const path = this.path(from)
    if (!path.ok) return []
    return path.value.map((entry) => this.nodeView(this.recs.get(entry.nodeId)!))
  }

  /** Every node in creation order (immutable view objects). */
  list(): TreeNode[] {
    return this.order.map((rec) => this.nodeView(rec))
  }

  /** Named branches with their root-to-head paths, active branch first. */
  branches(): BranchView[] {
    const out: BranchView[] = []
    for (const name of this.branchOrder()) {
      const head = this.state.heads.get(name)
      if (!head) continue
      const nodeIds: string[] = []
      for (let rec: Rec | undefined = head; rec; rec = rec.parent) nodeIds.push(rec.entry.nodeId)
      nodeIds.reverse()
      const summary = this.state.summaries.get(name)
      out.push(summary ? { name, headId: head.entry.nodeId, nodeIds, summary } : { name, headId: head.entry.nodeId, nodeIds })
    }
    return out
  }

  /** Compact status; O(branches), never walks the nodes. */
  info(): SessionTreeSessionInfo {
    const usage = recordOf([...this.usageTotals].map(([key, [total]]) => [key, total] as const))
    const tokenCount = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0) + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0)
    const info: Mutable<SessionTreeSessionInfo> = {
      sessionId: this.sessionId,
      nodeCount: this.order.length,
      messageCount: this.messageCount,
      branchCount: this.state.heads.size,
      cursor: this.cursor,
      activeBranch: this.state.active,
      selectedNodeId: this.selectedNode,
      branchHeads: this.headRecord(),
      currentPathLength: this.state.cursor ? this.state.cursor.depth + 1 : 0,
      snapshotVersion: SNAPSHOT_VERSION,
      labelCount: this.labels.size,
      canGoBack: this.state.back.length > 0,
      canGoForward: this.state.forward.length > 0,
    }
    if (this.usageTotals.size > 0) {
      info.usage = usage
      info.tokenCount = tokenCount
    }
    if (this.costCount > 0) info.cost = this.costTotal
    if (this.clonedFrom) info.clonedFrom = this.clonedFrom
    return info
  }

  /** The full read view served to the panel. */
  view(): SessionTreeView {
    return { ...this.nodesAndPosition(), branches: this.branches() }
  }

  /** What the full view and the outline share: the nodes and where the cursor and branch heads are. */
  private nodesAndPosition() {
    return {
      sessionId: this.sessionId,
      cursor: this.cursor,
      activeBranch: this.state.active,
      selectedNodeId: this.selectedNode,
      branchHeads: this.headRecord(),
      nodes: this.list(),
    }
  }

  /** Branch names and head ids, in branch creation order. O(branches). */
  branchHeadList(): [string, string][] {
    return [...this.state.heads].map(([name, rec]) => [name, rec.entry.nodeId])
  }

  /** Recorded branch summaries. O(branches). */
  summaries(): BranchSummary[] {
    return [...this.state.summaries.values()]
  }

  /** Navigation history (copies). */
  navigation(): { back: TreePosition[]; forward: TreePosition[] } {
    return { back: [...this.state.back], forward: [...this.state.forward] }
  }

  /** Every node and where each branch ends (no branch paths): O(nodes + branches). */
  outline(): SessionTreeOutline {
    return {
      ...this.nodesAndPosition(),
      branches: this.branchOrder().flatMap((name) => {
        const head = this.state.heads.get(name)
        if (!head) return []
        const summary = this.state.summaries.get(name)
        return [summary ? { name, headId: head.entry.nodeId, summary } : { name, headId: head.entry.nodeId }]
      }),
    }
  }

  /** Labeled nodes in creation order; with `text`, the node carrying exactly that label. */
  labeled(text?: string): TreeNode[] {
    if (text !== undefined) {
      const rec = this.labels.get(typeof text === 'string' ? text.trim() : text)
      return rec ? [this.nodeView(rec)] : []
    }
    return [...this.labels.values()].sort((a, b) => a.order - b.order).map((rec) => this.nodeView(rec))
  }

  /** The tool-call node carrying this call id (never an assistant message that merely echoes it). */
  findToolCallNode(callId: string): TreeNode | undefined {
    const rec = this.toolCalls.get(callId)?.at(-1)
    return rec && this.nodeView(rec)
  }

  /**
   * Tool calls on the path root→node that have no result on that path. A model
   * history may only end where this is empty (providers reject a dangling call).
   */
  openToolCalls(nodeId: string | null): TreeResult<string[]> {
    const scan = this.scanToolCalls(nodeId)
    return scan.ok ? ok([...scan.value.open]) : scan
  }

  /**
   * The nearest node where a history may end, for `nodeId`: the node itself
   * when every call on its path has its result; inside a tool exchange, the
   * end of that exchange (following its chain of results); when the exchange
   * never completed, the last complete point before it.
   */
  completeCutPoint(nodeId: string | null): TreeResult<string | null> {
    const scan = this.scanToolCalls(nodeId)
    if (!scan.ok) return scan
    if (nodeId === null || scan.value.open.size === 0) return ok(nodeId)
    const pending = scan.value.open
    let rec = this.recs.get(nodeId)!
    while (pending.size > 0) {
      let nextRec: Rec | undefined
      for (let child = rec.firstChild; child; child = child.next) {
        const answered = answeredCall(child.entry)
        if (answered !== undefined && pending.has(answered)) {
          nextRec = child
          break
        }
      }
      // The exchange never completed below (a call cut off by a crash or by a
      // move made mid-step): the history can only end before it began.
      if (!nextRec) return ok(scan.value.lastComplete)
      pending.delete(answeredCall(nextRec.entry)!)
      rec = nextRec
    }
    return ok(rec.entry.nodeId)
  }

  /**
   * One walk of the path root→node: the calls still without a result at its end, and the
   * deepest node where every call had its result (`null`: the empty history).
   */
  private scanToolCalls(nodeId: string | null): TreeResult<{ open: Set<string>; lastComplete: string | null }> {
    const path = this.path(nodeId)
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

  // ---------------------------------------------------------------- mutating

  /**
   * Append one node under the cursor (or `options.parentId`) and move the
   * cursor to it. When the parent is the active branch's head, the branch
   * advances; otherwise the node starts a new branch (named by
   * `options.branch`, or `<active>-<n>`), and the old head stays untouched.
   */
  append(message: LlmMessage | null, options: AppendOptions = {}): TreeResult<TreeNode> {
    let entry: TreeEntry
    try {
      entry = this.buildEntry(message, options)
    } catch (error) {
      return badArgument(error)
    }
    let branch: string | undefined
    if (options.branch !== undefined) {
      try {
        branch = checkBranchName(options.branch)
      } catch (error) {
        return badArgument(error)
      }
    }
    const result = this.exec(branch === undefined ? { op: 'append', node: entry } : { op: 'append', node: entry, branch })
    if (!result.ok) return result
    return ok(this.nodeView(this.recs.get(entry.nodeId)!))
  }

  /**
   * Move the cursor to a node (by id, label or branch head), or before the
   * first node (`null`). Nothing is deleted; the next append forks from there.
   */
  jump(target: JumpTarget, options: MoveOptions = {}): TreeResult<JumpView> {
    const resolved = this.resolveTarget(target)
    if (!resolved.ok) return resolved
    if (isRecord(target) && 'branch' in target) {
      const result = this.exec({ op: 'switch', branch: (target as { branch: string }).branch.trim(), record: options.record ?? true })
      if (!result.ok) return result
    } else {
      const result = this.exec({ op: 'jump', target: resolved.value, record: options.record ?? true })
      if (!result.ok) return result
    }
    return ok(this.jumpView())
  }

  /** Make `branch` active and move the cursor to its head. */
  switchBranch(branch: string): TreeResult<JumpView> {
    return this.jump({ branch })
  }

  /**
   * Park a new named branch at a historical node: the cursor moves there and
   * the next append becomes a new child. Old branches stay intact.
   */
  fork(target: string, branch?: string): TreeResult<ForkView> {
    let name: string
    try {
      checkNodeId(target)
      name = branch === undefined ? this.autoBranchName(this.state.active) : checkBranchName(branch)
    } catch (error) {
      return badArgument(error)
    }
    const result = this.exec({ op: 'fork', target, branch: name })
    if (!result.ok) return result
    return ok({ cursor: target, branch: name, forkCount: this.recs.get(target)!.childCount })
  }

  /** Like `fork` with a required name; returns the parked cursor and branch. */
  branch(target: string, branch: string): TreeResult<{ cursor: string; branch: string }> {
    if (branch === undefined) return fail('INVALID_ARGUMENT', 'branch must be a string')
    const result = this.fork(target, branch)
    return result.ok ? ok({ cursor: result.value.cursor, branch: result.value.branch }) : result
  }

  /**
   * Fork at `target` and append a `branch_summary` node there describing the
   * path being left. The summary is for humans and tools: it never enters
   * `messages()`.
   */
  branchWithSummary(target: string, summary: string, branch?: string): TreeResult<TreeNode> {
    if (typeof summary !== 'string' || summary.trim() === '') {
      return fail('INVALID_ARGUMENT', 'summary must be a non-empty string')
    }
    const from = this.cursor
    const mark = this.checkpoint()
    const forked = this.fork(target, branch)
    if (!forked.ok) return forked
    const metadata = from === null ? undefined : { fromId: from }
    const appended = this.append(null, {
      type: 'branch_summary',
      summary: oneLine(summary),
      content: [{ type: 'text', text: summary }],
      ...(metadata ? { metadata } : {}),
    })
    if (!appended.ok) this.rollback(mark)
    return appended
  }

  /** Bind a node for context-aware commands (or clear it); never moves the cursor. */
  select(nodeId: string | null): TreeResult<{ nodeId: string | null }> {
    if (nodeId !== null && typeof nodeId !== 'string') return fail('INVALID_ARGUMENT', 'nodeId must be a string or null')
    const result = this.exec({ op: 'select', nodeId })
    return result.ok ? ok({ nodeId }) : result
  }

  /** Set (text) or clear (null) the label of a node. Labels are unique in a tree. */
  label(nodeId: string, text: string | null): TreeResult<TreeNode> {
    let label: string | null
    try {
      checkNodeId(nodeId)
      label = text === null ? null : checkLabel(text)
    } catch (error) {
      return badArgument(error)
    }
    const result = this.exec({ op: 'label', nodeId, label })
    if (!result.ok) return result
    return ok(this.nodeView(this.recs.get(nodeId)!))
  }

  /** Record a summary for a branch (caller-written when `model` is absent). */
  setBranchSummary(branch: string, text: string, model?: string): TreeResult<BranchSummary> {
    let summary: BranchSummary
    try {
      const name = checkBranchName(branch)
      const head = this.state.heads.get(name)
      if (!head) return fail('BRANCH_NOT_FOUND', `no branch ${JSON.stringify(name)}`, { branch: name })
      if (typeof text !== 'string' || text.trim() === '') throw new Invalid('summary must be a non-empty string')
      if (model !== undefined && typeof model !== 'string') throw new Invalid('model must be a string')
      summary = {
        branch: name,
        nodeId: head.entry.nodeId,
        summary: text,
        createdAt: this.now().toISOString(),
        ...(model === undefined ? {} : { model }),
      }
    } catch (error) {
      return badArgument(error)
    }
    const result = this.exec({ op: 'summary', summary })
    return result.ok ? ok(summary) : result
  }

  /**
   * Summarize a branch with an injected summarizer. Never fails the caller
   * (except for an unknown branch): a throwing or slow summarizer yields the
   * deterministic fallback `[N messages, unsummarized]`.
   */
  async summarizeBranch(
    branch: string,
    summarizer: BranchSummarizer,
    options: { timeoutMs?: number } = {},
  ): Promise<TreeResult<BranchSummary>> {
    let name: string
    try {
      name = checkBranchName(branch)
    } catch (error) {
      return badArgument(error)
    }
    const head = this.state.heads.get(name)
    if (!head) return fail('BRANCH_NOT_FOUND', `no branch ${JSON.stringify(name)}`, { branch: name })
    const history = this.historyPath(head.entry.nodeId)
    const entries = history.ok ? history.value : []
    const headId = head.entry.nodeId
    const text = await runSummarizer(summarizer, name, entries, options.timeoutMs ?? SUMMARIZE_TIMEOUT_MS)
    const summary: BranchSummary = text === undefined
      ? { branch: name, nodeId: headId, summary: fallbackSummary(entries.length), fallback: true, createdAt: this.now().toISOString() }
      : { branch: name, nodeId: headId, summary: text, model: summarizer.model, createdAt: this.now().toISOString() }
    const result = this.exec({ op: 'summary', summary })
    return result.ok ? ok(summary) : result
  }

  /**
   * The active path's messages plus one digest for every branch whose head is
   * off that path: its recorded summary, or an honest stub. Fails closed when
   * the active path cannot be read; nothing is deleted.
   */
  linearExport(): TreeResult<LinearExport> {
    const active = this.path()
    if (!active.ok) return active
    const history = this.historyPath()
    if (!history.ok) return history
    const onPath = new Set(active.value.map((entry) => entry.nodeId))
    const branches: BranchSummary[] = []
    for (const name of this.branchOrder()) {
      const head = this.state.heads.get(name)
      if (!head || onPath.has(head.entry.nodeId)) continue
      const recorded = this.state.summaries.get(name)
      if (recorded) {
        branches.push(recorded)
        continue
      }
      const path = this.historyPath(head.entry.nodeId)
      const summary = path.ok
        ? fallbackSummary(path.value.length)
        : `[branch ${JSON.stringify(name)} could not be read: ${path.error.message}]`
      branches.push({ branch: name, nodeId: head.entry.nodeId, summary, fallback: true, createdAt: head.entry.createdAt })
    }
    return ok({
      sessionId: this.sessionId,
      messages: history.value.map((entry) => entry.message!),
      branches,
    })
  }

  /** Undo the last cursor move (browser-style); appends are never undone. */
  back(): TreeResult<JumpView> {
    const result = this.exec({ op: 'back' })
    return result.ok ? ok(this.jumpView()) : result
  }

  /** Redo a cursor move undone by `back`. */
  forward(): TreeResult<JumpView> {
    const result = this.exec({ op: 'forward' })
    return result.ok ? ok(this.jumpView()) : result
  }

  /**
   * Fold a tool result into the tool-call node carrying `callId`, so the call
   * and its result read as one entry even when the result arrives later.
   * Idempotent: attaching the same result again changes nothing.
   */
  attachToolResult(
    callId: string,
    result: { readonly content: string; readonly isError?: boolean; readonly error?: string; readonly metadata?: Record<string, unknown> },
    options: { readonly nodeId?: string } = {},
  ): TreeResult<TreeNode> {
    // Call ids can repeat across a long session; a producer that knows which
    // node issued the call names it.
    const rec = options.nodeId === undefined ? this.toolCalls.get(callId)?.at(-1) : this.recs.get(options.nodeId)
    if (!rec) return fail('NODE_NOT_FOUND', `no tool-call node for call ${JSON.stringify(callId)}`, { callId })
    const issued = rec.entry.content?.find((part) => part.type === 'tool_call')
    if (rec.entry.type !== 'tool_call' || !issued || issued.type !== 'tool_call' || issued.id !== callId) {
      return fail('INVALID_ARGUMENT', `node ${rec.entry.nodeId} is not the tool call ${JSON.stringify(callId)}`, { callId, nodeId: rec.entry.nodeId })
    }
    if (!isRecord(result) || typeof result.content !== 'string') return fail('INVALID_ARGUMENT', 'result.content must be a string')
    if (result.isError !== undefined && typeof result.isError !== 'boolean') return fail('INVALID_ARGUMENT', 'result.isError must be a boolean')
    if (result.error !== undefined && typeof result.error !== 'string') return fail('INVALID_ARGUMENT', 'result.error must be a string')
    const old = rec.entry
    const call = old.content?.find((part) => part.type === 'tool_call')
    const resultPart = result.isError
      ? { type: 'tool_result' as const, toolCallId: callId, content: result.content, isError: true }
      : { type: 'tool_result' as const, toolCallId: callId, content: result.content }
    const existing = old.content?.find((part) => part.type === 'tool_result')
    if (existing && JSON.stringify(existing) === JSON.stringify(resultPart)) return ok(this.nodeView(rec))
    let merged: TreeEntry
    try {
      const next: Mutable<TreeEntry> = { ...old }
      next.content = [...(old.content ?? []).filter((part) => part.type !== 'tool_result'), resultPart]
      next.message = call && call.type === 'tool_call'
        ? { role: 'tool', content: result.content, toolCallId: callId, name: call.name }
        : { role: 'tool', content: result.content, toolCallId: callId }
      next.summary = defaultSummary(next.message, next.content)
      const error = result.error ?? (result.isError ? oneLine(result.content) : undefined)
      if (error !== undefined) next.error = error
      else delete next.error
      if (result.metadata !== undefined) next.metadata = { ...old.metadata, ...copyJsonObject(result.metadata, 'result.metadata') }
      merged = canonicalEntry(next)
    } catch (error) {
      return badArgument(error)
    }
    const done = this.exec({ op: 'attach', node: merged })
    return done.ok ? ok(this.nodeView(rec)) : done
  }

  // ------------------------------------------------- durability and undo

  /** Versioned, complete, immutable snapshot (entries are shared, not copied). */
  snapshot(): SessionTreeSnapshot {
    const snapshot: Mutable<SessionTreeSnapshot> = {
      version: SNAPSHOT_VERSION,
      sessionId: this.sessionId,
      nodes: this.order.map((rec) => rec.entry),
      cursor: this.cursor,
      activeBranch: this.state.active,
      selectedNodeId: this.selectedNode,
      branches: this.branchHeadList(),
      summaries: this.summaries(),
      history: this.navigation(),
      logSeq: this.logSeq,
    }
    if (this.clonedFrom) snapshot.clonedFrom = this.clonedFrom
    return snapshot
  }

  /** Capture the mutable state in O(branches + history); nodes are not copied. */
  checkpoint(): TreeCheckpoint {
    return { sessionId: this.sessionId, logSeq: this.logSeq, state: { uid: this.uidAt(this.logSeq), tree: this, saved: cloneState(this.state) } }
  }

  /** Identity of the log position `seq` (the entry ending there), or undefined when not retained. */
  private uidAt(seq: number): number | undefined {
    if (seq === this.logBase) return this.baseUid
    return this.logUids[seq - this.logBase - 1]
  }

  /** Undo every operation logged after `checkpoint` (newest first). */
  rollback(checkpoint: TreeCheckpoint): TreeResult<void> {
    if (!isRecord(checkpoint) || checkpoint.sessionId !== this.sessionId || typeof checkpoint.logSeq !== 'number') {
      return fail('INVALID_ARGUMENT', 'checkpoint was not made by this tree')
    }
    if (checkpoint.logSeq < this.logBase || checkpoint.logSeq > this.logSeq) {
      return fail('INVALID_ARGUMENT', `checkpoint ${checkpoint.logSeq} is outside the retained log (${this.logBase}..${this.logSeq})`)
    }
    const saved = checkpoint.state as { uid: number | undefined; tree: SessionTree; saved: MutableState }
    // The log position must be the very entry the checkpoint stood on, not a later one at the same seq.
    if (!isRecord(saved) || saved.tree !== this || saved.uid === undefined || saved.uid !== this.uidAt(checkpoint.logSeq)) {
      return fail('INVALID_ARGUMENT', 'checkpoint is stale: the log it stood on was rolled back or trimmed')
    }
    while (this.logSeq > checkpoint.logSeq) {
      const entry = this.logEntries.pop()!
      const previous = this.undoEntries.pop()
      this.logUids.pop()
      if (entry.op === 'append') this.unlink(this.recs.get(entry.node.nodeId)!)
      else if ((entry.op === 'attach' || entry.op === 'label') && previous) {
        this.replaceEntry(this.recs.get(previous.nodeId)!, previous)
      }
    }
    this.state = cloneState(saved.saved)
    this.reindexHeads()
    return ok(undefined)
  }

  /** Logged operations with seq greater than `fromSeq` (still retained in memory). */
  log(fromSeq: number = 0): SessionTreeLogEntry[] {
    const start = Math.max(0, fromSeq - this.logBase)
    return this.logEntries.slice(start)
  }

  /** Forget log entries up to `throughSeq` (they were persisted); checkpoints before it become invalid. */
  trimLog(throughSeq: number): void {
    const count = Math.min(Math.max(0, throughSeq - this.logBase), this.logEntries.length)
    if (count === 0) return
    this.baseUid = this.logUids[count - 1]!
    this.logEntries = this.logEntries.slice(count)
    this.undoEntries = this.undoEntries.slice(count)
    this.logUids = this.logUids.slice(count)
    this.logBase += count
  }

  /**
   * Apply log records (e.g. a sidecar journal) in order. All or nothing: on
   * the first bad record the tree is rolled back and the error says which.
   */
  replay(records: readonly unknown[]): TreeResult<{ applied: number }> {
    if (!Array.isArray(records)) return fail('INVALID_ARGUMENT', 'records must be an array')
    const mark = this.checkpoint()
    for (let i = 0; i < records.length; i++) {
      let op: SessionTreeOp
      let at: string
      try {
        const record = records[i]
        if (!isRecord(record)) throw new Invalid(`record ${i} must be an object`)
        if (record.seq !== this.logSeq + 1) throw new Invalid(`record ${i} has seq ${String(record.seq)}, expected ${this.logSeq + 1}`)
        at = checkTime(record.at, `record ${i}.at`)
        op = checkOp(record, `record ${i}`)
      } catch (error) {
        this.rollback(mark)
        return badArgument(error)
      }
      const result = this.exec(op, at)
      if (!result.ok) {
        this.rollback(mark)
        return fail(result.error.code, `record ${i}: ${result.error.message}`, { ...result.error.details, index: i })
      }
    }
    return ok({ applied: records.length })
  }

  /**
   * Apply one operation record (its `seq` is ignored): how a journal written
   * by one tree is re-applied to a tree rebuilt from elsewhere.
   */
  applyOp(record: unknown): TreeResult<void> {
    let op: SessionTreeOp
    let at: string | undefined
    try {
      if (!isRecord(record)) throw new Invalid('record must be an object')
      if (record.at !== undefined) at = checkTime(record.at, 'record.at')
      op = checkOp(record, 'record')
    } catch (error) {
      return badArgument(error)
    }
    return this.exec(op, at)
  }

  // ---------------------------------------------------------------- internals

  /** Validate and execute one operation; log it on success. Failures change nothing. */
  private exec(op: SessionTreeOp, at?: string): TreeResult<void> {
    const error = this.check(op)
    if (error) return error
    let previous: TreeEntry | undefined
    const state = this.state
    switch (op.op) {
      case 'append': {
        const parent = op.node.parentId === null ? undefined : this.recs.get(op.node.parentId)!
        const head = state.heads.get(state.active)
        const parentRec = parent ?? null
        let branch = state.active
        if (op.branch !== undefined && op.branch !== state.active) {
          branch = op.branch
        } else if (head !== undefined && head !== parentRec) {
          // The parent ends another branch: that branch grows. Otherwise a new
          // branch starts here and the old line keeps its name.
          const owner = parent && this.oldestHeadOf(parent)
          branch = owner ?? this.autoBranchName(state.active)
          // Log the name chosen, so a replay never depends on how names were picked.
          if (owner === undefined) op = { ...op, branch }
        }
        const rec = this.link(deepFreeze(op.node), parent, branch)
        this.setHead(branch, rec)
        state.active = branch
        state.cursor = rec
        break
      }
      case 'attach': {
        const rec = this.recs.get(op.node.nodeId)!
        previous = rec.entry
        this.replaceEntry(rec, deepFreeze(op.node))
        break
      }
      case 'jump': {
        const target = op.target === null ? null : this.recs.get(op.target)!
        if (op.record) this.pushHistory()
        state.cursor = target
        if (target === null) break
        if (state.heads.get(state.active) !== target) {
          const owner = this.oldestHeadOf(target)
          if (owner !== undefined) state.active = owner
        }
        break
      }
      case 'switch': {
        if (op.record) this.pushHistory()
        state.active = op.branch
        state.cursor = state.heads.get(op.branch)!
        break
      }
      case 'fork': {
        this.pushHistory()
        const target = this.recs.get(op.target)!
        this.setHead(op.branch, target)
        state.active = op.branch
        state.cursor = target
        break
      }
      case 'label': {
        const rec = this.recs.get(op.nodeId)!
        previous = rec.entry
        const next: Mutable<TreeEntry> = { ...rec.entry }
        if (op.label === null) delete next.label
        else next.label = op.label
        this.replaceEntry(rec, Object.freeze(canonicalEntry(next)))
        break
      }
      case 'select':
        state.selected = op.nodeId === null ? null : this.recs.get(op.nodeId)!
        break
      case 'summary':
        op = { op: 'summary', summary: deepFreeze(canonicalSummary(op.summary)) }
        state.summaries.set(op.summary.branch, op.summary)
        break
      case 'back': {
        const position = state.back.pop()!
        state.forward.push(this.position())
        this.moveTo(position)
        break
      }
      case 'forward': {
        const position = state.forward.pop()!
        state.back.push(this.position())
        this.moveTo(position)
        break
      }
    }
    // An append happens when its node was made: share that string instead of minting another.
    const time = at ?? (op.op === 'append' ? op.node.createdAt : this.now().toISOString())
    this.logEntries.push({ seq: this.logSeq + 1, at: time, ...op } as SessionTreeLogEntry)
    this.undoEntries.push(previous)
    this.logUids.push(this.nextUid++)
    if (this.logEntries.length > 2 * this.logLimit) this.trimLog(this.logSeq - this.logLimit)
    return ok(undefined)
  }

  /** Structural preconditions of an operation, checked before anything changes. */
  private check(op: SessionTreeOp): TreeResult<void> | undefined {
    const state = this.state
    switch (op.op) {
      case 'append': {
        const { node } = op
        if (this.recs.has(node.nodeId)) return fail('INVALID_ARGUMENT', `node ${node.nodeId} already exists`, { nodeId: node.nodeId })
        if (node.parentId !== null && !this.recs.has(node.parentId)) return notFound(node.parentId)
        if (node.label !== undefined && this.labels.has(node.label)) return labelTaken(node.label, this.labels.get(node.label)!)
        if (node.type === 'compaction' && node.replaces !== undefined && node.replaces.length > 0) {
          const ancestors = new Set<string>()
          for (let rec = node.parentId === null ? undefined : this.recs.get(node.parentId); rec; rec = rec.parent) ancestors.add(rec.entry.nodeId)
          const stranger = node.replaces.find((id) => !ancestors.has(id))
          if (stranger !== undefined) return fail('INVALID_ARGUMENT', `node ${node.nodeId} replaces ${stranger}, which is not on its path`, { nodeId: stranger })
        }
        if (op.branch !== undefined && op.branch !== state.active) {
          const head = state.heads.get(op.branch)
          if (head) return fail('BRANCH_EXISTS', `branch ${JSON.stringify(op.branch)} already exists`, { branch: op.branch, headId: head.entry.nodeId })
        }
        return undefined
      }
      case 'attach': {
        const rec = this.recs.get(op.node.nodeId)
        if (!rec) return notFound(op.node.nodeId)
        if (rec.entry.parentId !== op.node.parentId || rec.entry.type !== op.node.type || rec.entry.label !== op.node.label) {
          return fail('INVALID_ARGUMENT', `attach may only change the result of node ${op.node.nodeId}`)
        }
        return undefined
      }
      case 'jump':
        return op.target === null || this.recs.has(op.target) ? undefined : notFound(op.target)
      case 'switch':
        return state.heads.has(op.branch) ? undefined : fail('BRANCH_NOT_FOUND', `no branch ${JSON.stringify(op.branch)}`, { branch: op.branch })
      case 'fork': {
        if (!this.recs.has(op.target)) return notFound(op.target)
        const head = state.heads.get(op.branch)
        if (head) return fail('BRANCH_EXISTS', `branch ${JSON.stringify(op.branch)} already exists`, { branch: op.branch, headId: head.entry.nodeId })
        return undefined
      }
      case 'label': {
        if (!this.recs.has(op.nodeId)) return notFound(op.nodeId)
        const holder = op.label === null ? undefined : this.labels.get(op.label)
        if (holder && holder.entry.nodeId !== op.nodeId) return labelTaken(op.label!, holder)
        return undefined
      }
      case 'select':
        return op.nodeId === null || this.recs.has(op.nodeId) ? undefined : notFound(op.nodeId)
      case 'summary':
        if (!state.heads.has(op.summary.branch)) return fail('BRANCH_NOT_FOUND', `no branch ${JSON.stringify(op.summary.branch)}`, { branch: op.summary.branch })
        return this.recs.has(op.summary.nodeId) ? undefined : notFound(op.summary.nodeId)
      case 'back':
        return state.back.length > 0 ? undefined : fail('HISTORY_EMPTY', 'there is no earlier position to go back to')
      case 'forward':
        return state.forward.length > 0 ? undefined : fail('HISTORY_EMPTY', 'there is no later position to go forward to')
    }
  }

  private resolveTarget(target: JumpTarget): TreeResult<string | null> {
    if (target === null) return ok(null)
    if (typeof target === 'string') {
      return this.recs.has(target) ? ok(target) : notFound(target)
    }
    if (isRecord(target)) {
      if ('label' in target) {
        if (typeof target.label !== 'string') return fail('INVALID_ARGUMENT', 'label must be a string')
        const rec = this.labels.get(target.label.trim())
        return rec ? ok(rec.entry.nodeId) : fail('NODE_NOT_FOUND', `no node labeled ${JSON.stringify(target.label)}`, { label: target.label })
      }
      if ('branch' in target) {
        if (typeof target.branch !== 'string') return fail('INVALID_ARGUMENT', 'branch must be a string')
        const head = this.state.heads.get(target.branch.trim())
        return head ? ok(head.entry.nodeId) : fail('BRANCH_NOT_FOUND', `no branch ${JSON.stringify(target.branch)}`, { branch: target.branch })
      }
    }
    return fail('INVALID_ARGUMENT', 'target must be a node id, null, { label } or { branch }')
  }

  private buildEntry(message: LlmMessage | null, options: AppendOptions): TreeEntry {
    if (!isRecord(options)) throw new Invalid('options must be an object')
    const msg = message === null || message === undefined ? null : checkMessage(message)
    const entry: EntryDraft = {
      nodeId: options.nodeId === undefined ? this.mintNodeId() : checkNodeId(options.nodeId, 'options.nodeId'),
      parentId: options.parentId === undefined
        ? this.cursor
        : options.parentId === null ? null : checkNodeId(options.parentId, 'options.parentId'),
      summary: '',
      createdAt: options.createdAt === undefined ? this.now().toISOString() : checkTime(options.createdAt, 'options.createdAt'),
      type: options.type === undefined ? (msg ? 'message' : 'custom') : checkEntryType(options.type, 'options.type'),
    }
    if (msg) entry.message = msg
    if (options.content !== undefined) entry.content = checkContent(options.content, 'options.content')
    if (options.model !== undefined) entry.model = checkString(options.model, 'options.model')
    if (options.provider !== undefined) entry.provider = checkString(options.provider, 'options.provider')
    if (options.usage !== undefined) entry.usage = copyJsonObject(options.usage, 'options.usage')
    if (options.cost !== undefined) {
      if (typeof options.cost !== 'number' || !Number.isFinite(options.cost)) throw new Invalid('options.cost must be a finite number')
      entry.cost = options.cost
    }
    if (options.error !== undefined) entry.error = checkString(options.error, 'options.error')
    if (options.metadata !== undefined) entry.metadata = copyJsonObject(options.metadata, 'options.metadata')
    if (options.label !== undefined) entry.label = checkLabel(options.label, 'options.label')
    if (options.origin !== undefined) entry.origin = checkOrigin(options.origin, 'options.origin')
    if (options.replaces !== undefined) {
      if (entry.type !== 'compaction') throw new Invalid(`node ${entry.nodeId} carries replaces but is not a compaction`)
      entry.replaces = checkNodeIds(options.replaces, 'options.replaces')
    }
    entry.summary = options.summary === undefined
      ? defaultSummary(msg, entry.content)
      : oneLine(checkString(options.summary, 'options.summary'))
    // Built in canonical key order (a second copy through canonicalEntry would cost every append).
    return deepFreeze(shareStrings(entry))
  }

  private mintNodeId(): string {
    let id: string
    do id = `n${(++this.minted).toString(36)}`
    while (this.recs.has(id))
    return id
  }

  /** `<base>-<n>`, n one above the highest suffix in use for that stem (never taken, O(1)). */
  private autoBranchName(base: string): string {
    const stem = base.length > 90 ? base.slice(0, 90) : base
    return `${stem}-${(this.stemMax.get(stem) ?? 1) + 1}`
  }

  private noteBranchName(name: string): void {
    const match = /^(.*)-(\d{1,9})$/.exec(name)
    if (!match) return
    const n = Number(match[2])
    if (n > (this.stemMax.get(match[1]!) ?? 0)) this.stemMax.set(match[1]!, n)
  }

  /** Point a branch at a node, keeping the reverse index in step. */
  private setHead(name: string, rec: Rec): void {
    const old = this.state.heads.get(name)
    if (old) {
      const names = this.headsOf.get(old)
      if (names) {
        names.splice(names.indexOf(name), 1)
        if (names.length === 0) this.headsOf.delete(old)
      }
    } else if (!this.branchRank.has(name)) {
      this.branchRank.set(name, this.nextRank++)
      this.noteBranchName(name)
    }
    this.state.heads.set(name, rec)
    const names = this.headsOf.get(rec)
    if (names) names.push(name)
    else this.headsOf.set(rec, [name])
  }

  /** The oldest branch whose head is this node, if any. */
  private oldestHeadOf(rec: Rec): string | undefined {
    const names = this.headsOf.get(rec)
    if (!names || names.length === 0) return undefined
    let best = names[0]!
    for (const name of names) if (this.branchRank.get(name)! < this.branchRank.get(best)!) best = name
    return best
  }

  /** Rebuild the head indexes from `state.heads` (after a rollback or a restore). */
  private reindexHeads(): void {
    this.headsOf = new Map()
    this.branchRank = new Map()
    this.stemMax = new Map()
    this.nextRank = 0
    for (const [name, rec] of this.state.heads) {
      this.branchRank.set(name, this.nextRank++)
      this.noteBranchName(name)
      const names = this.headsOf.get(rec)
      if (names) names.push(name)
      else this.headsOf.set(rec, [name])
    }
  }

  private link(entry: TreeEntry, parent: Rec | undefined, lane: string): Rec {
    const rec: Rec = {
      entry,
      lane,
      parent,
      depth: parent ? parent.depth + 1 : 0,
      order: this.order.length,
      firstChild: undefined,
      lastChild: undefined,
      prev: undefined,
      next: undefined,
      childCount: 0,
    }
    if (parent) {
      rec.prev = parent.lastChild
      if (parent.lastChild) parent.lastChild.next = rec
      else parent.firstChild = rec
      parent.lastChild = rec
      parent.childCount++
    }
    this.recs.set(entry.nodeId, rec)
    this.order.push(rec)
    this.index(rec, +1)
    return rec
  }

  /** Remove the newest node (rollback only: it is the last child of its parent). */
  private unlink(rec: Rec): void {
    const parent = rec.parent
    if (parent) {
      if (rec.prev) rec.prev.next = rec.next
      else parent.firstChild = rec.next
      if (rec.next) rec.next.prev = rec.prev
      else parent.lastChild = rec.prev
      parent.childCount--
    }
    this.index(rec, -1)
    this.recs.delete(rec.entry.nodeId)
    this.order.pop()
  }

  /**
   * Swap a node's entry in place (labels, results). Its tool-call identity,
   * usage and cost never change, so only labels and the message count move
   * (re-adding usage would also reorder the usage keys `info()` reports).
   */
  private replaceEntry(rec: Rec, entry: TreeEntry): void {
    const old = rec.entry
    if (old.label !== undefined && this.labels.get(old.label) === rec) this.labels.delete(old.label)
    if (old.message) this.messageCount--
    rec.entry = entry
    if (entry.label !== undefined) this.labels.set(entry.label, rec)
    if (entry.message) this.messageCount++
  }

  /** Maintain labels, the tool-call index and counters for a node entering (+1) or leaving (-1) the tree. */
  private index(rec: Rec, sign: 1 | -1): void {
    const entry = rec.entry
    if (entry.label !== undefined) {
      if (sign > 0) this.labels.set(entry.label, rec)
      else if (this.labels.get(entry.label) === rec) this.labels.delete(entry.label)
    }
    if (entry.type === 'tool_call') {
      const call = entry.content?.find((part) => part.type === 'tool_call')
      if (call && call.type === 'tool_call') {
        const stack = this.toolCalls.get(call.id)
        if (sign > 0) {
          if (stack) stack.push(rec)
          else this.toolCalls.set(call.id, [rec])
        } else if (stack) {
          const at = stack.lastIndexOf(rec)
          if (at >= 0) stack.splice(at, 1)
          if (stack.length === 0) this.toolCalls.delete(call.id)
        }
      }
    }
    if (entry.message) this.messageCount += sign
    if (entry.usage) {
      for (const [key, value] of Object.entries(entry.usage)) {
        if (typeof value !== 'number') continue
        const [total, count] = this.usageTotals.get(key) ?? [0, 0]
        if (count + sign === 0) this.usageTotals.delete(key)
        else this.usageTotals.set(key, [total + sign * value, count + sign])
      }
    }
    if (entry.cost !== undefined) {
      this.costTotal += sign * entry.cost
      this.costCount += sign
      if (this.costCount === 0) this.costTotal = 0
    }
  }

  private position(): TreePosition {
    return Object.freeze({ cursor: this.cursor, branch: this.state.active })
  }

  private pushHistory(): void {
    const state = this.state
    state.back.push(this.position())
    if (state.back.length > HISTORY_LIMIT) state.back.shift()
    state.forward.length = 0
  }

  private moveTo(position: TreePosition): void {
    this.state.cursor = position.cursor === null ? null : this.recs.get(position.cursor) ?? null
    this.state.active = position.branch
  }

  private jumpView(): JumpView {
    return { cursor: this.cursor, messages: this.messages(), branch: this.state.active }
  }

  private headRecord(): Record<string, string> {
    return recordOf([...this.state.heads].map(([name, rec]) => [name, rec.entry.nodeId] as const))
  }

  /** Active branch first, then the others in creation order. */
  private branchOrder(): string[] {
    const names = [...this.state.heads.keys()]
    const i = names.indexOf(this.state.active)
    if (i > 0) names.unshift(...names.splice(i, 1))
    return names
  }

  private nodeView(rec: Rec): TreeNode {
    return { ...rec.entry, branch: rec.lane, forkCount: rec.childCount }
  }

  /** Load a snapshot into this (empty) tree; throws `Invalid` and leaves nothing half-loaded. */
  private restore(raw: unknown): void {
    if (!isRecord(raw)) throw new Invalid('snapshot must be an object')
    if (raw.version !== SNAPSHOT_VERSION) throw new Invalid(`snapshot version ${JSON.stringify(raw.version)} is not ${SNAPSHOT_VERSION}`)
    if (raw.sessionId !== this.sessionId) throw new Invalid(`snapshot belongs to session ${JSON.stringify(raw.sessionId)}, not ${JSON.stringify(this.sessionId)}`)
    if (!Array.isArray(raw.nodes)) throw new Invalid('snapshot.nodes must be an array')
    const entries: TreeEntry[] = raw.nodes.map((node, i) => checkEntry(node, `snapshot.nodes[${i}]`))
    const position = new Map<string, number>()
    entries.forEach((entry, i) => {
      if (position.has(entry.nodeId)) throw new Invalid(`snapshot.nodes[${i}] repeats node id ${entry.nodeId}`)
      position.set(entry.nodeId, i)
    })
    entries.forEach((entry, i) => {
      if (entry.parentId === null) return
      const at = position.get(entry.parentId)
      if (at === undefined) throw new Invalid(`snapshot.nodes[${i}] (${entry.nodeId}) has a missing parent ${entry.parentId}`)
      if (at > i) {
        // Either a cycle or a parent stored after its child; say which.
        let cursor: string | null = entry.parentId
        for (let steps = 0; cursor !== null && steps <= entries.length; steps++) {
          if (cursor === entry.nodeId) throw new Invalid(`snapshot node ${entry.nodeId} is part of a parent cycle`)
          cursor = entries[position.get(cursor)!]?.parentId ?? null
        }
        throw new Invalid(`snapshot.nodes[${i}] (${entry.nodeId}) comes before its parent ${entry.parentId}`)
      }
    })
    entries.forEach((entry, i) => {
      if (entry.type !== 'compaction' || entry.replaces === undefined) return
      const ancestors = new Set<string>()
      for (let id = entry.parentId; id !== null; id = entries[position.get(id)!]!.parentId) ancestors.add(id)
      const stranger = entry.replaces.find((id) => !ancestors.has(id))
      if (stranger !== undefined) throw new Invalid(`snapshot.nodes[${i}] (${entry.nodeId}) replaces ${stranger}, which is not on its path`)
    })
    const labels = new Set<string>()
    for (const entry of entries) {
      if (entry.label === undefined) continue
      if (labels.has(entry.label)) throw new Invalid(`snapshot label ${JSON.stringify(entry.label)} is used twice`)
      labels.add(entry.label)
    }
    const nodeRef = (value: unknown, where: string): string | null => {
      if (value === null || value === undefined) return null
      const id = checkNodeId(value, where)
      if (!position.has(id)) throw new Invalid(`${where} points at a missing node ${id}`)
      return id
    }
    if (!Object.hasOwn(raw, 'cursor') || !Object.hasOwn(raw, 'selectedNodeId')) throw new Invalid('snapshot.cursor and snapshot.selectedNodeId are required (null or a node id)')
    const cursor = nodeRef(raw.cursor, 'snapshot.cursor')
    const selected = nodeRef(raw.selectedNodeId, 'snapshot.selectedNodeId')
    const active = checkBranchName(raw.activeBranch, 'snapshot.activeBranch')
    if (active !== raw.activeBranch) throw new Invalid('snapshot.activeBranch is not trimmed')
    if (!Array.isArray(raw.branches)) throw new Invalid('snapshot.branches must be an array of [name, head]')
    const heads = new Map<string, string>()
    raw.branches.forEach((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2) throw new Invalid(`snapshot.branches[${i}] must be [name, head]`)
      const name = checkBranchName(pair[0], `snapshot.branches[${i}] name`)
      if (name !== pair[0]) throw new Invalid(`snapshot branch name ${JSON.stringify(pair[0])} is not trimmed`)
      if (heads.has(name)) throw new Invalid(`snapshot branch ${JSON.stringify(name)} appears twice`)
      const head = nodeRef(pair[1], `snapshot.branches[${i}] head`)
      if (head === null) throw new Invalid(`snapshot.branches[${i}] head must be a node id`)
      heads.set(name, head)
    })
    if (!Array.isArray(raw.summaries)) throw new Invalid('snapshot.summaries must be an array')
    const summaries = raw.summaries.map((s, i) => checkSummary(s, `snapshot.summaries[${i}]`))
    const summarized = new Set<string>()
    for (const summary of summaries) {
      if (!heads.has(summary.branch)) throw new Invalid(`snapshot summary of unknown branch ${summary.branch}`)
      if (summarized.has(summary.branch)) throw new Invalid(`snapshot has two summaries of branch ${summary.branch}`)
      summarized.add(summary.branch)
      nodeRef(summary.nodeId, `snapshot summary of ${summary.branch}`)
    }
    if (!isRecord(raw.history) || !Array.isArray(raw.history.back) || !Array.isArray(raw.history.forward)) {
      throw new Invalid('snapshot.history must be { back: [], forward: [] }')
    }
    const positions = (list: unknown[], where: string): TreePosition[] => list.map((p, i) => {
      const position = checkPosition(p, `${where}[${i}]`)
      nodeRef(position.cursor, `${where}[${i}].cursor`)
      return position
    })
    const back = positions(raw.history.back, 'snapshot.history.back')
    const forward = positions(raw.history.forward, 'snapshot.history.forward')
    if (back.length > HISTORY_LIMIT || forward.length > HISTORY_LIMIT) throw new Invalid(`snapshot.history keeps more than ${HISTORY_LIMIT} positions`)
    if (typeof raw.logSeq !== 'number' || !Number.isSafeInteger(raw.logSeq) || raw.logSeq < 0) {
      throw new Invalid('snapshot.logSeq must be a non-negative integer')
    }
    let clonedFrom: { sessionId: string; nodeId: string | null } | undefined
    if (raw.clonedFrom !== undefined) {
      const c = raw.clonedFrom
      if (!isRecord(c) || typeof c.sessionId !== 'string' || !(c.nodeId === null || typeof c.nodeId === 'string')) {
        throw new Invalid('snapshot.clonedFrom must be { sessionId, nodeId }')
      }
      clonedFrom = { sessionId: c.sessionId, nodeId: c.nodeId }
    }
    // Everything validated: build.
    for (const entry of entries) this.link(deepFreeze(entry), entry.parentId === null ? undefined : this.recs.get(entry.parentId), '')
    this.state = {
      cursor: cursor === null ? null : this.recs.get(cursor)!,
      active,
      selected: selected === null ? null : this.recs.get(selected)!,
      heads: new Map([...heads].map(([name, id]) => [name, this.recs.get(id)!])),
      summaries: new Map(summaries.map((s) => [s.branch, deepFreeze(s)])),
      back,
      forward,
    }
    this.reindexHeads()
    // Lanes: the oldest branch (heads keep creation order) whose path holds the node.
    for (const [name, head] of this.state.heads) {
      for (let rec: Rec | undefined = head; rec && rec.lane === ''; rec = rec.parent) rec.lane = name
    }
    this.logBase = raw.logSeq
    this.minted = entries.length
    this.clonedFrom = clonedFrom
  }
}

function notFound(nodeId: string): TreeResult<never> {
  return fail('NODE_NOT_FOUND', `no node ${JSON.stringify(nodeId)}`, { nodeId })
}

function labelTaken(label: string, holder: Rec): TreeResult<never> {
  return fail('LABEL_EXISTS', `label ${JSON.stringify(label)} is already on node ${holder.entry.nodeId}`, {
    label,
    nodeId: holder.entry.nodeId,
  })
}

function checkString(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Invalid(`${where} must be a string`)
  return value
}

/** The call a node answers with a result, if any. */
function answeredCall(entry: TreeEntry): string | undefined {
  if (entry.type !== 'tool_call' && entry.type !== 'tool_result') return undefined
  const result = entry.content?.find((part) => part.type === 'tool_result')
  if (result && result.type === 'tool_result') return result.toolCallId
  return entry.message?.toolCallId
}

function cloneState(state: MutableState): MutableState {
  return {
    cursor: state.cursor,
    active: state.active,
    selected: state.selected,
    heads: new Map(state.heads),
    summaries: new Map(state.summaries),
    back: [...state.back],
    forward: [...state.forward],
  }
}

/** Validate the operation part of a log record. */
function checkOp(record: Record<string, unknown>, where: string): SessionTreeOp {
  switch (record.op) {
    case 'append': {
      const node = checkEntry(record.node, `${where}.node`)
      return record.branch === undefined
        ? { op: 'append', node }
        : { op: 'append', node, branch: checkBranchName(record.branch, `${where}.branch`) }
    }
    case 'attach':
      return { op: 'attach', node: checkEntry(record.node, `${where}.node`) }
    case 'jump':
      if (typeof record.record !== 'boolean') throw new Invalid(`${where}.record must be a boolean`)
      return { op: 'jump', target: record.target === null ? null : checkNodeId(record.target, `${where}.target`), record: record.record }
    case 'fork':
      return { op: 'fork', target: checkNodeId(record.target, `${where}.target`), branch: checkBranchName(record.branch, `${where}.branch`) }
    case 'switch':
      if (typeof record.record !== 'boolean') throw new Invalid(`${where}.record must be a boolean`)
      return { op: 'switch', branch: checkBranchName(record.branch, `${where}.branch`), record: record.record }
    case 'label':
      return { op: 'label', nodeId: checkNodeId(record.nodeId, `${where}.nodeId`), label: record.label === null ? null : checkLabel(record.label, `${where}.label`) }
    case 'select':
      return { op: 'select', nodeId: record.nodeId === null ? null : checkNodeId(record.nodeId, `${where}.nodeId`) }
    case 'summary':
      return { op: 'summary', summary: checkSummary(record.summary, `${where}.summary`) }
    case 'back':
      return { op: 'back' }
    case 'forward':
      return { op: 'forward' }
    default:
      throw new Invalid(`${where}.op ${JSON.stringify(record.op)} is not a known operation`)
  }
}

/** Run a summarizer under a time budget; undefined when it failed, hung or returned nothing usable. */
async function runSummarizer(
  summarizer: BranchSummarizer,
  branch: string,
  entries: TreeEntry[],
  timeoutMs: number,
): Promise<string | undefined> {
  const messages = entries.map((entry) => entry.message!)
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new Error('summarizer timed out'))
        resolve(undefined)
      }, timeoutMs)
    })
    const work = Promise.resolve()
      .then(() => summarizer.summarize({ branch, text: renderMessages(messages), messages, entries, signal: controller.signal }))
      .then((text) => (typeof text === 'string' && text.trim() !== '' ? text.trim() : undefined), () => undefined)
    return await Promise.race([work, timeout])
  } catch {
    return undefined
  } finally {
    if (timer !== undefined) clearTimeout(timer)
  }
}

export type { ErrorCode }
