/**
 * An HTTP client for a running `dsh web`, with no browser. Two wire families
 * share the `/api` route (no auth on loopback):
 *
 * - core API proxy: `POST /api/<ns>.<method>` (dot), payload is the plain
 *   request, e.g. `session.create {cwd}`;
 * - typert remotes (plugins): `POST /api/<ns>/<method>` (slash), payload is
 *   `{args: {...named fields}}`, e.g. `sessionTree/session {args: {agentId}}`.
 *
 * Both send `{type: 'client-request', rpcId, method, payload}` and answer
 * `{type: 'server-response', rpcId, result: {ok: true, value} | {ok: false, error}}`.
 * `call`/`remote` return that `result` (the envelope) and never throw on
 * `ok: false`; `callOk`/`remoteOk` return the value or throw. `post` is the raw
 * request for negative tests (wrong content type, foreign origin, bad bodies).
 */
import { randomUUID } from 'node:crypto'
import { DEMO_TURNS } from './demo-turns.ts'
import type { SessionLogEvent } from './session-log.ts'
import { ERROR_CODES } from '../../../src/service/errors.ts'
import type { SessionStatus, SessionTreeListing, TreeNode } from '../../../src/types.ts'

/** The package's error codes (the README's table): an error carrying one reached `ctx.sessionTree`. */
export const SERVICE_CODES: ReadonlySet<string> = new Set(Object.keys(ERROR_CODES))

export interface RpcError {
  readonly code: string
  readonly message: string
  readonly details?: unknown
}

export type RpcResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: RpcError }

export interface ServerResponse<T> {
  readonly type: 'server-response'
  readonly rpcId: string
  readonly result: RpcResult<T>
}

export interface RawResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The parsed body, or undefined when it is not JSON. */
  readonly json: unknown
}

/** One event of `session.history`: the stored session event, as the log holds it. */
export type HistoryEvent = SessionLogEvent

export interface HistoryPage {
  readonly events: ReadonlyArray<{ readonly event: HistoryEvent }>
  readonly hasMore: boolean
  readonly projections?: { readonly asOfSeq?: number; readonly values?: Record<string, unknown> }
}

export interface SessionSummary {
  readonly sessionId: string
  readonly running: boolean
  readonly blank?: boolean
  readonly cwd?: string
  readonly updatedAt?: number
  readonly agentPreset?: string
  readonly [key: string]: unknown
}

export interface PluginInventoryEntry {
  readonly entryId: string
  readonly moduleName: string
  readonly enabled: boolean
  readonly fiberPhase: string
  readonly [key: string]: unknown
}

/** Thrown by the `*Ok` helpers and for broken envelopes. */
export class ApiError extends Error {
  readonly path: string
  readonly status: number
  readonly error: RpcError | undefined
  readonly body: string
  constructor(message: string, init: { path: string; status: number; error?: RpcError; body: string }) {
    super(message)
    this.name = 'ApiError'
    this.path = init.path
    this.status = init.status
    this.error = init.error
    this.body = init.body
  }
}

/** A response body parsed, or undefined when it is not JSON. */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export interface WaitOptions {
  readonly timeoutMs?: number
  readonly intervalMs?: number
}

export class DshApi {
  readonly url: string
  /** Every request made through `post`, for failure reports. */
  readonly log: Array<{ path: string; request: unknown; status: number; response: unknown }> = []

  constructor(url: string) {
    this.url = url.replace(/\/$/, '')
  }

  /** A raw POST: `body` is JSON-encoded unless it is a string; default content type `application/json`. */
  async post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
    const response = await fetch(this.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    })
    const text = await response.text()
    const json = jsonOrUndefined(text)
    this.log.push({ path, request: body, status: response.status, response: json ?? text })
    return { status: response.status, headers: response.headers, text, json }
  }

  private async rpc<T>(path: string, method: string, payload: unknown): Promise<RpcResult<T>> {
    const rpcId = randomUUID()
    const response = await this.post(path, { type: 'client-request', rpcId, method, payload })
    const envelope = response.json as Partial<ServerResponse<T>> | undefined
    if (response.status !== 200 || envelope?.type !== 'server-response' || envelope.result === undefined) {
      throw new ApiError(
        `POST ${path}: HTTP ${response.status}, not a server-response envelope: ${response.text.slice(0, 2000)}`,
        {
          path,
          status: response.status,
          body: response.text,
        },
      )
    }
    if (envelope.rpcId !== rpcId)
      throw new ApiError(`POST ${path}: rpcId ${envelope.rpcId} does not echo ${rpcId}`, {
        path,
        status: 200,
        body: response.text,
      })
    return envelope.result
  }

  private static unwrap<T>(path: string, result: RpcResult<T>): T {
    if (result.ok) return result.value
    throw new ApiError(`POST ${path}: ${result.error.code}: ${result.error.message}`, {
      path,
      status: 200,
      error: result.error,
      body: JSON.stringify(result),
    })
  }

  /** Core API method (`POST /api/<ns>.<method>`, plain payload): the result envelope. */
  call<T = unknown>(method: string, payload: unknown = {}): Promise<RpcResult<T>> {
    return this.rpc<T>(`/api/${method}`, method, payload)
  }

  /** Core API method: the value, or throws `ApiError` on `ok: false`. */
  async callOk<T = unknown>(method: string, payload: unknown = {}): Promise<T> {
    return DshApi.unwrap(`/api/${method}`, await this.call<T>(method, payload))
  }

  /** Typert remote (`POST /api/<ns>/<method>`, payload `{args}`): the result envelope. */
  remote<T = unknown>(endpoint: string, args: Record<string, unknown> = {}): Promise<RpcResult<T>> {
    return this.rpc<T>(`/api/${endpoint}`, endpoint, { args })
  }

  /** Typert remote: the value, or throws `ApiError` on `ok: false`. */
  async remoteOk<T = unknown>(endpoint: string, args: Record<string, unknown> = {}): Promise<T> {
    return DshApi.unwrap(`/api/${endpoint}`, await this.remote<T>(endpoint, args))
  }

  // -- sessions (core API) --------------------------------------------------

  createSession(
    payload: { cwd?: string; sessionId?: string; workspaceId?: string; agentPreset?: string } = {},
  ): Promise<{ sessionId: string; agentPreset?: string }> {
    return this.callOk('session.create', payload)
  }

  /** Queue a user prompt; resolves at admission, not at the end of the turn. */
  prompt(sessionId: string, text: string, mode: 'queue' | 'steer' = 'queue'): Promise<{ accepted: boolean }> {
    return this.callOk('session.prompt', { sessionId, mode, content: [{ type: 'text', text }] })
  }

  history(sessionId: string, options: { beforeSeq?: number; maxMessages?: number } = {}): Promise<HistoryPage> {
    return this.callOk('session.history', { sessionId, ...options })
  }

  async listSessions(): Promise<SessionSummary[]> {
    return (await this.callOk<{ items: SessionSummary[] }>('session.list', {})).items
  }

  /** The last seq of a session's log (-1 when it has none). */
  async lastSeq(sessionId: string): Promise<number> {
    const page = await this.history(sessionId, { maxMessages: 1 })
    return page.projections?.asOfSeq ?? page.events.at(-1)?.event.seq ?? -1
  }

  /**
   * Wait for a turn to end over plain HTTP: poll `session.history` until a
   * `turn/end` with a seq above `afterSeq` exists and `session.list` reports
   * the session not running. Returns that `turn/end` event.
   */
  async waitTurnEnd(sessionId: string, afterSeq = -1, options: WaitOptions = {}): Promise<HistoryEvent> {
    // A limit that only turns a hang into a failure: a turn against the fake model takes about a second.
    const timeoutMs = options.timeoutMs ?? 90_000
    const intervalMs = options.intervalMs ?? 100
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const page = await this.history(sessionId, { maxMessages: 50 })
      const end = page.events.map((e) => e.event).find((e) => e.type === 'turn/end' && e.seq > afterSeq)
      if (end) {
        const row = (await this.listSessions()).find((s) => s.sessionId === sessionId)
        if (!row?.running) return end
      }
      if (Date.now() > deadline) {
        const tail = page.events.slice(-8).map((e) => `${e.event.seq} ${e.event.type}`)
        throw new Error(
          `turn of ${sessionId} did not end after seq ${afterSeq} within ${timeoutMs} ms; log tail: ${tail.join(', ')}`,
        )
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs))
    }
  }

  /** Prompt and wait for the turn it starts to end; returns the `turn/end` event. */
  async promptAndWait(sessionId: string, text: string, options: WaitOptions = {}): Promise<HistoryEvent> {
    const before = await this.lastSeq(sessionId)
    await this.prompt(sessionId, text)
    return this.waitTurnEnd(sessionId, before, options)
  }

  /** Prompts one after the other (default: the demo's three turns), each waited for to its turn's end. */
  async converse(sessionId: string, prompts: readonly string[] = DEMO_TURNS): Promise<void> {
    for (const text of prompts) await this.promptAndWait(sessionId, text)
  }

  // -- the session tree (typert remote) --------------------------------------

  /** `sessionTree/list`: the session's tree. */
  tree(agentId: string): Promise<SessionTreeListing> {
    return this.remoteOk('sessionTree/list', { agentId })
  }

  /** `sessionTree/session`: the session's status. */
  status(agentId: string): Promise<SessionStatus> {
    return this.remoteOk('sessionTree/session', { agentId })
  }

  /** The first node whose message text is `text` (or, for a function, passes it); throws when none is. */
  async nodeWith(agentId: string, text: string | ((content: string) => boolean)): Promise<TreeNode> {
    const matches = typeof text === 'string' ? (content: string) => content === text : text
    const found = (await this.tree(agentId)).nodes.find((n) => n.message !== undefined && matches(n.message.content))
    if (!found)
      throw new Error(
        `no node of ${agentId} with text ${typeof text === 'string' ? JSON.stringify(text) : String(text)}`,
      )
    return found
  }

  // -- plugins (typert remote) ------------------------------------------------

  async pluginInventory(): Promise<PluginInventoryEntry[]> {
    return (await this.remoteOk<{ entries: PluginInventoryEntry[] }>('pluginInventory/list', {})).entries
  }
}
