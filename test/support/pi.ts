/**
 * Real Pi sessions for tests: written by the published
 * `@mariozechner/pi-coding-agent` `SessionManager` (the same code the Pi CLI
 * runs), offline, into a temp directory.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionManager, buildSessionContext, convertToLlm } from '@mariozechner/pi-coding-agent'
import { getModel } from '@mariozechner/pi-ai'
import { convertMessages } from '@mariozechner/pi-ai/openai-completions'

export { SessionManager, buildSessionContext, convertToLlm }

export const PI_PROVIDER = 'anthropic'
export const PI_MODEL = 'claude-sonnet-4-5'

let clock = Date.parse('2026-01-05T10:00:00.000Z')
const tick = () => (clock += 1000)

export function piSessionDir(): string {
  return mkdtempSync(join(tmpdir(), 'pi-sessions-'))
}

/** A file-backed Pi session in a fresh directory. */
export function newPiSession(dir = piSessionDir(), cwd = '/work/project'): SessionManager {
  return SessionManager.create(cwd, dir)
}

/**
 * A Pi session with two branches: a question, a tool call and its answer, then back to the first answer
 * (with a branch summary when given one) and on another way; `label` names the tool branch's last answer.
 */
export function branchedPiSession(
  options: { readonly label?: string; readonly summary?: string } = {},
): SessionManager {
  const pi = newPiSession()
  pi.appendMessage(user('first question'))
  const a1 = pi.appendMessage(assistant('first answer'))
  pi.appendMessage(user('use a tool'))
  pi.appendMessage(assistant('', { calls: [{ id: 'call-1', name: 'read', args: { path: 'a.txt' } }] }))
  pi.appendMessage(toolResult('call-1', 'read', 'contents of a'))
  const done = pi.appendMessage(assistant('done with the tool'))
  if (options.label !== undefined) pi.appendLabelChange(done, options.label)
  if (options.summary !== undefined) pi.branchWithSummary(a1, options.summary)
  else pi.branch(a1)
  pi.appendMessage(user('another direction'))
  pi.appendMessage(assistant('second answer'))
  return pi
}

export function user(text: string) {
  return { role: 'user' as const, content: text, timestamp: tick() }
}

export function userWithImage(text: string, base64: string, mimeType = 'image/png') {
  return {
    role: 'user' as const,
    content: [
      { type: 'text' as const, text },
      { type: 'image' as const, data: base64, mimeType },
    ],
    timestamp: tick(),
  }
}

const usage = {
  input: 100,
  output: 20,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 120,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
}

export function assistant(
  text: string,
  options: {
    thinking?: string
    calls?: { id: string; name: string; args: Record<string, unknown> }[]
    model?: string
    /** How Pi's agent loop ended the answer: `aborted` (the person pressed Escape), `error` (the provider failed). */
    stopped?: { reason: 'aborted' | 'error'; message: string }
  } = {},
) {
  const content: unknown[] = []
  if (options.thinking)
    content.push({ type: 'thinking', thinking: options.thinking, thinkingSignature: 'sig-' + options.thinking.length })
  if (text) content.push({ type: 'text', text })
  for (const call of options.calls ?? [])
    content.push({ type: 'toolCall', id: call.id, name: call.name, arguments: call.args })
  // pi-agent-core's own failure message (`handleRunFailure`) holds one empty text block.
  if (options.stopped && content.length === 0) content.push({ type: 'text', text: '' })
  return {
    role: 'assistant' as const,
    content,
    api: 'anthropic-messages',
    provider: PI_PROVIDER,
    model: options.model ?? PI_MODEL,
    usage,
    stopReason: options.stopped?.reason ?? (options.calls?.length ? 'toolUse' : 'stop'),
    ...(options.stopped ? { errorMessage: options.stopped.message } : {}),
    timestamp: tick(),
  } as never
}

export function toolResult(callId: string, toolName: string, text: string, isError = false) {
  return {
    role: 'toolResult' as const,
    toolCallId: callId,
    toolName,
    content: [{ type: 'text' as const, text }],
    isError,
    timestamp: tick(),
  } as never
}

/** The ids of the session's leaves: the entries no other entry hangs off. */
export function piLeaves(pi: SessionManager): string[] {
  const entries = pi.getEntries()
  const parents = new Set(entries.map((e) => e.parentId))
  return entries.filter((e) => !parents.has(e.id)).map((e) => e.id)
}

/** What Pi sends its model for a leaf, as role + flat text (the comparison form). */
export function piContext(session: SessionManager, leafId?: string | null): { role: string; text: string }[] {
  const context =
    leafId === undefined ? session.buildSessionContext() : buildSessionContext(session.getEntries(), leafId)
  return convertToLlm(context.messages).map((message) => {
    const m = message as { role: string; content: unknown }
    const blocks =
      typeof m.content === 'string'
        ? [{ type: 'text', text: m.content }]
        : (m.content as { type: string; text?: string; name?: string; id?: string }[])
    const text = blocks
      .map((b) =>
        b.type === 'text'
          ? (b.text ?? '')
          : b.type === 'toolCall'
            ? `call:${b.name}`
            : b.type === 'image'
              ? '[image]'
              : '',
      )
      .join('')
    return { role: m.role === 'toolResult' ? 'tool' : m.role, text }
  })
}

/** A chat-completions message as units a test compares: role, text, calls (name, parsed arguments), the call a result answers. */
export type WireUnit = readonly [role: string, text: string, calls: readonly string[], answers: string]

/**
 * A chat-completions message list as comparable units, call ids replaced by the order of the
 * calls (fresh ids after a stock switch and provider id normalisation change ids, not pairing);
 * DSH's runtime-context message and the system prompt left out.
 */
export function wireUnits(
  messages: ReadonlyArray<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown }>,
): WireUnit[] {
  const order = new Map<string, number>()
  const ref = (id: unknown) => {
    if (!order.has(String(id))) order.set(String(id), order.size)
    return `#${order.get(String(id))}`
  }
  const text = (content: unknown) =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((part: { text?: string }) => part.text ?? '').join('')
        : ''
  return messages
    .filter((m) => m.role !== 'system' && !(m.role === 'user' && text(m.content).startsWith('Current runtime context')))
    .map((m) => {
      const calls = ((m.tool_calls ?? []) as { id: string; function: { name: string; arguments: string } }[]).map(
        (c) => `${ref(c.id)} ${c.function.name}(${JSON.stringify(JSON.parse(c.function.arguments))})`,
      )
      return [m.role, text(m.content), calls, m.tool_call_id === undefined ? '' : ref(m.tool_call_id)] as const
    })
}

/**
 * What Pi sends an OpenAI-compatible provider for a leaf: its context (`buildSessionContext` +
 * `convertToLlm`) through pi-ai's own `convertMessages` for `openai-completions` (which runs
 * pi-ai's `transform-messages`: errored and aborted answers left out, a synthetic
 * `No result provided` result for every orphaned call), for Pi's DeepSeek model.
 */
export function piProviderMessages(session: SessionManager, leafId?: string | null) {
  const context =
    leafId === undefined ? session.buildSessionContext() : buildSessionContext(session.getEntries(), leafId)
  const model = getModel('deepseek', 'deepseek-v4-flash')
  const compat = {
    supportsStore: false,
    supportsDeveloperRole: false,
    supportsReasoningEffort: false,
    supportsUsageInStreaming: true,
    maxTokensField: 'max_tokens',
    requiresToolResultName: false,
    requiresAssistantAfterToolResult: false,
    requiresThinkingAsText: false,
    requiresReasoningContentOnAssistantMessages: false,
    thinkingFormat: 'deepseek',
    openRouterRouting: {},
    vercelGatewayRouting: {},
    zaiToolStream: false,
    supportsStrictMode: false,
    sendSessionAffinityHeaders: false,
    supportsLongCacheRetention: false,
    sendSessionIdHeader: false,
    ...model.compat,
  }
  return convertMessages(
    model as never,
    { systemPrompt: 'You are a coding agent.', messages: convertToLlm(context.messages) } as never,
    compat as never,
  ) as unknown as { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown }[]
}

/**
 * Pi's messages without the `tool` messages that answer no call of the answer before them: Pi
 * sends such a result (one whose call was in an answer it left out, or in no answer at all) and
 * a strict API refuses it; the import leaves it out of the model's context (a tree-only node).
 */
export function withoutOrphanResults<T extends { role: string; tool_calls?: unknown; tool_call_id?: unknown }>(
  messages: readonly T[],
): T[] {
  let open = new Set<string>()
  return messages.filter((m) => {
    if (m.role !== 'tool') {
      open = new Set(((m.tool_calls ?? []) as { id: string }[]).map((c) => c.id))
      return true
    }
    return open.delete(String(m.tool_call_id))
  })
}
