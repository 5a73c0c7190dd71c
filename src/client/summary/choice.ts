/**
 * The summary choice of the Tree tab's Jump and Fork, pure: what the user
 * picked (no summary, the default; a summary; a summary with their own
 * instructions), whether the move leaves anything to summarize, and the
 * `jumpWith`/`forkWith` option it becomes. A summary chosen in the panel is
 * carried into the new path (as Pi does), except in projection mode, where
 * nothing changes what the model reads: there it is kept for the panel only.
 * The rules themselves are `tree/summary-rules.ts`'s.
 */
import { canCarry, instructionsProblem as problemOf, type InstructionsProblem } from '../../tree/summary-rules.ts'
import type { SurfaceMode, TreeMoveOptions } from '../../types.ts'

export type SummaryChoiceKind = 'none' | 'summarize' | 'custom'

/** The field's state: the instructions are kept while another kind is picked. */
export interface SummaryChoiceState {
  readonly kind: SummaryChoiceKind
  readonly instructions: string
}

export const NO_SUMMARY: SummaryChoiceState = { kind: 'none', instructions: '' }

/** What keeps the choice from being sent (custom without instructions, or too long ones). */
export function instructionsProblem(state: SummaryChoiceState): InstructionsProblem | undefined {
  return state.kind === 'custom' ? problemOf(state.instructions) : undefined
}

/** The move's options, or undefined for a plain move (no summary, or nothing left behind). */
export function moveOptions(state: SummaryChoiceState, mode: SurfaceMode | undefined): TreeMoveOptions | undefined {
  if (state.kind === 'none' || instructionsProblem(state) !== undefined) return undefined
  const carry = canCarry(mode) ? { carry: true } : {}
  return {
    summary:
      state.kind === 'custom'
        ? { kind: 'custom', instructions: state.instructions.trim(), ...carry }
        : { kind: 'summarize', ...carry },
  }
}
