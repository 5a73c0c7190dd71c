/**
 * The journal of a tree: every operation that changed it, in order, with
 * what its undo needs. It is how a tree is logged (`log`), re-applied
 * (`replay`, `applyRecord`), checkpointed and rolled back without copying a
 * node. The in-memory log keeps the last `limit` operations; a sidecar
 * persists them as they happen and trims.
 */
import { fail, ok, type TreeResult } from './errors.ts'
import { applyOp, checkOp, decodeOp, undoOp } from './ops.ts'
import type { Marks, TreeState } from './state.ts'
import type { SessionTreeLogEntry, SessionTreeOp, TreeEntry } from './types.ts'
import { checkTime, Invalid, isRecord } from './validate.ts'

/** Opaque token of `checkpoint()`; only valid for the tree that made it. */
export interface TreeCheckpoint {
  readonly sessionId: string
  readonly logSeq: number
  /** @internal */ readonly state: unknown
}

/** What a checkpoint token carries inside. */
interface Saved {
  /** Identity of the log entry the checkpoint stood on (undefined: not retained). */
  readonly uid: number | undefined
  readonly journal: Journal
  readonly marks: Marks
}

function badArgument(error: unknown): TreeResult<never> {
  if (error instanceof Invalid) return fail('INVALID_ARGUMENT', error.reason)
  throw error
}

export class Journal {
  private readonly state: TreeState
  private readonly sessionId: string
  private readonly limit: number
  private readonly now: () => Date
  private entries: SessionTreeLogEntry[] = []
  /** The entry an `attach` or `label` replaced, aligned with `entries` (rollback only). */
  private previous: (TreeEntry | undefined)[] = []
  /** Identity of each retained entry; checkpoints name the entry they stand on. */
  private uids: number[] = []
  /** Seq before the first retained entry. */
  private base = 0
  private baseUid = 0
  private nextUid = 1

  constructor(state: TreeState, sessionId: string, limit: number, now: () => Date) {
    this.state = state
    this.sessionId = sessionId
    this.limit = limit
    this.now = now
  }

  /** Seq of the last logged operation (0 for a fresh tree). */
  get seq(): number {
    return this.base + this.entries.length
  }

  /** Continue the numbering of a restored snapshot. */
  startAt(seq: number): void {
    this.base = seq
  }

  /** Check and apply one operation; log it on success. A failure changes nothing. */
  exec(op: SessionTreeOp, at?: string): TreeResult<void> {
    const error = checkOp(this.state, op)
    if (error) return error
    const { logged, previous } = applyOp(this.state, op)
    // An append happens when its node was made: share that string instead of minting another.
    const time = at ?? (logged.op === 'append' ? logged.node.createdAt : this.now().toISOString())
    this.entries.push({ seq: this.seq + 1, at: time, ...logged } as SessionTreeLogEntry)
    this.previous.push(previous)
    this.uids.push(this.nextUid++)
    if (this.entries.length > 2 * this.limit) this.trim(this.seq - this.limit)
    return ok(undefined)
  }

  /** Capture the marks in O(branches + history); nodes are not copied. */
  checkpoint(): TreeCheckpoint {
    const saved: Saved = { uid: this.uidAt(this.seq), journal: this, marks: this.state.save() }
    return { sessionId: this.sessionId, logSeq: this.seq, state: saved }
  }

  /** Undo every operation logged after `checkpoint` (newest first). */
  rollback(checkpoint: TreeCheckpoint): TreeResult<void> {
    if (!isRecord(checkpoint) || checkpoint.sessionId !== this.sessionId || typeof checkpoint.logSeq !== 'number') {
      return fail('INVALID_ARGUMENT', 'checkpoint was not made by this tree')
    }
    if (checkpoint.logSeq < this.base || checkpoint.logSeq > this.seq) {
      return fail('INVALID_ARGUMENT', `checkpoint ${checkpoint.logSeq} is outside the retained log (${this.base}..${this.seq})`)
    }
    const saved = checkpoint.state as Saved
    // The log position must be the very entry the checkpoint stood on, not a later one at the same seq.
    if (!isRecord(saved) || saved.journal !== this || saved.uid === undefined || saved.uid !== this.uidAt(checkpoint.logSeq)) {
      return fail('INVALID_ARGUMENT', 'checkpoint is stale: the log it stood on was rolled back or trimmed')
    }
    while (this.seq > checkpoint.logSeq) {
      const entry = this.entries.pop()!
      const previous = this.previous.pop()
      this.uids.pop()
      undoOp(this.state, entry, previous)
    }
    this.state.restore(saved.marks)
    return ok(undefined)
  }

  /** Logged operations with seq greater than `fromSeq` (still retained in memory). */
  log(fromSeq = 0): SessionTreeLogEntry[] {
    return this.entries.slice(Math.max(0, fromSeq - this.base))
  }

  /** Forget log entries up to `throughSeq` (they were persisted); checkpoints before it become invalid. */
  trim(throughSeq: number): void {
    const count = Math.min(Math.max(0, throughSeq - this.base), this.entries.length)
    if (count === 0) return
    this.baseUid = this.uids[count - 1]!
    this.entries = this.entries.slice(count)
    this.previous = this.previous.slice(count)
    this.uids = this.uids.slice(count)
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
      let op: SessionTreeOp
      let at: string
      try {
        const record = records[i]
        if (!isRecord(record)) throw new Invalid(`record ${i} must be an object`)
        if (record.seq !== this.seq + 1) throw new Invalid(`record ${i} has seq ${String(record.seq)}, expected ${this.seq + 1}`)
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
    let op: SessionTreeOp
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

  /** Identity of the log position `seq` (the entry ending there), or undefined when not retained. */
  private uidAt(seq: number): number | undefined {
    if (seq === this.base) return this.baseUid
    return this.uids[seq - this.base - 1]
  }
}
