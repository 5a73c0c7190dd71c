/**
 * The service's cursor moves (`jump`, `fork`, `back`, `forward`, with or
 * without a summary of the part left behind), as the remote methods, the
 * workspace half and the model's in-step tools ask for them. Each runs as one
 * unit (`move.ts`); the service queues it on the session's FIFO first.
 */
import { fail, ok, type TreeResult, errorMessage } from '../tree/errors.ts'
import type { BranchSummary } from '../tree/types.ts'
import type { JournalActor } from '../sidecar/index.ts'
import { applyMove, type MoveDeps, type MoveRequest } from './move.ts'
import type { SessionResolver } from './resolve.ts'
import { checkMoveOptions, checkSummaryChoice } from './branch-summary.ts'
import { summarizedMove, type SummaryMoveDeps } from './summary-move.ts'
import type { ForkResult, MoveResult, SummaryChoice, TreeMove, TreeMoveOptions } from './wire.ts'

export interface MovementDeps {
  readonly resolver: SessionResolver
  readonly move: MoveDeps
  /** The summary writer; a written summary is recorded with `record`, in the name of the move's actor. */
  readonly summary: Omit<SummaryMoveDeps, 'record'>
  readonly record: (sessionId: string, summary: BranchSummary, actor: JournalActor) => TreeResult<BranchSummary>
}

/** The request and summary choice of a move given as a value (`callId`: inside that call's running step). */
function requestOf(
  move: TreeMove,
  actor: JournalActor,
  callId?: string,
): { request: MoveRequest<unknown>; summary?: SummaryChoice } {
  const withinCall = callId === undefined ? { actor } : { actor, withinCall: callId }
  switch (move.kind) {
    case 'jump':
      return {
        request: { nodeId: move.nodeId, operation: (tree, target) => tree.jump(target ?? null), ...withinCall },
        ...(move.summary ? { summary: move.summary } : {}),
      }
    case 'fork':
      return {
        request: {
          nodeId: move.nodeId,
          operation: (tree, target) => tree.fork(target!, move.branch),
          branch: move.branch,
          ...withinCall,
        },
        ...(move.summary ? { summary: move.summary } : {}),
      }
    case 'back':
      return { request: { nodeId: undefined, operation: (tree) => tree.back(), ...withinCall } }
    case 'forward':
      return { request: { nodeId: undefined, operation: (tree) => tree.forward(), ...withinCall } }
  }
}

export class Movement {
  private readonly deps: MovementDeps

  constructor(deps: MovementDeps) {
    this.deps = deps
  }

  /** `jumpWith`: checked arguments, then the move. Call it on the session's queue. */
  async jump(
    agentId: string,
    nodeId: string | null,
    options: TreeMoveOptions,
    actor: JournalActor,
  ): Promise<TreeResult<MoveResult>> {
    if (nodeId !== null && typeof nodeId !== 'string')
      return fail('INVALID_ARGUMENT', 'nodeId must be a string or null')
    const summary = checkMoveOptions(options)
    if (!summary.ok) return summary
    const moved = await this.moveWith(
      agentId,
      { nodeId, operation: (tree, target) => tree.jump(target ?? null), actor },
      summary.value,
    )
    return moved.ok ? ok(moved.value.move) : moved
  }

  /** `forkWith`: checked arguments, then the move (a carried summary is the new branch's first node). */
  async fork(
    agentId: string,
    nodeId: string,
    branch: string,
    options: TreeMoveOptions,
    actor: JournalActor,
  ): Promise<TreeResult<ForkResult>> {
    if (typeof nodeId !== 'string') return fail('INVALID_ARGUMENT', 'nodeId must be a string')
    if (typeof branch !== 'string') return fail('INVALID_ARGUMENT', 'branch must be a string')
    const summary = checkMoveOptions(options)
    if (!summary.ok) return summary
    const moved = await this.moveWith(
      agentId,
      { nodeId, operation: (tree, target) => tree.fork(target!, branch), branch, actor },
      summary.value,
    )
    return moved.ok
      ? ok({
          ...moved.value.move,
          ...moved.value.value,
          cursor: moved.value.move.summary?.carriedNodeId ?? moved.value.value.cursor,
        })
      : moved
  }

  /**
   * A move given as a value: at once, or inside the running step of `callId`.
   * Not queued itself: its callers run it on the session's queue.
   */
  async as(agentId: string, move: TreeMove, actor: JournalActor, callId?: string): Promise<TreeResult<MoveResult>> {
    try {
      const { request, summary } = requestOf(move, actor, callId)
      return await this.move(agentId, request, summary)
    } catch (error) {
      return fail('INTERNAL', errorMessage(error))
    }
  }

  /** One cursor move of a session (see `move.ts`). Call it on the session's queue. */
  async move(agentId: string, request: MoveRequest<unknown>, summary?: SummaryChoice): Promise<TreeResult<MoveResult>> {
    const moved = await this.moveWith(agentId, request, summary)
    return moved.ok ? ok(moved.value.move) : moved
  }

  /** A move, optionally summarizing the part it leaves (`summary-move.ts`). */
  private async moveWith<V>(
    agentId: string,
    request: MoveRequest<V>,
    summary: SummaryChoice = { kind: 'none' },
  ): Promise<TreeResult<{ move: MoveResult; value: V }>> {
    const found =
      request.withinCall === undefined ? await this.deps.resolver.live(agentId) : this.deps.resolver.loaded(agentId)
    if (!found.ok) return found
    const checked = checkSummaryChoice(summary)
    if (!checked.ok) return checked
    const summaryDeps: SummaryMoveDeps = {
      ...this.deps.summary,
      record: (sessionId, written) => this.deps.record(sessionId, written, request.actor),
    }
    return summarizedMove(
      summaryDeps,
      found.value,
      request.nodeId,
      checked.value,
      request.withinCall !== undefined,
      (carry) => applyMove(this.deps.move, found.value, carry === undefined ? request : { ...request, carry }),
    )
  }
}
