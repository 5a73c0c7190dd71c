/**
 * Writing the checkpoint journal: every op durably, the root first. An
 * after-image waits up to AFTER_FLUSH_MS to ride with the next record (one
 * fsync for both); a crash then loses only that after-image. Small contents
 * travel in the line that refers to them; large ones are synced to the pack
 * first. Why: docs/workspace.md, "Crash safety".
 */
import { fail, type TreeResult, errorMessage } from '../tree/errors.ts'
import type { BlobStore } from './blobs.ts'
import type { CheckpointLog } from './log.ts'
import type { ShellTracking, SingleOp } from './types.ts'

/** After-images wait at most this long for the next journal line to ride with (ms). */
export const AFTER_FLUSH_MS = 50

const NONE: ReadonlyMap<string, Buffer> = new Map()

export interface WriterInit {
  readonly log: CheckpointLog
  readonly blobs: BlobStore
  readonly root: string
  readonly shell: ShellTracking
  /** The journal already holds its root record. */
  readonly rooted: boolean
  /** Where a failed deferred write is reported. */
  readonly problem: (message: string) => void
}

export class CheckpointWriter {
  private readonly init: WriterInit
  private rooted: boolean
  private pending: SingleOp[] = []
  /** Contents the waiting ops carry (hash → bytes). */
  private pendingContents = new Map<string, Buffer>()
  private pendingW = 0
  private timer: NodeJS.Timeout | undefined

  constructor(init: WriterInit) {
    this.init = init
    this.rooted = init.rooted
  }

  /** Durably journal `op` (carrying `contents`), with any after-images waiting; the record number. */
  append(op: SingleOp, w: number, contents: ReadonlyMap<string, Buffer> = NONE): TreeResult<number> {
    return this.write([...this.pending, op], w, contents)
  }

  /** Journal `op` (carrying `contents`) with the next record (it must already be indexed by the caller). */
  defer(op: SingleOp, w: number, contents: ReadonlyMap<string, Buffer> = NONE): void {
    this.pending.push(op)
    for (const [hash, bytes] of contents) this.pendingContents.set(hash, bytes)
    this.pendingW = Math.max(this.pendingW, w)
    this.timer ??= setTimeout(() => this.flush(), AFTER_FLUSH_MS).unref()
  }

  /** Journal what waits, now. */
  flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.pending.length === 0) return
    const written = this.write(this.pending, this.pendingW, NONE)
    if (!written.ok) {
      this.init.problem(`after-images not journaled yet: ${written.error.message}`)
      this.timer = setTimeout(() => this.flush(), 10 * AFTER_FLUSH_MS).unref()
    }
  }

  private write(ops: readonly SingleOp[], w: number, extra: ReadonlyMap<string, Buffer>): TreeResult<number> {
    const { log, blobs, root, shell } = this.init
    if (!this.rooted) {
      const rooted = log.append({ t: 'root', root, shell }, w)
      if (!rooted.ok) return rooted
      this.rooted = true
    }
    try {
      if (this.pending.length > 0) blobs.sync()
    } catch (error) {
      return fail('WORKSPACE_IO', `checkpoint contents: ${errorMessage(error)}`)
    }
    const contents = this.pendingContents.size === 0 ? extra : new Map([...this.pendingContents, ...extra])
    const written = log.append(ops.length === 1 ? (ops[0] as SingleOp) : { t: 'batch', ops }, w, contents)
    if (!written.ok) {
      // The new contents are durable nowhere now (the waiting ones stay waiting, with their line).
      blobs.unjournaled(extra.keys())
      return written
    }
    if (this.pending.length > 0) {
      this.pending = []
      this.pendingContents = new Map()
      clearTimeout(this.timer)
      this.timer = undefined
    }
    return written
  }
}
