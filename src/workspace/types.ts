/**
 * The workspace layer's vocabulary: what a file looked like at a point of the
 * conversation, the changes the agent (or a restore) made, and the plan of a
 * restore. Paths are always workspace-relative, `/`-separated, normalized
 * (`paths.ts`); hashes are SHA-256 hex of the exact bytes.
 */

/** Why a file's content was not checkpointed (and so cannot be restored). */
export type SkipReason =
  | 'too-large' // over the size limit (`maxFileBytes`)
  | 'symlink' // the path is a symbolic link (never followed)
  | 'symlink-on-path' // a directory on the way is a symbolic link
  | 'not-regular' // a directory, FIFO, socket or device
  | 'unreadable' // reading it failed (permissions, I/O)

/** One file at one moment. */
export type FileState =
  | {
      readonly kind: 'file'
      readonly hash: string
      readonly size: number
      readonly exec?: boolean
      /** A NUL in its first 8,000 bytes (git's test): checkpointed byte for byte, shown by size and hash, never as text. */
      readonly binary?: boolean
    }
  | { readonly kind: 'absent' }
  | { readonly kind: 'skipped'; readonly reason: SkipReason; readonly size?: number }

/** A file's path and state. */
export interface PathState {
  readonly path: string
  readonly state: FileState
}

/** A change with both sides. */
export interface FileChange {
  readonly path: string
  readonly before: FileState
  readonly after: FileState
}

/** Who made a change. */
export type ChangeSource = 'tool' | 'shell' | 'restore'

/**
 * The checkpoint journal's records (one per line, see `log.ts`). `key`
 * orders them against conversation points: a tool call's changes have key
 * `2 × seq` of its `tool/call` event, a restore made when the session's last
 * event was `w` has key `2w + 1` (after every node that existed then).
 */
export type CheckpointOp =
  | SingleOp
  | {
      /** Several ops in one journal line: after-images waiting to be journaled ride with the next record (one fsync for all). */
      readonly t: 'batch'
      readonly ops: readonly SingleOp[]
    }

/** One checkpoint journal op. */
export type SingleOp =
  /** A file tool is about to write `path`: its content right before (durable before the write). */
  | {
      readonly t: 'before'
      readonly key: number
      readonly node: string
      readonly call: string
      readonly tool: string
      readonly path: string
      readonly state: FileState
    }
  /** That call ended: the same file right after it. */
  | {
      readonly t: 'after'
      readonly key: number
      readonly call: string
      readonly path: string
      readonly state: FileState
    }
  /** A shell call changed these files (from git snapshots taken before and after it). */
  | {
      readonly t: 'shell'
      readonly key: number
      readonly node: string
      readonly call: string
      readonly tool: string
      readonly files: readonly FileChange[]
    }
  /** A restore is about to write these files (every `before` is stored first). */
  | {
      readonly t: 'restore'
      readonly key: number
      readonly id: string
      readonly target: string | null
      readonly files: readonly FileChange[]
      /** A back or forward that undoes the restores `of` (latest first): see `RestoreStep`. */
      readonly step?: RestoreStep
      readonly of?: readonly string[]
      /** A carry: the node whose branch's changes were applied (`target` is where the conversation was). */
      readonly carry?: string
    }
  /** The restore finished; `kept` were left alone (changed while it ran). */
  | { readonly t: 'restored'; readonly id: string; readonly kept: readonly string[] }
  /** The model was told about the restore. */
  | { readonly t: 'noted'; readonly id: string }
  /** The workspace root the journal's paths are relative to (the first record; it never changes). */
  | { readonly t: 'root'; readonly root: string; readonly shell: ShellTracking }

/**
 * A back or forward with the files. Back undoes the latest files restore not
 * undone yet, forward undoes the latest back: each puts back exactly what the
 * restore it undoes replaced (bytes and execute bit). With nothing to undo the
 * files go to the state at the node the move lands on.
 */
export type RestoreStep = 'back' | 'forward'

/** What a restore does to one file. */
export type RestoreAction = 'create' | 'update' | 'delete'

/** A file the restore would write. */
export interface PlanEntry {
  readonly path: string
  readonly action: RestoreAction
  /** The file now. */
  readonly current: FileState
  /** The file at the target. */
  readonly target: FileState
  /** Lines added and removed (both 0 when the content is not text or was not compared). */
  readonly insertions: number
  readonly deletions: number
}

/** Why a file is a conflict: the user decides. */
export type ConflictReason =
  /** Changed outside the agent since the last checkpoint (the user's own edit, say). */
  | 'changed-outside'
  /** The last checkpoint never got its after-image (a crash during the call): who changed it is unknown. */
  | 'unknown-since-checkpoint'

export interface Conflict extends PlanEntry {
  readonly reason: ConflictReason
  /** What the checkpoints say the file should be now (absent when unknown). */
  readonly expected?: FileState
}

/** Why a file cannot be restored at all. */
export type BlockedReason =
  /** Its content at the target was not checkpointed. */
  | 'target-not-checkpointed'
  /** Its state at the target is unknown (the after-image of a change was never written). */
  | 'target-unknown'
  /** What is at the path now must not be replaced (a symlink, a directory, ...). */
  | 'current-not-replaceable'
  /** Its stored content is missing or no longer matches its hash. */
  | 'content-damaged'

export interface BlockedFile {
  readonly path: string
  readonly reason: BlockedReason
  readonly current: FileState
  readonly target?: FileState
}

/** Totals of a plan. */
export interface DiffStat {
  readonly files: number
  readonly created: number
  readonly updated: number
  readonly deleted: number
  readonly insertions: number
  readonly deletions: number
}

/** What restoring the files to a conversation point would do. Nothing is written to make it. */
export interface RestorePlan {
  /** The node whose files are the target (`null`: before the first node). */
  readonly target: string | null
  /** Files written without asking. */
  readonly entries: readonly PlanEntry[]
  /** Files changed outside the agent: written only if the user says `overwrite`. */
  readonly conflicts: readonly Conflict[]
  /** Files that cannot be restored, with why. */
  readonly blocked: readonly BlockedFile[]
  /** Over `entries` and `conflicts`. */
  readonly stat: DiffStat
}

/** The user's decision on one conflict. */
export type ConflictDecision = 'keep' | 'overwrite'

/** What a restore did. */
export interface RestoreReport {
  /** Restore id (journal). */
  readonly id: string
  readonly target: string | null
  readonly created: readonly string[]
  readonly updated: readonly string[]
  readonly deleted: readonly string[]
  /** Conflicts left as they are, and files that changed while the restore ran. */
  readonly kept: readonly string[]
  readonly blocked: readonly BlockedFile[]
}

/** A workspace's shell tracking. */
export type ShellTracking =
  /** A git work tree: shell changes are snapshotted through git (own git dir and index, the repository's objects read). */
  | 'git'
  /** A plain folder: shell changes are snapshotted through a git directory of our own under the sidecar (no `.git` here). */
  | 'folder'
  /** Turned off (`shell: off`): shell changes are not tracked. */
  | 'off'

/** Options of one session's workspace. */
export interface WorkspaceOptions {
  /** Files larger than this are not checkpointed (default 1 MiB). */
  readonly maxFileBytes: number
  /** `auto`: git snapshots of every shell call (a git work tree, or a plain folder through our own git directory); `off`: never. */
  readonly shell: 'auto' | 'off'
  /** Learn which paths changed between shell snapshots from the kernel's change events (Linux; default true), instead of walking the whole folder each time. */
  readonly watch?: boolean
}

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024

/** The plain-language reason a file was skipped. */
export function skipMessage(
  state: { readonly reason: SkipReason; readonly size?: number },
  maxFileBytes: number,
): string {
  switch (state.reason) {
    case 'too-large':
      return `not checkpointed: ${state.size ?? '?'} bytes is over the ${maxFileBytes}-byte limit (maxFileBytes)`
    case 'symlink':
      return 'not checkpointed: a symbolic link (never followed)'
    case 'symlink-on-path':
      return 'not checkpointed: a directory on its path is a symbolic link (never followed)'
    case 'not-regular':
      return 'not checkpointed: not a regular file'
    case 'unreadable':
      return 'not checkpointed: it could not be read'
  }
}

/** A file state of these bytes (`hash` their SHA-256). */
export function fileState(bytes: Buffer, hash: string, exec: boolean): FileState {
  return {
    kind: 'file',
    hash,
    size: bytes.length,
    ...(exec ? { exec: true } : {}),
    ...(isBinary(bytes) ? { binary: true } : {}),
  }
}

/** Bytes looked at for a NUL (what git looks at to call a file binary). */
export const BINARY_SNIFF = 8000

/** Whether content is binary by git's test: a NUL in its first 8,000 bytes. */
function isBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, BINARY_SNIFF).includes(0)
}

/** Whether two states hold the same content (skipped states never match: their content is unknown). */
export function sameState(a: FileState, b: FileState): boolean {
  if (a.kind === 'absent' || b.kind === 'absent') return a.kind === b.kind
  if (a.kind !== 'file' || b.kind !== 'file') return false
  return a.hash === b.hash && (a.exec ?? false) === (b.exec ?? false)
}

/** One file of a restore preview: its state now and at the target, and the unified diff between them. */
export interface FileDiff {
  readonly path: string
  readonly current: FileState
  readonly target?: FileState
  /** A unified diff from now to the target; empty when nothing would change or a side is not text. */
  readonly diff: string
}

/** A file whose checkpointed states differ between two points (a side left out: unknown there). */
export interface FileComparison {
  readonly path: string
  readonly a?: FileState
  readonly b?: FileState
}

/** One file from node `a` to node `b`, as a unified diff ('' when a side is binary, not checkpointed or unknown). */
export interface FileCompareDiff extends FileComparison {
  readonly diff: string
}
