/**
 * The simulated workspace of the workspace property tests: three paths, a file's content as its fake hash, and
 * the steps the runs draw (a tool call's writes, a user's edit, a restore some nodes back).
 */
import fc from 'fast-check'
import type { FileState, SingleOp } from '../../src/workspace/types.ts'

export const PATHS = ['a', 'b', 'c'] as const
/** Path → content (null: absent). */
export type World = Map<string, string | null>

/** The timeline's state of a content: the content padded to a 64-character "hash". */
export const state = (content: string | null | undefined): FileState =>
  content === null || content === undefined
    ? { kind: 'absent' }
    : { kind: 'file', hash: content.padEnd(64, '0').slice(0, 64), size: content.length }
/** The content a state stands for. */
export const contentOf = (s: FileState): string | null => (s.kind === 'file' ? s.hash.replace(/0+$/, '') : null)

/** Call `seq`'s capture of `path` right before it writes there (`world` as it stands then). */
export const beforeOp = (seq: number, path: string, world: World): SingleOp => ({
  t: 'before',
  key: 2 * seq,
  node: `e${seq}`,
  call: `call-${seq}`,
  tool: 'write',
  path,
  state: state(world.get(path)),
})
/** Call `seq`'s captures once it wrote: one for each path of `step`, in the order first written. */
export const afterOps = (seq: number, step: CallStep, world: World): SingleOp[] =>
  [...new Set(step.writes.map(([i]) => PATHS[i]!))].map((path) => ({
    t: 'after',
    key: 2 * seq,
    call: `call-${seq}`,
    path,
    state: state(world.get(path)),
  }))

export type CallStep = { readonly kind: 'call'; readonly writes: ReadonlyArray<readonly [number, string | null]> }
export type UserStep = { readonly kind: 'user'; readonly path: number; readonly content: string | null }
export type RestoreBack = { readonly kind: 'restore'; readonly back: number }

export const hex = fc.constantFrom('a1', 'b2', 'c3', 'd4', 'e5', 'f6')
/** A tool call writing (or deleting) one to three of the paths. */
export const callStep: fc.Arbitrary<CallStep> = fc.record({
  kind: fc.constant('call' as const),
  writes: fc.array(fc.tuple(fc.nat(2), fc.option(hex, { nil: null })), { minLength: 1, maxLength: 3 }),
})
/** The user writing (or deleting) one path behind the agent's back. */
export const userStep: fc.Arbitrary<UserStep> = fc.record({
  kind: fc.constant('user' as const),
  path: fc.nat(2),
  content: fc.option(hex, { nil: null }),
})
/** A restore to a node up to `most` nodes back. */
export const restoreBack = (most: number): fc.Arbitrary<RestoreBack> =>
  fc.record({ kind: fc.constant('restore' as const), back: fc.nat(most) })
