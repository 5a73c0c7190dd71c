/**
 * A recording fake of Anthropic's Messages API on 127.0.0.1, for the real
 * `claude` CLI (`ANTHROPIC_BASE_URL`). It answers `POST /v1/messages`
 * (streamed as server-sent events, or as one JSON body) with whatever the
 * `answer` function picks for the request, `POST /v1/messages/count_tokens`
 * with a fixed count, `HEAD /` (the CLI's reachability probe) with 200, and
 * anything else with 404. Every request is recorded with its parsed body.
 *
 * Used by `dev/fixtures/claude-code.ts` (generating real transcripts) and by
 * the test that resumes our export with the real `claude --resume`.
 */
import http from 'node:http'
import { serveLocal } from './local-server.ts'

export interface AnthropicBlock {
  readonly type: string
  readonly text?: string
  readonly [key: string]: unknown
}

export interface AnthropicMessage {
  readonly role: 'user' | 'assistant'
  readonly content: string | readonly AnthropicBlock[]
}

export interface MessagesBody {
  readonly model: string
  readonly messages: readonly AnthropicMessage[]
  readonly system?: string | readonly AnthropicBlock[]
  readonly tools?: readonly { readonly name: string }[]
  readonly stream?: boolean
  readonly max_tokens?: number
  readonly [key: string]: unknown
}

/** One scripted answer: optional thinking, text, tool calls (in that order). */
export interface AnthropicStep {
  readonly thinking?: string
  readonly text?: string
  readonly toolUses?: readonly {
    readonly id?: string
    readonly name: string
    readonly input: Readonly<Record<string, unknown>>
  }[]
  /** Usage reported for the answer (default 100 in, 10 out). */
  readonly usage?: { readonly input: number; readonly output: number }
}

export interface RecordedMessagesRequest {
  readonly n: number
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: MessagesBody
}

export interface FakeAnthropic {
  readonly url: string
  readonly requests: readonly RecordedMessagesRequest[]
  close(): Promise<void>
}

/** The text of a message (its text blocks joined). */
export function messageText(message: AnthropicMessage): string {
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('')
}

/** The text of the last user message that is not only tool results. */
export function lastPrompt(body: MessagesBody): string {
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const m = body.messages[i]!
    if (m.role !== 'user') continue
    if (typeof m.content !== 'string' && m.content.every((b) => b.type === 'tool_result')) continue
    return messageText(m)
  }
  return ''
}

export async function startFakeAnthropic(
  answer: (body: MessagesBody, n: number) => AnthropicStep,
): Promise<FakeAnthropic> {
  const requests: RecordedMessagesRequest[] = []
  let n = 0
  const server = await serveLocal((req, res, raw) => {
    const url = req.url ?? '/'
    if (req.method === 'HEAD' || (req.method === 'GET' && url === '/')) return void res.writeHead(200).end()
    if (req.method !== 'POST' || !url.startsWith('/v1/messages'))
      return void res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"type":"error","error":{"type":"not_found_error","message":"not here"}}')
    let body: MessagesBody
    try {
      body = JSON.parse(raw.toString('utf8')) as MessagesBody
    } catch {
      return void res
        .writeHead(400, { 'content-type': 'application/json' })
        .end('{"type":"error","error":{"type":"invalid_request_error","message":"not JSON"}}')
    }
    if (url.startsWith('/v1/messages/count_tokens'))
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":100}')
    const number = ++n
    requests.push({ n: number, path: url, headers: req.headers, body })
    let step: AnthropicStep
    try {
      step = answer(body, number)
    } catch (error) {
      return void res.writeHead(400, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          type: 'error',
          error: { type: 'invalid_request_error', message: `fake: ${(error as Error).message}` },
        }),
      )
    }
    reply(res, body, step, number)
  })
  return { url: server.url, requests, close: server.close }
}

function reply(res: http.ServerResponse, body: MessagesBody, step: AnthropicStep, n: number): void {
  const id = `msg_fake_${n}`
  const blocks: Record<string, unknown>[] = []
  if (step.thinking !== undefined)
    blocks.push({ type: 'thinking', thinking: step.thinking, signature: `fake-signature-${n}` })
  if (step.text !== undefined) blocks.push({ type: 'text', text: step.text })
  for (const [i, use] of (step.toolUses ?? []).entries())
    blocks.push({ type: 'tool_use', id: use.id ?? `toolu_fake_${n}_${i}`, name: use.name, input: use.input })
  if (blocks.length === 0) blocks.push({ type: 'text', text: '' })
  const stop = (step.toolUses ?? []).length > 0 ? 'tool_use' : 'end_turn'
  const usage = {
    input_tokens: step.usage?.input ?? 100,
    output_tokens: step.usage?.output ?? 10,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  }
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: blocks,
        stop_reason: stop,
        stop_sequence: null,
        usage,
      }),
    )
    return
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
  event('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  })
  blocks.forEach((block, index) => {
    if (block.type === 'thinking') {
      event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } })
      event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block.thinking } })
      event('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } })
    } else if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } })
      event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } })
    } else {
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      })
      event('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      })
    }
    event('content_block_stop', { index })
  })
  event('message_delta', {
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  })
  event('message_stop', {})
  res.end()
}
