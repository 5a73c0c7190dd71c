/**
 * Workspace checkpoints: the files a session's agent changed, per
 * conversation point, and restoring them. Depends on the sidecar (directory
 * layout, journal) and the tree's error vocabulary; nothing here knows the
 * harness.
 */
export * from './types.ts'
export { pathProblem, relativeTo } from './paths.ts'
export { planRestore, statOf, type PlanInput } from './planner.ts'
export { diffCounts, unifiedDiff } from './diff.ts'
export { Timeline, type Expected, type RestoreEntry } from './timeline.ts'
export { restoreHookFromEnv, type RestoreHook } from './restorer.ts'
export {
  SessionWorkspace,
  type CallPoint,
  type CaptureOutcome,
  type FileAtPoint,
  type WorkspaceStatusInfo,
} from './session-workspace.ts'
export { WorkspaceRegistry, type RegistryOptions } from './registry.ts'
export type { Snapshot } from './git.ts'
export { merge3, type MergeLabels, type MergeResult } from './merge.ts'
export {
  carriedState,
  decisionsFor,
  planCarry,
  type CarryAction,
  type CarryConflictReason,
  type CarryDecision,
  type CarryEntry,
  type CarryPlan,
} from './carry.ts'
export { hashOf } from './blobs.ts'
