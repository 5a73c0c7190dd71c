/**
 * The slice of a live harness `Agent` (and its `Session`) that this package
 * drives: the stock switcher, the service's moves and restores, and the model
 * tools. Structural, so the published `Agent` fits it as it is and tests can
 * hand in a fake; the `agent/pre-step` decision is the published type.
 */
export type { PreStepDecision } from '@deepseek-ai/dsh-agent'
import type { PreStepDecision } from '@deepseek-ai/dsh-agent'
import { isRecord } from '../tree/validate.ts'
import type { HostListen } from './host.ts'

/**
 * The decision of a step this package ends without a model call (a history
 * switch's maintenance turn, a held turn, a `/tree` line). An `enter` with no
 * messages ends the turn `completed`, as any quiet turn does; `reject` would
 * end it `blocked`, which front ends show as a failure (dsh-TUI: a "turn
 * blocked" row and a red "Turn error" toast). Wrappers that add context to
 * an `enter` (time-context, tmux-context) run only inside the listener that
 * returns it, so the listener must be the outermost one: see `FrontListener`.
 */
export const NO_MODEL_CALL: PreStepDecision = Object.freeze({ kind: 'enter', messages: [] }) as PreStepDecision

/**
 * An `agent/pre-step` listener kept at the front of the waterfall: `front()`
 * registers it again with `prepend`, ahead of listeners added since (a
 * plugin loaded or reloaded later prepends ahead of it). Called before each
 * turn the listener ends without a model call.
 */
export interface FrontListener {
  front(): void
}

export function frontListener(
  on: HostListen,
  listener: (payload: never, next: () => Promise<PreStepDecision>) => Promise<PreStepDecision>,
): FrontListener {
  let dispose = on('agent/pre-step', listener, { prepend: true })
  return {
    front() {
      dispose()
      dispose = on('agent/pre-step', listener, { prepend: true })
    },
  }
}

/** The slice of a live harness `Session` a switch uses. */
export interface LiveSession {
  readonly id: string
  readonly seq: number
  readonly events: readonly unknown[]
  readonly header: unknown
  readonly surface: { readonly nodes: readonly number[] }
  append(type: string, data: unknown, intent?: unknown): unknown
  requestHeader(): { config?: { provider?: string; model?: string } } | undefined
  /** The model history DSH derives from the log (what the next request sends). */
  deriveMessages(): readonly unknown[]
  /** The route DSH last recorded (`request/context`): see `requestRoute`. */
  requestContext(): unknown
}

/** A model's provider and name, as DSH routes a request. */
export interface ModelRoute {
  readonly provider: string
  readonly model: string
}

/** The route of the session's last request header, when it names both. */
export function headerRoute(session: Pick<LiveSession, 'requestHeader'>): ModelRoute | undefined {
  const config = session.requestHeader()?.config
  return config?.provider && config.model ? { provider: config.provider, model: config.model } : undefined
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

/** The route DSH last recorded for a session (`request/context`); undefined when none, or reading it failed. */
export interface RequestRoute {
  readonly provider?: unknown
  readonly model?: unknown
  /** The model's context window, when its adapter advertises one (a positive number). */
  readonly contextWindow?: number
}

export function requestRoute(session: Pick<LiveSession, 'requestContext'>): RequestRoute | undefined {
  let context: unknown
  try {
    context = session.requestContext()
  } catch {
    return undefined
  }
  if (!isRecord(context)) return undefined
  const { provider, model, contextWindow } = context
  return {
    provider,
    model,
    ...(typeof contextWindow === 'number' && contextWindow > 0 ? { contextWindow } : {}),
  }
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
