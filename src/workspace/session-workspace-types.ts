/** The types of one session's workspace checkpoints (`session-workspace.ts`): what it is given, captures, reads. */
import type { BlobStore } from './blobs.ts'
import type { GitSnapshots } from './git.ts'
import type { CheckpointLog, LogLoad } from './log.ts'
import type { RestoreHook } from './restorer.ts'
import type { RestoreEntry } from './timeline.ts'
import type { FileState, ShellTracking } from './types.ts'

/** The tool call a capture belongs to. */
export interface CallPoint {
  /** `2 × seq` of the call's `tool/call` event. */
  readonly key: number
  /** Its tree node (`e<seq>`). */
  readonly node: string
  readonly call: string
  readonly tool: string
  /** The session's last event seq now (journal watermark). */
  readonly w: number
}

export type CaptureOutcome =
  | { readonly kind: 'captured'; readonly path: string; readonly state: FileState }
  | { readonly kind: 'already'; readonly path: string }
  | { readonly kind: 'outside'; readonly absolute: string }
  | { readonly kind: 'failed'; readonly path?: string; readonly message: string }

/** A file at a conversation point, next to what it is now. */
export interface FileAtPoint {
  readonly path: string
  /** Undefined: unknown (the after-image of a change was never written). */
  readonly state?: FileState
  /** Whether the file now differs from that state. */
  readonly differs: boolean
}

/** A file whose checkpointed states differ between two points (a side left out: unknown there). */
export interface FileComparison {
  readonly path: string
  readonly a?: FileState
  readonly b?: FileState
}

/** One restore's file diff. */
export interface FileDiffResult {
  readonly path: string
  readonly current: FileState
  readonly target?: FileState
  /** A unified diff from now to the target; empty when nothing would change or a side is not text. */
  readonly diff: string
}

export interface WorkspaceStatusInfo {
  readonly root: string
  readonly shell: ShellTracking
  readonly maxFileBytes: number
  /** Paths the journal tracks. */
  readonly tracked: number
  /** Restores that never finished (repeat them). */
  readonly interrupted: readonly RestoreEntry[]
  readonly problems: readonly string[]
}

export interface SessionWorkspaceInit {
  readonly sessionId: string
  readonly root: string
  readonly shell: ShellTracking
  readonly maxFileBytes: number
  readonly log: CheckpointLog
  /** What the journal held when the workspace was opened. */
  readonly loaded: LogLoad
  readonly blobs: BlobStore
  readonly git: GitSnapshots | undefined
  readonly hook?: RestoreHook
  /** Contents up to this size travel in the journal line (default INLINE_MAX_BYTES; negative: every content is synced to the pack first, the bench's two-sync baseline). */
  readonly inlineMaxBytes?: number
}
