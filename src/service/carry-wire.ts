/**
 * Argument and result shapes of `carryPreview`, `carryDiff` and `carry`:
 * applying the file changes another branch made since the two paths parted to
 * the work tree at the current node (a three-way merge per file, see
 * `workspace/carry.ts`). Separate from the restore methods: a carry moves no
 * conversation, and its conflicts take other answers.
 */
import type { CarryDecision, CarryEntry } from '../workspace/carry.ts'
import type { BlockedFile, RestoreReport } from '../workspace/types.ts'
import type { WorkspaceStatus } from './workspace-wire.ts'
import type { BranchSummary } from '../tree/types.ts'
import type { SummaryChoice } from './wire.ts'

export type { CarryAction, CarryConflictReason, CarryDecision, CarryEntry } from '../workspace/carry.ts'

/** The answer for one conflicting file (`path: '*'` answers every conflict without its own). */
export interface CarryChoice {
  readonly path: string
  readonly decision: CarryDecision
}

export interface CarryRequest {
  /** The other node: a node id, a label or a branch name (its tip). */
  readonly from: string
  /**
   * Decisions for the preview's conflicts. A conflict without one refuses the
   * carry with `WORKSPACE_CONFLICT` (`details.conflicts` lists them) and changes nothing.
   */
  readonly conflicts?: readonly CarryChoice[]
  /**
   * That branch's summary too (the part since the paths parted), written as a
   * jump's is; `carry: true` puts it into the conversation here, after the
   * files are carried. Absent: none.
   */
  readonly summary?: SummaryChoice
}

/** Totals of a carry preview, per action. */
export interface CarryStat {
  readonly take: number
  readonly merge: number
  readonly conflict: number
  readonly kept: number
  readonly blocked: number
}

/** `carryPreview`: what a carry would do to each file; nothing is written. */
export interface CarryPreview {
  /** The other node (resolved from a label or branch name), and its branch when named by one. */
  readonly from: string
  readonly branch?: string
  /** Where the conversation is now: the files on disk are "mine". */
  readonly at: string | null
  /** Where the two paths parted (`null`: before the first node): the merge base. */
  readonly common: string | null
  readonly entries: readonly CarryEntry[]
  readonly blocked: readonly BlockedFile[]
  readonly stat: CarryStat
  readonly status: WorkspaceStatus
}

/** `carryDiff`: one file of a carry preview. */
export interface CarryDiff {
  readonly path: string
  /** What the other branch changed: a unified diff from the common node to the other node. */
  readonly theirs: string
  /** What the carry would write: a unified diff from now to the result (with markers for a text conflict). */
  readonly result: string
}

/** `carry`: the files report (a restore of the journal's, so Back undoes it) and what each file got. */
export interface CarryResult {
  readonly from: string
  /** The branch, when the carry named one. */
  readonly branch?: string
  readonly at: string | null
  readonly common: string | null
  readonly files: RestoreReport
  readonly taken: readonly string[]
  readonly merged: readonly string[]
  /** Written with conflict markers (decided `markers`). */
  readonly marked: readonly string[]
  /** Conflicts left as they are (decided `mine`). */
  readonly mine: readonly string[]
  /** The branch's summary, when asked for (`carriedNodeId`: the node that holds it in the conversation). */
  readonly summary?: BranchSummary
  /** The files were carried, but the summary could not be written or carried (why). */
  readonly summaryFailed?: { readonly code: string; readonly message: string }
}
