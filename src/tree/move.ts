/**
 * A cursor move as a value: `CursorMove`, and `MOVE_SPECS`, one entry per kind saying where it goes, how its
 * own fields are checked, which tree operation runs it and how it reads in words. What a move takes along
 * (the files, a summary) is the service's (`service/tree-move.ts`), which kinds may summarize is `summary-rules.ts`'s;
 * `docs/service.md` walks a move end to end.
 */
import { fail, ok, type TreeResult } from './errors.ts'
import type { SessionTree } from './session-tree.ts'
import type { ForkView, JumpView } from './types.ts'
import { checkNode } from './validate.ts'

/** `nodeId` `null`: before the first node. */
export type CursorMove =
  | { readonly kind: 'jump'; readonly nodeId: string | null }
  | { readonly kind: 'fork'; readonly nodeId: string; readonly branch: string }
  | { readonly kind: 'back' }
  | { readonly kind: 'forward' }

export type MoveKind = CursorMove['kind']
export type MoveOf<K extends MoveKind> = Extract<CursorMove, { readonly kind: K }>

/** One kind of move. */
export interface MoveSpec<K extends MoveKind> {
  /** `node`: it goes to the node it names; `history`: to the last position of its back/forward history. */
  readonly goes: 'node' | 'history'
  /** Its own fields read from an unchecked argument (`where`: how the argument is named in the message). */
  readonly check: (raw: Record<string, unknown>, where: string) => TreeResult<MoveOf<K>>
  /** The tree operation, given the target already snapped to a complete cut point (`node` kinds). */
  readonly run: (tree: SessionTree, move: MoveOf<K>, target: string | null) => TreeResult<JumpView | ForkView>
  /** `jump to e3`, `fork branch "alt" at e3`, `back`, `forward`. */
  readonly words: (move: MoveOf<K>) => string
}

const quote = (text: string): string => JSON.stringify(text)

/** `back` and `forward`: a step through the navigation history, named as the tree method that takes it. */
function historyStep<K extends 'back' | 'forward'>(kind: K): MoveSpec<K> {
  return {
    goes: 'history',
    check: () => ok({ kind } as MoveOf<K>),
    run: (tree) => tree[kind](),
    words: () => kind,
  }
}

export const MOVE_SPECS: { readonly [K in MoveKind]: MoveSpec<K> } = {
  jump: {
    goes: 'node',
    check: (raw, where) =>
      raw.nodeId === null || typeof raw.nodeId === 'string'
        ? ok({ kind: 'jump', nodeId: raw.nodeId })
        : fail('INVALID_ARGUMENT', `${where}nodeId must be a string or null`),
    run: (tree, _move, target) => tree.jump(target),
    words: (move) => `jump to ${move.nodeId ?? 'the start'}`,
  },
  fork: {
    goes: 'node',
    check: (raw, where) => {
      if (typeof raw.nodeId !== 'string') return fail('INVALID_ARGUMENT', `${where}nodeId must be a string`)
      if (typeof raw.branch !== 'string') return fail('INVALID_ARGUMENT', `${where}branch must be a string`)
      return ok({ kind: 'fork', nodeId: raw.nodeId, branch: raw.branch })
    },
    run: (tree, move, target) => tree.fork(target!, move.branch),
    words: (move) => `fork branch ${quote(move.branch)} at ${move.nodeId}`,
  },
  back: historyStep('back'),
  forward: historyStep('forward'),
}

const specOf = <K extends MoveKind>(move: MoveOf<K>): MoveSpec<K> => MOVE_SPECS[move.kind as K] as MoveSpec<K>

/** The node a move names (`undefined`: a back/forward, which goes to a recorded position). */
export function namedNode(move: CursorMove): string | null | undefined {
  return move.kind === 'jump' || move.kind === 'fork' ? move.nodeId : undefined
}

/** `jump to e3`, `fork branch "alt" at e3`, `back`, `forward`: the move alone. */
export function describeBare(move: CursorMove): string {
  return specOf(move).words(move as never)
}

/** Where a move lands: the target, the node asked for when it was snapped, a back/forward's recorded branch. */
export interface Landing {
  readonly target: string | null
  readonly snappedFrom?: string
  readonly branch?: string
}

/**
 * Where a move would land in `tree`, without moving: the node it names (or the last position of its
 * history), snapped to the end of a tool exchange when `snaps` (a model history never ends between a
 * call and its result). A named node is judged by `checkNode`.
 */
export function landing(tree: SessionTree, move: CursorMove, snaps: boolean): TreeResult<Landing> {
  let target: string | null
  let branch: string | undefined
  const named = namedNode(move)
  if (named !== undefined) {
    target = named
    if (target !== null) {
      const known = checkNode(tree, target)
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

/** What a move did: where the cursor is, the node asked for when the move was snapped, the operation's view. */
export interface Moved {
  readonly destination: string | null
  readonly snappedFrom?: string
  readonly view: JumpView | ForkView
}

/**
 * Run a move on `tree`: a named node's kind on `at` (its `landing`), a back/forward on its history, which
 * then ends at the nearest complete cut point when `snaps` (the recorded position may sit inside a tool
 * exchange that has grown since). A failure may leave the tree half-moved: the caller rolls it back.
 */
export function runMove(tree: SessionTree, move: CursorMove, at: Landing, snaps: boolean): TreeResult<Moved> {
  const ran = specOf(move).run(tree, move as never, at.target)
  if (!ran.ok) return ran
  const destination = tree.cursor
  const snappedFrom = at.snappedFrom === undefined ? {} : { snappedFrom: at.snappedFrom }
  if (!snaps || namedNode(move) !== undefined || destination === null)
    return ok({ destination, view: ran.value, ...snappedFrom })
  const cut = tree.completeCutPoint(destination)
  if (!cut.ok) return cut
  if (cut.value === destination) return ok({ destination, view: ran.value })
  const settled = tree.moveCursor(cut.value, { record: false })
  if (!settled.ok) return settled
  return ok({ destination: cut.value, snappedFrom: destination, view: ran.value })
}
