/**
 * How the tools and `/tree` word moves: a move, its outcome, why it waits,
 * and the small text helpers they share.
 */
import { fail, type TreeError, type TreeResult } from '../tree/errors.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import type { TreeEntry } from '../tree/types.ts'
import { WITHIN_STEP_REFUSALS, type WithinStepRefusal } from '../surface/errors.ts'
import type { MoveOp, MoveOutcome } from './deferred.ts'
import { LEGACY_TOOLS, TREE_TOOL } from '../service/chat-switches.ts'

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

/** Calls of the tree tool itself (or its earlier one-tool-per-action names): bookkeeping, never what a search is after. */
export function isTreeToolCall(node: {
  readonly content?: readonly { readonly type: string; readonly name?: string }[]
}): boolean {
  const calls = (node.content ?? []).filter((part) => part.type === 'tool_call')
  return calls.length > 0 && calls.every((part) => part.name === TREE_TOOL || LEGACY_TOOLS.has(part.name ?? ''))
}

/** `jump to e3`, `fork branch "alt" at e3`, `back`, `forward` (`, with the files` / `(files only)`). */
export function describeMove(op: MoveOp): string {
  const files = op.files === 'both' ? ', with the files' : op.files === 'files' ? ' (files only)' : ''
  const summary =
    op.summary === undefined || op.summary.kind === 'none'
      ? ''
      : op.summary.carry
        ? ', carrying a summary of what it leaves'
        : ', summarizing what it leaves'
  return describeBare(op) + files + summary
}

export function describeBare(op: MoveOp): string {
  switch (op.kind) {
    case 'jump':
      return `jump to ${op.nodeId}`
    case 'fork':
      return `fork branch ${quote(op.branch)} at ${op.nodeId}`
    case 'back':
      return 'back'
    case 'forward':
      return 'forward'
  }
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
