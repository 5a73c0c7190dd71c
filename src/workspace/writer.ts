/**
 * Writing the checkpoint journal: every op durably, the workspace root first
 * (the journal's paths are relative to it), and after-images batched. An
 * after-image taken at the end of a call waits (indexed already by the
 * caller) to be journaled with the next record, or by a timer within
 * AFTER_FLUSH_MS: the next capture's fsync then covers both, so a tool call
 * costs two fsyncs in all. A crash in that window loses only the after-image
 * (the change's outcome becomes "unknown", a conflict the user decides),
 * never a before-image and never content on disk. Contents a waiting op names
 * are made durable (`BlobStore.sync`) before its journal line.
 */
import { fail, type TreeResult } from '../tree/errors.ts'
import type { BlobStore } from './blobs.ts'
import type { CheckpointLog } from './log.ts'
import type { ShellTracking, SingleOp } from './types.ts'

/** After-images wait at most this long for the next journal line to ride with (ms). */
export const AFTER_FLUSH_MS = 50

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
  private pendingW = 0
  private timer: NodeJS.Timeout | undefined

  constructor(init: WriterInit) {
    this.init = init
    this.rooted = init.rooted
  }

  /** Durably journal `op`, with any after-images waiting; the record number. */
  append(op: SingleOp, w: number): TreeResult<number> {
    return this.write([...this.pending, op], w)
  }

  /** Journal `op` with the next record (it must already be indexed by the caller). */
  defer(op: SingleOp, w: number): void {
    this.pending.push(op)
    this.pendingW = Math.max(this.pendingW, w)
    this.timer ??= setTimeout(() => this.flush(), AFTER_FLUSH_MS).unref()
  }

  /** Journal what waits, now. */
  flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.pending.length === 0) return
    const written = this.write(this.pending, this.pendingW)
    if (!written.ok) {
      this.init.problem(`after-images not journaled yet: ${written.error.message}`)
      this.timer = setTimeout(() => this.flush(), 10 * AFTER_FLUSH_MS).unref()
    }
  }

  private write(ops: readonly SingleOp[], w: number): TreeResult<number> {
    const { log, blobs, root, shell } = this.init
    if (!this.rooted) {
      const rooted = log.append({ t: 'root', root, shell }, w)
      if (!rooted.ok) return rooted
      this.rooted = true
    }
    try {
      if (this.pending.length > 0) blobs.sync()
    } catch (error) {
      return fail('WORKSPACE_IO', `checkpoint contents: ${error instanceof Error ? error.message : String(error)}`)
    }
    const written = log.append(ops.length === 1 ? ops[0] as SingleOp : { t: 'batch', ops }, w)
    if (written.ok && this.pending.length > 0) {
      this.pending = []
      clearTimeout(this.timer)
      this.timer = undefined
    }
    return written
  }
}
