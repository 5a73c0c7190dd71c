/**
 * The append-only multi-branch conversation tree of one session: the facade, which checks arguments and shapes
 * answers (the model: docs/tree-api.md, "Model"). Every mutation is one logged operation (`ops.ts`), so the tree
 * is journaled, replayed, checkpointed and rolled back without copying nodes (`journal.ts`). The state is in
 * `state.ts`, the model history in `history.ts`, the snapshot format in `snapshot.ts`, the views in `views.ts`.
 * All operations return results; only the constructor (malformed snapshot) and `messages` (corrupt tree) throw.
 */
import { buildEntry, publicEntry, withResult, type StoredEntry, type StoredFields, type ToolResult } from './entry.ts'
import { fail, ok, SessionTreeError, type TreeResult } from './errors.ts'
import { completeCutPoint, historyOf, messagesOf, pathFrom, startOf } from './history.ts'
import { Journal, type TreeCheckpoint } from './journal.ts'
import { summaryOf, type Rec } from './nodes.ts'
import { decodeSnapshot, encodeSnapshot, type ClonedFrom } from './snapshot.ts'
import { resolveTarget, TreeState } from './state.ts'
import { linearExport, summarizeBranch, SUMMARIZE_TIMEOUT_MS, writtenSummary } from './summarize.ts'
import { oneLine } from './text.ts'
import type {
  AppendOptions,
  BranchSummarizer,
  BranchSummary,
  BranchView,
  ForkView,
  JumpTarget,
  JumpView,
  LinearExport,
  LlmMessage,
  MoveOptions,
  SessionTreeLogEntry,
  SessionTreeOptions,
  SessionTreeOutline,
  SessionTreeOutlineChanges,
  SessionTreeSessionInfo,
  SessionTreeSnapshot,
  SessionTreeView,
  TreeEntry,
  TreeMarks,
  TreeNode,
  TreePosition,
} from './types.ts'
import { checkBranchName, checkLabel, checkNodeId, Invalid, isRecord, recordOf } from './validate.ts'
import { branchViews, labeledNodes, nodeView, treeInfo, treeOutline, treeOutlineChanges, treeView } from './views.ts'
import { OutlineTracker } from './outline-changes.ts'

/** A node's entry as callers see it. */
function entryOf(rec: Rec): TreeEntry {
  return publicEntry(rec.entry, summaryOf(rec))
}

function badArgument(error: unknown): TreeResult<never> {
  if (error instanceof Invalid) return fail('INVALID_ARGUMENT', error.reason)
  throw error
}

export class SessionTree {
  readonly sessionId: string
  private readonly now: () => Date
  private readonly state = new TreeState()
  private readonly journal: Journal
  private clonedFrom: ClonedFrom | undefined
  /** What `outlineChanges` answered last (made on its first call). */
  private tracker: OutlineTracker | undefined

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
    this.journal = new Journal(this.state, sessionId, options.logLimit ?? 10_000, this.now)
    if (snapshot === undefined) return
    try {
      const decoded = decodeSnapshot(snapshot, sessionId, this.state)
      this.journal.startAt(decoded.logSeq)
      this.clonedFrom = decoded.clonedFrom
    } catch (error) {
      if (error instanceof Invalid) throw new SessionTreeError({ code: 'INVALID_SNAPSHOT', message: error.reason })
      throw error
    }
  }

  // ---------------------------------------------------------------- reading

  /** Current leaf, or `null` before the first node. */
  get cursor(): string | null {
    return this.state.cursorId
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
    return this.state.nodes.size
  }

  /** Seq of the last logged operation (0 for a fresh tree). */
  get logSeq(): number {
    return this.journal.seq
  }

  has(nodeId: string): boolean {
    return this.state.nodes.has(nodeId)
  }

  /** One node as views serve it, or undefined. */
  get(nodeId: string): TreeNode | undefined {
    const rec = this.state.nodes.get(nodeId)
    return rec && nodeView(this.state.nodes, rec)
  }

  /** One node's entry as stored (no view fields), or undefined. */
  entry(nodeId: string): TreeEntry | undefined {
    const rec = this.state.nodes.get(nodeId)
    return rec && entryOf(rec)
  }

  /** A node's fields as stored, without the derived summary, lane and fork count: the read for walks over many nodes. */
  stored(nodeId: string): StoredFields | undefined {
    return this.state.nodes.get(nodeId)?.entry
  }

  /** A node's parent (null: a root), undefined for an unknown node. */
  parentOf(nodeId: string): string | null | undefined {
    return this.state.nodes.get(nodeId)?.entry.parentId
  }

  /** A node's display lane (see `TreeNode.branch`), undefined for an unknown node. */
  laneOf(nodeId: string): string | undefined {
    const rec = this.state.nodes.get(nodeId)
    return rec && this.state.nodes.laneOf(rec)
  }

  /** Direct child ids in creation order. */
  children(nodeId: string | null): string[] {
    return this.state.nodes.childIds(nodeId)
  }

  /**
   * Messages the model reads for root→node (default: the cursor), compactions applied.
   * @throws SessionTreeError `NODE_NOT_FOUND` for an unknown node, `TREE_CORRUPT` for a cyclic or dangling path.
   */
  messages(from?: string | null): LlmMessage[] {
    const start = startOf(this.state, from)
    const messages = start.ok ? messagesOf(this.state, start.value) : start
    if (!messages.ok) throw new SessionTreeError(messages.error)
    return messages.value
  }

  /** The entries behind `messages(from)`, in the order the model reads them. */
  historyPath(from?: string | null): TreeResult<TreeEntry[]> {
    const path = this.recPath(from)
    return path.ok ? ok(historyOf(path.value).map(entryOf)) : path
  }

  /** The node ids behind `historyPath(from)`: the same walk without building entries. */
  historyIds(from?: string | null): TreeResult<string[]> {
    const path = this.recPath(from)
    return path.ok ? ok(historyOf(path.value).map((rec) => rec.entry.nodeId)) : path
  }

  /** The node ids of `path(from)`, without building entries. */
  pathIds(from?: string | null): TreeResult<string[]> {
    const path = this.recPath(from)
    return path.ok ? ok(path.value.map((rec) => rec.entry.nodeId)) : path
  }

  /** Entries root→node; fails closed on a cyclic or dangling chain. */
  path(from?: string | null): TreeResult<TreeEntry[]> {
    const path = this.recPath(from)
    return path.ok ? ok(path.value.map(entryOf)) : path
  }

  /** Nodes (view form) root→node, default the cursor; empty when the node is unknown. */
  currentPath(from?: string | null): TreeNode[] {
    const path = this.recPath(from)
    return path.ok ? path.value.map((rec) => nodeView(this.state.nodes, rec)) : []
  }

  /** Every node in creation order (immutable view objects). */
  list(): TreeNode[] {
    return Array.from(this.state.nodes.all(), (rec) => nodeView(this.state.nodes, rec))
  }

  /** Named branches with their root-to-head paths, active branch first. */
  branches(): BranchView[] {
    return branchViews(this.state)
  }

  /** Compact status; O(branches), never walks the nodes. */
  info(): SessionTreeSessionInfo {
    return treeInfo(this.state, this.sessionId, this.clonedFrom)
  }

  /** The full read view served to the panel. */
  view(): SessionTreeView {
    return treeView(this.state, this.sessionId)
  }

  /** Every node and where each branch ends (no branch paths): O(nodes + branches). */
  outline(): SessionTreeOutline {
    return treeOutline(this.state, this.sessionId)
  }

  /**
   * The outline as the nodes changed since `since` (the `version` of an earlier answer of this tree; else
   * every node): O(nodes) to find them, but only the changed ones are built and sent.
   */
  outlineChanges(since: string | null): SessionTreeOutlineChanges {
    this.tracker ??= new OutlineTracker()
    return treeOutlineChanges(this.state, this.sessionId, this.tracker, since)
  }

  /** Branch names and head ids, in branch creation order. O(branches). */
  branchHeadList(): [string, string][] {
    return this.state.branches.pairs()
  }

  /** Recorded branch summaries. O(branches). */
  summaries(): BranchSummary[] {
    return [...this.state.summaries.values()]
  }

  /** Navigation history (copies). */
  navigation(): { back: TreePosition[]; forward: TreePosition[] } {
    return { back: [...this.state.back], forward: [...this.state.forward] }
  }

  /** Labeled nodes in creation order; with `text`, the node carrying exactly that label. */
  labeled(text?: string): TreeNode[] {
    return labeledNodes(this.state, text)
  }

  /** The tool-call node carrying this call id (never an assistant message that merely echoes it). */
  findToolCallNode(callId: string): TreeNode | undefined {
    const rec = this.state.nodes.toolCall(callId)
    return rec && nodeView(this.state.nodes, rec)
  }

  /** The nearest node where a history may end (never between a tool call and its result; see `history.ts`). */
  completeCutPoint(nodeId: string | null): TreeResult<string | null> {
    const start = startOf(this.state, nodeId)
    return start.ok ? completeCutPoint(this.state, start.value) : start
  }

  // ---------------------------------------------------------------- mutating

  /**
   * Append one node under the cursor (or `options.parentId`) and move the cursor to it. The active
   * branch advances when the parent is its head; otherwise a branch starts (`options.branch` or `<active>-<n>`).
   */
  append(message: LlmMessage | null, options: AppendOptions = {}): TreeResult<TreeNode> {
    let node: StoredEntry
    let branch: string | undefined
    try {
      node = buildEntry(message, options, { mint: () => this.state.nodes.mint(), cursor: this.cursor, now: this.now })
      if (options.branch !== undefined) branch = checkBranchName(options.branch)
    } catch (error) {
      return badArgument(error)
    }
    const result = this.journal.exec(branch === undefined ? { op: 'append', node } : { op: 'append', node, branch })
    return result.ok ? ok(nodeView(this.state.nodes, this.state.nodes.get(node.nodeId)!)) : result
  }

  /** Move the cursor to a node (by id, label or branch head), or before the first node (`null`). */
  jump(target: JumpTarget, options: MoveOptions = {}): TreeResult<JumpView> {
    const moved = this.moveCursor(target, options)
    return moved.ok ? ok(this.jumpView()) : moved
  }

  /**
   * `jump` without its answer: the history view costs a walk of the whole path, which a
   * caller that only moves the cursor (a rebuild settling each switch of a long log) never reads.
   */
  moveCursor(target: JumpTarget, options: MoveOptions = {}): TreeResult<void> {
    const resolved = resolveTarget(this.state, target)
    if (!resolved.ok) return resolved
    const record = options.record ?? true
    return isRecord(target) && 'branch' in target
      ? this.journal.exec({ op: 'switch', branch: (target as { branch: string }).branch.trim(), record })
      : this.journal.exec({ op: 'jump', target: resolved.value, record })
  }

  /** Park a new named branch at a node and move there; the next append becomes a new child. */
  fork(target: string, branch?: string): TreeResult<ForkView> {
    let name: string
    try {
      checkNodeId(target)
      name = branch === undefined ? this.state.branches.autoName(this.state.active) : checkBranchName(branch)
    } catch (error) {
      return badArgument(error)
    }
    const result = this.journal.exec({ op: 'fork', target, branch: name })
    return result.ok
      ? ok({ cursor: target, branch: name, forkCount: this.state.nodes.get(target)!.childCount })
      : result
  }

  /** `fork` with a required name (seed 001's `branch`); returns the parked cursor and branch. */
  branch(target: string, branch: string): TreeResult<{ cursor: string; branch: string }> {
    if (branch === undefined) return fail('INVALID_ARGUMENT', 'branch must be a string')
    const result = this.fork(target, branch)
    return result.ok ? ok({ cursor: result.value.cursor, branch: result.value.branch }) : result
  }

  /** Fork at `target` and append a `branch_summary` node describing the path left (seed 001); never in `messages()`. */
  branchWithSummary(target: string, summary: string, branch?: string): TreeResult<TreeNode> {
    if (typeof summary !== 'string' || summary.trim() === '')
      return fail('INVALID_ARGUMENT', 'summary must be a non-empty string')
    const from = this.cursor
    const mark = this.checkpoint()
    const forked = this.fork(target, branch)
    if (!forked.ok) return forked
    const appended = this.append(null, {
      type: 'branch_summary',
      summary: oneLine(summary),
      content: [{ type: 'text', text: summary }],
      ...(from === null ? {} : { metadata: { fromId: from } }),
    })
    if (!appended.ok) this.rollback(mark)
    return appended
  }

  /** Bind a node for context-aware commands (or clear it); never moves the cursor (seed 001). */
  select(nodeId: string | null): TreeResult<{ nodeId: string | null }> {
    if (nodeId !== null && typeof nodeId !== 'string')
      return fail('INVALID_ARGUMENT', 'nodeId must be a string or null')
    const result = this.journal.exec({ op: 'select', nodeId })
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
    const result = this.journal.exec({ op: 'label', nodeId, label })
    return result.ok ? ok(nodeView(this.state.nodes, this.state.nodes.get(nodeId)!)) : result
  }

  /** Record a summary for a branch (caller-written when `model` is absent). */
  setBranchSummary(branch: string, text: string, model?: string): TreeResult<BranchSummary> {
    return this.recordSummary(writtenSummary(this.state, branch, text, model, this.now))
  }

  /** Summarize a branch with an injected summarizer; one that throws or hangs yields `[N messages, unsummarized]`. */
  async summarizeBranch(
    branch: string,
    summarizer: BranchSummarizer,
    options: { timeoutMs?: number } = {},
  ): Promise<TreeResult<BranchSummary>> {
    return this.recordSummary(
      await summarizeBranch(this.state, branch, summarizer, options.timeoutMs ?? SUMMARIZE_TIMEOUT_MS, this.now),
    )
  }

  /** The active path's messages plus one digest for every branch whose head is off that path. */
  linearExport(): TreeResult<LinearExport> {
    return linearExport(this.state, this.sessionId)
  }

  /** Undo the last cursor move (browser-style); appends are never undone. */
  back(): TreeResult<JumpView> {
    const result = this.journal.exec({ op: 'back' })
    return result.ok ? ok(this.jumpView()) : result
  }

  /** Redo a cursor move undone by `back`. */
  forward(): TreeResult<JumpView> {
    const result = this.journal.exec({ op: 'forward' })
    return result.ok ? ok(this.jumpView()) : result
  }

  /** Fold a tool result into the node that made the call (idempotent): the call and its result read as one entry. */
  attachToolResult(
    callId: string,
    result: ToolResult,
    options: { readonly nodeId?: string } = {},
  ): TreeResult<TreeNode> {
    const found = this.state.nodes.callNode(callId, options.nodeId)
    if (!found.ok) return found
    const rec = found.value
    let merged: StoredEntry | undefined
    try {
      merged = withResult(rec.entry, callId, result)
    } catch (error) {
      return badArgument(error)
    }
    if (merged === undefined) return ok(nodeView(this.state.nodes, rec))
    const done = this.journal.exec({ op: 'attach', node: merged })
    return done.ok ? ok(nodeView(this.state.nodes, rec)) : done
  }

  // ------------------------------------------------- durability and undo

  /** Versioned, complete snapshot (format `SNAPSHOT_VERSION`; `new SessionTree(id, snapshot)` restores it). */
  snapshot(): SessionTreeSnapshot {
    return encodeSnapshot(this.state, { sessionId: this.sessionId, logSeq: this.logSeq, clonedFrom: this.clonedFrom })
  }

  /** Everything but the nodes: labels, branches, cursor, selection, summaries, history (what `withMarks` lays). */
  marks(): TreeMarks {
    return {
      labels: recordOf(this.labeled().map((node) => [node.nodeId, node.label!] as const)),
      branches: this.branchHeadList(),
      activeBranch: this.activeBranch,
      cursor: this.cursor,
      selectedNodeId: this.selectedNode,
      summaries: this.summaries(),
      history: this.navigation(),
    }
  }

  /** A new tree with these nodes and other marks (labels laid over the nodes' own), validated like a snapshot. */
  withMarks(marks: TreeMarks): TreeResult<SessionTree> {
    const snapshot = encodeSnapshot(this.state, {
      sessionId: this.sessionId,
      logSeq: this.logSeq,
      clonedFrom: this.clonedFrom,
      labels: new Map(Object.entries(marks.labels)),
    })
    // Field by field: a value that carries more than the marks (the sidecar overlay) lends only these.
    const { branches, activeBranch, cursor, selectedNodeId, summaries, history } = marks
    const laid = { ...snapshot, branches, activeBranch, cursor, selectedNodeId, summaries, history }
    try {
      return ok(new SessionTree(this.sessionId, laid, { now: this.now, logLimit: this.journal.limit }))
    } catch (error) {
      if (error instanceof SessionTreeError) return { ok: false, error: error.error }
      throw error
    }
  }

  /** Capture the mutable state in O(branches + history); nodes are not copied. */
  checkpoint(): TreeCheckpoint {
    return this.journal.checkpoint()
  }

  /** Undo every operation logged after `checkpoint` (newest first). */
  rollback(checkpoint: TreeCheckpoint): TreeResult<void> {
    return this.journal.rollback(checkpoint)
  }

  /** Logged operations with seq greater than `fromSeq` (still retained in memory). */
  log(fromSeq: number = 0): SessionTreeLogEntry[] {
    return this.journal.log(fromSeq)
  }

  /** Forget log entries up to `throughSeq` (they were persisted); checkpoints before it become invalid. */
  trimLog(throughSeq: number): void {
    this.journal.trim(throughSeq)
  }

  /** Apply log records in order, all or nothing (the error names the first bad record). */
  replay(records: readonly unknown[]): TreeResult<{ applied: number }> {
    return this.journal.replay(records)
  }

  /** Apply one operation record, ignoring its `seq` (a journal re-applied to a tree rebuilt from elsewhere). */
  applyOp(record: unknown): TreeResult<void> {
    return this.journal.applyRecord(record)
  }

  // ---------------------------------------------------------------- internals

  private recPath(from: string | null | undefined): TreeResult<Rec[]> {
    const start = startOf(this.state, from)
    return start.ok ? pathFrom(this.state, start.value) : start
  }

  private recordSummary(summary: TreeResult<BranchSummary>): TreeResult<BranchSummary> {
    if (!summary.ok) return summary
    const result = this.journal.exec({ op: 'summary', summary: summary.value })
    return result.ok ? summary : result
  }

  private jumpView(): JumpView {
    return { cursor: this.cursor, messages: this.messages(), branch: this.state.active }
  }
}
