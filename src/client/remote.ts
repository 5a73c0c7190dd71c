/**
 * The `sessionTree` remote as the panel calls it: only through the GENERATED
 * typert client (`lib/typert.remote-client.js`, bundled into `lib/client.js`),
 * mounted with `ctx.remote.$mount(TYPERT_REMOTE)`; every call then goes
 * through `ctx.remote.sessionTree.<method>` and resolves to a
 * `RemoteResult<T>` whose value the generated zod schemas validated.
 */
import type { RemoteResult, TypertClientRemote } from '@deepseek-ai/dsh-typert-protocol'
import TYPERT_REMOTE from '../../lib/typert.remote-client.js'
import type { TreeRemote } from './controller.ts'
import type { ChatRemote } from './chat/store.ts'
import type { WorkspaceRemote } from './workspace/client.ts'

export { TYPERT_REMOTE }
export type { RemoteResult }

/** The generated namespace, typed through `types/typert-compat.d.ts`. */
export type GeneratedSessionTree = TypertClientRemote['sessionTree']

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
