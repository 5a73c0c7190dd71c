/**
 * The session's own request prefix (last `request/header` plus
 * `session.deriveMessages()`) for a move's summary side call, so the call can
 * read the provider's prefix cache. Not shared in projection mode, when the
 * session has no request header yet, or when it would not fit beside the output cap.
 */
import { isRecord } from '../tree/validate.ts'
import { requestRoute } from '../harness/live.ts'
import type { SurfaceMode } from './wire.ts'

/** What the side call reuses of the session's request. */
export interface SessionPrefix {
  readonly system?: string
  readonly tools?: readonly unknown[]
  readonly messages: readonly unknown[]
}

/** Why the session's prefix is not used: the side call then sends its own compact request. */
export type OwnRequestReason = 'projection' | 'no-header' | 'empty' | 'context-window'

export type PrefixChoice =
  | { readonly kind: 'shared'; readonly prefix: SessionPrefix }
  | { readonly kind: 'own'; readonly reason: OwnRequestReason }

/** The slice of a harness `Session` read here (the published one fits). */
export interface PrefixSession {
  deriveMessages(): readonly unknown[]
  requestHeader(): unknown
  requestContext(): unknown
}

/**
 * Bytes per token assumed when checking the context window: low on purpose
 * (English runs near 4, Chinese near 1.5–3 per token), so a request that
 * passes the check fits.
 */
export const BYTES_PER_TOKEN = 2

/** The session's prefix, or why not. `extraTokens`: the instruction and the output cap. */
export function sessionPrefix(session: PrefixSession, mode: SurfaceMode, extraTokens: number): PrefixChoice {
  if (mode === 'projection') return { kind: 'own', reason: 'projection' }
  let header: unknown
  let derived: readonly unknown[]
  try {
    header = session.requestHeader()
    derived = session.deriveMessages()
  } catch {
    return { kind: 'own', reason: 'no-header' }
  }
  if (!isRecord(header)) return { kind: 'own', reason: 'no-header' }
  const messages = answeredOnly(derived)
  if (messages.length === 0) return { kind: 'own', reason: 'empty' }
  const prefix: SessionPrefix = {
    ...(typeof header.system === 'string' ? { system: header.system } : {}),
    ...(Array.isArray(header.tools) && header.tools.length > 0 ? { tools: header.tools } : {}),
    messages,
  }
  const window = requestRoute(session)?.contextWindow
  if (window !== undefined && estimateTokens(prefix) + extraTokens > window)
    return { kind: 'own', reason: 'context-window' }
  return { kind: 'shared', prefix }
}

/**
 * The history without a trailing assistant message whose tool calls are not
 * all answered: a move made inside the model's step runs while its own call
 * waits for a result, and a provider refuses a call without one. What is
 * left is exactly what the step's request sent.
 */
export function answeredOnly(messages: readonly unknown[]): readonly unknown[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]
    if (!isRecord(message) || message.role !== 'assistant') continue
    const calls = blocks(message)
      .filter((b) => b.type === 'tool-call' && typeof b.id === 'string')
      .map((b) => b.id as string)
    if (calls.length === 0) return messages
    const answered = new Set<string>()
    for (const later of messages.slice(i + 1))
      for (const b of isRecord(later) ? blocks(later) : [])
        if (b.type === 'tool-result' && typeof b.toolCallId === 'string') answered.add(b.toolCallId)
    return calls.every((id) => answered.has(id)) ? messages : messages.slice(0, i)
  }
  return messages
}

function blocks(message: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(message.content) ? message.content.filter(isRecord) : []
}

/** A conservative token count of a prefix (its JSON's UTF-8 bytes over {@link BYTES_PER_TOKEN}). */
export function estimateTokens(prefix: SessionPrefix): number {
  return Math.ceil(Buffer.byteLength(JSON.stringify(prefix)) / BYTES_PER_TOKEN)
}
