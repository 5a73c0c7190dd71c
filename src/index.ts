/**
 * dsh-session-tree: a conversation tree for DeepSeek Harness sessions.
 *
 * The default export is the harness plugin (`ctx.sessionTree`, the typert
 * remote namespace `sessionTree`). The named exports are what code outside
 * the plugin uses: the pure tree (also at `dsh-session-tree/tree`), the
 * service class and its configuration, and the wire types (also at
 * `dsh-session-tree/types`). The harness projection, the sidecar and the
 * surface switching are internals of the plugin.
 */
export * from './tree/index.ts'
export { ERROR_CODES } from './service/errors.ts'
export { SessionTreeService, type Config } from './service/service.ts'
export type * from './service/wire.ts'
export type * from './service/lineage-wire.ts'
import { SessionTreeService } from './service/service.ts'
export default SessionTreeService
