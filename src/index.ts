/**
 * dsh-session-tree: a conversation tree for DeepSeek Harness sessions.
 *
 * The default export is the harness plugin (`ctx.sessionTree`, the typert
 * remote namespace `sessionTree`); the named exports are the pure tree, the
 * harness projection and the surface switching, for tools and tests.
 */
export * from './tree/index.ts'
export { SessionTreeService, type Config } from './service/service.ts'
export type * from './service/wire.ts'
export { SessionProjector, nodeIdForSeq, type SurfaceEntry, type NodeSource } from './harness/projector.ts'
export { TreeSync, type TreeSessionState } from './harness/sync.ts'
export { markerOf, markerMessage, PLUGIN_ID, type SwitchMarker } from './harness/marker.ts'
export { planSwitch, safeCopySource, type SwitchPlan, type PlannedEvent } from './surface/plan.ts'
export { StockSwitcher, type SwitchReport } from './surface/stock.ts'
export { surfaceModeOf, hasNativeSurface, SURFACE_NOTES } from './surface/mode.ts'
export { TreeSidecar } from './sidecar/index.ts'
import { SessionTreeService } from './service/service.ts'
export default SessionTreeService
