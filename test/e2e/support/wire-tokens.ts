/**
 * Token counts of what the fake LLM received, priced by the REAL token meter's
 * estimator (`test/support/token-meter.ts`): each wire message is read back
 * into the harness's content blocks (the DeepSeek adapter's serialization
 * undone: text, reasoning, tool calls, one tool result per `tool` message)
 * and priced as the meter prices a message. The system prompt and the tool
 * schemas are priced as text; they are the same in every request of a
 * session, so they cancel out wherever two requests are compared.
 */
import type { ChatMessage, ChatRequestBody, FakeUsage, StaticStep } from './fake-llm.ts'
import type { RealTokenMeter } from '../../support/token-meter.ts'

type Block = Record<string, unknown>

function text(value: ChatMessage['content']): string {
  if (typeof value === 'string') return value
  if (!Array.isArray(value)) return ''
  return value
    .map((part) =>
      typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string' ? part.text : '',
    )
    .join('')
}

const SUMMARY_OPEN = '<compacted-summary>'
const SUMMARY_CLOSE = '</compacted-summary>'

/**
 * A user message's text blocks: DSH's compaction checkpoint is three (its preamble ending with the
 * opening tag, the summary, the closing tag: `dsh-compaction-basic`'s `frameSummary`), joined on the
 * wire; any other is one.
 */
function checkpointBlocks(wire: string): Block[] {
  const open = wire.indexOf(SUMMARY_OPEN)
  if (open === -1 || !wire.endsWith(SUMMARY_CLOSE)) return [{ type: 'text', text: wire }]
  const head = open + SUMMARY_OPEN.length
  return [
    { type: 'text', text: wire.slice(0, head) },
    { type: 'text', text: wire.slice(head, wire.length - SUMMARY_CLOSE.length) },
    { type: 'text', text: SUMMARY_CLOSE },
  ]
}

/** A wire message as the harness message it was serialized from. */
export function harnessMessage(message: ChatMessage): { role: string; content: Block[] } {
  switch (message.role) {
    case 'tool':
      return {
        role: 'user',
        content: [
          {
            type: 'tool-result',
            toolCallId: message.tool_call_id,
            content: [{ type: 'text', text: text(message.content) }],
          },
        ],
      }
    case 'assistant': {
      const blocks: Block[] = []
      if (message.reasoning_content) blocks.push({ type: 'reasoning', text: message.reasoning_content })
      if (text(message.content).length > 0) blocks.push({ type: 'text', text: text(message.content) })
      for (const call of message.tool_calls ?? [])
        blocks.push({ type: 'tool-call', id: call.id, name: call.function.name, arguments: call.function.arguments })
      return { role: 'assistant', content: blocks }
    }
    default:
      return { role: message.role, content: checkpointBlocks(text(message.content)) }
  }
}

export interface RequestTokens {
  /** Each non-system message, in order. */
  readonly messages: readonly number[]
  /** System prompt and tool schemas. */
  readonly envelope: number
  readonly total: number
}

export function requestTokens(meter: RealTokenMeter, body: ChatRequestBody): RequestTokens {
  const system = body.messages.filter((m) => m.role === 'system').map((m) => meter.estimateMessage(harnessMessage(m)))
  const tools =
    body.tools && body.tools.length > 0
      ? meter.estimateMessage({ role: 'system', content: [{ type: 'text', text: JSON.stringify(body.tools) }] })
      : 0
  const messages = body.messages.filter((m) => m.role !== 'system').map((m) => meter.estimateMessage(harnessMessage(m)))
  const envelope = system.reduce((a, b) => a + b, 0) + tools
  return { messages, envelope, total: envelope + messages.reduce((a, b) => a + b, 0) }
}

/** The price of a scripted answer, as the harness prices the assistant message it becomes. */
export function replyTokens(meter: RealTokenMeter, step: Exclude<StaticStep, { error: unknown }>): number {
  const blocks: Block[] = []
  if (step.reasoning) blocks.push({ type: 'reasoning', text: step.reasoning })
  if (step.text) blocks.push({ type: 'text', text: step.text })
  if ('toolCalls' in step) {
    for (const call of step.toolCalls)
      blocks.push({
        type: 'tool-call',
        id: call.id ?? '',
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
      })
  }
  return meter.estimateMessage({ role: 'assistant', content: blocks })
}

/** Usage for the fake LLM: the prompt as received, and the answer, priced by the meter. */
export function meteredUsage(meter: RealTokenMeter) {
  return (body: ChatRequestBody, step: Exclude<StaticStep, { error: unknown }>): FakeUsage => ({
    promptTokens: requestTokens(meter, body).total,
    completionTokens: replyTokens(meter, step),
  })
}
