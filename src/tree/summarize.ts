/**
 * Branch digests: running an injected summarizer under a time budget (it may
 * throw or hang; the tree copes), and the linear export — the active path plus
 * one digest for every branch off it.
 */
import { fail, ok, type TreeResult, noBranch } from './errors.ts'
import { publicEntry } from './entry.ts'
import { historyOf, pathFrom } from './history.ts'
import { summaryOf } from './nodes.ts'
import type { TreeState } from './state.ts'
import { fallbackSummary, renderMessages } from './text.ts'
import type {
  BranchSummarizer,
  BranchSummary,
  ExportedMessage,
  ExportedToolCall,
  LinearExport,
  TreeEntry,
} from './types.ts'
import { checkBranchName, Invalid } from './validate.ts'

/** Default time budget of a branch summarizer. */
export const SUMMARIZE_TIMEOUT_MS = 30_000

function branchName(branch: unknown): TreeResult<string> {
  try {
    return ok(checkBranchName(branch))
  } catch (error) {
    if (error instanceof Invalid) return fail('INVALID_ARGUMENT', error.reason)
    throw error
  }
}

/** The summary a caller writes for a branch (with the model that wrote it, if any), ready to record. */
export function writtenSummary(
  state: TreeState,
  branch: string,
  text: string,
  model: string | undefined,
  now: () => Date,
): TreeResult<BranchSummary> {
  const name = branchName(branch)
  if (!name.ok) return name
  const head = state.branches.get(name.value)
  if (!head) return noBranch(name.value)
  if (typeof text !== 'string' || text.trim() === '')
    return fail('INVALID_ARGUMENT', 'summary must be a non-empty string')
  if (model !== undefined && typeof model !== 'string') return fail('INVALID_ARGUMENT', 'model must be a string')
  const summary: BranchSummary = {
    branch: name.value,
    nodeId: head.entry.nodeId,
    summary: text,
    createdAt: now().toISOString(),
  }
  return ok(model === undefined ? summary : { ...summary, model })
}

/**
 * The summary an injected summarizer writes for a branch, ready to record; a
 * summarizer that throws, hangs or returns nothing yields the fallback.
 */
export async function summarizeBranch(
  state: TreeState,
  branch: string,
  summarizer: BranchSummarizer,
  timeoutMs: number,
  now: () => Date,
): Promise<TreeResult<BranchSummary>> {
  const name = branchName(branch)
  if (!name.ok) return name
  const head = state.branches.get(name.value)
  if (!head) return noBranch(name.value)
  const path = pathFrom(state, head)
  const entries = path.ok ? historyOf(path.value).map((rec) => publicEntry(rec.entry, summaryOf(rec))) : []
  const nodeId = head.entry.nodeId
  const text = await runSummarizer(summarizer, name.value, entries, timeoutMs)
  const createdAt = now().toISOString()
  return ok(
    text === undefined
      ? { branch: name.value, nodeId, summary: fallbackSummary(entries.length), fallback: true, createdAt }
      : { branch: name.value, nodeId, summary: text, model: summarizer.model, createdAt },
  )
}

/** Run a summarizer under a time budget; undefined when it failed, hung or returned nothing usable. */
async function runSummarizer(
  summarizer: BranchSummarizer,
  branch: string,
  entries: TreeEntry[],
  timeoutMs: number,
): Promise<string | undefined> {
  const messages = entries.map((entry) => entry.message!)
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new Error('summarizer timed out'))
        resolve(undefined)
      }, timeoutMs)
    })
    const work = Promise.resolve()
      .then(() =>
        summarizer.summarize({ branch, text: renderMessages(messages), messages, entries, signal: controller.signal }),
      )
      .then(
        (text) => (typeof text === 'string' && text.trim() !== '' ? text.trim() : undefined),
        () => undefined,
      )
    return await Promise.race([work, timeout])
  } catch {
    return undefined
  } finally {
    if (timer !== undefined) clearTimeout(timer)
  }
}

/**
 * The active path's messages plus one digest for every branch whose head is
 * off that path: its recorded summary, or an honest stub. Fails closed when
 * the active path cannot be read; nothing is deleted.
 */
export function linearExport(state: TreeState, sessionId: string): TreeResult<LinearExport> {
  const active = pathFrom(state, state.cursor)
  if (!active.ok) return active
  const onPath = new Set(active.value)
  const branches: BranchSummary[] = []
  for (const name of state.branches.ordered(state.active)) {
    const head = state.branches.get(name)
    if (!head || onPath.has(head)) continue
    const recorded = state.summaries.get(name)
    if (recorded) {
      branches.push(recorded)
      continue
    }
    const path = pathFrom(state, head)
    const summary = path.ok
      ? fallbackSummary(historyOf(path.value).length)
      : `[branch ${JSON.stringify(name)} could not be read: ${path.error.message}]`
    branches.push({ branch: name, nodeId: head.entry.nodeId, summary, fallback: true, createdAt: head.entry.createdAt })
  }
  return ok({ sessionId, messages: historyOf(active.value).map((rec) => exportedMessage(rec.entry)), branches })
}

/** An entry's message with the tool calls it requested (an assistant message that only calls tools has no text). */
function exportedMessage(entry: Pick<TreeEntry, 'message' | 'content'>): ExportedMessage {
  const message = entry.message!
  if (message.role !== 'assistant') return message
  const toolCalls: ExportedToolCall[] = []
  for (const part of entry.content ?? [])
    if (part.type === 'tool_call') toolCalls.push({ id: part.id, name: part.name, arguments: part.arguments })
  return toolCalls.length === 0 ? message : { ...message, toolCalls }
}
