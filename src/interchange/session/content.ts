/**
 * Neutral parts → harness content blocks for the DSH model. Thinking is left
 * out (DSH adapters replay `reasoning` blocks, and another vendor's must not
 * reach the model); images become a text reference (a harness image block
 * needs bytes the attachment service owns). Both stay in the provenance.
 */
import type { ContentPart, ImagePart, InputPart } from '../model.ts'
import { argumentsText } from './provider-view.ts'

export type TextBlock = { type: 'text'; text: string }
export type ToolCallBlock = { type: 'tool-call'; id: string; name: string; arguments: string }

/** The model-facing text standing in for an image. */
export function imageReference(image: ImagePart): string {
  const size = image.data !== undefined ? `, ${Math.round((image.data.length * 3) / 4 / 1024)} KiB` : ''
  const where = image.url !== undefined ? ` at ${image.url}` : ''
  return `[image: ${image.mediaType}${size}${where}, imported by reference]`
}

/** User or tool-result content as text blocks. */
export function inputBlocks(parts: readonly InputPart[]): TextBlock[] {
  return parts.map((part) => ({ type: 'text', text: part.type === 'text' ? part.text : imageReference(part) }))
}

/** Assistant content: text and tool calls, never thinking (an answer with nothing to send is no message: `provider-view.ts`). */
export function assistantBlocks(parts: readonly ContentPart[]): (TextBlock | ToolCallBlock)[] {
  const blocks: (TextBlock | ToolCallBlock)[] = []
  for (const part of parts) {
    if (part.type === 'text') blocks.push({ type: 'text', text: part.text })
    else if (part.type === 'image') blocks.push({ type: 'text', text: imageReference(part) })
    else if (part.type === 'tool_call')
      blocks.push({ type: 'tool-call', id: part.id, name: part.name, arguments: argumentsText(part.arguments) })
  }
  return blocks.length > 0 ? blocks : [{ type: 'text', text: '' }]
}
