/**
 * The carry planner (pure): per tracked file, what applying another branch's
 * changes would do, from `base` (where the paths parted), `theirs` and `ours`
 * (on disk). One side changed it: that side; both: a line merge (`merge.ts`).
 * Binary files, delete-vs-change, an unknown base or an oversized result are
 * conflicts the user decides. Nothing is written here.
 */
import { merge3, type MergeLabels } from './merge.ts'
import { diffCounts } from './diff.ts'
import { sameState, type BlockedFile, type FileState } from './types.ts'

/** What a carry does to one file. */
export type CarryAction =
  /** Only the other branch changed it: its version is written. */
  | 'take'
  /** Both changed it in separate lines: the merge is written. */
  | 'merge'
  /** Both changed it where they overlap, or it cannot be merged line by line: the user decides. */
  | 'conflict'
  /** Only this branch changed it (or both made the same change): left as it is. */
  | 'kept'

/** Why a carried file is a conflict. */
export type CarryConflictReason =
  /** Text changed by both sides in overlapping lines. */
  | 'text'
  /** A side is binary: no line merge. */
  | 'binary'
  /** One side deleted it, the other changed it. */
  | 'deleted-modified'
  /** Its state where the paths parted is unknown or was not checkpointed. */
  | 'base-unknown'
  /** The merge would be over the size limit. */
  | 'too-large'

/** A conflict's answer: the file as it is, the other branch's version, or (text) the merge with markers. */
export type CarryDecision = 'mine' | 'theirs' | 'markers'

export interface CarryEntry {
  readonly path: string
  readonly action: CarryAction
  /** The file where the paths parted (absent: unknown there). */
  readonly base?: FileState
  /** The file at the other node. */
  readonly theirs: FileState
  /** The file now. */
  readonly ours: FileState
  /** What `take` and `merge` write, and what `markers` writes for a text conflict. */
  readonly result?: FileState
  readonly reason?: CarryConflictReason
  /** Conflicting regions of a text conflict. */
  readonly hunks?: number
  /** Lines added and removed going from now to `result` (0 when not text). */
  readonly insertions: number
  readonly deletions: number
}

/** What carrying would do. */
export interface CarryPlan {
  /** Every file either side changed since the paths parted, sorted by path. */
  readonly entries: readonly CarryEntry[]
  /** Files whose state at the other node (or now) cannot be carried, with why. */
  readonly blocked: readonly BlockedFile[]
}

export interface CarryInput {
  readonly paths: readonly string[]
  /** The states at the common node and at the other node (undefined: unknown). */
  readonly baseOf: (path: string) => FileState | undefined
  readonly theirsOf: (path: string) => FileState | undefined
  readonly oursOf: (path: string) => FileState
  /** The text of a stored or current state (undefined: binary or unreadable). */
  readonly textOf: (state: FileState & { kind: 'file' }, path: string, side: 'ours' | 'other') => string | undefined
  /** The state of merged bytes (stores nothing: hashing only). */
  readonly stateOf: (text: string, exec: boolean) => FileState & { kind: 'file' }
  readonly maxFileBytes: number
  readonly labels: MergeLabels
}

const execOf = (state: FileState): boolean => state.kind === 'file' && state.exec === true

export function planCarry(input: CarryInput): CarryPlan & { readonly contents: ReadonlyMap<string, string> } {
  const entries: CarryEntry[] = []
  const blocked: BlockedFile[] = []
  const contents = new Map<string, string>()
  for (const path of input.paths) {
    const base = input.baseOf(path)
    const theirs = input.theirsOf(path)
    const ours = input.oursOf(path)
    const known = base === undefined ? {} : { base }
    if (theirs === undefined || theirs.kind === 'skipped') {
      // Unchanged but never checkpointed on both sides is not news; anything else cannot be carried.
      const same = base?.kind === 'skipped' && theirs?.kind === 'skipped' && base.size === theirs.size
      if (!same)
        blocked.push({
          path,
          reason: theirs === undefined ? 'target-unknown' : 'target-not-checkpointed',
          current: ours,
          ...(theirs === undefined ? {} : { target: theirs }),
        })
      continue
    }
    const counts = { insertions: 0, deletions: 0 }
    const changedByThem = base === undefined || !sameState(base, theirs)
    const changedByUs = base === undefined || !sameState(base, ours)
    if (!changedByThem) {
      if (changedByUs) entries.push({ path, action: 'kept', ...known, theirs, ours, ...counts })
      continue
    }
    if (sameState(ours, theirs)) {
      entries.push({ path, action: 'kept', ...known, theirs, ours, ...counts })
      continue
    }
    if (ours.kind === 'skipped') {
      blocked.push({ path, reason: 'current-not-replaceable', current: ours, target: theirs })
      continue
    }
    const oursText = ours.kind === 'file' ? input.textOf(ours, path, 'ours') : ''
    const theirsText = theirs.kind === 'file' ? input.textOf(theirs, path, 'other') : ''
    const withCounts = (text: string | undefined) =>
      oursText === undefined || text === undefined ? counts : diffCounts(oursText, text)
    if (!changedByUs) {
      entries.push({ path, action: 'take', ...known, theirs, ours, result: theirs, ...withCounts(theirsText) })
      continue
    }
    const conflict = (reason: CarryConflictReason, extra: Partial<CarryEntry> = {}): void => {
      entries.push({ path, action: 'conflict', ...known, theirs, ours, reason, ...counts, ...extra })
    }
    if (base === undefined || base.kind === 'skipped') {
      conflict('base-unknown')
      continue
    }
    if (ours.kind === 'absent' || theirs.kind === 'absent') {
      conflict('deleted-modified')
      continue
    }
    const baseText = base.kind === 'file' ? input.textOf(base, path, 'other') : ''
    if (baseText === undefined || oursText === undefined || theirsText === undefined) {
      conflict('binary')
      continue
    }
    const merged = merge3(baseText, oursText, theirsText, input.labels)
    // The execute bit follows whoever changed it.
    const exec = execOf(ours) === execOf(base) ? execOf(theirs) : execOf(ours)
    const result = input.stateOf(merged.text, exec)
    if (result.size > input.maxFileBytes) {
      conflict('too-large')
      continue
    }
    contents.set(path, merged.text)
    const diff = diffCounts(oursText, merged.text)
    if (merged.conflicts === 0) entries.push({ path, action: 'merge', ...known, theirs, ours, result, ...diff })
    else conflict('text', { result, hunks: merged.conflicts, ...diff })
  }
  return { entries, blocked, contents }
}

/** The decisions a conflict can take: markers only where there is a text merge to mark. */
export function decisionsFor(entry: CarryEntry): readonly CarryDecision[] {
  return entry.reason === 'text' ? ['mine', 'theirs', 'markers'] : ['mine', 'theirs']
}

/** What a carry writes to a file with `decision` (undefined: nothing). */
export function carriedState(entry: CarryEntry, decision: CarryDecision | undefined): FileState | undefined {
  if (entry.action === 'take' || entry.action === 'merge') return entry.result
  if (entry.action !== 'conflict' || decision === undefined || decision === 'mine') return undefined
  return decision === 'theirs' ? entry.theirs : entry.result
}
