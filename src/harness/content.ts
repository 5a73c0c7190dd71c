/**
 * Harness message content → tree content. Harness messages carry rich blocks
 * (text, reasoning, image, tool-call, tool-result); the tree keeps a flat
 * text for the model view and structured parts for display.
 */
import type { ContentPart, JsonValue } from '../tree/types.ts'
import { isRecord } from '../tree/validate.ts'

/** Thrown for content the adapter cannot read; the event is quarantined. */
export class MalformedEvent extends Error {}

export interface FlatContent {
  /** Model-visible text (text blocks joined; tool results flattened). */
  readonly text: string
  readonly parts: ContentPart[]
}

function parseArguments(raw: unknown): JsonValue {
  if (typeof raw !== 'string') return null
  try {
    return JSON.parse(raw) as JsonValue
  } catch {
    return raw
  }
}

/** Text of nested result blocks (a tool result's own content). */
function nestedText(blocks: unknown): string {
  if (typeof blocks === 'string') return blocks
  if (!Array.isArray(blocks)) throw new MalformedEvent('tool-result content must be an array')
  return blocks
    .map((block) => {
      if (!isRecord(block)) throw new MalformedEvent('tool-result content block must be an object')
      if (block.type === 'text' && typeof block.text === 'string') return block.text
      if (block.type === 'image') return '[image]'
      return ''
    })
    .join('')
}

/** Flatten a harness content block array. */
export function flattenContent(blocks: unknown): FlatContent {
  if (!Array.isArray(blocks)) throw new MalformedEvent('message content must be an array')
  const texts: string[] = []
  const parts: ContentPart[] = []
  for (const block of blocks) {
    if (!isRecord(block) || typeof block.type !== 'string')
      throw new MalformedEvent('content block must be an object with a type')
    switch (block.type) {
      case 'text':
        if (typeof block.text !== 'string') throw new MalformedEvent('text block without text')
        texts.push(block.text)
        parts.push({ type: 'text', text: block.text })
        break
      case 'reasoning':
        if (typeof block.text !== 'string') throw new MalformedEvent('reasoning block without text')
        parts.push({ type: 'reasoning', text: block.text })
        break
      case 'image':
        texts.push('[image]')
        parts.push({ type: 'text', text: '[image]' })
        break
      case 'tool-call':
        if (typeof block.id !== 'string' || typeof block.name !== 'string')
          throw new MalformedEvent('tool-call block without id or name')
        parts.push({ type: 'tool_call', id: block.id, name: block.name, arguments: parseArguments(block.arguments) })
        break
      case 'tool-result': {
        if (typeof block.toolCallId !== 'string') throw new MalformedEvent('tool-result block without toolCallId')
        const text = nestedText(block.content)
        texts.push(text)
        parts.push(
          block.isError === true
            ? { type: 'tool_result', toolCallId: block.toolCallId, content: text, isError: true }
            : { type: 'tool_result', toolCallId: block.toolCallId, content: text },
        )
        break
      }
      default:
        // Blocks added by newer harnesses: keep the tree readable, never fatal.
        break
    }
  }
  return { text: texts.join('\n'), parts }
}

export { parseArguments }
