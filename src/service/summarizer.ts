/**
 * The default branch summarizer: extractive and local. It costs no model call
 * and cannot fail; a deployment that wants model-written digests injects its
 * own `BranchSummarizer` (the tree records which model wrote each summary).
 */
import { noBranch, ok, type TreeResult } from '../tree/errors.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import { fallbackSummary, oneLine, renderMessages } from '../tree/text.ts'
import type { BranchSummarizer, BranchSummary } from '../tree/types.ts'
import { checkBranchName, validated } from '../tree/validate.ts'

export const EXTRACTIVE_MODEL = 'extractive'

export const extractiveSummarizer: BranchSummarizer = {
  model: EXTRACTIVE_MODEL,
  async summarize({ messages, entries }) {
    // Typed prompts only: context a plugin injected is not something the user asked.
    const prompts = entries
      .filter(
        (entry) =>
          entry.message?.role === 'user' && entry.origin?.injected !== true && entry.message.content.trim() !== '',
      )
      .map((entry) => entry.message!)
    const answers = messages.filter((m) => m.role === 'assistant' && m.content.trim() !== '')
    const tools = messages.filter((m) => m.role === 'tool').length
    const parts: string[] = []
    if (prompts.length > 0) {
      const shown = prompts
        .slice(-3)
        .map((m) => `“${oneLine(m.content, 80)}”`)
        .join(', ')
      parts.push(
        `${prompts.length} prompt${prompts.length === 1 ? '' : 's'}${prompts.length > 3 ? ', latest' : ''}: ${shown}`,
      )
    }
    if (tools > 0) parts.push(`${tools} tool result${tools === 1 ? '' : 's'}`)
    const last = answers.at(-1)
    if (last) parts.push(`last answer: “${oneLine(last.content, 160)}”`)
    return parts.length > 0 ? `${parts.join('; ')}.` : ''
  },
}

/** The branch a summary is asked for: its checked name and head, or INVALID_ARGUMENT / BRANCH_NOT_FOUND. */
export function summaryBranch(tree: SessionTree, branch: unknown): TreeResult<{ name: string; head: string }> {
  const checked = validated(() => checkBranchName(branch))
  if (!checked.ok) return checked
  const name = checked.value
  const head = tree.branchHeadList().find(([candidate]) => candidate === name)?.[1]
  if (head === undefined) return noBranch(name)
  return ok({ name, head })
}

/**
 * A summary of `branch` drafted from the tree as it is now, for the caller to
 * record in one synchronous step (a summary never spans other work on the
 * tree, and a journal failure can undo exactly it). The extractive summarizer
 * is local and cannot hang; an empty digest becomes the deterministic
 * fallback, as `SessionTree.summarizeBranch` does.
 */
export async function draftSummary(tree: SessionTree, branch: unknown): Promise<TreeResult<BranchSummary>> {
  const found = summaryBranch(tree, branch)
  if (!found.ok) return found
  const { name, head } = found.value
  const history = tree.historyPath(head)
  const entries = history.ok ? history.value : []
  const messages = entries.map((entry) => entry.message!)
  let text = ''
  try {
    text = (
      await extractiveSummarizer.summarize({
        branch: name,
        text: renderMessages(messages),
        messages,
        entries,
        signal: new AbortController().signal,
      })
    ).trim()
  } catch {
    // Cannot happen with the extractive digest; the fallback below covers it anyway.
  }
  const createdAt = new Date().toISOString()
  return ok(
    text === ''
      ? { branch: name, nodeId: head, summary: fallbackSummary(entries.length), fallback: true, createdAt }
      : { branch: name, nodeId: head, summary: text, model: EXTRACTIVE_MODEL, createdAt },
  )
}
