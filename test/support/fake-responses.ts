/**
 * A recording fake of OpenAI's Responses API on 127.0.0.1, for the real
 * `codex` CLI (a `model_providers.<name>` entry with `base_url` and
 * `wire_api = "responses"`). `POST …/responses` is answered as server-sent
 * events (`response.created`, `response.output_item.added/done`,
 * `response.completed` with usage) with what `answer` picks for the request;
 * `POST …/responses/compact` (remote compaction) with a JSON `output`;
 * anything else with 404. Every request is recorded with its parsed body.
 *
 * Used by `dev/fixtures/codex.ts` to generate real rollouts.
 */
import { serveLocal } from './local-server.ts'

export interface ResponsesItem {
  readonly type: string
  readonly role?: string
  readonly content?: readonly { readonly type: string; readonly text?: string }[] | string
  readonly name?: string
  readonly arguments?: string
  readonly call_id?: string
  readonly output?: unknown
  readonly [key: string]: unknown
}

export interface ResponsesBody {
  readonly model: string
  readonly input: readonly ResponsesItem[]
  readonly instructions?: string
  readonly tools?: readonly { readonly type: string; readonly name?: string }[]
  readonly stream?: boolean
  readonly [key: string]: unknown
}

export interface ResponsesStep {
  readonly reasoning?: string
  readonly text?: string
  readonly calls?: readonly {
    readonly name: string
    readonly arguments: Readonly<Record<string, unknown>>
    readonly id?: string
  }[]
  /** Input tokens reported (drives the CLI's auto-compaction); default 100. */
  readonly inputTokens?: number
}

export interface RecordedResponsesRequest {
  readonly n: number
  readonly path: string
  readonly body: ResponsesBody
}

export interface FakeResponses {
  readonly url: string
  readonly requests: readonly RecordedResponsesRequest[]
  close(): Promise<void>
}

/** Text of a message item. */
export function itemText(item: ResponsesItem): string {
  if (typeof item.content === 'string') return item.content
  return (item.content ?? []).map((c) => c.text ?? '').join('')
}

export async function startFakeResponses(
  answer: (body: ResponsesBody, n: number, path: string) => ResponsesStep,
): Promise<FakeResponses> {
  const requests: RecordedResponsesRequest[] = []
  let n = 0
  const server = await serveLocal((req, res, raw) => {
    const url = req.url ?? '/'
    if (req.method !== 'POST' || !/\/responses(\/compact)?(\?|$)/.test(url))
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not here"}}')
    let body: ResponsesBody
    try {
      body = JSON.parse(raw.toString('utf8')) as ResponsesBody
    } catch {
      return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"not JSON"}}')
    }
    const number = ++n
    requests.push({ n: number, path: url, body })
    let step: ResponsesStep
    try {
      step = answer(body, number, url)
    } catch (error) {
      return void res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `fake: ${(error as Error).message}` } }))
    }
    const items = outputItems(step, number)
    const usage = {
      input_tokens: step.inputTokens ?? 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: (step.inputTokens ?? 100) + 10,
    }
    if (url.includes('/responses/compact'))
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ output: items, usage }))
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    const event = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
    const id = `resp_fake_${number}`
    event('response.created', { response: { id } })
    items.forEach((item, index) => {
      event('response.output_item.added', { output_index: index, item })
      if (item.type === 'message')
        event('response.output_text.delta', {
          output_index: index,
          content_index: 0,
          item_id: item.id,
          delta: itemText(item as ResponsesItem),
        })
      event('response.output_item.done', { output_index: index, item })
    })
    event('response.completed', { response: { id, usage } })
    res.end()
  })
  return { url: server.url, requests, close: server.close }
}

function outputItems(step: ResponsesStep, n: number): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = []
  if (step.reasoning !== undefined)
    items.push({
      type: 'reasoning',
      id: `rs_fake_${n}`,
      summary: [{ type: 'summary_text', text: step.reasoning }],
      content: null,
      encrypted_content: null,
    })
  if (step.text !== undefined)
    items.push({
      type: 'message',
      id: `msg_fake_${n}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: step.text, annotations: [] }],
    })
  for (const [i, call] of (step.calls ?? []).entries())
    items.push({
      type: 'function_call',
      id: `fc_fake_${n}_${i}`,
      call_id: call.id ?? `call_fake_${n}_${i}`,
      name: call.name,
      arguments: JSON.stringify(call.arguments),
      status: 'completed',
    })
  if (items.length === 0)
    items.push({
      type: 'message',
      id: `msg_fake_${n}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: '', annotations: [] }],
    })
  return items
}
