/**
 * The chat-completions body DSH sends for a log, built by DSH's own code: the harness
 * `Session.deriveMessages()` (what the agent loop hands its model) serialized by the published
 * `@deepseek-ai/dsh-llm-deepseek` adapter (what `dsh web`'s default model route puts on the
 * wire), captured at a loopback server. `wireViolations` checks it against the provider
 * contract, for unit and property tests that run no `dsh` process.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { DeepSeekAdapter } from '@deepseek-ai/dsh-llm-deepseek'
import { Session, SessionId } from '@deepseek-ai/dsh-session'
import { contractViolations, type ContractViolation } from './provider-contract.ts'

/** A chat-completions body as the adapter wrote it. */
export interface WireBody {
  readonly model: string
  readonly messages: ReadonlyArray<{
    readonly role: string
    readonly content?: unknown
    readonly tool_calls?: ReadonlyArray<{ readonly id: string; readonly function: { name: string; arguments: string } }>
    readonly tool_call_id?: string
  }>
}

/** One captured request: the body as parsed, and its size on the wire. */
export interface WireRequest {
  readonly body: WireBody
  readonly bytes: number
}

interface Capture {
  readonly url: string
  next(): Promise<WireRequest>
}

let capture: Promise<Capture> | undefined
/** One request at a time: the capture hands each body to the caller that sent it. */
let queue: Promise<unknown> = Promise.resolve()

function captureServer(): Promise<Capture> {
  capture ??= new Promise<Capture>((resolve, reject) => {
    let waiting: ((request: WireRequest) => void) | undefined
    const server = http.createServer((req, res) => {
      const parts: Buffer[] = []
      req.on('data', (chunk: Buffer) => parts.push(chunk))
      req.on('end', () => {
        const raw = Buffer.concat(parts)
        waiting?.({ body: JSON.parse(raw.toString('utf8')) as WireBody, bytes: raw.length })
        waiting = undefined
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.end('data: [DONE]\n\n')
      })
    })
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        next: () => new Promise<WireRequest>((done) => (waiting = done)),
      }),
    )
  })
  return capture
}

/** The body DSH's DeepSeek adapter sends for these harness messages (and a system prompt). */
export async function wireBody(messages: readonly unknown[], system = 'You are a coding agent.'): Promise<WireBody> {
  return (await wireRequest({ messages, system })).body
}

/** The request DSH's DeepSeek adapter sends for a model request (messages, system prompt, tool definitions). */
export function wireRequest(request: {
  readonly messages: readonly unknown[]
  readonly system?: string
  readonly tools?: readonly unknown[]
}): Promise<WireRequest> {
  const { messages, system = 'You are a coding agent.', tools } = request
  const run = queue.then(async () => {
    const server = await captureServer()
    const adapter = new DeepSeekAdapter({
      options: () => ({ baseURL: server.url, models: [], defaults: {}, streamIdleTimeoutMs: 60_000, retryPolicy: {} }),
      resolveApiKey: async () => 'test-key',
      resolveUserId: () => 'test-user',
    } as never)
    const body = server.next()
    for await (const _chunk of adapter.stream({
      model: 'deepseek-chat',
      system,
      messages,
      ...(tools ? { tools } : {}),
    } as never)) {
      // The capture answers `[DONE]` at once: nothing to read.
    }
    return body
  })
  queue = run.catch(() => undefined)
  return run
}

/** The body DSH sends next for a stored log: `deriveMessages()` of a real Session over its events. */
export function logWireBody(events: readonly unknown[], sessionId = 'wire-check'): Promise<WireBody> {
  return wireBody(Session.create(SessionId(sessionId), events as never).deriveMessages())
}

/** What a strict API refuses in the request DSH sends next for this log. */
export async function wireViolations(events: readonly unknown[]): Promise<ContractViolation[]> {
  return contractViolations(await logWireBody(events))
}
