/**
 * The session tree's public vocabulary, plain JSON: the same shapes travel through the sidecar, the typert wire
 * and the model tool. `LlmMessage`, `ContentPart`, `TreeNode`, `SessionTreeView`, `JumpView`, `ForkView` and
 * `SessionTreeSessionInfo` keep the names and meaning of seed 001's published `sessionTree` contract; fields this
 * package adds are optional, so a client of that contract keeps working. The durable formats (snapshots, log
 * records, positions) are in `durable-types.ts`. Pure domain code: nothing here imports from outside the tree.
 */

export type * from './durable-types.ts'
export { SNAPSHOT_VERSION } from './durable-types.ts'

/** Any lossless JSON value. */
export type JsonValue = null | string | number | boolean | JsonValue[] | { [key: string]: JsonValue }

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue }

/** Conversation roles a tree node can carry. */
export type Role = 'system' | 'user' | 'assistant' | 'tool'

/**
 * A provider-neutral chat message, flattened to text: what the model reads.
 * `toolCallId` and `name` are set on `tool` messages.
 */
export interface LlmMessage {
  readonly role: Role
  readonly content: string
  readonly name?: string
  readonly toolCallId?: string
}

/** Visible text. */
export interface TextPart {
  readonly type: 'text'
  readonly text: string
}

/** A tool invocation requested by the model (arguments parsed when they were JSON). */
export interface ToolCallPart {
  readonly type: 'tool_call'
  readonly id: string
  readonly name: string
  readonly arguments: JsonValue
}

/** The result of one tool invocation. */
export interface ToolResultPart {
  readonly type: 'tool_result'
  readonly toolCallId: string
  readonly content: string
  readonly isError?: boolean
}

/** Model reasoning, kept for display; never part of `LlmMessage.content`. */
export interface ReasoningPart {
  readonly type: 'reasoning'
  readonly text: string
}

/** Structured content of a node, richer than its flattened `message`. */
export type ContentPart = TextPart | ToolCallPart | ToolResultPart | ReasoningPart

/**
 * What kind of entry a node is: `message` (a user, assistant or system message), `tool_call` (one invocation,
 * its result folded in once it exists), `tool_result` (a result whose call is not in the tree), `model_change`
 * and `compaction` (the model or provider changed, the harness compacted history; no message), `branch_summary`
 * (a digest of an abandoned branch, never sent to the model), `custom` (anything else a producer wants to keep
 * in the tree; no message).
 */
export type TreeEntryType =
  'message' | 'tool_call' | 'tool_result' | 'model_change' | 'compaction' | 'branch_summary' | 'custom'

/**
 * Where a node came from outside the tree. The harness adapter stamps the
 * session-log event that produced the node; a clone stamps its source node.
 * Reserved: only the tree's producers set it, never a model-facing tool.
 */
export interface NodeOrigin {
  /** Producer namespace, e.g. `session` for harness events, `clone` for clones. */
  readonly source: string
  /** Sequence number of the producing record (the harness event seq). */
  readonly seq?: number
  /** Identity in the producer's namespace (a message id, a source node id). */
  readonly ref?: string
  /** Session the origin lives in, when it is not this tree's session. */
  readonly sessionId?: string
  /** Producer-side kind, e.g. the harness message source (`user`, `plugin`, `model`, `tool`). */
  readonly kind?: string
  /** True for prompts a plugin or skill injected (not typed by a person). */
  readonly injected?: boolean
}

/** The fields every kind of entry shares. */
export interface EntryFields {
  /** Unique within the tree. */
  readonly nodeId: string
  /** `null` for a root; a tree may have several roots (jump to `null`, then append). */
  readonly parentId: string | null
  /** One-line human summary of the node (its text, truncated). */
  readonly summary: string
  /** ISO-8601 creation time. */
  readonly createdAt: string
  /** What the model reads for this node; absent for nodes the model never sees. */
  readonly message?: LlmMessage
  readonly content?: readonly ContentPart[]
  /** Model that produced the node (assistant messages, model changes). */
  readonly model?: string
  readonly provider?: string
  readonly usage?: Readonly<Record<string, JsonValue>>
  readonly cost?: number
  readonly error?: string
  readonly metadata?: Readonly<Record<string, JsonValue>>
  /** A bookmark name; unique within the tree. */
  readonly label?: string
  readonly origin?: NodeOrigin
}

/** What every entry but a compaction has: no `replaces`. */
interface PlainEntryFields extends EntryFields {
  readonly replaces?: never
}

/** A user, assistant or system message (or a tool message whose call is in its content). */
export interface MessageEntry extends PlainEntryFields {
  readonly type: 'message'
}

/** One tool invocation; its result is folded in once it exists (`message` is then the tool message). */
export interface ToolCallEntry extends PlainEntryFields {
  readonly type: 'tool_call'
}

/** A tool result whose call is not in the tree. */
export interface ToolResultEntry extends PlainEntryFields {
  readonly type: 'tool_result'
}

/** The model or provider changed here. */
export interface ModelChangeEntry extends PlainEntryFields {
  readonly type: 'model_change'
}

/** The harness compacted history here: this entry's message stands in for earlier ones. */
export interface CompactionEntry extends EntryFields {
  readonly type: 'compaction'
  /**
   * Ids of earlier nodes on this entry's path whose messages this entry's
   * `message` stands in for. The model history of any path through this node
   * holds this message where the first replaced one was, and none of the
   * replaced ones.
   */
  readonly replaces?: readonly string[]
}

/** A digest of an abandoned branch, for people and tools (never sent to the model). */
export interface BranchSummaryEntry extends PlainEntryFields {
  readonly type: 'branch_summary'
}

/** Anything else a producer keeps in the tree. */
export interface CustomEntry extends PlainEntryFields {
  readonly type: 'custom'
}

/**
 * One stored entry of the tree: what a node is, without anything derived from
 * its place in the tree. Entries are append-only: once created, only `label`
 * changes, and a tool-call entry gains its result (see `attachToolResult`).
 * Discriminated by `type`; only a compaction carries `replaces`.
 */
export type TreeEntry =
  MessageEntry | ToolCallEntry | ToolResultEntry | ModelChangeEntry | CompactionEntry | BranchSummaryEntry | CustomEntry

/**
 * A node as views serve it: its entry plus what its place in the tree says.
 * One flat interface rather than `TreeEntry & {...}`, so the wire (and the
 * generated remote client) keeps one object schema per node; read it as a
 * `TreeEntry` of the given `type` (`replaces` is only ever set on a compaction).
 */
export interface TreeNode extends EntryFields {
  readonly type: TreeEntryType
  /** Compaction nodes only: see `CompactionEntry.replaces`. */
  readonly replaces?: readonly string[]
  /** Lane name for display: the branch whose path holds this node ('' when none does). */
  readonly branch: string
  /** Number of direct children. */
  readonly forkCount?: number
}

/** A named branch: a movable pointer to its head node. */
export interface BranchOutline {
  readonly name: string
  readonly headId: string
  /** Set when the branch was summarized. */
  readonly summary?: BranchSummary
}

/** A branch with its whole root-to-head path (the seed contract's `list`). */
export interface BranchView extends BranchOutline {
  /** Root-to-head path of the branch. */
  readonly nodeIds: readonly string[]
}

export type { BranchSummary, SummaryFailure, SummaryUsage } from './summary-types.ts'
import type { BranchSummary } from './summary-types.ts'

/** Where a tree stands: its cursor, active branch and branch heads (what every view of it carries). */
export interface TreePlace {
  readonly sessionId: string
  readonly cursor: string | null
  readonly activeBranch: string
  readonly selectedNodeId?: string | null
  readonly branchHeads?: Readonly<Record<string, string>>
}

/** Full read view served to the panel. */
export interface SessionTreeView extends TreePlace {
  readonly nodes: readonly TreeNode[]
  readonly branches: readonly BranchView[]
}

/**
 * The tree without the branch paths: every node and where each branch ends.
 * What a panel needs, at O(nodes + branches) — `list` repeats each branch's
 * whole path, O(branches × depth).
 */
export interface SessionTreeOutline extends TreePlace {
  readonly nodes: readonly TreeNode[]
  readonly branches: readonly BranchOutline[]
}

/**
 * The outline as what changed since an earlier answer for the same tree
 * (`outlineChanges`): a jump or a label re-sends a few nodes, not all of them.
 * Apply it with `applyOutlineChanges` (`src/outline/`).
 */
export interface SessionTreeOutlineChanges extends TreePlace {
  readonly branches: readonly BranchOutline[]
  /** What to pass as `since` next time. */
  readonly version: string
  /** The `since` these changes apply to; null: `nodes` is the whole list (the `since` given was not this tree's). */
  readonly base: string | null
  /** How many nodes the tree holds now (a longer list held is cut to it first). */
  readonly nodeCount: number
  /** The positions (in creation order, ascending) of the nodes that changed or are new since `base`; empty when `base` is null. */
  readonly changedAt: readonly number[]
  /** The nodes at those positions, in the same order; every node when `base` is null. */
  readonly nodes: readonly TreeNode[]
}

/** Where a move leaves the tree: the cursor and the active branch. */
export interface JumpPlace {
  readonly cursor: string | null
  /** Active branch after the move. */
  readonly branch?: string
}

/** Result of a cursor move: the new cursor and the messages the model would read. */
export interface JumpView extends JumpPlace {
  readonly messages: readonly LlmMessage[]
}

/** Result of `fork`. */
export interface ForkView {
  readonly cursor: string
  readonly branch: string
  /** Direct children of the fork point before the next append. */
  readonly forkCount: number
}

/** Compact status of one tree. */
export interface SessionTreeSessionInfo {
  readonly sessionId: string
  readonly nodeCount: number
  readonly messageCount: number
  readonly branchCount: number
  readonly cursor: string | null
  readonly activeBranch: string
  readonly selectedNodeId?: string | null
  readonly branchHeads?: Readonly<Record<string, string>>
  readonly currentPathLength: number
  readonly usage?: Readonly<Record<string, number>>
  readonly tokenCount?: number
  readonly cost?: number
  /**
   * Seed 001's field, kept for its clients: always 1. The format `snapshot()`
   * writes is `SNAPSHOT_VERSION`.
   */
  readonly snapshotVersion: 1
  readonly labelCount?: number
  readonly canGoBack?: boolean
  readonly canGoForward?: boolean
  /** Where this tree was cloned from, if it was. */
  readonly clonedFrom?: { readonly sessionId: string; readonly nodeId: string | null }
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

/**
 * What `append` takes: the entry's own fields, each optional (`nodeId` minted, `parentId` the cursor, `null` a
 * new root, `createdAt` now, when absent), and where it goes (`type`, `branch`: must not exist yet when it
 * differs from the active branch; `replaces`: a compaction's, see `TreeEntry.replaces`).
 */
export interface AppendOptions extends Partial<Omit<EntryFields, 'message'>> {
  readonly type?: TreeEntryType
  readonly branch?: string
  readonly replaces?: readonly string[]
}

/** Where `jump` can go: a node id, `null` (before the first node), a label or a branch head. */
export type JumpTarget = string | null | { readonly label: string } | { readonly branch: string }

/** Options for cursor moves. */
export interface MoveOptions {
  /**
   * Record the move in navigation history (default true). Producers that
   * re-place the cursor to follow the harness pass false.
   */
  readonly record?: boolean
}

/** One message of an export: the message, plus the tool calls an assistant message made. */
export interface ExportedMessage extends LlmMessage {
  /** The calls an assistant message requested, in order (their results follow as `tool` messages). */
  readonly toolCalls?: readonly ExportedToolCall[]
}

export interface ExportedToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: JsonValue
}

/** A message plus the pointer to where the full branch still lives. */
export interface LinearExport {
  readonly sessionId: string
  /** The active path, exactly as the model reads it (tool calls included). */
  readonly messages: readonly ExportedMessage[]
  /** One digest per off-path branch: its summary, or an honest stub. */
  readonly branches: readonly BranchSummary[]
}

/** Input handed to a branch summarizer. */
export interface SummarizeRequest {
  readonly branch: string
  /** The branch rendered as `role: text` lines, root first. */
  readonly text: string
  readonly messages: readonly LlmMessage[]
  /** The entries behind `messages`, same order (origins tell typed prompts from injected context). */
  readonly entries: readonly TreeEntry[]
  /** Aborted when the summarizer exceeds its time budget. */
  readonly signal: AbortSignal
}

/** An injectable side-call that digests a branch; it may throw or hang: the tree copes. */
export interface BranchSummarizer {
  /** Model that writes the summaries, recorded on each one. */
  readonly model: string
  summarize(request: SummarizeRequest): Promise<string>
}
