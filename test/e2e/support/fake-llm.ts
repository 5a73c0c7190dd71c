/**
 * A scripted, recording fake of an OpenAI-compatible chat-completions server
 * (SSE streaming) on 127.0.0.1, for `DEEPSEEK_BASE_URL`, as strict as a real one.
 *
 * - **Strict by default.** A request a real API refuses (`test/support/provider-contract.ts`:
 *   empty messages, a bad role, an assistant message with neither content nor tool calls, a
 *   repeated call id, arguments that are not JSON, a call without its result, a result without
 *   its call) is answered HTTP 400 with an OpenAI-style body (`{error: {message, type:
 *   'invalid_request_error', param, code}}`, `code` the rule), consumes no script step, and is
 *   recorded in `refusals`. Under vitest, any refusal a test has not taken (`takeRefusals()`)
 *   fails that test (an `afterEach`/`afterAll` this module registers), and `waitForChat`
 *   rejects as soon as one arrives; so every e2e test checks the contract for free. A test
 *   that sends a bad body on purpose passes `contract: { lenient: '<why>' }`: such bodies are
 *   then answered and the request records its `violations`.
 * - Every request is recorded with its parsed body and a kind: `title` for the
 *   harness's session-title request (system prompt "Create a concise title",
 *   answered with `titleText` and never consuming the script), `summary` for
 *   this plugin's branch-summary side call (its last message starting with
 *   `SUMMARY_REQUEST_MARK` when it shares the session's prefix, else a system
 *   prompt starting with `SUMMARY_SYSTEM_MARK`; answered by `summary`, never
 *   consuming the script), `compaction` for DSH's compaction request (its last message the
 *   instruction of `dsh-compaction-basic`, `COMPACTION_MARK`; answered by `compaction`, never
 *   consuming the script), `recap` for dsh-TUI's session recap (its one user message
 *   `RECAP_MARK`; answered with the JSON its recap contract asks, naming the excerpt's last
 *   prompt, never consuming the script), `chat` for the rest.
 * - Chat requests consume the script queue in order. A step is a text answer,
 *   tool calls (with an optional preface), reasoning plus text, a terminal 4xx
 *   error, or a function of the request body returning a step.
 * - It never answers 5xx or 429 (the harness's `llm-retry` would retry five
 *   times and hide the failure): an exhausted script answers `exhaustedText`
 *   and is flagged `exhausted`, an internal fault answers 400 and is recorded
 *   in `faults`.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { SUMMARY_REQUEST_MARK, SUMMARY_SYSTEM_MARK } from '../../../src/service/model-summary.ts'
import { contractViolations, refusalBody, type ContractViolation } from '../../support/provider-contract.ts'

/** One chat-completions message as the harness sends it (only the fields tests read are typed). */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool'
  readonly content: string | null | ReadonlyArray<unknown>
  readonly tool_calls?: ReadonlyArray<{
    readonly id: string
    readonly type: string
    readonly function: { readonly name: string; readonly arguments: string }
  }>
  readonly tool_call_id?: string
  readonly reasoning_content?: string
  readonly [key: string]: unknown
}

/** A chat-completions request body. */
export interface ChatRequestBody {
  readonly model: string
  readonly messages: ReadonlyArray<ChatMessage>
  readonly tools?: ReadonlyArray<{
    readonly type: string
    readonly function: { readonly name: string; readonly [key: string]: unknown }
  }>
  readonly stream?: boolean
  readonly [key: string]: unknown
}

export interface ToolCallStep {
  readonly name: string
  /** An object (JSON-encoded for the wire) or a ready JSON string. */
  readonly arguments?: Readonly<Record<string, unknown>> | string
  /** Tool call id; default `call_fake_<request n>_<index>`. */
  readonly id?: string
}

/** One scripted model answer. */
export type StaticStep =
  | { readonly text: string; readonly reasoning?: string; readonly delayMs?: number }
  | {
      readonly toolCalls: ReadonlyArray<ToolCallStep>
      readonly text?: string
      readonly reasoning?: string
      readonly delayMs?: number
    }
  | { readonly error: { readonly status: number; readonly message?: string }; readonly delayMs?: number }

/** A step, or a function choosing one from the request body. */
export type ScriptStep = StaticStep | ((body: ChatRequestBody) => StaticStep | Promise<StaticStep>)

export type RequestKind = 'chat' | 'title' | 'summary' | 'compaction' | 'recap'

export interface RecordedRequest {
  /** 1-based arrival number over all requests. */
  readonly n: number
  readonly kind: RequestKind
  readonly time: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: ChatRequestBody
  /** The body's size on the wire, in bytes. */
  readonly bytes: number
  /** The step that answered it. */
  readonly reply: StaticStep
  /** True when the script was empty and `exhaustedText` answered. */
  readonly exhausted?: boolean
  /** What a real API would have refused in it (only with `contract: { lenient }`). */
  readonly violations?: readonly ContractViolation[]
}

/** A request the fake refused as a real API would (HTTP 400), with every rule it broke. */
export interface Refusal {
  /** 1-based arrival number, shared with `RecordedRequest.n`. */
  readonly n: number
  readonly kind: RequestKind
  readonly body: ChatRequestBody
  /** The first one is what the 400 body names. */
  readonly violations: readonly ContractViolation[]
}

/** Token counts a fake answer reports (default: 100 prompt, 10 completion). */
export interface FakeUsage {
  readonly promptTokens: number
  readonly completionTokens: number
}

export interface FakeLlmOptions {
  readonly script?: ReadonlyArray<ScriptStep>
  /** The usage a chat answer reports, from the request and the answer (title requests keep the default). */
  readonly usage?: (body: ChatRequestBody, step: Exclude<StaticStep, { error: unknown }>) => FakeUsage
  readonly titleText?: string
  /**
   * The answer to a branch-summary request (default: `MODEL-SUMMARY: ` and
   * the first prompt of the branch); a function may choose per request (say, a
   * delay past the plugin's timeout, or an error).
   */
  readonly summary?: ScriptStep
  /** The answer to DSH's compaction request (default: `compactionSummary`). */
  readonly compaction?: ScriptStep
  readonly exhaustedText?: string
  /** Model name echoed in chunks (default: the request's model). */
  readonly model?: string
  /**
   * `strict` (the default) refuses what a real API refuses; `{ lenient: why }` answers it
   * anyway, for a test that sends a bad body on purpose and says why.
   */
  readonly contract?: 'strict' | { readonly lenient: string }
}

export interface FakeLlm {
  /** `http://127.0.0.1:<port>/v1`, the value for `DEEPSEEK_BASE_URL`. */
  readonly url: string
  readonly port: number
  /** Every request, in arrival order. */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** Internal faults (malformed requests, throwing step functions); a healthy run has none. */
  readonly faults: ReadonlyArray<string>
  /** Requests refused as a real API refuses them, not yet taken by the test. */
  readonly refusals: ReadonlyArray<Refusal>
  /** The refusals so far, removed: a test that expects them names them (the others fail it). */
  takeRefusals(): Refusal[]
  /** Chat (non-title) requests, in arrival order. */
  chatRequests(): RecordedRequest[]
  /** Title requests, in arrival order. */
  titleRequests(): RecordedRequest[]
  /** Branch-summary requests, in arrival order. */
  summaryRequests(): RecordedRequest[]
  /** DSH's compaction requests, in arrival order. */
  compactionRequests(): RecordedRequest[]
  /** dsh-TUI's recap requests (a resume, `/recap`), in arrival order. */
  recapRequests(): RecordedRequest[]
  /** Change how summary requests are answered from now on. */
  setSummary(step: ScriptStep): void
  /** Append steps to the script. */
  push(...steps: ScriptStep[]): void
  /** Resolve once at least `count` chat requests were answered. */
  waitForChat(count: number, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

const TITLE_MARKER = 'Create a concise title'
/** How the instruction `dsh-compaction-basic` appends as the last user message of its summarization call begins. */
export const COMPACTION_MARK = 'You are now acting as a compaction engine'
/** How dsh-TUI 0.10.2's recap prompt begins (`dsh-adapter/recap.js`, `wrapRecapPrompt`). */
export const RECAP_MARK = 'Create a compact session recap from the activity excerpt below.'

/** Every fake this test file started: the guard below fails a test for a refusal nobody took. */
const started = new Set<FakeLlm>()

/** A refusal as a test failure names it: the request, the rules it broke, its messages. */
export function describeRefusals(list: readonly Refusal[]): string {
  return list
    .map(
      (refusal) =>
        `fake-llm: request #${refusal.n} (${refusal.kind}) refused as a real API refuses it:\n` +
        refusal.violations.map((v) => `  ${v.rule} at ${v.param}: ${v.message}`).join('\n') +
        `\n  messages:\n` +
        (Array.isArray(refusal.body.messages)
          ? summarizeMessages(refusal.body).map((line, i) => `    [${i}] ${line}`)
          : ['    (none)']
        ).join('\n'),
    )
    .join('\n')
}

function refusalsNobodyTook(): void {
  const left = [...started].flatMap((llm) => llm.takeRefusals())
  if (left.length > 0) throw new Error(describeRefusals(left))
}

if (process.env.VITEST) {
  // Imported by a test file while vitest collects it: these hooks belong to that file.
  const { afterAll, afterEach } = await import('vitest')
  afterEach(refusalsNobodyTook)
  afterAll(refusalsNobodyTook)
}

export function classifyRequest(body: ChatRequestBody): RequestKind {
  // A summary side call that shares the session's prefix ends with our instruction.
  const last = body.messages?.at(-1)
  if (last?.role === 'user' && messageText(last).startsWith(SUMMARY_REQUEST_MARK)) return 'summary'
  if (last?.role === 'user' && messageText(last).startsWith(COMPACTION_MARK)) return 'compaction'
  if (last?.role === 'user' && messageText(last).startsWith(RECAP_MARK)) return 'recap'
  const system = body.messages?.find((m) => m.role === 'system')?.content
  if (typeof system !== 'string') return 'chat'
  if (system.startsWith(TITLE_MARKER)) return 'title'
  return system.startsWith(SUMMARY_SYSTEM_MARK) ? 'summary' : 'chat'
}

/** The default summary answer: names the branch's first prompt, so a test can find it in later requests. */
export function modelSummary(body: ChatRequestBody): StaticStep {
  const prompt = messageText(body.messages.at(-1)!)
  const first = /^user: (.*)$/m.exec(prompt)?.[1] ?? 'nothing'
  return { text: `MODEL-SUMMARY: the branch began with "${first}".` }
}

/** The activity a recap request quotes (`role: text` lines after "Activity excerpt:"). */
export function recapExcerpt(body: ChatRequestBody): string {
  const prompt = messageText(body.messages.at(-1)!)
  const at = prompt.indexOf('Activity excerpt:')
  return at < 0 ? '' : prompt.slice(at + 'Activity excerpt:'.length).trim()
}

/** The recap answer: dsh-TUI's JSON contract, naming the excerpt's last prompt (so a screen shows what it was fed). */
export function recapAnswer(body: ChatRequestBody): StaticStep {
  const prompts = [...recapExcerpt(body).matchAll(/^user: (.*)$/gm)].map((m) => m[1]!)
  const last = prompts.at(-1) ?? 'nothing'
  return { text: JSON.stringify({ title: 'Fake recap', summary: `RECAP: the last prompt was "${last}".` }) }
}

/** The default compaction answer: names the first and last prompts it condensed, so a test can find it in later requests. */
export function compactionSummary(body: ChatRequestBody): StaticStep {
  const prompts = userPrompts(body)
    .map(messageText)
    .filter((text) => !text.startsWith(COMPACTION_MARK) && !text.includes('<compacted-summary>'))
  return { text: `COMPACTED: from "${prompts[0] ?? 'nothing'}" to "${prompts.at(-1) ?? 'nothing'}".` }
}

function chunk(
  model: string,
  delta: Record<string, unknown>,
  finish: string | null = null,
  usage?: Record<string, number>,
): string {
  const frame = {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  }
  return `data: ${JSON.stringify(frame)}\n\n`
}

/** The SSE frames `llm-deepseek` expects for one answer, ending with `[DONE]`. */
function sseFrames(
  step: Exclude<StaticStep, { error: unknown }>,
  model: string,
  n: number,
  counts: FakeUsage = { promptTokens: 100, completionTokens: 10 },
): string[] {
  const frames = [chunk(model, { role: 'assistant', content: '' })]
  if (step.reasoning) frames.push(chunk(model, { reasoning_content: step.reasoning }))
  const text = step.text ?? ''
  if (text) {
    // Two deltas, so the harness really assembles a stream.
    const mid = Math.ceil(text.length / 2)
    frames.push(chunk(model, { content: text.slice(0, mid) }))
    if (text.length > mid) frames.push(chunk(model, { content: text.slice(mid) }))
  }
  const calls = 'toolCalls' in step ? step.toolCalls : []
  calls.forEach((call, index) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {})
    const id = call.id ?? `call_fake_${n}_${index}`
    frames.push(
      chunk(model, { tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] }),
    )
    frames.push(chunk(model, { tool_calls: [{ index, function: { arguments: args } }] }))
  })
  const { promptTokens, completionTokens } = counts
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_cache_hit_tokens: 0,
    prompt_cache_miss_tokens: promptTokens,
  }
  frames.push(chunk(model, {}, calls.length > 0 ? 'tool_calls' : 'stop', usage))
  frames.push('data: [DONE]\n\n')
  return frames
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    req.on('data', (d: Buffer) => parts.push(d))
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')))
    req.on('error', reject)
  })
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value))
}

export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const titleText = options.titleText ?? 'Fake session title'
  const exhaustedText = options.exhaustedText ?? 'FAKE-LLM: script exhausted'
  const queue: ScriptStep[] = [...(options.script ?? [])]
  let summaryStep: ScriptStep = options.summary ?? modelSummary
  const compactionStep: ScriptStep = options.compaction ?? compactionSummary
  const requests: RecordedRequest[] = []
  const faults: string[] = []
  const refusals: Refusal[] = []
  const lenient = typeof options.contract === 'object' ? options.contract.lenient : undefined
  if (lenient !== undefined && lenient.trim() === '')
    throw new Error('fake-llm: contract: { lenient } needs the reason this test sends bodies a real API refuses')
  const waiters = new Set<() => void>()
  let n = 0

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake')
      if (!(req.method === 'POST' && url.pathname.endsWith('/chat/completions'))) {
        sendJson(res, 404, {
          error: { message: `fake-llm: no route ${req.method} ${url.pathname}`, type: 'invalid_request_error' },
        })
        return
      }
      let body: ChatRequestBody
      let bytes = 0
      try {
        const raw = await readBody(req)
        bytes = Buffer.byteLength(raw)
        body = JSON.parse(raw) as ChatRequestBody
      } catch (error) {
        faults.push(`malformed request: ${String(error)}`)
        sendJson(res, 400, {
          error: { message: `fake-llm: malformed request: ${String(error)}`, type: 'invalid_request_error' },
        })
        return
      }
      n += 1
      const number = n
      const violations = contractViolations(body)
      const kind = Array.isArray(body.messages) ? classifyRequest(body) : 'chat'
      if (violations.length > 0 && lenient === undefined) {
        refusals.push({ n: number, kind, body, violations })
        sendJson(res, 400, refusalBody(violations[0]!))
        for (const wake of [...waiters]) wake()
        return
      }
      let exhausted = false
      let step: StaticStep
      try {
        if (kind === 'title') step = { text: titleText }
        else if (kind === 'summary') step = typeof summaryStep === 'function' ? await summaryStep(body) : summaryStep
        else if (kind === 'compaction')
          step = typeof compactionStep === 'function' ? await compactionStep(body) : compactionStep
        else if (kind === 'recap') step = recapAnswer(body)
        else {
          const next = queue.shift()
          if (next === undefined) {
            exhausted = true
            step = { text: exhaustedText }
          } else step = typeof next === 'function' ? await next(body) : next
        }
      } catch (error) {
        faults.push(`step for request #${number} threw: ${String(error)}`)
        step = { error: { status: 400, message: `fake-llm: step threw: ${String(error)}` } }
      }
      const entry: RecordedRequest = {
        n: number,
        kind,
        time: new Date().toISOString(),
        path: url.pathname,
        headers: req.headers,
        body,
        bytes,
        reply: step,
        ...(exhausted ? { exhausted } : {}),
        ...(violations.length > 0 ? { violations } : {}),
      }
      if (step.delayMs) await new Promise((resolve) => setTimeout(resolve, step.delayMs))
      if ('error' in step) {
        // Only terminal statuses: 5xx and 429 would be retried by llm-retry.
        const status =
          step.error.status >= 400 && step.error.status < 500 && step.error.status !== 429 ? step.error.status : 400
        sendJson(res, status, { error: { message: step.error.message ?? 'fake error', type: 'invalid_request_error' } })
      } else {
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
        })
        const counts = kind === 'chat' && options.usage ? options.usage(body, step) : undefined
        for (const frame of sseFrames(step, options.model ?? body.model ?? 'fake', number, counts)) res.write(frame)
        res.end()
      }
      requests.push(entry)
      for (const wake of [...waiters]) wake()
    })().catch((error: unknown) => {
      faults.push(`handler failed: ${String(error)}`)
      if (!res.headersSent)
        sendJson(res, 400, { error: { message: `fake-llm internal: ${String(error)}`, type: 'invalid_request_error' } })
      else res.end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as AddressInfo).port

  const fake: FakeLlm = {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    faults,
    refusals,
    takeRefusals: () => refusals.splice(0),
    chatRequests: () => requests.filter((r) => r.kind === 'chat'),
    titleRequests: () => requests.filter((r) => r.kind === 'title'),
    summaryRequests: () => requests.filter((r) => r.kind === 'summary'),
    compactionRequests: () => requests.filter((r) => r.kind === 'compaction'),
    recapRequests: () => requests.filter((r) => r.kind === 'recap'),
    setSummary: (step) => {
      summaryStep = step
    },
    push: (...steps) => {
      queue.push(...steps)
    },
    waitForChat: (count, timeoutMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (refusals.length > 0) {
            done()
            reject(new Error(describeRefusals(refusals)))
          } else if (requests.filter((r) => r.kind === 'chat').length >= count) {
            done()
            resolve()
          }
        }
        const timer = setTimeout(() => {
          done()
          reject(
            new Error(
              `fake-llm: ${requests.length} requests, still waiting for ${count} chat requests after ${timeoutMs} ms`,
            ),
          )
        }, timeoutMs)
        const done = (): void => {
          clearTimeout(timer)
          waiters.delete(check)
        }
        waiters.add(check)
        check()
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  started.add(fake)
  return fake
}

/** The text of a message's content (string content, or the text parts of an array). */
export function messageText(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content
  if (Array.isArray(message.content)) {
    return message.content
      .map((part) =>
        typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string' ? part.text : '',
      )
      .join('')
  }
  return ''
}

/** A compact, printable view of a request's messages (for failure messages and reports). */
export function summarizeMessages(body: ChatRequestBody, width = 100): string[] {
  return body.messages.map((m) => {
    const text = messageText(m).replace(/\s+/g, ' ')
    const clipped = text.length > width ? `${text.slice(0, width)}… (${text.length} chars)` : text
    const calls =
      m.tool_calls?.map((c) => ` [call ${c.function.name}(${c.function.arguments}) id=${c.id}]`).join('') ?? ''
    const result = m.tool_call_id ? ` [result for ${m.tool_call_id}]` : ''
    return `${m.role}: ${clipped}${calls}${result}`
  })
}

/** The body of the first chat request whose last message is the user's `prompt`. */
export function requestEndingWith(llm: FakeLlm, prompt: string): ChatRequestBody {
  const found = llm.chatRequests().find((r) => {
    const last = r.body.messages.at(-1)
    return last?.role === 'user' && messageText(last) === prompt
  })
  if (!found) throw new Error(`no request ends with ${JSON.stringify(prompt)}`)
  return found.body
}

/** The prompts a person sent, in order (the harness's runtime-context messages left out). */
export function userPrompts(body: ChatRequestBody): ChatMessage[] {
  return body.messages.filter((m) => m.role === 'user' && !messageText(m).startsWith('Current runtime context'))
}

/**
 * The e2e suites' fake model: a `read notes.txt` tool call for a prompt that says READ, then
 * `READ-DONE: banana` (or `nothing`) after its result; any other prompt gets `ANSWER to: <prompt>`.
 */
export function readOrAnswer(body: ChatRequestBody): StaticStep {
  const last = body.messages.at(-1)
  if (last?.role === 'tool')
    return { text: `READ-DONE: ${messageText(last).includes('banana') ? 'banana' : 'nothing'}` }
  const prompt = userPrompts(body).at(-1)
  const text = prompt ? messageText(prompt) : ''
  if (text.includes('READ'))
    return { toolCalls: [{ id: `call_${text.length}`, name: 'read', arguments: { file_path: 'notes.txt' } }] }
  return { text: `ANSWER to: ${text}` }
}

/** What the model reads of a message: role, text, tool calls, tool result id. */
export function modelView(message: ChatMessage) {
  return {
    role: message.role,
    text: messageText(message),
    ...(message.tool_calls
      ? { calls: message.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) }
      : {}),
    ...(message.tool_call_id ? { toolCallId: message.tool_call_id } : {}),
  }
}

/** A request's history as the model reads it (the system prompt left out). */
export function history(body: ChatRequestBody) {
  return body.messages.filter((m) => m.role !== 'system').map(modelView)
}

/**
 * How a request pairs calls with results: for each assistant message with
 * tool calls, its call ids and the `tool_call_id`s of the tool messages that
 * follow it (before the next assistant message).
 */
export function toolPairing(body: ChatRequestBody): { calls: string[]; results: string[] }[] {
  const out: { calls: string[]; results: string[] }[] = []
  for (const message of body.messages) {
    if (message.role === 'assistant') {
      if (message.tool_calls && message.tool_calls.length > 0)
        out.push({ calls: message.tool_calls.map((c) => c.id), results: [] })
      else out.push({ calls: [], results: [] })
    } else if (message.role === 'tool') {
      if (out.length === 0) out.push({ calls: [], results: [] })
      out.at(-1)!.results.push(message.tool_call_id ?? '')
    }
  }
  return out.filter((p) => p.calls.length > 0 || p.results.length > 0)
}

/** A history with call ids left out (a stock switch gives copied exchanges fresh ids). */
export function withoutCallIds(messages: ReturnType<typeof history>) {
  return messages.map(({ calls, toolCallId: _id, ...rest }) => ({
    ...rest,
    ...(calls ? { calls: calls.map(({ id: _c, ...call }) => call) } : {}),
  }))
}
