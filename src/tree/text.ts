/** Human-readable text derived from nodes: one-line summaries and branch renderings. */
import type { ContentPart, LlmMessage } from './types.ts'

export const SUMMARY_LENGTH = 120

/** `\s` of a JavaScript regular expression, by char code: what every text rule of the tree calls a space. */
export function isSpace(c: number): boolean {
  if (c > 32 && c < 0xa0) return false
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  )
}

/**
 * `oneLine` in two parts: the text to show, and whether it was cut (then an
 * ellipsis follows). Reads only as far as the cut: a long message costs no
 * more than a short one, and text already on one line comes back as the
 * very string (or a slice of it), never a copy.
 */
export function oneLineParts(text: string, max = SUMMARY_LENGTH): readonly [head: string, cut: boolean] {
  const n = text.length
  let i = 0
  while (i < n && isSpace(text.charCodeAt(i))) i++
  const first = i
  let start = i
  let done = ''
  let out = 0
  // Collapse whitespace runs until one character more than `max` is known (that decides the cut).
  while (i < n && out <= max) {
    const c = text.charCodeAt(i)
    if (!isSpace(c)) {
      i++
      out++
      continue
    }
    let j = i + 1
    while (j < n && isSpace(text.charCodeAt(j))) j++
    if (j === n) break
    if (c === 32 && j === i + 1) {
      i = j
      out++
      continue
    }
    done += text.slice(start, i) + ' '
    out++
    start = i = j
  }
  if (out <= max)
    return [done === '' ? (first === 0 && i === n ? text : text.slice(first, i)) : done + text.slice(start, i), false]
  return [done === '' ? text.slice(first, first + max - 1) : (done + text.slice(start, i)).slice(0, max - 1), true]
}

/** Collapse whitespace and cut to one short line. */
export function oneLine(text: string, max = SUMMARY_LENGTH): string {
  const [head, cut] = oneLineParts(text, max)
  return cut ? `${head}…` : head
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

/** The summary a node gets when its producer gives none, in `oneLineParts` form. */
export function defaultSummaryParts(
  message: LlmMessage | null | undefined,
  content: readonly ContentPart[] | undefined,
): readonly [head: string, cut: boolean] {
  const call = content?.find((part) => part.type === 'tool_call')
  const result = content?.find((part) => part.type === 'tool_result')
  if (call && call.type === 'tool_call') {
    const head = `${call.name}(${argumentsText(call.arguments)})`
    return oneLineParts(result && result.type === 'tool_result' ? `${head} → ${result.content}` : head)
  }
  if (message && message.content !== '') return oneLineParts(message.content)
  const text = content?.find((part) => part.type === 'text')
  if (text && text.type === 'text') return oneLineParts(text.text)
  return ['', false]
}

/** The summary a node gets when its producer gives none. */
export function defaultSummary(
  message: LlmMessage | null | undefined,
  content: readonly ContentPart[] | undefined,
): string {
  const [head, cut] = defaultSummaryParts(message, content)
  return cut ? `${head}…` : head
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
