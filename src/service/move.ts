/**
 * One cursor move as one unit on the session's queue: check the history can
 * follow, move the tree in one synchronous step, make the harness follow, then
 * journal. The result is taken when the tree moves; an error means nothing
 * changed (rolled back); a move the log already holds cannot be undone, so a
 * sidecar failure answers ok with `notDurable`, never a plain ok.
 */
import { clipped, fail, ok, type TreeResult, errorMessage } from '../tree/errors.ts'
import type { TreeSync } from '../harness/sync.ts'
import type { JournalActor } from '../sidecar/index.ts'
import { isFree } from '../harness/live.ts'
import type { Surface, SurfaceReport } from '../surface/surface.ts'
import type { PlannedEvent } from '../surface/copy.ts'
import type { MoveResult } from './wire.ts'
import type { TreeMove } from './tree-move.ts'
import { landing, namedNode, type Landing } from '../tree/move.ts'
import type { ForkView, JumpView } from '../tree/types.ts'
import type { Resolved } from './resolve.ts'
import type { SessionTree } from '../tree/session-tree.ts'

/** What a move needs from the service. */
export interface MoveDeps {
  readonly sync: TreeSync
}

/** How a move is made: by whom, inside which running step, carrying which message. */
export interface MoveVia {
  /** Who asks for the move (its journal records say so). */
  readonly actor: JournalActor
  /** The tool call of the model's running step that makes this move (stock mode). */
  readonly withinCall?: string
  /**
   * A harness `user/message` appended as the new path's last event (a carried
   * branch summary): in stock mode inside the switch, in native mode right
   * after the selection. Never in projection mode: `summary-move.ts` refuses it first (`tree/summary-rules.ts`).
   */
  readonly carry?: Record<string, unknown>
}

/** `AGENT_BUSY` when the agent runs and the move is not its own step's (projection mode moves the tree alone). */
export function agentBusy(
  found: Pick<Resolved, 'session' | 'agent' | 'mode'>,
  withinCall: boolean,
): TreeResult<never> | undefined {
  const { session, agent, mode } = found
  if (withinCall || mode === 'projection' || !agent || isFree(agent)) return undefined
  return fail('AGENT_BUSY', 'the agent is running; move in the tree when it is idle', {
    agentId: clipped(session.id),
    status: agent.status,
  })
}

export async function applyMove(
  deps: MoveDeps,
  found: Resolved,
  request: TreeMove,
  via: MoveVia,
): Promise<TreeResult<{ move: MoveResult; value: JumpView | ForkView }>> {
  const { session, state, mode } = found
  const { withinCall, carry, actor } = via
  const nodeId = namedNode(request)
  // The branch a fork creates is named in the switch marker, so the log alone rebuilds it.
  const branch = request.kind === 'fork' ? request.branch : undefined
  if (withinCall !== undefined && mode !== 'stock') {
    return fail(
      'SURFACE_UNAVAILABLE',
      `a move inside a running step needs stock mode (this session is in ${mode} mode)`,
      { mode },
    )
  }
  const snaps = mode !== 'projection'
  let at: Landing = { target: null }
  if (nodeId !== undefined) {
    const landed = landing(state.projector.tree, request, snaps)
    if (!landed.ok) return landed
    at = landed.value
  }
  const busy = agentBusy(found, withinCall !== undefined)
  if (busy) return busy

  // 1. The tree moves, in one synchronous step; the answer is this move's own effect, read in that same step.
  const pending = deps.sync.begin(session.id, { kind: 'move', move: request, at, snaps }, actor)
  if (!pending.ok) return pending
  const { destination, snappedFrom, view: value } = pending.value.value
  // The tree the command ran on (the state may have been rebuilt while a summary was written).
  const tree = deps.sync.get(session.id)!.projector.tree
  const lane = laneAt(tree, destination)
  const move: MoveResult = {
    cursor: destination,
    messages: tree.messages(destination),
    branch: tree.activeBranch,
    mode,
    ...(snappedFrom === undefined ? {} : { snappedFrom }),
  }

  // 2. The harness follows (or the tree goes back to where it was).
  const seqBefore = session.seq
  let report: SurfaceReport | undefined
  let harnessProblem: string | undefined
  try {
    const followed = await follow(found.surface, destination, branch, withinCall, lane, carry)
    if (!followed.ok) {
      pending.value.rollback()
      return followed
    }
    report = followed.value
  } catch (error) {
    const message = errorMessage(error)
    if (session.seq === seqBefore) {
      pending.value.rollback()
      return fail('INTERNAL', `the history switch failed: ${message}`)
    }
    // The log moved before the failure (a flush that threw, say): the tree stays with the log.
    harnessProblem = `the harness log holds the switch but could not be flushed: ${message}`
  }
  const inLog = session.seq !== seqBefore
  const answer: MoveResult = {
    ...move,
    ...(report
      ? {
          switch: {
            appendedEvents: report.appendedEvents,
            copies: report.copies,
            shadowed: report.shadowed,
            noop: report.noop,
          },
        }
      : {}),
  }

  // 3. The journal: what the log cannot hold (branch names, back/forward history, projection cursors).
  const saved = pending.value.commit()
  if (!saved.ok) {
    if (!inLog) {
      pending.value.rollback()
      return saved
    }
    return ok({
      move: {
        ...answer,
        notDurable: {
          code: 'SIDECAR_IO',
          message: `the move is in the harness log (the model history follows it, also after a restart), but the sidecar could not record it, so its back/forward step${withinCall !== undefined && branch !== undefined ? ' and the branch name' : ''} may be lost on a restart: ${saved.error.message}`,
        },
      },
      value,
    })
  }
  if (harnessProblem !== undefined)
    return ok({ move: { ...answer, notDurable: { code: 'INTERNAL', message: harnessProblem } }, value })
  return ok({ move: answer, value })
}

/**
 * The branch a move lands on, as its switch row names it: the active branch when `destination` is
 * on its path, else the destination's own lane. A jump to a node off the active path keeps the
 * active branch (`tree/ops.ts`), which then names where the move came from, not where it went.
 */
function laneAt(tree: SessionTree, destination: string | null): string {
  const active = tree.activeBranch
  if (destination === null) return active
  const head = tree.branchHeadList().find(([name]) => name === active)?.[1]
  const path = head === undefined ? undefined : tree.pathIds(head)
  if (path?.ok && path.value.includes(destination)) return active
  return tree.laneOf(destination) || active
}

/**
 * Make the model history follow the tree to `destination`: the session's surface does.
 * `lane` (the branch the move lands on, `laneAt`) is written with the switch for people reading the log;
 * `carry` (a carried branch summary) is appended as the new path's last event.
 */
function follow(
  surface: Surface,
  destination: string | null,
  branch: string | undefined,
  withinCall: string | undefined,
  lane: string | undefined,
  carry: Record<string, unknown> | undefined,
): Promise<TreeResult<SurfaceReport | undefined>> {
  const tail: PlannedEvent[] | undefined =
    carry === undefined ? undefined : [{ type: 'user/message', data: carry, intent: { surfaceOp: 'append' } }]
  return surface.follow(destination, {
    ...(branch === undefined ? {} : { branch }),
    ...(withinCall === undefined ? {} : { withinCall }),
    ...(lane === undefined ? {} : { lane }),
    ...(tail === undefined ? {} : { tail }),
  })
}
