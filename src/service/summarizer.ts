/**
 * The default branch summarizer: extractive and local. It costs no model call
 * and cannot fail; a deployment that wants model-written digests injects its
 * own `BranchSummarizer` (the tree records which model wrote each summary).
 */
import { oneLine } from '../tree/text.ts'
import type { BranchSummarizer } from '../tree/types.ts'

export const EXTRACTIVE_MODEL = 'extractive'

export const extractiveSummarizer: BranchSummarizer = {
  model: EXTRACTIVE_MODEL,
  async summarize({ messages, entries }) {
    // Typed prompts only: context a plugin injected is not something the user asked.
    const prompts = entries
      .filter((entry) => entry.message?.role === 'user' && entry.origin?.injected !== true && entry.message.content.trim() !== '')
      .map((entry) => entry.message!)
    const answers = messages.filter((m) => m.role === 'assistant' && m.content.trim() !== '')
    const tools = messages.filter((m) => m.role === 'tool').length
    const parts: string[] = []
    if (prompts.length > 0) {
      const shown = prompts.slice(-3).map((m) => `“${oneLine(m.content, 80)}”`).join(', ')
      parts.push(`${prompts.length} prompt${prompts.length === 1 ? '' : 's'}${prompts.length > 3 ? ', latest' : ''}: ${shown}`)
    }
    if (tools > 0) parts.push(`${tools} tool result${tools === 1 ? '' : 's'}`)
    const last = answers.at(-1)
    if (last) parts.push(`last answer: “${oneLine(last.content, 160)}”`)
    return parts.length > 0 ? `${parts.join('; ')}.` : ''
  },
}
