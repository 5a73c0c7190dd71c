/**
 * `attempt`: any remote method of the namespace, its failure answered as data.
 * Why: dsh web 0.1.0-rc.8's browser carrier parses every error with a closed
 * union of the host's own codes, so ours reach the page as `internal`; the
 * code cannot ride in the error without changing what HTTP callers read
 * (docs/service.md, "Error codes in the browser"). The call goes through the
 * host's gateway, so validation, queueing and settling are a direct call's.
 */
import { TypertLookupFailure } from '@deepseek-ai/dsh-typert-protocol'
import type { TreeError } from '../tree/errors.ts'
import type { JsonValue } from '../tree/types.ts'
import { bounded } from './clip.ts'
import { errorMessage } from '../tree/errors.ts'

/** Names the version of the attempt shape; the browser decoder refuses any other. */
export const ATTEMPT_FORMAT = 'dsh-session-tree/attempt@2'

/** A failure as `attempt` answers it: one of the service's codes, its message and details. */
export interface AttemptError {
  readonly code: string
  readonly message: string
  readonly details?: { readonly [key: string]: JsonValue }
}

/**
 * `attempt`'s answer: the method's value as JSON text (absent for a void method), or its failure.
 * Text, not a JSON value: the value is checked once, by the method's own result schema in the
 * browser; a recursive JSON-value schema on both sides cost ~126 ms on a 10,000-node outline.
 */
export type RemoteAttempt =
  | { readonly format: typeof ATTEMPT_FORMAT; readonly ok: true; readonly json?: string }
  | { readonly format: typeof ATTEMPT_FORMAT; readonly ok: false; readonly error: AttemptError }

/** The part of the host gateway `attempt` uses. */
export interface Gateway {
  invoke(request: { namespace: string; method: string; args: { readonly [wire: string]: unknown } }): Promise<unknown>
}

const failed = (code: string, message: string): RemoteAttempt => ({
  format: ATTEMPT_FORMAT,
  ok: false,
  error: { code, message },
})

/** Invoke `namespace/method` with its wire `args` through `gateway`; every outcome is a value. */
export async function attemptRemote(
  gateway: Gateway | undefined,
  namespace: string,
  method: unknown,
  args: unknown,
): Promise<RemoteAttempt> {
  if (typeof method !== 'string' || method === '' || method === 'attempt')
    return failed('INVALID_ARGUMENT', 'method must name another remote method of the namespace')
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return failed('INVALID_ARGUMENT', 'args must be an object of wire arguments')
  if (!gateway) return failed('INTERNAL', 'the host gateway (typertGateway) is unavailable')
  try {
    const result = await gateway.invoke({ namespace, method, args: args as { readonly [wire: string]: unknown } })
    const json = result === undefined ? undefined : JSON.stringify(result)
    return json === undefined ? { format: ATTEMPT_FORMAT, ok: true } : { format: ATTEMPT_FORMAT, ok: true, json }
  } catch (error) {
    // Our failures arrive as the lookup failure `settle` threw; the gateway's own refusals (bad arguments, unknown method) as plain errors.
    if (error instanceof TypertLookupFailure) {
      return { format: ATTEMPT_FORMAT, ok: false, error: bounded(error.failure as TreeError) as AttemptError }
    }
    return failed('INTERNAL', bounded({ code: 'INTERNAL', message: errorMessage(error) }).message)
  }
}
