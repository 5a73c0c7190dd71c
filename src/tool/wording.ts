/**
 * How the tools and `/tree` word a move's outcome and why it waits, and the small text helpers they share
 * (a move itself reads as its spec says: `service/tree-move.ts`).
 */
import { fail, type TreeError, type TreeResult } from '../tree/errors.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import type { TreeEntry } from '../tree/types.ts'
import { WITHIN_STEP_REFUSALS, type WithinStepRefusal } from '../surface/errors.ts'
import type { MoveOutcome } from './deferred.ts'
import { describeMove } from '../service/tree-move.ts'
import { TREE_TOOL } from '../service/chat-switches.ts'

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

export function notFound(text: string): TreeResult<never> {
  return fail(
    'NODE_NOT_FOUND',
    `no node or label ${quote(text)}; list the tree to see node ids (like e12) and labels`,
    { nodeId: text },
  )
}
