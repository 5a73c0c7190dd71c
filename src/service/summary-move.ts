/**
 * A move that summarizes the part it leaves (`jump`/`fork` with `summary`), as
 * one unit: refuse early what cannot work (before any model call is paid for),
 * write the summary (never fails: extractive fallback), move (carrying it when
 * asked), record it with the tree. docs/summaries.md.
 */
import { randomUUID } from 'node:crypto'
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import type { BranchSummary } from '../tree/types.ts'
import { carriedSummaryMessage } from '../harness/carried-summary.ts'
import { canCarry, CARRY_REFUSALS } from '../tree/summary-rules.ts'
import { checkNode } from '../tree/validate.ts'
import { leftPart, writeSummary, type SummaryPart, type SummaryWriter } from './branch-summary.ts'
import { agentBusy } from './move.ts'
import type { Resolved } from './resolve.ts'
import type { MoveResult, SummaryChoice } from './wire.ts'
import { SUMMARY_MAX_TOKENS, type SummaryLlm } from './model-summary.ts'
import { headerRoute, type ModelRoute } from '../harness/live.ts'
import { sessionPrefix } from './summary-prefix.ts'

/** A bound on the shared-prefix instruction's tokens (guidance, two quoted lines, the user's instructions). */
const INSTRUCTION_TOKENS = 1_536

export interface SummaryMoveDeps {
  /** The harness model stack (`ctx.llm`), when loaded. */
  readonly llm: () => SummaryLlm | undefined
  readonly timeoutMs: number
  /** Record a written summary with the tree (journaled). */
  readonly record: (sessionId: string, summary: BranchSummary) => TreeResult<BranchSummary>
}

/** The move itself, given the message to carry (if any). */
export type MoveRun<V> = (
  carry: Record<string, unknown> | undefined,
) => Promise<TreeResult<{ move: MoveResult; value: V }>>

/** What a summary covers when it is not the part a move leaves (a carry's: the other branch's part). */
export interface OtherPart {
  readonly part: SummaryPart
  /** What the model reads before the summary text. */
  readonly lead: string
}

export async function summarizedMove<V>(
  deps: SummaryMoveDeps,
  found: Resolved,
  nodeId: string | null | undefined,
  choice: SummaryChoice,
  withinCall: boolean,
  run: MoveRun<V>,
  other?: OtherPart,
): Promise<TreeResult<{ move: MoveResult; value: V }>> {
  if (choice.kind === 'none') return run(undefined)
  const { session, state, mode } = found
  const carry = choice.carry === true
  if (carry && !canCarry(mode)) return fail('SURFACE_UNAVAILABLE', CARRY_REFUSALS.move, { mode })
  // Refused before the model call is paid for; `applyMove` asks again once the summary is written.
  const busy = agentBusy(found, withinCall)
  if (busy) return busy
  const tree = state.projector.tree
  let target: string | null = nodeId ?? null
  if (typeof nodeId === 'string') {
    const checked = checkNode(tree, nodeId)
    if (!checked.ok) return checked
    if (mode !== 'projection') {
      const cut = tree.completeCutPoint(nodeId)
      if (!cut.ok) return cut
      target = cut.value
    }
  }
  const part = other?.part ?? leftPart(tree, target)
  if (!part || part.entries.length === 0) return run(undefined)
  // The side call starts with the session's own request prefix when it can, so a prefix cache can hit.
  const shared = sessionPrefix(session, mode, SUMMARY_MAX_TOKENS + INSTRUCTION_TOKENS)
  const writer: SummaryWriter = {
    llm: deps.llm(),
    route: routeOf(found),
    sessionId: session.id,
    timeoutMs: deps.timeoutMs,
    ...(shared.kind === 'shared' ? { prefix: shared.prefix } : {}),
  }
  const written = await writeSummary(part, writer, choice.kind === 'custom' ? choice.instructions : undefined)
  const message = carry ? carriedSummaryMessage(randomUUID(), written, other?.lead) : undefined
  const moved = await run(message)
  if (!moved.ok) return moved
  let summary = written
  let answer = moved.value.move
  if (message) {
    // The carried node ends the new path: the cursor, or (a move inside the model's step) the
    // parent of the re-stated in-flight message, which follows it.
    const live = state.projector.tree
    let node = live.cursor === null ? undefined : live.get(live.cursor)
    for (let up = 0; node !== undefined && node.origin?.ref !== message.id && up < 3; up++)
      node = node.parentId === null ? undefined : live.get(node.parentId)
    if (node !== undefined && node.origin?.ref === message.id) {
      summary = { ...written, carriedNodeId: node.nodeId }
      if (!withinCall)
        answer = { ...answer, cursor: node.nodeId, messages: live.messages(node.nodeId), branch: live.activeBranch }
    }
  }
  const recorded = deps.record(session.id, summary)
  const move: MoveResult = recorded.ok
    ? { ...answer, summary: recorded.value }
    : {
        ...answer,
        summary,
        ...(answer.notDurable
          ? {}
          : {
              notDurable: {
                code: 'SIDECAR_IO' as const,
                message: `the move happened, but its summary could not be recorded for the panel: ${recorded.error.message}`,
              },
            }),
      }
  return ok({ move, value: moved.value.value })
}

/** The session's model: the route of its last request, else the agent's own options. */
export function routeOf(found: Pick<Resolved, 'session' | 'agent'>): ModelRoute | undefined {
  const header = headerRoute(found.session)
  if (header) return header
  const options = (found.agent as { options?: { provider?: unknown; model?: unknown } } | undefined)?.options
  if (typeof options?.provider === 'string' && typeof options.model === 'string')
    return { provider: options.provider, model: options.model }
  return undefined
}
