/**
 * The slice of a live harness `Agent` (and its `Session`) that this package
 * drives: the stock switcher, the service's moves and restores, and the model
 * tools. Structural, so the published `Agent` fits it as it is and tests can
 * hand in a fake; the `agent/pre-step` decision is the published type.
 */
export type { PreStepDecision } from '@deepseek-ai/dsh-agent'

/** The slice of a live harness `Session` a switch uses. */
export interface LiveSession {
  readonly id: string
  readonly seq: number
  readonly events: readonly unknown[]
  readonly header: unknown
  readonly surface: { readonly nodes: readonly number[] }
  append(type: string, data: unknown, intent?: unknown): unknown
  requestHeader?(): { config?: { provider?: string; model?: string } } | undefined
}

/** The slice of a harness `Agent` a switch uses. */
export interface LiveAgent {
  readonly id: string
  readonly status: string
  readonly session: LiveSession
  readonly inbox: {
    readonly nextTurn: readonly { readonly id: string }[]
    readonly nextStep: readonly { readonly id: string }[]
    readonly hasPending: boolean
    prepend(target: 'next-turn' | 'next-step', message: unknown): void
    remove(id: string): unknown
  }
  send(message: unknown, target: 'next-turn' | 'next-step', wakeup: boolean): void
  followup(message: unknown): void
  whenIdle(): Promise<void>
}

/** The `agent/pre-step` payload as this package reads it (dsh-agent's, narrowed to {@link LiveAgent}). */
export interface PreStepPayload {
  readonly agent: LiveAgent
  readonly messages: readonly unknown[]
  readonly turn: number
  readonly step: number
}

/**
 * An agent free for a history switch: idle, with no prompt queued for its next turn (queued
 * prompts would run first; context waiting for the next step, such as injections, does not block).
 */
export function isFree(agent: LiveAgent): boolean {
  return agent.status === 'idle' && agent.inbox.nextTurn.length === 0
}
