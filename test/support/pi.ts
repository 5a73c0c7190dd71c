/**
 * Real Pi sessions for tests: written by the published
 * `@mariozechner/pi-coding-agent` `SessionManager` (the same code the Pi CLI
 * runs), offline, into a temp directory.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionManager, buildSessionContext, convertToLlm } from '@mariozechner/pi-coding-agent'

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
  } = {},
) {
  const content: unknown[] = []
  if (options.thinking)
    content.push({ type: 'thinking', thinking: options.thinking, thinkingSignature: 'sig-' + options.thinking.length })
  if (text) content.push({ type: 'text', text })
  for (const call of options.calls ?? [])
    content.push({ type: 'toolCall', id: call.id, name: call.name, arguments: call.args })
  return {
    role: 'assistant' as const,
    content,
    api: 'anthropic-messages',
    provider: PI_PROVIDER,
    model: options.model ?? PI_MODEL,
    usage,
    stopReason: options.calls?.length ? 'toolUse' : 'stop',
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
