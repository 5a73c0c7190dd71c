/**
 * The restore planner (pure): from each file now, at the target and as the
 * agent last wrote it, the files to create, update or delete. A file the agent
 * did not leave that way was changed outside it: a conflict, never a silent
 * overwrite. Files that cannot or must not be restored are listed as blocked.
 */
import type { Expected } from './timeline.ts'
import {
  sameState,
  type BlockedFile,
  type Conflict,
  type DiffStat,
  type FileState,
  type PlanEntry,
  type RestoreAction,
  type RestorePlan,
} from './types.ts'

export interface PlanInput {
  readonly target: string | null
  /** Every tracked path. */
  readonly paths: readonly string[]
  /** The file at the target point (undefined: unknown). */
  readonly targetOf: (path: string) => FileState | undefined
  /** What the file should be now (undefined: never written by the agent). */
  readonly expectedOf: (path: string) => Expected | undefined
  /** What the file is now. */
  readonly currentOf: (path: string) => FileState
}

function actionFor(current: FileState, target: FileState): RestoreAction {
  if (target.kind === 'absent') return 'delete'
  return current.kind === 'absent' ? 'create' : 'update'
}

export function planRestore(input: PlanInput): RestorePlan {
  const entries: PlanEntry[] = []
  const conflicts: Conflict[] = []
  const blocked: BlockedFile[] = []
  for (const path of input.paths) {
    const current = input.currentOf(path)
    const target = input.targetOf(path)
    if (target !== undefined && sameState(current, target)) continue
    if (target === undefined) {
      blocked.push({ path, reason: 'target-unknown', current })
      continue
    }
    if (target.kind === 'skipped') {
      blocked.push({ path, reason: 'target-not-checkpointed', current, target })
      continue
    }
    // What is there now must be checkpointable before it is replaced.
    if (current.kind === 'skipped') {
      blocked.push({ path, reason: 'current-not-replaceable', current, target })
      continue
    }
    const entry: PlanEntry = { path, action: actionFor(current, target), current, target, insertions: 0, deletions: 0 }
    const expected = input.expectedOf(path)
    if (expected !== undefined && expected.states.some((state) => sameState(state, current))) {
      entries.push(entry)
      continue
    }
    const reason = expected?.unknown ? 'unknown-since-checkpoint' : 'changed-outside'
    const known = expected?.unknown ? undefined : expected?.states[0]
    conflicts.push(known === undefined ? { ...entry, reason } : { ...entry, reason, expected: known })
  }
  return { target: input.target, entries, conflicts, blocked, stat: statOf([...entries, ...conflicts]) }
}

/** Totals over plan entries. */
export function statOf(entries: readonly PlanEntry[]): DiffStat {
  let created = 0
  let updated = 0
  let deleted = 0
  let insertions = 0
  let deletions = 0
  for (const entry of entries) {
    if (entry.action === 'create') created++
    else if (entry.action === 'update') updated++
    else deleted++
    insertions += entry.insertions
    deletions += entry.deletions
  }
  return { files: entries.length, created, updated, deleted, insertions, deletions }
}
