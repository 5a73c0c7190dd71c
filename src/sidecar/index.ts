/**
 * The sidecar: durable per-session tree state the harness log cannot hold.
 * Contents are the caller's opaque JSON; this module owns the files.
 */
export type { JournalActor, SidecarFold, SidecarLoad, SidecarOptions, SidecarProblem, SidecarRecord } from './types.ts'
export { TreeSidecar, JOURNAL_FILE, OVERLAY_FILE } from './sidecar.ts'
export { encodeSessionId } from './session-dir.ts'
export { SidecarLocator, SESSION_SIDECAR_DIR, type SessionDirOf, type SidecarPlace } from './location.ts'
export type { MigrationOptions, MigrationOutcome, MigrationStep } from './migrate.ts'
export {
  CLAIM_FILE,
  claimRefusal,
  processClaims,
  releaseAllClaims,
  WriterClaims,
  type ClaimLook,
  type WriterHolder,
} from './claim.ts'
