/**
 * The sidecar's vocabulary. The sidecar keeps, per harness session, the tree
 * state the harness log cannot hold. What that state means is the caller's
 * business: records and folds carry opaque JSON objects. The sidecar owns the
 * framing around them: numbering, integrity checks, atomic files, compaction.
 */
import type { JsonObject } from '../tree/types.ts'

/**
 * Who made a journal record, as its writer says at the source (never guessed
 * from the record's shape). A person: through the panel (any remote call of
 * `ctx.sessionTree`: the Tree tab) or the `/tree` command; the model: through
 * one of its tree tools (`callId`: the call, when it moved within its step).
 */
export type JournalActor =
  { readonly kind: 'user'; readonly via: 'panel' | 'command' } | { readonly kind: 'model'; readonly callId?: string }

/** One journal record: the caller's `op`, numbered by the sidecar. */
export interface SidecarRecord {
  /** Per-session record number: 1, 2, 3, ... continuing across compactions. */
  readonly n: number
  /** The caller's harness watermark when the record was written. */
  readonly w: number
  /** ISO-8601 time of the write. */
  readonly at: string
  /** Who made it (a tree op always names one); absent on the workspace's own records (`workspace/log.ts`). */
  readonly actor?: JournalActor
  readonly op: JsonObject
}

/** Compacted state: `state` folds every journal record numbered `<= n`. */
export interface SidecarFold {
  readonly n: number
  readonly w: number
  readonly state: JsonObject
}

/** Something wrong found while loading; loading went on with what was valid. */
export interface SidecarProblem {
  readonly code: 'INVALID_SNAPSHOT' | 'SIDECAR_IO'
  readonly message: string
  /** Absolute path of the offending file. */
  readonly file: string
  /** Byte offset of the offending journal line. */
  readonly offset?: number
}

/** What `load` found on disk. */
export interface SidecarLoad {
  /** False when the session has no sidecar files (it never branched). */
  readonly exists: boolean
  /** The folded state from `overlay.json`, when that file is valid. */
  readonly fold?: SidecarFold
  /** Valid journal records after the fold, in order and contiguous. */
  readonly records: readonly SidecarRecord[]
  readonly problems: readonly SidecarProblem[]
}

export interface SidecarOptions {
  /** `needsCompaction` once more records than this follow the fold (default 200). */
  readonly compactRecords?: number
  /** `needsCompaction` once the journal after the fold holds more bytes than this (default 64 KiB). */
  readonly compactBytes?: number
}
