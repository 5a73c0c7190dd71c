/**
 * The Tree tab's summary choice for Jump and Fork (`choice.ts` holds the
 * rules): offered for a move that leaves part of the path, blocking the move
 * while custom instructions are invalid, reset once a move used it.
 */
import { useCallback, useMemo, useState } from 'react'
import type { SurfaceMode, TreeMoveOptions } from '../../types.ts'
import { leavesPath, type TreeIndex } from '../../outline/index.ts'
import { instructionsProblem, moveOptions, NO_SUMMARY, type SummaryChoiceState } from './choice.ts'

export interface SummaryChoosing {
  readonly choice: SummaryChoiceState
  readonly setChoice: (choice: SummaryChoiceState) => void
  /** The selected node's move would leave part of the path: the choice is shown. */
  readonly offered: boolean
  /** The selected node's move is held back by invalid instructions. */
  readonly blocked: boolean
  /** A move to `nodeId` is held back by invalid instructions. */
  readonly blocks: (nodeId: string) => boolean
  /** The options a move to `nodeId` sends (none when it leaves nothing). */
  readonly optionsFor: (nodeId: string) => TreeMoveOptions | undefined
  /** After a summarized move: back to the default, and the selection to the new cursor. */
  readonly summarized: () => void
}

export function useSummaryChoice(
  index: TreeIndex | undefined,
  selected: string | null,
  mode: SurfaceMode | undefined,
  clearSelection: () => void,
): SummaryChoosing {
  const [choice, setChoice] = useState<SummaryChoiceState>(NO_SUMMARY)
  // A walk to the root: once per outline and selection, not on every render.
  const offered = useMemo(
    () => selected !== null && index !== undefined && leavesPath(index, selected),
    [index, selected],
  )
  const blocked = offered && instructionsProblem(choice) !== undefined
  const blocks = useCallback(
    (nodeId: string) => index !== undefined && leavesPath(index, nodeId) && instructionsProblem(choice) !== undefined,
    [index, choice],
  )
  const optionsFor = useCallback(
    (nodeId: string) => (index && leavesPath(index, nodeId) ? moveOptions(choice, mode) : undefined),
    [index, choice, mode],
  )
  const summarized = useCallback(() => {
    setChoice((c) => ({ ...c, kind: 'none' }))
    clearSelection()
  }, [clearSelection])
  return { choice, setChoice, offered, blocked, blocks, optionsFor, summarized }
}
