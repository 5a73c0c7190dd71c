/**
 * Argument and result shapes of the workspace methods of `sessionTree`
 * (`files`, `filesAt`, `fileAt`, `restorePreview`, `restoreDiff`,
 * `restore`). Separate methods, so the seed contract's `jump`/`fork`/`back`/
 * `forward` stay exactly as they were: a move that takes the files with it is
 * a `restore` call.
 */
import type {
  ConflictDecision,
  FileCompareDiff,
  FileComparison,
  FileDiff,
  FileState,
  RestorePlan,
  RestoreReport,
  ShellTracking,
} from '../workspace/types.ts'

export type { FileCompareDiff, FileComparison, FileDiff }
import type { MoveBrief, MoveResult } from './wire.ts'
import type { WireMove } from './tree-move.ts'

/** What a move takes along: the conversation (as `jump` does), the files, or both. */
export type RestoreChoice = 'conversation' | 'files' | 'both'

/** The user's answer for one conflicting file. */
export interface ConflictChoice {
  readonly path: string
  readonly decision: ConflictDecision
}

export interface RestoreRequest {
  /** The move (`tree-move.ts`), as the wire carries it. */
  readonly move: WireMove
  readonly restore: RestoreChoice
  /**
   * Decisions for the preview's conflicts. A conflict without one refuses the
   * restore with `WORKSPACE_CONFLICT` (its `details.conflicts` lists them) and
   * changes nothing. `{ path: '*', decision }` answers every conflict.
   */
  readonly conflicts?: readonly ConflictChoice[]
}

/** A restore cut short (a crash): repeat the restore to finish it. */
export interface InterruptedRestore {
  readonly id: string
  readonly target: string | null
  readonly files: number
}

/** How a session's files are checkpointed. */
export interface WorkspaceStatus {
  readonly available: boolean
  /** Why checkpoints are off (when `available` is false). */
  readonly reason?: string
  /** The directory stored paths are relative to (the git top level in a git work tree). */
  readonly root?: string
  readonly shell?: ShellTracking
  /** What happens to shell commands' changes, in plain words. */
  readonly shellNote: string
  readonly maxFileBytes: number
  /** Paths with checkpoints. */
  readonly tracked: number
  readonly interrupted: readonly InterruptedRestore[]
  readonly problems: readonly string[]
}

/** The files one tool or shell call node changed (what a marker counts). */
export interface NodeFiles {
  readonly nodeId: string
  readonly paths: readonly string[]
}

export interface RestoreSummary {
  readonly id: string
  readonly target: string | null
  readonly paths: readonly string[]
  readonly kept: readonly string[]
  readonly complete: boolean
}

/** `files`: the status, every node that changed files, every restore. */
export interface WorkspaceOverview {
  readonly status: WorkspaceStatus
  readonly nodes: readonly NodeFiles[]
  readonly restores: readonly RestoreSummary[]
}

export interface FileAtNode {
  readonly path: string
  /** Absent: unknown (a change's after-image was never written). */
  readonly state?: FileState
  /** The file now differs from this state. */
  readonly differs: boolean
}

/** `filesAt`: every tracked file as it was at a node. */
export interface FilesAtNode {
  readonly nodeId: string | null
  readonly files: readonly FileAtNode[]
}

/** `fileAt`: one file's content at a node. */
export interface FileContent {
  readonly nodeId: string | null
  readonly path: string
  readonly state?: FileState
  /** The UTF-8 text, when the file existed there and was checkpointed. */
  readonly text?: string
  /** Why there is no text (absent, not checkpointed, unknown). */
  readonly note?: string
}

/** `restorePreview`: what a move would do to the files; nothing is written. */
export interface RestorePreview {
  /** The node the move lands on: its files are the target. */
  readonly target: string | null
  /** The node asked for, when it sat inside a tool exchange. */
  readonly snappedFrom?: string
  readonly plan: RestorePlan
  readonly status: WorkspaceStatus
}

/** `compareFiles`: the tracked files whose checkpointed states differ between node `a` and node `b`. */
export interface FilesComparison {
  readonly a: string | null
  readonly b: string | null
  /** Sorted by path; a file the same at both nodes is left out. */
  readonly files: readonly FileComparison[]
  /** Files tracked in the session (the ones compared). */
  readonly tracked: number
}

/** What a restore did: the choice, the node, and the files report (unless conversation only). */
export interface RestoreOutcome {
  readonly restore: RestoreChoice
  readonly target: string | null
  readonly files?: RestoreReport
}

/** A restore in process (`ctx.sessionTree.move`): with the conversation move (unless files only) and its history. */
export interface RestoreResult extends RestoreOutcome {
  readonly move?: MoveResult
}

/** `restore`'s remote answer: the conversation move without the model's history (megabytes on a long session). */
export interface RestoreAnswer extends RestoreOutcome {
  readonly move?: MoveBrief
}
