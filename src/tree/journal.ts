/**
 * The journal of a tree: every operation that changed it, in order, with
 * what its undo needs. It is how a tree is logged (`log`), re-applied
 * (`replay`, `applyRecord`), checkpointed and rolled back without copying a
 * node. The in-memory log keeps the last `limit` operations; a sidecar
 * persists them as they happen and trims.
 */
import { fail, ok, type TreeResult } from './errors.ts'
import { publicEntry, type StoredEntry } from './entry.ts'
import { applyOp, checkOp, decodeOp, encodeOp, undoOp, type StoredOp } from './ops.ts'
import type { Marks, TreeState } from './state.ts'
import type { SessionTreeLogEntry } from './types.ts'
import { checkTime, Invalid, isRecord } from './validate.ts'

/** Opaque token of `checkpoint()`; only valid for the tree that made it. */
export interface TreeCheckpoint {
  readonly sessionId: string
  readonly logSeq: number
  /** @internal */ readonly state: unknown
}

/** What a checkpoint token carries inside. */
interface Saved {
  readonly journal: Journal
  /** Rollbacks made before it (see `Journal.rollbacks`). */
  readonly epoch: number
  readonly marks: Marks
}

/**
 * One logged operation. Most are appends made at their node's own time: the
 * log keeps just the entry then (a record per node would cost an object per
 * node). `previous` is what an `attach` or `label` replaced (rollback only).
 */
type Logged = StoredEntry | { readonly op: StoredOp; readonly at: string; readonly previous: StoredEntry | undefined }

function isEntry(item: Logged): item is StoredEntry {
  return (item as { op?: unknown }).op === undefined
}

function badArgument(error: unknown): TreeResult<never> {
  if (error instanceof Invalid) return fail('INVALID_ARGUMENT', error.reason)
  throw error
}

export class Journal {
  private readonly state: TreeState
  private readonly sessionId: string
  readonly limit: number
  private readonly now: () => Date
  private items: Logged[] = []
  /** Seq before the first retained entry. */
  private base = 0
  /**
   * Rollbacks so far, as { epoch, to }: `to` strictly increasing (a rollback
   * to t makes the earlier ones to t or above redundant). A checkpoint is
   * stale when a rollback made after it went below its seq.
   */
  private rollbacks: { readonly epoch: number; readonly to: number }[] = []
  private epoch = 0

  constructor(state: TreeState, sessionId: string, limit: number, now: () => Date) {
    this.state = state
    this.sessionId = sessionId
    this.limit = limit
    this.now = now
  }

  /** Seq of the last logged operation (0 for a fresh tree). */
  get seq(): number {
    return this.base + this.items.length
  }

  /** Continue the numbering of a restored snapshot. */
  startAt(seq: number): void {
    this.base = seq
  }

  /** Check and apply one operation; log it on success. A failure changes nothing. */
  exec(op: StoredOp, at?: string): TreeResult<void> {
    const error = checkOp(this.state, op)
    if (error) return error
    const { logged, previous } = applyOp(this.state, op)
    // An append happens when its node was made: share that string instead of minting another.
    if (logged.op === 'append' && logged.branch === undefined && (at === undefined || at === logged.node.createdAt))
      this.items.push(logged.node)
    else
      this.items.push({
        op: logged,
        at: at ?? (logged.op === 'append' ? logged.node.createdAt : this.now().toISOString()),
        previous,
      })
    if (this.items.length > 2 * this.limit) this.trim(this.seq - this.limit)
    return ok(undefined)
  }

  /** Capture the marks in O(branches + history); nodes are not copied. */
  checkpoint(): TreeCheckpoint {
    const saved: Saved = { journal: this, epoch: this.epoch, marks: this.state.save() }
    return { sessionId: this.sessionId, logSeq: this.seq, state: saved }
  }

  /** Undo every operation logged after `checkpoint` (newest first). */
  rollback(checkpoint: TreeCheckpoint): TreeResult<void> {
    if (!isRecord(checkpoint) || checkpoint.sessionId !== this.sessionId || typeof checkpoint.logSeq !== 'number') {
      return fail('INVALID_ARGUMENT', 'checkpoint was not made by this tree')
    }
    if (checkpoint.logSeq < this.base || checkpoint.logSeq > this.seq) {
      return fail(
        'INVALID_ARGUMENT',
        `checkpoint ${checkpoint.logSeq} is outside the retained log (${this.base}..${this.seq})`,
      )
    }
    const saved = checkpoint.state as Saved
    // The log position must be the very entry the checkpoint stood on, not a later one at the same seq.
    if (!isRecord(saved) || saved.journal !== this || this.rolledBackBelow(saved.epoch, checkpoint.logSeq)) {
      return fail('INVALID_ARGUMENT', 'checkpoint is stale: the log it stood on was rolled back or trimmed')
    }
    while (this.seq > checkpoint.logSeq) {
      const item = this.items.pop()!
      if (isEntry(item)) undoOp(this.state, { op: 'append', node: item }, undefined)
      else undoOp(this.state, item.op, item.previous)
    }
    this.state.restore(saved.marks)
    const to = checkpoint.logSeq
    while (this.rollbacks.length > 0 && this.rollbacks.at(-1)!.to >= to) this.rollbacks.pop()
    this.rollbacks.push({ epoch: ++this.epoch, to })
    return ok(undefined)
  }

  /** Whether a rollback made after `epoch` went below `seq`. */
  private rolledBackBelow(epoch: number, seq: number): boolean {
    // Epochs and targets both increase along the list: the first rollback after `epoch` went lowest.
    let lo = 0
    let hi = this.rollbacks.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.rollbacks[mid]!.epoch > epoch) hi = mid
      else lo = mid + 1
    }
    return lo < this.rollbacks.length && this.rollbacks[lo]!.to < seq
  }

  /** Logged operations with seq greater than `fromSeq` (still retained in memory). */
  log(fromSeq: number = 0): SessionTreeLogEntry[] {
    const out: SessionTreeLogEntry[] = []
    for (let i = Math.max(0, fromSeq - this.base); i < this.items.length; i++) {
      const item = this.items[i]!
      const seq = this.base + i + 1
      out.push(
        isEntry(item)
          ? { seq, at: item.createdAt, op: 'append', node: publicEntry(item) }
          : ({ seq, at: item.at, ...encodeOp(item.op) } as SessionTreeLogEntry),
      )
    }
    return out
  }

  /** Forget log entries up to `throughSeq` (they were persisted); checkpoints before it become invalid. */
  trim(throughSeq: number): void {
    const count = Math.min(Math.max(0, throughSeq - this.base), this.items.length)
    if (count === 0) return
    this.items = this.items.slice(count)
    this.base += count
  }

  /**
   * Apply log records (e.g. a sidecar journal) in order. All or nothing: on
   * the first bad record the tree is rolled back and the error says which.
   */
  replay(records: readonly unknown[]): TreeResult<{ applied: number }> {
    if (!Array.isArray(records)) return fail('INVALID_ARGUMENT', 'records must be an array')
    const mark = this.checkpoint()
    for (let i = 0; i < records.length; i++) {
      let op: StoredOp
      let at: string
      try {
        const record = records[i]
        if (!isRecord(record)) throw new Invalid(`record ${i} must be an object`)
        if (record.seq !== this.seq + 1)
          throw new Invalid(`record ${i} has seq ${String(record.seq)}, expected ${this.seq + 1}`)
        at = checkTime(record.at, `record ${i}.at`)
        op = decodeOp(record, `record ${i}`)
      } catch (error) {
        this.rollback(mark)
        return badArgument(error)
      }
      const result = this.exec(op, at)
      if (!result.ok) {
        this.rollback(mark)
        return fail(result.error.code, `record ${i}: ${result.error.message}`, { ...result.error.details, index: i })
      }
    }
    return ok({ applied: records.length })
  }

  /**
   * Apply one operation record (its `seq` is ignored): how a journal written
   * by one tree is re-applied to a tree rebuilt from elsewhere.
   */
  applyRecord(record: unknown): TreeResult<void> {
    let op: StoredOp
    let at: string | undefined
    try {
      if (!isRecord(record)) throw new Invalid('record must be an object')
      if (record.at !== undefined) at = checkTime(record.at, 'record.at')
      op = decodeOp(record, 'record')
    } catch (error) {
      return badArgument(error)
    }
    return this.exec(op, at)
  }
}
