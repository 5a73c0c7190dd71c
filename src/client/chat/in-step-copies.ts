/**
 * Which events of a session log are the plugin's restatement of context for
 * a move the MODEL made inside its running step (pure: no DOM, no host), so
 * the Trajectory can leave them out. Named by the plugin's mark, on any page
 * in any order; why: docs/known-limits.md, "Model moves and DSH web's Trajectory".
 */
import type { LogEvent } from '../../harness/log-event.ts'
import { FRESH_CALL_ID_PREFIX, RESTATED_ID_PREFIX } from '../../harness/marker.ts'
import { isRecord } from '../../tree/validate.ts'

/** An event as it reaches the page: a log event's fields, each still unchecked. */
export type UncheckedEvent = { readonly [K in keyof LogEvent]?: unknown }

/** The call ids of an assistant message's `tool-call` blocks. */
function callIds(message: unknown): string[] {
  const content = isRecord(message) ? message.content : undefined
  if (!Array.isArray(content)) return []
  return content.flatMap((block) =>
    isRecord(block) && block.type === 'tool-call' && typeof block.id === 'string' ? [block.id] : [],
  )
}

/** Whether the event's message carries the plugin's mark of an in-step restatement. */
function marked(type: string, data: Record<string, unknown>): boolean {
  const message =
    type === 'user/message' ? data : type === 'assistant/message' || type === 'tool/result' ? data.message : undefined
  return isRecord(message) && typeof message.id === 'string' && message.id.startsWith(RESTATED_ID_PREFIX)
}

export class InStepCopies {
  readonly #verdicts = new WeakMap<object, boolean>()
  /** The calls of marked answer copies (fresh ids, unique): their `tool/call` copies are named too. */
  readonly #markedCalls = new Set<string>()

  /** Whether `event` belongs to the plugin's restatement inside a model's move step. Total: never throws. */
  isCopy(event: unknown): boolean {
    if (!isRecord(event)) return false
    // The engine re-dispatches the same objects when its registry changes: a Definition never withdraws a row.
    const known = this.#verdicts.get(event)
    if (known !== undefined) return known
    let verdict = false
    try {
      verdict = this.#classify(event as UncheckedEvent)
    } catch {
      verdict = false
    }
    this.#verdicts.set(event, verdict)
    return verdict
  }

  /** Named by the plugin's mark: a marked message, or the copy of a call a marked answer issued. */
  #classify(event: UncheckedEvent): boolean {
    const { type } = event
    if (typeof type !== 'string') return false
    const data = isRecord(event.data) ? event.data : {}
    if (marked(type, data)) {
      // Only copied calls (fresh ids): the restated answer also carries the live move call, whose row stays.
      if (type === 'assistant/message')
        for (const id of callIds(data.message)) if (id.startsWith(FRESH_CALL_ID_PREFIX)) this.#markedCalls.add(id)
      return true
    }
    return type === 'tool/call' && typeof data.callId === 'string' && this.#markedCalls.has(data.callId)
  }
}
