/**
 * The durable formats of a tree: the snapshot (its whole state, versioned),
 * the operation log a journal is made of, and the cursor positions both hold.
 * Plain JSON throughout.
 */
import type { BranchSummary, ContentPart, EntryFields, TreeEntry } from './types.ts'

/** One cursor position: where navigation history can return to. */
export interface TreePosition {
  readonly cursor: string | null
  readonly branch: string
}

/** Navigation history: positions left by explicit moves (browser-style back/forward). */
export interface NavigationHistory {
  readonly back: readonly TreePosition[]
  readonly forward: readonly TreePosition[]
}

/** Version of the snapshot format `snapshot()` writes (and the only one that loads). */
export const SNAPSHOT_VERSION = 2 as const

/**
 * A tree's marks: everything but its nodes (`SessionTree.marks()`, `withMarks`). One shape for the snapshot's
 * fields and the sidecar overlay's.
 */
export interface TreeMarks {
  /** Node id → label, laid over the nodes' own labels. */
  readonly labels: Readonly<Record<string, string>>
  /** [branch name, head node id], in branch creation order (an array: names like "10" keep their place). */
  readonly branches: readonly (readonly [string, string])[]
  readonly activeBranch: string
  readonly cursor: string | null
  readonly selectedNodeId: string | null
  readonly summaries: readonly BranchSummary[]
  readonly history: NavigationHistory
}

/** What a snapshot holds besides its nodes: the marks (labels ride in the rows) and where it stands in the log. */
interface SnapshotMarks extends Omit<TreeMarks, 'labels'> {
  readonly sessionId: string
  /** Sequence number of the last log entry folded into this snapshot. */
  readonly logSeq: number
  readonly clonedFrom?: { readonly sessionId: string; readonly nodeId: string | null }
}

/**
 * Durable, versioned, complete state of one tree (format 2). Each node is
 * one row, in creation order, and a message's text is written once: a
 * content part that repeats it and a summary its content implies are left
 * out, parents are row offsets, times are deltas.
 */
export interface SessionTreeSnapshot extends SnapshotMarks {
  readonly version: typeof SNAPSHOT_VERSION
  readonly nodes: readonly SnapshotRow[]
}

/**
 * One node of a format 2 snapshot: `[nodeId, parent, type, time, role, text, extra]`, trailing elements left out
 * when empty. `parent` is how many rows back the parent is (0: a root), `time` milliseconds after the previous
 * row's (or the ISO text, when `Date#toISOString` would not write it that way), `role` and `text` the message
 * (`null`: none), `extra` the entry's other fields (docs/tree-api.md, "Snapshot format 2").
 */
export type SnapshotRow = readonly (string | number | null | SnapshotExtra)[]

/** The fields of a row beyond its message, under their entry names (`name`, `toolCallId`: the message's). */
export interface SnapshotExtra extends Pick<
  EntryFields,
  'model' | 'provider' | 'usage' | 'cost' | 'error' | 'metadata' | 'label' | 'origin'
> {
  readonly name?: string
  readonly toolCallId?: string
  /** Parts as the entry has them, except that a text (or result) equal to the message text leaves it out. */
  readonly content?: readonly SnapshotPart[]
  readonly replaces?: readonly string[]
  /** Only when it is not the summary the content implies. */
  readonly summary?: string
}

/** A content part in a snapshot row: as in the entry, or without the text it shares with the message. */
export type SnapshotPart =
  | ContentPart
  | { readonly type: 'text' }
  | { readonly type: 'tool_result'; readonly toolCallId: string; readonly isError?: boolean }

/**
 * One entry of the tree's operation log. Replaying a log on the snapshot it
 * started from reproduces the tree exactly; the sidecar journal is made of these.
 */
export type SessionTreeLogEntry = { readonly seq: number; readonly at: string } & SessionTreeOp

/** The operations a log can hold: commands, replayed through the same code paths. */
export type SessionTreeOp =
  | { readonly op: 'append'; readonly node: TreeEntry; readonly branch?: string }
  | { readonly op: 'attach'; readonly node: TreeEntry }
  | { readonly op: 'jump'; readonly target: string | null; readonly record: boolean }
  | { readonly op: 'fork'; readonly target: string; readonly branch: string }
  | { readonly op: 'switch'; readonly branch: string; readonly record: boolean }
  | { readonly op: 'label'; readonly nodeId: string; readonly label: string | null }
  | { readonly op: 'select'; readonly nodeId: string | null }
  | { readonly op: 'summary'; readonly summary: BranchSummary }
  | { readonly op: 'back' }
  | { readonly op: 'forward' }
