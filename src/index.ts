/**
 * dsh-session-tree: a conversation tree for DeepSeek Harness sessions. The
 * default export is the harness plugin (`ctx.sessionTree`, typert namespace
 * `sessionTree`); the named exports serve code outside it: the pure tree (also
 * `dsh-session-tree/tree`), the service and its config, the wire types (also
 * `dsh-session-tree/types`). Projection, sidecar and switching are internal.
 */
export * from './tree/index.ts'
export { ERROR_CODES } from './service/errors.ts'
export { SessionTreeService } from './service/service.ts'
export type { Config } from './service/config.ts'
export type * from './service/wire.ts'
export type * from './service/lineage-wire.ts'
import { SessionTreeService } from './service/service.ts'
export default SessionTreeService
