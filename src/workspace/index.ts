/**
 * Workspace checkpoints: the files a session's agent changed, per
 * conversation point, and restoring them. Depends on the sidecar (directory
 * layout, journal) and the tree's error vocabulary; nothing here knows the
 * harness.
 */
export * from './types.ts'
export { statOf } from './planner.ts'
export { unifiedDiff } from './diff.ts'
export type { RestoreEntry } from './timeline.ts'
export { restoreHookFromEnv } from './restorer.ts'
export { SessionWorkspace, type CallPoint } from './session-workspace.ts'
export { WorkspaceRegistry } from './registry.ts'
export type { Snapshot } from './git.ts'
export { carriedState, decisionsFor, planCarry, type CarryDecision, type CarryEntry } from './carry.ts'
export { hashOf } from './blobs.ts'
