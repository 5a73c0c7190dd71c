/**
 * `TreeMove`, the value every caller (the remote methods, the model tools, `/tree`, the Tree tab, dsh-TUI)
 * hands the service: a cursor move (its kinds and their specs are the tree's, `tree/move.ts`) with the
 * choices of what it takes along, checked here. `docs/service.md` walks it.
 */
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import { describeBare, MOVE_SPECS, type CursorMove, type MoveKind, type MoveSpec } from '../tree/move.ts'
import { isRecord } from '../tree/validate.ts'
import type { SummaryChoice } from './wire.ts'
import type { ConflictChoice, RestoreChoice } from './workspace-wire.ts'

/** What a move takes along besides where it goes: the files, a summary of what it leaves. */
export interface MoveChoices {
  /** `conversation` (the default), `files` (the workspace only) or `both`. */
  readonly files?: RestoreChoice
  /** The decisions for files changed outside the agent (`{ path: '*' }` answers all); with `files`/`both` only. */
  readonly conflicts?: readonly ConflictChoice[]
  /** Summarize the part a jump or fork leaves (and carry it into the new path); none when absent. */
  readonly summary?: SummaryChoice
}

/** A cursor move (`tree/move.ts`) with what it takes along: the one value every caller hands the service. */
export type TreeMove = CursorMove & MoveChoices

/** A move as `restore`'s wire argument carries it (one flat object; `checkMove` reads it). */
export interface WireMove {
  readonly kind: MoveKind
  /** `jump` and `fork`: the node (`null` for `jump`: before the first node). */
  readonly nodeId?: string | null
  /** `fork`: the new branch's name. */
  readonly branch?: string
}

const FILES: readonly RestoreChoice[] = ['conversation', 'files', 'both']

/**
 * An unchecked move (a wire argument, a tool's) as a `TreeMove`: its kind's own fields, and the choices
 * given with it. The summary choice is checked where it is written (`branch-summary.ts`), the
 * conflicts where the files are (`workspace.ts`).
 */
export function checkMove(raw: unknown, where = ''): TreeResult<TreeMove> {
  if (!isRecord(raw)) return fail('INVALID_ARGUMENT', `${where || 'a move'} must be an object`)
  const kind = raw.kind
  if (typeof kind !== 'string' || !Object.hasOwn(MOVE_SPECS, kind))
    return fail('INVALID_ARGUMENT', `${where}kind must be jump, fork, back or forward`)
  const own = (MOVE_SPECS[kind as MoveKind] as MoveSpec<MoveKind>).check(raw, where)
  if (!own.ok) return own
  if (raw.files !== undefined && !FILES.includes(raw.files as RestoreChoice))
    return fail('INVALID_ARGUMENT', `${where}files must be conversation, files or both`)
  return ok({
    ...own.value,
    ...(raw.files === undefined ? {} : { files: raw.files as RestoreChoice }),
    ...(raw.conflicts === undefined ? {} : { conflicts: raw.conflicts as readonly ConflictChoice[] }),
    ...(raw.summary === undefined ? {} : { summary: raw.summary as SummaryChoice }),
  })
}

/** Whether the move takes the workspace files (then it is the workspace's `restore`). */
export function movesFiles(move: TreeMove): boolean {
  return move.files === 'files' || move.files === 'both'
}

/** The move with what it takes along (`, with the files`, `(files only)`, `, summarizing what it leaves`). */
export function describeMove(move: TreeMove): string {
  const files = move.files === 'both' ? ', with the files' : move.files === 'files' ? ' (files only)' : ''
  const summary =
    move.summary === undefined || move.summary.kind === 'none'
      ? ''
      : move.summary.carry
        ? ', carrying a summary of what it leaves'
        : ', summarizing what it leaves'
  return describeBare(move) + files + summary
}
