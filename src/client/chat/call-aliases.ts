import { isRecord } from '../../tree/validate.ts'
/**
 * Row ids for the Trajectory's tool rows that stay unique when a log repeats a
 * call id (pure). The Trajectory (0.1.0-rc.8) keys a row by its bare call id
 * and pairs answers by it (last result wins): docs/known-limits.md. The first
 * answer to issue an id keeps it; a call issued by another answer is keyed
 * `callId␀<that answer's seq>`, decided when the call is seen, and the answer's
 * block reads the same alias. One table serves the page (events carry no
 * session), as in `call-keys.ts`.
 */

/** Separates the call id from the seq of the answer that issued it. */
export const ALIAS_SEPARATOR = '\u0000'

interface Issuer {
  readonly seq: number
  /** The alias its calls get (the bare id for the first answer seen to issue it). */
  readonly alias: string
}

interface Call {
  readonly seq: number
  /** The seq of the answer that issued it (undefined: none seen). */
  readonly issuer: number | undefined
  readonly alias: string
}

const isInt = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value)

function blockIds(message: unknown): string[] {
  const content = isRecord(message) ? message.content : undefined
  if (!Array.isArray(content)) return []
  return content.flatMap((block) =>
    isRecord(block) && block.type === 'tool-call' && block.id !== undefined ? [String(block.id)] : [],
  )
}

export class CallAliases {
  /** The answers seen issuing each id, in the order seen. */
  readonly #issuers = new Map<string, Issuer[]>()
  /** The calls seen of each id, by seq. */
  readonly #calls = new Map<string, Call[]>()
  /** A call's alias (only when it is not its bare id). */
  readonly #aliases = new WeakMap<object, string>()
  readonly #seen = new WeakSet<object>()

  /** Read one event (once per event object; later reads change nothing). Total: never throws. */
  observe(event: unknown): void {
    if (!isRecord(event) || this.#seen.has(event)) return
    this.#seen.add(event)
    try {
      this.#read(event)
    } catch {
      // An unreadable event keeps the host's ids.
    }
  }

  /** The ids an answer's blocks name: call id → the id of its call's row (empty when all are bare). Total. */
  answerAliases(event: unknown): ReadonlyMap<string, string> {
    const aliases = new Map<string, string>()
    if (!isRecord(event) || !isInt(event.seq) || !isRecord(event.data)) return aliases
    const seq = event.seq
    for (const id of new Set(blockIds(event.data.message))) {
      const calls = this.#calls.get(id) ?? []
      const own = calls.find((call) => call.seq > seq && call.issuer === seq)
      let before: Call | undefined
      for (const call of calls) if (call.seq < seq) before = call
      const alias = (own ?? before)?.alias ?? id
      if (alias !== id) aliases.set(id, alias)
    }
    return aliases
  }

  /** The id a `tool/call` event's row is keyed by (undefined: its bare id). */
  callAlias(event: unknown): string | undefined {
    return isRecord(event) ? this.#aliases.get(event) : undefined
  }

  #read(event: Record<string, unknown>): void {
    const seq = event.seq
    const data = isRecord(event.data) ? event.data : undefined
    if (!isInt(seq) || data === undefined) return
    if (event.type === 'assistant/message') {
      for (const id of new Set(blockIds(data.message))) {
        const issuers = this.#issuers.get(id) ?? []
        if (issuers.some((issuer) => issuer.seq === seq)) continue
        issuers.push({ seq, alias: issuers.length === 0 ? id : `${id}${ALIAS_SEPARATOR}${seq}` })
        this.#issuers.set(id, issuers)
      }
      return
    }
    if (event.type === 'tool/call' && data.callId !== undefined) {
      const id = String(data.callId)
      let issuer: Issuer | undefined
      for (const candidate of this.#issuers.get(id) ?? [])
        if (candidate.seq < seq && (issuer === undefined || candidate.seq > issuer.seq)) issuer = candidate
      const alias = issuer?.alias ?? id
      if (alias !== id) this.#aliases.set(event, alias)
      const calls = this.#calls.get(id) ?? []
      if (calls.some((call) => call.seq === seq)) return
      const at = calls.findIndex((call) => call.seq > seq)
      calls.splice(at === -1 ? calls.length : at, 0, { seq, issuer: issuer?.seq, alias })
      this.#calls.set(id, calls)
    }
  }
}
