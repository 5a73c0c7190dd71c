/**
 * The service's `attempt` over a fake remote, for unit tests of the client
 * entry (`src/client/index.ts` sends every call through `attempt`): named wire
 * args back to the method's positional ones (the generated descriptors say
 * which), the method's result as `attempt` answers it. The real one goes
 * through the host gateway (`src/service/attempt.ts`; e2e: remote-errors-panel).
 */
import TYPERT_REMOTE from '../../lib/typert.remote-client.js'

type Answer =
  | { readonly ok: true; readonly value?: unknown }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } }
const FORMAT = 'dsh-session-tree/attempt@2'
const descriptors = (
  TYPERT_REMOTE as unknown as { descriptors: Array<{ method: string; parameters: Array<{ wire: string }> }> }
).descriptors

export function attemptOver(
  remote: object,
): (method: string, args: Record<string, unknown>) => Promise<{ ok: true; value: unknown }> {
  return async (method, args) => {
    const descriptor = descriptors.find((d) => d.method === method)
    const call = (remote as Record<string, (...values: unknown[]) => Promise<Answer>>)[method]
    if (!descriptor || !call)
      return {
        ok: true,
        value: { format: FORMAT, ok: false, error: { code: 'INTERNAL', message: `no method ${method}` } },
      }
    const answer = await call(...descriptor.parameters.map((p) => args[p.wire]))
    // JSON, as the wire makes it (an absent optional field, never `undefined`).
    return {
      ok: true,
      value: answer.ok
        ? answer.value === undefined
          ? { format: FORMAT, ok: true }
          : { format: FORMAT, ok: true, json: JSON.stringify(answer.value) }
        : { format: FORMAT, ok: false, error: answer.error },
    }
  }
}
