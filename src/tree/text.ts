/** Human-readable text derived from nodes: one-line summaries and branch renderings. */
import type { ContentPart, LlmMessage } from './types.ts'

export const SUMMARY_LENGTH = 120

/** Whitespace that `oneLine` changes: any but a single inner space. */
const NOT_ONE_LINE = /[^\S ]| {2}|^ | $/

/** Collapse whitespace and cut to one short line. */
export function oneLine(text: string, max = SUMMARY_LENGTH): string {
  // Most text is already one line: keep the very string (and slices of it) instead of a flattened copy per node.
  const flat = NOT_ONE_LINE.test(text) ? text.replace(/\s+/g, ' ').trim() : text
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

/** Tool-call arguments as text: a string as it is, anything else as JSON (what cannot be JSON, as `String`). */
export function argumentsText(args: unknown): string {
  if (typeof args === 'string') return args
  try {
    return JSON.stringify(args) ?? ''
  } catch {
    return String(args)
  }
}

/** The summary a node gets when its producer gives none. */
export function defaultSummary(message: LlmMessage | null, content: readonly ContentPart[] | undefined): string {
  const call = content?.find((part) => part.type === 'tool_call')
  const result = content?.find((part) => part.type === 'tool_result')
  if (call && call.type === 'tool_call') {
    const head = `${call.name}(${argumentsText(call.arguments)})`
    return oneLine(result && result.type === 'tool_result' ? `${head} → ${result.content}` : head)
  }
  if (message && message.content !== '') return oneLine(message.content)
  const text = content?.find((part) => part.type === 'text')
  if (text && text.type === 'text') return oneLine(text.text)
  return ''
}

/** Render messages as `role: text` lines, the input a branch summarizer reads. */
export function renderMessages(messages: readonly LlmMessage[]): string {
  let out = ''
  for (const message of messages) out += `${message.role}: ${message.content}\n`
  return out
}

/** The deterministic text recorded when no summary could be written. */
export function fallbackSummary(messageCount: number): string {
  return `[${messageCount} message${messageCount === 1 ? '' : 's'}, unsummarized]`
}
