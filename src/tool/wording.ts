/**
 * How the tools and `/tree` word their answers: a move's (scheduled, moved within the step, applied, the files
 * only, a deferred move's outcome, why it waits), its summary's, and the text helpers they share. Pure wording over
 * the action's plan; a move itself reads as its spec says (`service/tree-move.ts`).
 */
import { clipped, fail, quoted, type TreeError, type TreeResult } from '../tree/errors.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import type { BranchSummary, TreeEntry } from '../tree/types.ts'
import { WITHIN_STEP_REFUSALS, type WithinStepRefusal } from '../surface/errors.ts'
import type { MoveOutcome, MoveRequester, PendingMove } from './deferred.ts'
import { TREE_TOOL } from '../service/chat-switches.ts'
import type { SurfaceMode } from '../surface/mode.ts'
import { describeMove, type TreeMove } from '../service/tree-move.ts'
import { describeBare } from '../tree/move.ts'
import { filesText, type AppliedMove } from './files.ts'

/** Why the model's own move waits for the turn's end, from the refusal's `details.reason` (never its message). */
export function withinStepRefusal(error: TreeError): string {
  const reason = error.details?.reason
  return typeof reason === 'string' && Object.hasOwn(WITHIN_STEP_REFUSALS, reason)
    ? WITHIN_STEP_REFUSALS[reason as WithinStepRefusal]
    : 'the agent is running'
}

export function quote(text: string): string {
  return JSON.stringify(text)
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : /(s|sh|ch|x)$/.test(word) ? 'es' : 's'}`
}

/** Calls of the tree tool itself: bookkeeping, never what a search is after. */
export function isTreeToolCall(node: {
  readonly content?: readonly { readonly type: string; readonly name?: string }[]
}): boolean {
  const calls = (node.content ?? []).filter((part) => part.type === 'tool_call')
  return calls.length > 0 && calls.every((part) => part.name === TREE_TOOL)
}

export function describeOutcome(outcome: MoveOutcome): string {
  const what = describeMove(outcome.move.op)
  if (outcome.status === 'applied') return `${what}: applied (history ends at ${outcome.result?.cursor ?? 'the start'})`
  if (outcome.status === 'failed')
    return `${what}: failed (${outcome.error?.code ?? 'INTERNAL'}: ${outcome.error?.message ?? 'unknown'})`
  return `${what}: ${outcome.status}${outcome.reason ? ` (${outcome.reason})` : ''}`
}

/** The last prompt a person typed in `history`, when the path to `target` no longer holds it. */
export function latestPromptDropped(
  history: readonly TreeEntry[],
  target: string | null,
  tree: SessionTree,
): string | undefined {
  let prompt: TreeEntry | undefined
  for (const entry of history) if (entry.message?.role === 'user' && entry.origin?.kind === 'user') prompt = entry
  if (!prompt) return undefined
  const kept = tree.historyPath(target)
  if (kept.ok && kept.value.some((entry) => entry.nodeId === prompt!.nodeId)) return undefined
  return prompt.message!.content
}

/** No node a tool's argument names; `branches`: it could have named a branch too (a compare's sides). */
export function notFound(text: string, branches = false): TreeResult<never> {
  const what = branches ? 'node, label or branch' : 'node or label'
  const listed = branches ? 'node ids (like e12), labels and branches' : 'node ids (like e12) and labels'
  return fail('NODE_NOT_FOUND', `no ${what} ${quoted(text)}; list the tree to see ${listed}`, { nodeId: clipped(text) })
}

/** A move resolved against the tree: where it goes and how much history that is. */
export interface Plan {
  readonly op: TreeMove
  readonly target: string | null
  readonly branch: string
  readonly messageCount: number
  readonly snappedFrom?: string
}

export function targetText(plan: Plan): string {
  if (plan.target === null) return 'the start (an empty history)'
  return plan.target
}

export function scheduledText(
  plan: Plan,
  mode: SurfaceMode,
  by: MoveRequester,
  replaced: PendingMove | undefined,
  running: boolean,
  notNow?: string,
): string {
  const lines: string[] = []
  lines.push(
    `Scheduled: ${describeMove(plan.op)}.${replaced ? ` (This replaces the waiting ${describeMove(replaced.op)}.)` : ''}`,
  )
  if (notNow !== undefined) lines.push(`It cannot switch your history at once: ${notNow}.`)
  if (plan.snappedFrom !== undefined)
    lines.push(
      `${plan.snappedFrom} sits inside a tool exchange, so the move goes to ${plan.target}, the end of that exchange.`,
    )
  if (mode === 'projection') {
    lines.push(
      'Surface mode: projection. When the current turn ends the tree and its panel move, but the model history does NOT change.',
    )
    return lines.join('\n')
  }
  if (by === 'model') {
    lines.push(
      `It takes effect when this turn ends. Until then you still see the current conversation. ` +
        `From the next user message on, your history is exactly the ${plural(plan.messageCount, 'message')} from the start to ${targetText(plan)}` +
        `${plan.op.kind === 'fork' ? `, on the new branch ${quote(plan.branch)}` : ''}. ` +
        `Everything after that point, including this turn, stays in the tree (nothing is deleted), but you will no longer see it. ` +
        `Finish your turn now; the action "back" cancels it.`,
    )
  } else {
    const when = running
      ? 'The agent is running: the move applies when its current turn ends'
      : 'The agent has work queued: the move applies as soon as it is free'
    lines.push(
      `${when}; the next request then holds the ${plural(plan.messageCount, 'message')} from the start to ${targetText(plan)}.`,
    )
  }
  lines.push(`Surface mode: ${mode}.`)
  return lines.join('\n')
}

/**
 * The answer to a move made within the step. `moved.cursor` is already the
 * re-stated call (the tree follows the history), so the path is told from
 * the plan: the selected node and the messages up to it.
 */
export function withinStepText(plan: Plan, moved: AppliedMove, dropped: string | undefined): string {
  const lines = [
    `Moved now: ${describeMove(plan.op)}. Your history is exactly the ${plural(plan.messageCount, 'message')} from the start to ${targetText(plan)}` +
      `${plan.op.kind === 'fork' ? ` on the new branch ${quote(plan.branch)}` : ''}, followed by this call and this result; continue from there.`,
  ]
  if (plan.snappedFrom !== undefined)
    lines.push(
      `${plan.snappedFrom} sits inside a tool exchange, so the move went to ${plan.target}, the end of that exchange.`,
    )
  lines.push('What came after that point stays in the tree (nothing is deleted), but you no longer see it.')
  if (moved.summary) lines.push(summaryText(moved.summary))
  if (dropped !== undefined)
    lines.push(`The user's latest message, which is no longer in your history, was: ${quote(dropped)}`)
  if (moved.files) lines.push(filesText(moved, plan.target), 'Read a file again before you edit or overwrite it.')
  lines.push(`Surface mode: ${moved.mode}.`)
  return lines.join('\n')
}

export function filesOnlyText(plan: Plan, moved: AppliedMove): string {
  return [
    `Restored the files only: ${describeBare(plan.op)}. The conversation did not move.`,
    filesText(moved, plan.target),
  ].join('\n')
}

export function appliedText(plan: Plan, moved: AppliedMove): string {
  const lines = [
    `Moved: ${describeMove(plan.op)}. The history now ends at ${moved.cursor ?? 'the start'} on branch ${quote(moved.branch ?? plan.branch)}.`,
  ]
  if (moved.summary) lines.push(summaryText(moved.summary))
  if (moved.files) lines.push(filesText(moved, moved.cursor))
  if (moved.snappedFrom !== undefined)
    lines.push(
      `${moved.snappedFrom} sits inside a tool exchange, so the move went to ${moved.cursor}, the end of that exchange.`,
    )
  lines.push(
    moved.mode === 'projection'
      ? 'Surface mode: projection. The tree moved; the model history did not change.'
      : `The next request holds exactly these ${plural(moved.messages.length, 'message')}. Surface mode: ${moved.mode}.`,
  )
  return lines.join('\n')
}

/** What a move's summary says: who wrote it, what it cost, where it went. */
export function summaryText(summary: BranchSummary): string {
  const by = summary.fallback
    ? `the extractive digest (the model's summary failed: ${summary.failure?.code ?? 'no text'})`
    : summary.model === undefined
      ? 'the caller'
      : `${summary.provider ? `${summary.provider}/` : ''}${summary.model}`
  const tokens = summary.usage
    ? `, ${summary.usage.inputTokens + (summary.usage.cacheReadTokens ?? 0)} tokens in, ${summary.usage.outputTokens} out`
    : ''
  const head = `Summary of what was left (branch ${quote(summary.branch)}, written by ${by}${tokens})`
  // A carried summary is already a message of the history: repeating it here would put it there twice.
  if (summary.carriedNodeId !== undefined)
    return `${head}: carried into the history as ${summary.carriedNodeId}, the message right after the point moved to (read it there; it is not repeated here).`
  return `${head}: ${summary.summary}\nKept with the tree (the panel shows it); the model does not read it.`
}
