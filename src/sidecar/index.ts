/**
 * The sidecar: durable per-session tree state the harness log cannot hold.
 * Contents are the caller's opaque JSON; this module owns the files.
 */
export type { JournalActor, SidecarLoad, SidecarRecord } from './types.ts'
export { TreeSidecar, JOURNAL_FILE, OVERLAY_FILE } from './sidecar.ts'
export { encodeSessionId } from './session-dir.ts'
export { SidecarLocator } from './location.ts'
export type { MigrationStep } from './migrate.ts'
export { CLAIM_FILE, claimRefusal, processClaims, WriterClaims, type ClaimLook, type WriterHolder } from './claim.ts'
