/**
 * The one place the browser turns a remote answer back into our result: every
 * Tree-tab call goes through the service's `attempt` (why: `service/attempt.ts`)
 * and `decodeAttempt` unwraps it. Anything unrecognised becomes `INTERNAL` with
 * the original text; it never throws.
 */
import { isRecord } from '../tree/validate.ts'

/** The version of `attempt`'s answer this client reads (`ATTEMPT_FORMAT` of the service). */
export const ATTEMPT_FORMAT = 'dsh-session-tree/attempt@2'

/** The failure every caller of the Tree tab's remote gets: one of the service's codes. */
export interface RemoteFailure {
  readonly code: string
  readonly message: string
  readonly details?: { readonly [key: string]: unknown }
}

export type Decoded<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: RemoteFailure }

/** The part of a zod schema the decoder uses: the method's generated result schema. */
export interface ValueSchema {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { message: string } }
}

const MAX_TEXT = 2_000

function text(value: unknown): string {
  let out: string
  try {
    out = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
  } catch {
    out = String(value)
  }
  return out.length <= MAX_TEXT ? out : `${out.slice(0, MAX_TEXT)}… (${out.length} characters)`
}

const internal = (message: string): Decoded<never> => ({ ok: false, error: { code: 'INTERNAL', message } })

/** Our failure from `attempt`'s `error`, or undefined when it is not one. */
function failureOf(error: unknown): RemoteFailure | undefined {
  if (!isRecord(error) || typeof error.code !== 'string' || error.code === '' || typeof error.message !== 'string')
    return undefined
  if (error.details !== undefined && !isRecord(error.details)) return undefined
  return error.details === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, details: error.details }
}

/**
 * `attempt`'s answer as the method's own result. `answer` is what the
 * generated client resolved to; `schema` validates the value (the generated
 * result schema of the method; `attempt` carries it as JSON text).
 */
export function decodeAttempt<T>(answer: unknown, schema: ValueSchema): Decoded<T> {
  try {
    if (!isRecord(answer) || typeof answer.ok !== 'boolean')
      return internal(`unrecognised remote answer: ${text(answer)}`)
    if (!answer.ok) {
      // The call never reached our service (offline, unmounted, refused by the host): the host's own text.
      const error = isRecord(answer.error) ? answer.error : {}
      return internal(typeof error.message === 'string' ? error.message : text(answer.error))
    }
    const attempt = answer.value
    if (!isRecord(attempt) || attempt.format !== ATTEMPT_FORMAT || typeof attempt.ok !== 'boolean')
      return internal(`unrecognised remote answer: ${text(attempt)}`)
    if (!attempt.ok)
      return { ok: false, error: failureOf(attempt.error) ?? { code: 'INTERNAL', message: text(attempt.error) } }
    if (attempt.json !== undefined && typeof attempt.json !== 'string')
      return internal(`unrecognised remote answer: ${text(attempt)}`)
    let value: unknown
    try {
      value = attempt.json === undefined ? undefined : JSON.parse(attempt.json)
    } catch {
      return internal(`the answer is not JSON: ${text(attempt.json)}`)
    }
    const parsed = schema.safeParse(value)
    if (!parsed.success)
      return internal(`the answer does not match the method's result schema: ${text(parsed.error.message)}`)
    return { ok: true, value: parsed.data as T }
  } catch (error) {
    return internal(error instanceof Error ? error.message : text(error))
  }
}
