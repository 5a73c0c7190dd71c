/**
 * Wire types of sessions across sessions: "Open as new session", the lineage
 * of a session (where it came from, what was forked from it) and the sidecars
 * whose session is gone.
 */
import type { ForkLink, ForkMaker } from '../sidecar/lineage.ts'

export type { ForkLink, ForkMaker }

/** One side of a lineage as a client shows it: the link, plus whether the other session still exists. */
export interface LineageLink extends ForkLink {
  /** False when the other session no longer exists (its directory was removed). */
  readonly exists: boolean
}

/** A session's place among sessions (`session` and `list` results). */
export interface SessionLineageView {
  /** The session this one was forked from, at which of its nodes. */
  readonly forkedFrom?: LineageLink
  /** Sessions forked from this one, oldest first; `node` is this session's node each was forked at. */
  readonly forkedTo: readonly LineageLink[]
  /** Set when the lineage file cannot be read (it is kept as it is). */
  readonly problem?: string
}

/** `openAsNewSession` result. */
export interface NewSessionResult {
  /** The new session's id (open it like any other session). */
  readonly sessionId: string
  readonly title: string
  /** The node of the source session the new one continues from (after snapping to a complete exchange). */
  readonly nodeId: string
  /** The node asked for, when it sat inside a tool exchange. */
  readonly snappedFrom?: string
  /** Messages of the new session's model history (the root-to-node path). */
  readonly messages: number
  /** Events written into the new session's log before its first turn. */
  readonly seedEvents: number
  /** The workspace the new session was put into (the source's), when there is one. */
  readonly workspaceId?: string
  /** Whether the running host adopted the session at once (`dsh web`); otherwise it loads when opened. */
  readonly adopted: boolean
  /** Set when the session exists but its lineage could not be saved in a sidecar (the new log still names its source). */
  readonly notDurable?: { readonly code: 'SIDECAR_IO'; readonly message: string }
}

/** A sidecar whose session no longer exists. */
export interface OrphanView {
  readonly sessionId: string
  readonly dir: string
  /** ISO-8601: when it was first found without its session. */
  readonly since: string
  /** ISO-8601: when a scan at or after this time removes it (unless `gc` removes it earlier). */
  readonly removableAt: string
}

/** A sidecar moved from the old layout (`<sidecarRoot>/<encoded id>/`) into its session's directory. */
export interface MigratedView {
  readonly sessionId: string
  readonly from: string
  readonly to: string
}

/** `gc` result, and the last scan as `session` reports it. */
export interface GcResult {
  readonly scannedAt: string
  /** Orphans still on disk (a dry run, or the grace period not over). */
  readonly orphans: readonly OrphanView[]
  /** Orphans this scan removed. */
  readonly removed: readonly OrphanView[]
  /** Entries that could not be judged, removed or moved (a conflict between the old and the new place, a link, a failure). */
  readonly problems: readonly { readonly dir: string; readonly message: string }[]
  /** Sidecars moved into their session's directory since this process started. */
  readonly migrated?: readonly MigratedView[]
  readonly dryRun: boolean
}
