import { isRecord } from '../../tree/validate.ts'
/**
 * Row ids for the Trajectory's tool rows that stay unique when a log repeats
 * a call id. Pure.
 *
 * DSH web's Trajectory keys a tool row by its bare call id (React key and
 * record id `tool␀call␀<callId>`, `dsh-client-ui-trajectory` 0.1.0-rc.8
 * `trajectoryRecordId`) and finds the row of an answer's call by that id
 * (`indexResults`: the last result of an id wins). A log that repeats an id
 * (a provider that reuses ids, an import that answers one call on two
 * branches) then lists two rows under one key, and both answers show the
 * later result. (`host-tools.ts` already keeps the two calls' contexts apart;
 * this is about the ids the rows are built from.)
 *
 * The rule: the first answer the page sees issue an id keeps the bare id, as
 * the host has it; a `tool/call` issued by another answer (the latest answer
 * of its id before it, another seq) is keyed `callId␀<that answer's seq>`
 * (decided when the call is seen: an answer comes before its calls). An
 * answer's block names the call it issued (the first call of its id after it
 * whose answer it is), or else the latest call of its id before it (a
 * restated answer, whose call came first); that is read when the answer's
 * row is built, so both always agree. A log that repeats no id is listed
 * exactly as before.
 *
 * Events carry no session, so one table serves the page (as in
 * `call-keys.ts`): at worst a call pairs with another session's answer of
 * the same id, and its row keeps a key of its own.
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
