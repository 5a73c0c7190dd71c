/**
 * Row ids for the Trajectory's tool rows that stay unique when a log repeats
 * a call id. Pure.
 *
 * DSH web's Trajectory keys a tool row by its bare call id (React key and
 * record id `tool␀call␀<callId>`, `dsh-client-ui-trajectory` 0.1.0-rc.8
 * `trajectoryRecordId`) and finds the row of an answer's call by that id
 * (`indexResults`: the last result of an id wins). A log that repeats an id
 * (copies written by versions of this plugin before fresh call ids, listed in
 * a user's move) then lists two rows under one key, and both answers show the
 * later result. (`host-tools.ts` already keeps the two calls' contexts apart;
 * this is about the ids the rows are built from.)
 *
 * The rule: the first answer the page sees issue an id keeps the bare id, as
 * the host has it; another answer (another seq) that issues the same id gives
 * its call the alias `callId␀<answer seq>`. A `tool/call` takes the alias of
 * the latest answer before it that issued its id, so an answer's block and
 * its call's row always agree. Each verdict is taken when its event is seen
 * (an answer comes before its calls in a log) and kept for that event
 * object. A log that repeats no id is listed exactly as before.
 *
 * Events carry no session, so one table serves the page (as in
 * `call-keys.ts`): at worst a call pairs with another session's answer of
 * the same id, and its row keeps a key of its own.
 */

/** Separates the call id from the seq of the answer that issued it. */
export const ALIAS_SEPARATOR = '\u0000'

interface Issuer {
  readonly seq: number
  readonly alias: string
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null
const isInt = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value)

function blockIds(message: unknown): string[] {
  const content = isRecord(message) ? message.content : undefined
  if (!Array.isArray(content)) return []
  return content.flatMap((block) => (isRecord(block) && block.type === 'tool-call' && block.id !== undefined ? [String(block.id)] : []))
}

export class CallAliases {
  /** The answers seen issuing each id, in the order seen. */
  readonly #issuers = new Map<string, Issuer[]>()
  /** An answer's aliases (only the ids it does not keep bare). */
  readonly #answers = new WeakMap<object, ReadonlyMap<string, string>>()
  /** A call's alias (only when it is not its bare id). */
  readonly #calls = new WeakMap<object, string>()
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

  /** The aliases of an answer's calls: call id → the id its row is keyed by (empty when it repeats none). */
  answerAliases(event: unknown): ReadonlyMap<string, string> {
    return (isRecord(event) && this.#answers.get(event)) || new Map()
  }

  /** The id a `tool/call` event's row is keyed by (undefined: its bare id). */
  callAlias(event: unknown): string | undefined {
    return isRecord(event) ? this.#calls.get(event) : undefined
  }

  #read(event: Record<string, unknown>): void {
    const seq = event.seq
    const data = isRecord(event.data) ? event.data : undefined
    if (!isInt(seq) || data === undefined) return
    if (event.type === 'assistant/message') {
      const aliases = new Map<string, string>()
      for (const id of new Set(blockIds(data.message))) {
        const issuers = this.#issuers.get(id) ?? []
        const alias = issuers.length === 0 || issuers[0]!.seq === seq ? id : `${id}${ALIAS_SEPARATOR}${seq}`
        if (!issuers.some((issuer) => issuer.seq === seq)) issuers.push({ seq, alias })
        this.#issuers.set(id, issuers)
        if (alias !== id) aliases.set(id, alias)
      }
      if (aliases.size > 0) this.#answers.set(event, aliases)
      return
    }
    if (event.type === 'tool/call' && data.callId !== undefined) {
      const id = String(data.callId)
      let issuer: Issuer | undefined
      for (const candidate of this.#issuers.get(id) ?? []) if (candidate.seq < seq && (issuer === undefined || candidate.seq > issuer.seq)) issuer = candidate
      if (issuer !== undefined && issuer.alias !== id) this.#calls.set(event, issuer.alias)
    }
  }
}
