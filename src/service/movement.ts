/**
 * The service's cursor moves (a `TreeMove`: `jump`, `fork`, `back`, `forward`, with or without a summary of
 * the part left behind). Each runs as one unit (`move.ts`); the service queues it on the session's FIFO first.
 */
import { ok, type TreeResult } from '../tree/errors.ts'
import type { BranchSummary, ForkView } from '../tree/types.ts'
import type { JournalActor } from '../sidecar/index.ts'
import { applyMove, type MoveDeps } from './move.ts'
import type { SessionResolver } from './resolve.ts'
import { checkSummaryChoice } from './branch-summary.ts'
import { summarizedMove, type OtherPart, type SummaryMoveDeps } from './summary-move.ts'
import type { TreeMove } from './tree-move.ts'
import { namedNode } from '../tree/move.ts'
import { SUMMARIZING_MOVES } from '../tree/summary-rules.ts'
import type { ForkResult, MoveResult, SummaryChoice } from './wire.ts'

export interface MovementDeps {
  readonly resolver: SessionResolver
  readonly move: MoveDeps
  /** The summary writer; a written summary is recorded with `record`, in the name of the move's actor. */
  readonly summary: Omit<SummaryMoveDeps, 'record'>
  readonly record: (sessionId: string, summary: BranchSummary, actor: JournalActor) => TreeResult<BranchSummary>
}

export class Movement {
  private readonly deps: MovementDeps

  constructor(deps: MovementDeps) {
    this.deps = deps
  }

  /**
   * One checked move of a session, at once or inside the running step of `callId`, optionally summarizing
   * the part it leaves (`summary-move.ts`); a fork answers with its own facts too. Call it on the session's queue.
   */
  async run(
    agentId: string,
    move: TreeMove,
    actor: JournalActor,
    callId?: string,
  ): Promise<TreeResult<MoveResult | ForkResult>> {
    const checked = checkSummaryChoice(SUMMARIZING_MOVES[move.kind] ? move.summary : undefined)
    if (!checked.ok) return checked
    const found = callId === undefined ? await this.deps.resolver.live(agentId) : this.deps.resolver.loaded(agentId)
    if (!found.ok) return found
    const summaryDeps: SummaryMoveDeps = {
      ...this.deps.summary,
      record: (sessionId, written) => this.deps.record(sessionId, written, actor),
    }
    const via = callId === undefined ? { actor } : { actor, withinCall: callId }
    const moved = await summarizedMove(
      summaryDeps,
      found.value,
      namedNode(move),
      checked.value,
      callId !== undefined,
      (carry) => applyMove(this.deps.move, found.value, move, carry === undefined ? via : { ...via, carry }),
    )
    if (!moved.ok) return moved
    if (move.kind !== 'fork') return ok(moved.value.move)
    const fork = moved.value.value as ForkView
    // A carried summary is the new branch's first node: the cursor.
    return ok({ ...moved.value.move, ...fork, cursor: moved.value.move.summary?.carriedNodeId ?? fork.cursor })
  }

  /**
   * A summary of `other.part` (another branch's) written by the same machinery as a move's, and, when
   * `choice.carry`, appended where the conversation is (a jump to the cursor carrying it, so Back takes
   * it out of the history again). Undefined when the part holds no message. Call it on the session's queue.
   */
  async summarizeHere(
    agentId: string,
    other: OtherPart,
    choice: SummaryChoice,
    actor: JournalActor,
    callId?: string,
  ): Promise<TreeResult<MoveResult | undefined>> {
    const found = callId === undefined ? await this.deps.resolver.live(agentId) : this.deps.resolver.loaded(agentId)
    if (!found.ok) return found
    const tree = found.value.state.projector.tree
    const here = tree.cursor
    const summaryDeps: SummaryMoveDeps = {
      ...this.deps.summary,
      record: (sessionId, written) => this.deps.record(sessionId, written, actor),
    }
    const via = callId === undefined ? { actor } : { actor, withinCall: callId }
    const stay = (): MoveResult => ({
      cursor: here,
      messages: tree.messages(here),
      branch: tree.activeBranch,
      mode: found.value.mode,
    })
    const moved = await summarizedMove(
      summaryDeps,
      found.value,
      here,
      choice,
      callId !== undefined,
      async (carry) => {
        if (carry === undefined) return ok({ move: stay(), value: undefined })
        return applyMove(this.deps.move, found.value, { kind: 'jump', nodeId: here }, { ...via, carry })
      },
      other,
    )
    if (!moved.ok) return moved
    return ok(moved.value.move.summary === undefined ? undefined : moved.value.move)
  }
}
