/**
 * The neutral tree model every session format is read into and written from:
 * one `InterchangeTree` of nodes in source order, each with an id, a parent, a
 * time and one typed `Entry`. What the source's model saw is explicit on every
 * entry (`inContext`, `contextText`), so a writer needs no source rules; `raw`
 * keeps the source record so a same-format writer can be lossless.
 * Pure: it imports only the tree's own types, where a shape is the same (JSON, text and tool-call parts).
 */
import type { JsonValue, TextPart, ToolCallPart } from '../tree/types.ts'

/** Formats this package reads. */
export type SourceFormat = 'pi' | 'claude-code' | 'codex'
/** Formats this package writes. */
export type ExportFormat = 'pi' | 'claude-code' | 'markdown'

// ------------------------------------------------------------------ parts

/** Model reasoning. Kept in the tree and in exports; never sent to the DSH model. */
export interface ThinkingPart {
  readonly type: 'thinking'
  readonly text: string
  /** Provider signature (Anthropic) or encrypted payload marker; needed to replay to the same provider. */
  readonly signature?: string
  readonly redacted?: boolean
}

/** An image, by reference: its media type and where its bytes are (never dropped silently). */
export interface ImagePart {
  readonly type: 'image'
  readonly mediaType: string
  /** Base64 bytes when the source carried them inline. */
  readonly data?: string
  /** A URL or file path when the source referenced the image instead. */
  readonly url?: string
}

export type ContentPart = TextPart | ThinkingPart | ImagePart | ToolCallPart
/** What a user message or a tool result can hold. */
export type InputPart = TextPart | ImagePart

// ---------------------------------------------------------------- entries

/** A message typed by a person (`prompt`) or injected by the tool (`context`: instructions, environment, skills). */
export interface UserEntry {
  readonly kind: 'user'
  readonly parts: readonly InputPart[]
  readonly origin: 'prompt' | 'context'
}

export interface Usage {
  readonly input?: number
  readonly output?: number
  readonly cacheRead?: number
  readonly cacheWrite?: number
}

/** One model response (a Claude Code response split over several lines is merged into one). */
export interface AssistantEntry {
  readonly kind: 'assistant'
  readonly parts: readonly ContentPart[]
  readonly provider?: string
  readonly model?: string
  readonly usage?: Usage
  /** Why the response stopped, in the source's words (`stop`, `toolUse`, `end_turn`, …). */
  readonly stopReason?: string
  readonly error?: string
  /**
   * Set when the source tool never sends this response to its model again, with the reason
   * (Pi's provider layer leaves out answers that stopped with `error` or `aborted`).
   */
  readonly leftOut?: string
}

/** The result of one tool call (`callId` names the call part of an earlier assistant entry). */
export interface ToolResultEntry {
  readonly kind: 'tool_result'
  readonly callId: string
  readonly toolName?: string
  readonly parts: readonly InputPart[]
  readonly isError: boolean
}

/**
 * History compacted into a summary. `contextText` is the message the model
 * reads in place of everything on the path before `firstKept` (`null`: nothing
 * before the compaction is kept).
 */
export interface CompactionEntry {
  readonly kind: 'compaction'
  readonly summary: string
  readonly contextText: string
  readonly firstKept: string | null
  readonly tokensBefore?: number
}

/** A digest of a branch the conversation came back from; `contextText` when the model reads it. */
export interface BranchSummaryEntry {
  readonly kind: 'branch_summary'
  readonly summary: string
  readonly fromId: string | null
  readonly contextText?: string
}

export interface ModelChangeEntry {
  readonly kind: 'model_change'
  readonly provider: string
  readonly model: string
}

/** A label change: `label` null clears it. The last change per target wins. */
export interface LabelEntry {
  readonly kind: 'label'
  readonly target: string
  readonly label: string | null
}

/**
 * Anything else the source keeps in its tree, carried opaquely: extension
 * state, settings changes, session names, system notices. `contextText` is
 * set when the source's model reads it (as a user message).
 */
export interface CustomEntry {
  readonly kind: 'custom'
  /** The source's own type name (`thinking_level_change`, `custom:model-snapshot`, `system:local_command`). */
  readonly customType: string
  readonly summary: string
  readonly contextText?: string
  readonly data?: JsonValue
}

export type Entry =
  | UserEntry
  | AssistantEntry
  | ToolResultEntry
  | CompactionEntry
  | BranchSummaryEntry
  | ModelChangeEntry
  | LabelEntry
  | CustomEntry

/** One node of an imported tree. */
export interface InterchangeNode {
  /** Stable id in the source's namespace (derived from the line for formats without ids). */
  readonly id: string
  readonly parentId: string | null
  /** Milliseconds since the epoch. */
  readonly time: number
  readonly entry: Entry
  /** 1-based line of the source file the node came from (its first line when merged). */
  readonly line: number
  /** The source record(s), verbatim, for a lossless same-format export. */
  readonly raw?: readonly JsonValue[]
}

/** Source-level facts that are not nodes. */
export interface SessionMeta {
  /** `dsh` for a session made in DSH (an export source). */
  readonly format: SourceFormat | 'dsh'
  /** Format version detected (`3` for Pi v3, the Claude Code / Codex CLI version string). */
  readonly version: string
  readonly sessionId?: string
  readonly cwd?: string
  /** ISO creation time. */
  readonly createdAt?: string
  readonly title?: string
  /** The source's header record, verbatim (Pi). */
  readonly header?: JsonValue
}

/** A whole imported session: nodes with parents before children, and the position to continue from. */
/** A tree with the labels a writer keeps (by neutral node id): what the Markdown and Pi writers are given. */
export interface LabeledTree {
  readonly tree: InterchangeTree
  readonly labels: ReadonlyMap<string, string>
}

export interface InterchangeTree {
  readonly meta: SessionMeta
  readonly nodes: readonly InterchangeNode[]
  /** Where the conversation continues (the source's active leaf); null: before the first node. */
  readonly cursor: string | null
}

/** The active path: root to cursor (a parent the tree lacks ends it). */
export function activePath(tree: InterchangeTree, byId: ReadonlyMap<string, InterchangeNode>): InterchangeNode[] {
  const path: InterchangeNode[] = []
  for (let id = tree.cursor; id !== null;) {
    const node = byId.get(id)
    if (!node) break
    path.unshift(node)
    id = node.parentId
  }
  return path
}

// ------------------------------------------------------------------ report

/** A line of the source that did not become (all of) a node. */
export interface SkippedLine {
  readonly line: number
  readonly reason: string
}

/** What an import did, in numbers and with reasons. */
export interface ImportReport {
  readonly format: SourceFormat
  readonly version: string
  readonly lines: number
  readonly nodes: number
  /** Leaves: one branch per leaf. */
  readonly branches: number
  readonly labels: number
  readonly compactions: number
  readonly skipped: readonly SkippedLine[]
  /** Entry types kept as opaque custom nodes, with counts. */
  readonly opaque: Readonly<Record<string, number>>
  /** Source records that are not conversation nodes (titles, snapshots, progress), with counts. */
  readonly ignored: Readonly<Record<string, number>>
  /** Records recovered from torn lines (two records on one line, a truncated record). */
  readonly recovered: number
  /** Everything else worth knowing (merged messages, linked subagents, images kept by reference). */
  readonly notes: readonly string[]
}
