/**
 * Which part of the tree a summary covers, and writing it: by the session's
 * model when one is configured, else (and whenever the model fails, hangs or
 * writes nothing) by the extractive digest, which cannot fail. The result is
 * a `BranchSummary` that says who wrote it, what it cost and, for a fallback,
 * why.
 */
import { fail, ok, quoted, type TreeResult } from '../tree/errors.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import { fallbackSummary, oneLine, renderMessages } from '../tree/text.ts'
import type { BranchSummary, TreeEntry } from '../tree/types.ts'
import { checkInstructions, leftBehind } from '../tree/summary-rules.ts'
import { askModelForSummary, type SummaryLlm } from './model-summary.ts'
import { type ModelRoute } from '../harness/live.ts'
import { EXTRACTIVE_MODEL, extractiveSummarizer, summaryBranch } from './summarizer.ts'
import type { SummaryChoice } from './wire.ts'
import type { SessionPrefix } from './summary-prefix.ts'

/** What a summary covers: the messages after `fromNodeId` up to `nodeId`, recorded under `branch`. */
export interface SummaryPart {
  readonly branch: string
  readonly nodeId: string
  readonly fromNodeId?: string
  readonly entries: readonly TreeEntry[]
  /** The entry of `fromNodeId`, when it holds a message (it names where the part starts). */
  readonly fromEntry?: TreeEntry
}

/** The model a summary is written with, and how long it may take. */
export interface SummaryWriter {
  readonly llm: SummaryLlm | undefined
  readonly route: ModelRoute | undefined
  readonly sessionId: string
  readonly timeoutMs: number
  /** The session's own request prefix, when the side call shares it (`summary-prefix.ts`). */
  readonly prefix?: SessionPrefix
}

/** Validate a summary option (absent: none). */
export function checkSummaryChoice(value: unknown): TreeResult<SummaryChoice> {
  if (value === undefined || value === null) return ok({ kind: 'none' })
  if (typeof value !== 'object')
    return fail('INVALID_ARGUMENT', 'summary must be an object { kind: "none" | "summarize" | "custom" }')
  const choice = value as Record<string, unknown>
  if (choice.carry !== undefined && typeof choice.carry !== 'boolean')
    return fail('INVALID_ARGUMENT', 'summary.carry must be a boolean')
  const carry = choice.carry === true ? { carry: true } : {}
  switch (choice.kind) {
    case 'none':
      return ok({ kind: 'none' })
    case 'summarize':
      return ok({ kind: 'summarize', ...carry })
    case 'custom': {
      const instructions = checkInstructions(choice.instructions)
      return instructions.ok ? ok({ kind: 'custom', instructions: instructions.value, ...carry }) : instructions
    }
    default:
      return fail(
        'INVALID_ARGUMENT',
        `summary.kind must be "none", "summarize" or "custom", not ${quoted(String(choice.kind))}`,
      )
  }
}

/**
 * The part a move leaves behind (`tree/summary-rules.ts` says which nodes), with its messages.
 * Undefined when the move leaves nothing, or nothing the model said.
 */
export function leftPart(tree: SessionTree, target: string | null): SummaryPart | undefined {
  const cursor = tree.cursor
  if (cursor === null) return undefined
  const behind = leftBehind(cursor, target, (id) => tree.parentOf(id))
  if (behind.left.length === 0) return undefined
  const left = new Set(behind.left)
  const from = behind.from
  // The path as it was (not the model history): a compaction folds away messages the move leaves.
  const history = tree.path(cursor)
  const entries = history.ok ? history.value.filter((entry) => left.has(entry.nodeId) && entry.message) : []
  if (entries.length === 0) return undefined
  const fromEntry = from === null || !history.ok ? undefined : history.value.find((entry) => entry.nodeId === from)
  return {
    branch: branchAt(tree, cursor),
    nodeId: cursor,
    ...(from === null ? {} : { fromNodeId: from }),
    entries,
    ...(fromEntry?.message ? { fromEntry } : {}),
  }
}

/**
 * The part a branch summary covers: the branch's path after the node where
 * it leaves the cursor's path; its whole path when it is the cursor's own.
 */
export function branchPart(tree: SessionTree, branch: unknown): TreeResult<SummaryPart> {
  const found = summaryBranch(tree, branch)
  if (!found.ok) return found
  const { name, head } = found.value
  const onCursor = new Set<string>()
  for (let id = tree.cursor; id !== null; id = tree.parentOf(id) ?? null) onCursor.add(id)
  let from: string | null = head
  while (from !== null && !onCursor.has(from)) from = tree.parentOf(from) ?? null
  // On the cursor's path: the whole branch is what there is to summarize.
  return ok(pathPart(tree, name, head, from === head ? null : from))
}

/** The messages on `head`'s path after `after` (`null`: the whole path), recorded under `branch`. */
export function pathPart(tree: SessionTree, branch: string, head: string, after: string | null): SummaryPart {
  const own = new Set<string>()
  for (let id: string | null = head; id !== null && id !== after; id = tree.parentOf(id) ?? null) own.add(id)
  const history = tree.path(head)
  const entries = history.ok ? history.value.filter((entry) => entry.message && own.has(entry.nodeId)) : []
  return { branch, nodeId: head, ...(after === null ? {} : { fromNodeId: after }), entries }
}

/** Write the summary of `part`: the model when there is one, else the extractive digest; never fails. */
export async function writeSummary(
  part: SummaryPart,
  writer: SummaryWriter,
  instructions: string | undefined,
  now: () => Date = () => new Date(),
): Promise<BranchSummary> {
  const messages = part.entries.map((entry) => entry.message!).filter((message) => message !== undefined)
  // A compaction inside the part restates messages the part holds as they were, or ones it does not leave.
  const uncompacted = part.entries
    .filter((entry) => entry.type !== 'compaction')
    .map((entry) => entry.message!)
    .filter((message) => message !== undefined)
  const left = uncompacted.length > 0 ? uncompacted : messages
  const prefix = writer.prefix && startsInPrefix(part) ? writer.prefix : undefined
  const base = {
    branch: part.branch,
    nodeId: part.nodeId,
    ...(part.fromNodeId === undefined ? {} : { fromNodeId: part.fromNodeId }),
    ...(instructions ? { instructions } : {}),
  }
  let attempt: Pick<BranchSummary, 'failure' | 'usage'> | undefined
  if (writer.llm && writer.route && messages.length > 0) {
    const answer = await askModelForSummary(writer.llm, {
      route: writer.route,
      sessionId: writer.sessionId,
      transcript: renderMessages(left),
      branch: part.branch,
      ...(instructions ? { instructions } : {}),
      timeoutMs: writer.timeoutMs,
      ...(prefix ? { prefix, lead: leadOf(part) } : {}),
    })
    if (answer.ok) {
      return {
        ...base,
        summary: answer.text,
        model: writer.route.model,
        provider: writer.route.provider,
        ...(answer.usage ? { usage: answer.usage } : {}),
        createdAt: now().toISOString(),
      }
    }
    attempt = { failure: answer.failure, ...(answer.usage ? { usage: answer.usage } : {}) }
  }
  let text = ''
  try {
    text = (
      await extractiveSummarizer.summarize({
        branch: part.branch,
        text: renderMessages(left),
        messages: left,
        entries: [...part.entries],
        signal: new AbortController().signal,
      })
    ).trim()
  } catch {
    // The extractive digest does not throw; the stub below covers it anyway.
  }
  const createdAt = now().toISOString()
  if (text === '')
    return { ...base, summary: fallbackSummary(part.entries.length), fallback: true, ...(attempt ?? {}), createdAt }
  return {
    ...base,
    summary: text,
    model: EXTRACTIVE_MODEL,
    ...(attempt ? { fallback: true, ...attempt } : {}),
    createdAt,
  }
}

/**
 * Whether the session's model history holds where the part starts: not when a compaction inside
 * the part replaced its first message (the history then holds DSH's summary instead, and the
 * side call must send the part as it was).
 */
function startsInPrefix(part: SummaryPart): boolean {
  const first = part.entries.find((entry) => entry.message !== undefined)
  if (first === undefined) return true
  return !part.entries.some((entry) => entry.type === 'compaction' && entry.replaces?.includes(first.nodeId))
}

/** Where a part starts, as the shared-prefix instruction names it: its first message, and the message before it. */
function leadOf(part: SummaryPart): { first: string; from?: string } {
  const first = part.entries.find((entry) => entry.message !== undefined)?.message
  const line = (message: NonNullable<TreeEntry['message']>): string => oneLine(renderMessages([message]), LEAD_CHARS)
  return {
    first: first ? line(first) : '(no message)',
    ...(part.fromEntry?.message ? { from: line(part.fromEntry.message) } : {}),
  }
}

/** How much of a message the instruction quotes. */
const LEAD_CHARS = 300

/** The branch a summary of the path ending at `nodeId` is recorded under. */
function branchAt(tree: SessionTree, nodeId: string): string {
  const heads = tree.branchHeadList()
  const active = tree.activeBranch
  if (heads.some(([name, head]) => name === active && head === nodeId)) return active
  const headed = heads.find(([, head]) => head === nodeId)?.[0]
  if (headed !== undefined) return headed
  const lane = tree.laneOf(nodeId)
  return lane && heads.some(([name]) => name === lane) ? lane : active
}
