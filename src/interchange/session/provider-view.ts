/**
 * What a source tool sends its provider beyond its context, so an imported
 * history is one a strict chat-completions API accepts: left-out or empty
 * answers and unanswered results become tree-only nodes; an orphaned call gets
 * a synthetic error result in the source's own words; freeform tool input is
 * sent as `{"input": …}`. Pure. docs/interchange.md, "What the model sees".
 */
import type { SurfaceEntry } from '../../harness/surface-mirror.ts'
import type { ContentPart, SourceFormat } from '../model.ts'
import type { JsonValue } from '../../tree/types.ts'
import { PLUGIN_ID } from '../../harness/marker.ts'

/** `error.code` of a synthetic result's `tool/result` (the tree keeps it as the node's `error`). */
export const NO_RESULT_CODE = `${PLUGIN_ID}/no-result`

/** The result text the source tool itself sends for a call left without one. */
export function noResultText(format: SourceFormat | 'dsh'): string {
  switch (format) {
    case 'codex':
      return 'aborted'
    case 'claude-code':
      return '[Request interrupted by user for tool use]'
    default:
      return 'No result provided'
  }
}

/** Raw arguments as the harness stores them: JSON text; freeform input as `{"input": …}`. */
export function argumentsText(args: JsonValue): string {
  // A string is what a reader kept because it was not JSON (see `ToolCallPart.arguments`).
  return JSON.stringify(typeof args === 'string' ? { input: args } : (args ?? {}))
}

/** Whether an answer has anything to send once thinking is left out: text, or a tool call. */
export function sendable(parts: readonly ContentPart[]): boolean {
  return parts.some(
    (part) => part.type === 'tool_call' || part.type === 'image' || (part.type === 'text' && part.text.trim() !== ''),
  )
}

export interface OpenCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

type Loose = { readonly [key: string]: unknown }
const record = (value: unknown): Loose | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Loose) : undefined

/** The last answer on the model's surface and its calls that no result after it answers. */
export interface OpenExchange {
  readonly answer: SurfaceEntry
  readonly calls: readonly OpenCall[]
}

/**
 * The calls of the last answer on the model's surface that no result after it answers: what
 * must be answered before anything but a result follows (undefined: none).
 */
export function openExchange(
  surface: readonly SurfaceEntry[],
  eventAt: (seq: number) => unknown,
): OpenExchange | undefined {
  const answered = new Set<string>()
  for (let i = surface.length - 1; i >= 0; i--) {
    const event = record(eventAt(surface[i]!.seq))
    const message = record(record(event?.data)?.message)
    const content = Array.isArray(message?.content) ? (message.content as unknown[]) : []
    if (event?.type === 'tool/result') {
      for (const block of content) {
        const id = record(block)?.toolCallId
        if (typeof id === 'string') answered.add(id)
      }
      continue
    }
    if (event?.type !== 'assistant/message') return undefined
    // An empty answer (a tombstone) derives no message: look past it.
    if (content.length === 0) continue
    const calls = content.flatMap((block): OpenCall[] => {
      const call = record(block)
      return call?.type === 'tool-call' &&
        typeof call.id === 'string' &&
        typeof call.name === 'string' &&
        typeof call.arguments === 'string' &&
        !answered.has(call.id)
        ? [{ id: call.id, name: call.name, arguments: call.arguments }]
        : []
    })
    return calls.length > 0 ? { answer: surface[i]!, calls } : undefined
  }
  return undefined
}
