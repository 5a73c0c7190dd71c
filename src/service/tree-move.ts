/**
 * The one place a move is defined: `TreeMove`, the value every caller (the remote methods, the model tools,
 * `/tree`, the Tree tab, dsh-TUI) hands the service, and `MOVE_SPECS`, one entry per kind saying what it needs,
 * how it is checked, which tree operation runs it and how it reads in words. `docs/service.md` walks it.
 */
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import type { ForkView, JumpView } from '../tree/types.ts'
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

/** A cursor move, as a value. `nodeId` `null`: before the first node. */
export type TreeMove = (
  | { readonly kind: 'jump'; readonly nodeId: string | null }
  | { readonly kind: 'fork'; readonly nodeId: string; readonly branch: string }
  | { readonly kind: 'back' }
  | { readonly kind: 'forward' }
) &
  MoveChoices

export type MoveKind = TreeMove['kind']
export type MoveOf<K extends MoveKind> = Extract<TreeMove, { readonly kind: K }>

/** A move as `restore`'s wire argument carries it (one flat object; `checkMove` reads it). */
export interface WireMove {
  readonly kind: MoveKind
  /** `jump` and `fork`: the node (`null` for `jump`: before the first node). */
  readonly nodeId?: string | null
  /** `fork`: the new branch's name. */
  readonly branch?: string
}

/** One kind of move. */
export interface MoveSpec<K extends MoveKind> {
  /** `node`: it goes to the node it names; `history`: to the last position of its back/forward history. */
  readonly goes: 'node' | 'history'
  /** Whether it can summarize what it leaves (`summary`). */
  readonly summarizes: boolean
  /** Its own fields read from an unchecked argument (`where`: how the argument is named in the message). */
  readonly check: (raw: Record<string, unknown>, where: string) => TreeResult<MoveOf<K>>
  /** The tree operation, given the target already snapped to a complete cut point (`node` kinds). */
  readonly run: (tree: SessionTree, move: MoveOf<K>, target: string | null) => TreeResult<JumpView | ForkView>
  /** `jump to e3`, `fork branch "alt" at e3`, `back`, `forward`. */
  readonly words: (move: MoveOf<K>) => string
}

const quote = (text: string): string => JSON.stringify(text)

export const MOVE_SPECS: { readonly [K in MoveKind]: MoveSpec<K> } = {
  jump: {
    goes: 'node',
    summarizes: true,
    check: (raw, where) =>
      raw.nodeId === null || typeof raw.nodeId === 'string'
        ? ok({ kind: 'jump', nodeId: raw.nodeId })
        : fail('INVALID_ARGUMENT', `${where}nodeId must be a string or null`),
    run: (tree, _move, target) => tree.jump(target),
    words: (move) => `jump to ${move.nodeId ?? 'the start'}`,
  },
  fork: {
    goes: 'node',
    summarizes: true,
    check: (raw, where) => {
      if (typeof raw.nodeId !== 'string') return fail('INVALID_ARGUMENT', `${where}nodeId must be a string`)
      if (typeof raw.branch !== 'string') return fail('INVALID_ARGUMENT', `${where}branch must be a string`)
      return ok({ kind: 'fork', nodeId: raw.nodeId, branch: raw.branch })
    },
    run: (tree, move, target) => tree.fork(target!, move.branch),
    words: (move) => `fork branch ${quote(move.branch)} at ${move.nodeId}`,
  },
  back: {
    goes: 'history',
    summarizes: false,
    check: () => ok({ kind: 'back' }),
    run: (tree) => tree.back(),
    words: () => 'back',
  },
  forward: {
    goes: 'history',
    summarizes: false,
    check: () => ok({ kind: 'forward' }),
    run: (tree) => tree.forward(),
    words: () => 'forward',
  },
}

const specOf = <K extends MoveKind>(move: MoveOf<K>): MoveSpec<K> => MOVE_SPECS[move.kind as K] as MoveSpec<K>

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

/** The node a move names (`undefined`: a back/forward, which goes to a recorded position). */
export function namedNode(move: TreeMove): string | null | undefined {
  return move.kind === 'jump' || move.kind === 'fork' ? move.nodeId : undefined
}

/** The tree operation of a move, on its snapped target. */
export function runMove(tree: SessionTree, move: TreeMove, target: string | null): TreeResult<JumpView | ForkView> {
  return specOf(move).run(tree, move as never, target)
}

/** Where a move lands: the target, the node asked for when it was snapped, a back/forward's recorded branch. */
export interface Landing {
  readonly target: string | null
  readonly snappedFrom?: string
  readonly branch?: string
}

/**
 * Where a move would land in `tree`, without moving: the node it names (or the last position of its
 * history), snapped to the end of a tool exchange outside projection mode (a history never ends between a
 * call and its result). `check` judges a named node (the service's `checkNode`).
 */
export function landing(
  tree: SessionTree,
  move: TreeMove,
  snaps: boolean,
  check: (tree: SessionTree, nodeId: string) => TreeResult<string>,
): TreeResult<Landing> {
  let target: string | null
  let branch: string | undefined
  const named = namedNode(move)
  if (named !== undefined) {
    target = named
    if (target !== null) {
      const known = check(tree, target)
      if (!known.ok) return known
    }
  } else {
    const position = tree.navigation()[move.kind === 'back' ? 'back' : 'forward'].at(-1)
    if (!position)
      return fail(
        'HISTORY_EMPTY',
        move.kind === 'back' ? 'there is no earlier move to go back to' : 'there is no undone move to go forward to',
      )
    target = position.cursor
    branch = position.branch
  }
  const on = branch === undefined ? {} : { branch }
  if (!snaps || target === null) return ok({ target, ...on })
  const cut = tree.completeCutPoint(target)
  if (!cut.ok) return cut
  return ok(cut.value === target ? { target, ...on } : { target: cut.value, snappedFrom: target, ...on })
}

/** `jump to e3`, `fork branch "alt" at e3`, `back`, `forward`: the move alone. */
export function describeBare(move: TreeMove): string {
  return specOf(move).words(move as never)
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
