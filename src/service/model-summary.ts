/**
 * A branch summary written by the session's own model: one side call through
 * the harness's model stack (`ctx.llm.stream`), on the provider and model of
 * the session's last request, under a time budget. The call appends nothing
 * to the session log; a failure comes back as data (the stack turns adapter
 * errors and aborts into a terminal `finish` chunk), so the caller can fall
 * back to the extractive digest and say why.
 */
import { randomUUID } from 'node:crypto'
import type { SummaryFailure, SummaryUsage } from '../tree/types.ts'
import { isRecord } from '../tree/validate.ts'
import { PLUGIN_ID } from '../harness/marker.ts'
import type { ModelRoute } from '../harness/live.ts'
import type { SessionPrefix } from './summary-prefix.ts'
import { errorMessage } from '../tree/errors.ts'

/**
 * The start of the side call's system prompt. It is fixed: it tells the
 * request apart from a chat request (the recording fake LLM of the tests
 * answers it by this mark without consuming a chat step).
 */
export const SUMMARY_SYSTEM_MARK = 'You write the summary of a branch of a conversation'

const SYSTEM_PROMPT = `${SUMMARY_SYSTEM_MARK} that the user is leaving (dsh-session-tree).
The conversation will continue from an earlier point; your summary is all that remains of this branch for the next reader.
Write a compact summary in the language of the conversation: the goal, what was tried, what was found or decided, files or commands that matter, and anything left open.
Plain prose or short bullets, at most about 200 words. No preamble.`

/**
 * The start of the instruction that ends a side call sharing the session's
 * prefix (whose system prompt is the session's own): it tells the request
 * apart from a chat request, as the system mark does for the compact form.
 */
export const SUMMARY_REQUEST_MARK = '[dsh-session-tree: summary request]'

const GUIDANCE = `Write a compact summary in the language of the conversation: the goal, what was tried, what was found or decided, files or commands that matter, and anything left open.
Plain prose or short bullets, at most about 200 words. No preamble. Answer with text only: do not call any tool.`

/** Output cap of the side call. */
export const SUMMARY_MAX_TOKENS = 1024

/** The slice of the harness's `LlmRuntime` the side call uses. */
export interface SummaryLlm {
  stream(options: Record<string, unknown>): AsyncIterable<unknown>
  resolveModelInfo?(provider: string, model: string, signal?: AbortSignal): Promise<unknown>
}

export interface ModelSummaryRequest {
  readonly route: ModelRoute
  readonly sessionId: string
  /** The branch part, rendered (`role: text` lines). */
  readonly transcript: string
  readonly branch: string
  readonly instructions?: string
  readonly timeoutMs: number
  /**
   * The session's own request prefix (system, tools, model history), when it
   * is shared: the request then ends with one instruction naming the part
   * (`lead`) instead of a transcript.
   */
  readonly prefix?: SessionPrefix
  /** Where the part starts in that history: its first message and the one before it (`role: text`, one line each). */
  readonly lead?: { readonly first: string; readonly from?: string }
}

/** What the model wrote, or why it did not; usage whenever the stack reported it. */
export type ModelSummaryAnswer =
  | { readonly ok: true; readonly text: string; readonly usage?: SummaryUsage }
  | { readonly ok: false; readonly failure: SummaryFailure; readonly usage?: SummaryUsage }

/** Ask the model for a summary. Never throws. */
export async function askModelForSummary(llm: SummaryLlm, request: ModelSummaryRequest): Promise<ModelSummaryAnswer> {
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort(new Error('summary timed out'))
  }, request.timeoutMs)
  const text: string[] = []
  let usage: SummaryUsage | undefined
  let finish: { kind?: unknown; failure?: { code?: unknown; message?: unknown } } | undefined
  try {
    const off = await supportsOff(llm, request.route, controller.signal)
    const instructions = request.instructions?.trim()
    const ask = instructions ? `Write the summary. The user asks: ${instructions}` : 'Write the summary.'
    const shared = request.prefix && request.lead ? request.prefix : undefined
    const prompt = shared
      ? [
          `${SUMMARY_REQUEST_MARK} Not a message from the user: the user is leaving branch "${request.branch}" of this conversation and going back to an earlier point, and asks for a summary of the part being left, which is all that will remain of it for the next reader.`,
          'That part is the end of the conversation above, from this message on:',
          request.lead!.first,
          ...(request.lead!.from ? ['right after', request.lead!.from] : []),
          GUIDANCE,
          ask,
        ].join('\n')
      : [
          `Branch "${request.branch}", as the model read it:`,
          '<branch>',
          request.transcript.trimEnd(),
          '</branch>',
          ask,
        ].join('\n')
    const asked = {
      id: randomUUID(),
      role: 'user',
      content: [{ type: 'text', text: prompt }],
      source: { kind: 'plugin', plugin: PLUGIN_ID },
    }
    const stream = llm.stream({
      provider: request.route.provider,
      model: request.route.model,
      ...(off ? { reasoningEffort: 'off' } : {}),
      ...(shared
        ? {
            ...(shared.system === undefined ? {} : { system: shared.system }),
            ...(shared.tools === undefined ? {} : { tools: shared.tools }),
            messages: [...shared.messages, asked],
          }
        : { system: SYSTEM_PROMPT, messages: [asked] }),
      maxTokens: SUMMARY_MAX_TOKENS,
      sessionId: request.sessionId,
      signal: controller.signal,
    })
    for await (const chunk of stream) {
      if (!isRecord(chunk)) continue
      if (chunk.type === 'text-delta' && typeof chunk.text === 'string') text.push(chunk.text)
      else if (chunk.type === 'usage') usage = usageOf(chunk.usage)
      else if (chunk.type === 'finish' && isRecord(chunk.reason)) finish = chunk.reason as typeof finish
    }
  } catch (error) {
    return {
      ok: false,
      failure: timedOut ? timeoutFailure(request.timeoutMs) : { code: 'MODEL_ERROR', message: errorMessage(error) },
      ...(usage ? { usage } : {}),
    }
  } finally {
    clearTimeout(timer)
  }
  const withUsage = usage ? { usage } : {}
  if (timedOut) return { ok: false, failure: timeoutFailure(request.timeoutMs), ...withUsage }
  if (finish?.kind !== 'stop') {
    const failure = finish?.failure
    return {
      ok: false,
      failure: {
        code:
          typeof failure?.code === 'string'
            ? failure.code
            : `FINISH_${String(finish?.kind ?? 'missing').toUpperCase()}`,
        message:
          typeof failure?.message === 'string'
            ? failure.message
            : `the model stopped with ${String(finish?.kind ?? 'no finish')}`,
      },
      ...withUsage,
    }
  }
  const written = text.join('').trim()
  if (written === '') return { ok: false, failure: { code: 'EMPTY', message: 'the model wrote no text' }, ...withUsage }
  return { ok: true, text: written, ...withUsage }
}

function timeoutFailure(ms: number): SummaryFailure {
  return { code: 'TIMEOUT', message: `the model did not answer within ${ms} ms` }
}

/** Reasoning off, when the model lists it (other adapters refuse an effort they do not know). */
async function supportsOff(llm: SummaryLlm, route: ModelRoute, signal: AbortSignal): Promise<boolean> {
  if (typeof llm.resolveModelInfo !== 'function') return false
  try {
    const info = await llm.resolveModelInfo(route.provider, route.model, signal)
    const efforts =
      isRecord(info) && isRecord(info.reasoning) && Array.isArray(info.reasoning.efforts) ? info.reasoning.efforts : []
    return efforts.some((effort) => isRecord(effort) && effort.id === 'off')
  } catch {
    return false
  }
}

function usageOf(value: unknown): SummaryUsage | undefined {
  if (!isRecord(value) || typeof value.inputTokens !== 'number' || typeof value.outputTokens !== 'number')
    return undefined
  const out: Record<string, number> = {}
  for (const key of [
    'inputTokens',
    'outputTokens',
    'cacheReadTokens',
    'cacheWriteTokens',
    'reasoningTokens',
  ] as const) {
    const n = value[key]
    if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) out[key] = n
  }
  return out as unknown as SummaryUsage
}
