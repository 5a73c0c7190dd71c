/**
 * Every rule on the branch summary a move may take along, one place for the Tree tab, the terminal and the
 * service: which moves summarize, whether a move leaves part of the path, what a custom summary's instructions
 * must be, where a summary can be carried, and the texts these rules fail with. `docs/summaries.md` tells it.
 */
import { fail, ok, type TreeResult } from './errors.ts'
import type { MoveKind } from './move.ts'

/** Which moves leave a part behind that a summary can describe (back/forward go to a recorded position). */
export const SUMMARIZING_MOVES: { readonly [K in MoveKind]: boolean } = {
  jump: true,
  fork: true,
  back: false,
  forward: false,
}

/** What a move to a target leaves of the cursor's path: its nodes, cursor first, and where it leaves from. */
export interface LeftBehind {
  readonly left: readonly string[]
  /** The last node the cursor's path shares with the target's (`null`: none, the part starts at the root). */
  readonly from: string | null
}

/**
 * The part of the cursor's path a move to `target` (`null`: before the first node) leaves: the cursor's path
 * after the last node it shares with the target's. Nothing when the cursor is on the target's path, or is
 * before the first node. `parentOf` reads the tree (the service's) or the outline (the panel's).
 */
export function leftBehind(
  cursor: string | null,
  target: string | null,
  parentOf: (nodeId: string) => string | null | undefined,
): LeftBehind {
  const onTarget = new Set<string>()
  // A repeated node ends a walk: a cyclic outline cannot hang the panel.
  for (let id = target; id !== null && !onTarget.has(id); id = parentOf(id) ?? null) onTarget.add(id)
  const left: string[] = []
  const seen = new Set<string>()
  let from: string | null = cursor
  for (; from !== null && !onTarget.has(from) && !seen.has(from); from = parentOf(from) ?? null) {
    seen.add(from)
    left.push(from)
  }
  return { left, from: from !== null && onTarget.has(from) ? from : null }
}

/** Whether a move to `target` leaves part of the cursor's path behind (then a summary has something to cover). */
export function leavesPath(
  cursor: string | null,
  target: string | null,
  parentOf: (nodeId: string) => string | null | undefined,
  onCursorPath?: (nodeId: string) => boolean,
): boolean {
  // `leftBehind`'s rule read without building it (the panel asks on every render): left iff the cursor is not on
  // the target's path. A second walker at half speed ends a cyclic outline's walk without a set. `onCursorPath`
  // (root → cursor, when the caller holds it) ends the walk where it meets that path: there, above the cursor.
  if (cursor === null) return false
  let slow = target
  let steps = 0
  for (let at = target; at !== null;) {
    if (at === cursor) return false
    if (onCursorPath?.(at)) return true
    at = parentOf(at) ?? null
    // `slow` is `steps / 2` nodes up: behind `at`, so set while `at` is.
    if (++steps % 2 === 0 && at !== null) {
      slow = parentOf(slow!) ?? null
      if (at === slow) return true
    }
  }
  return true
}

/** Longest accepted user instructions for a model-written summary (the panel checks it before a round trip). */
export const MAX_SUMMARY_INSTRUCTIONS = 2_000

/** Why a custom summary's instructions are refused: none (or only spaces), or too long. */
export type InstructionsProblem = 'required' | 'tooLong'

/** What is wrong with a custom summary's instructions, if anything. */
export function instructionsProblem(instructions: unknown): InstructionsProblem | undefined {
  if (typeof instructions !== 'string' || instructions.trim() === '') return 'required'
  return instructions.length > MAX_SUMMARY_INSTRUCTIONS ? 'tooLong' : undefined
}

/** What a caller is told when the instructions of a `custom` summary are refused (`INVALID_ARGUMENT`). */
export const INSTRUCTIONS_REFUSALS: { readonly [P in InstructionsProblem]: string } = {
  required: 'summary.instructions must be a non-empty string for kind "custom"',
  tooLong: `summary.instructions is longer than ${MAX_SUMMARY_INSTRUCTIONS} characters`,
}

/** A custom summary's instructions as given, or `INVALID_ARGUMENT` saying what is wrong with them. */
export function checkInstructions(instructions: unknown): TreeResult<string> {
  const problem = instructionsProblem(instructions)
  return problem === undefined ? ok(instructions as string) : fail('INVALID_ARGUMENT', INSTRUCTIONS_REFUSALS[problem])
}

/** Whether a summary can be carried into the model history in a surface mode: not in projection mode. */
export function canCarry(mode: string | undefined): boolean {
  return mode !== 'projection'
}

/**
 * Why a carried summary is refused in projection mode, per call that asks for one (a move; a files carry,
 * refused before any file is written); the service fails with it as `SURFACE_UNAVAILABLE`, a surface code.
 */
export const CARRY_REFUSALS = {
  move: 'a summary cannot be carried into the model history in projection mode (nothing changes what the model reads there); keep it for the panel instead',
  carry:
    'a summary cannot be carried into the model history in projection mode; carry without it, or keep it for the panel (carry: false)',
} as const
