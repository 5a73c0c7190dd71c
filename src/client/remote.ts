/**
 * The `sessionTree` remote as the panel calls it: only through the GENERATED
 * typert client (`lib/typert.remote-client.js`, bundled into `lib/client.js`),
 * mounted with `ctx.remote.$mount(TYPERT_REMOTE)`, and wrapped once by
 * {@link withTreeErrors}: every method is sent through the service's
 * `attempt`, so a failure reaches the caller with our code (dsh web's
 * browser carrier would turn it into `internal`; `src/service/attempt.ts`).
 * Arguments and values are checked with the same generated zod schemas.
 */
import type { TypertClientRemote } from '@deepseek-ai/dsh-typert-protocol'
import TYPERT_REMOTE from '../../lib/typert.remote-client.js'
import type { TreeRemote } from './controller.ts'
import type { ChatRemote } from './chat/store.ts'
import type { WorkspaceRemote } from './workspace/client.ts'
import { decodeAttempt, type Decoded, type ValueSchema } from './remote-errors.ts'
import { errorMessage } from '../tree/errors.ts'

/** The generated namespace, typed through `types/typert-compat.d.ts`. */
export type GeneratedSessionTree = TypertClientRemote['sessionTree']

/** What the adapter reads of a generated descriptor. */
interface Descriptor {
  readonly method: string
  readonly parameters: ReadonlyArray<{ readonly wire: string; readonly codec: { readonly schema: ValueSchema } }>
  readonly result: { readonly schema: ValueSchema }
}

const DESCRIPTORS = (TYPERT_REMOTE as unknown as { readonly descriptors: readonly Descriptor[] }).descriptors

/** One method of the namespace, sent through `attempt` and decoded. */
async function viaAttempt(
  generated: GeneratedSessionTree,
  descriptor: Descriptor,
  values: readonly unknown[],
): Promise<Decoded<unknown>> {
  const args: Record<string, unknown> = {}
  for (const [i, parameter] of descriptor.parameters.entries()) {
    const parsed = parameter.codec.schema.safeParse(values[i])
    if (!parsed.success)
      return {
        ok: false,
        error: {
          code: 'INVALID_ARGUMENT',
          message: `${descriptor.method}: ${parameter.wire}: ${parsed.error.message}`,
        },
      }
    if (parsed.data !== undefined) args[parameter.wire] = parsed.data
  }
  let answer: unknown
  try {
    answer = await generated.attempt(descriptor.method, args as never)
  } catch (error) {
    answer = { ok: false, error: { message: errorMessage(error) } }
  }
  return decodeAttempt(answer, descriptor.result.schema)
}

/** The generated namespace with every method's failure carrying our code. */
export function withTreeErrors(generated: GeneratedSessionTree): GeneratedSessionTree {
  const wrapped: Record<string, unknown> = {}
  for (const descriptor of DESCRIPTORS) {
    if (descriptor.method === 'attempt') continue
    // The push channel is held open and cancelled: sent as itself (a failure only sends the page back to polling).
    if (descriptor.method === 'watch') {
      wrapped.watch = (...values: unknown[]) =>
        (generated.watch as unknown as (...args: unknown[]) => Promise<unknown>)(...values)
      continue
    }
    wrapped[descriptor.method] = (...values: unknown[]) => viaAttempt(generated, descriptor, values)
  }
  return wrapped as unknown as GeneratedSessionTree
}

/**
 * Compile-time proof that the generated client is what the controller calls:
 * if the service's signatures change and the client is regenerated, this
 * assignment stops type-checking.
 */
export function asTreeRemote(generated: GeneratedSessionTree): TreeRemote {
  return generated
}

/** The same proof for what the workspace views call. */
export function asWorkspaceRemote(generated: GeneratedSessionTree): WorkspaceRemote {
  return generated
}

/** The same proof for what the Chat decorations call. */
export function asChatRemote(generated: GeneratedSessionTree): ChatRemote {
  return generated
}
