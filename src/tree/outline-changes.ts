/**
 * What changed in a tree's outline since an earlier answer: a jump re-sends no node, a label one, an append the
 * new ones (and the parent whose fork count moved). At 30,000 nodes the whole outline is ~26 MB of JSON; its
 * serializing and parsing, not the move, was what a jump cost. One tracker per tree keeps, per position in
 * creation order, what `nodeView` reads there (record, entry, lane, child count) and the version that last
 * changed it; nodes leave only from the end (a rollback), so a position holding another record changed too.
 */
import type { Nodes, Rec } from './nodes.ts'
import type { StoredEntry } from './entry.ts'

export interface TrackedChanges {
  /** This answer's version token. */
  readonly version: string
  /** The `since` the changes apply to; null: every position is listed. */
  readonly base: string | null
  readonly count: number
  /** Positions changed after `base`, ascending (empty when `base` is null: all are). */
  readonly changedAt: number[]
  /** The records at those positions (every record, in creation order, when `base` is null). */
  readonly recs: readonly Rec[]
}

let trackers = 0

export class OutlineTracker {
  /** Tells this tracker's versions from any other's (another tree, another process, a restart). */
  private readonly epoch = `${Date.now().toString(36)}.${(++trackers).toString(36)}.${Math.random().toString(36).slice(2, 8)}`
  private version = 0
  private readonly recs: Rec[] = []
  private readonly entries: StoredEntry[] = []
  private readonly lanes: number[] = []
  private readonly kids: number[] = []
  private readonly stamps: number[] = []

  /** Bring the tracker up to the nodes now, then list what changed since `since` (a version it answered). */
  changes(nodes: Nodes, since: string | null): TrackedChanges {
    this.update(nodes)
    const count = this.recs.length
    const from = this.versionOf(since)
    const version = `${this.epoch}:${this.version}`
    if (from === undefined) return { version, base: null, count, changedAt: [], recs: this.recs.slice() }
    const changedAt: number[] = []
    const recs: Rec[] = []
    for (let i = 0; i < count; i++)
      if (this.stamps[i]! > from) {
        changedAt.push(i)
        recs.push(this.recs[i]!)
      }
    return { version, base: since, count, changedAt, recs }
  }

  private versionOf(since: string | null): number | undefined {
    if (since === null) return undefined
    const at = since.lastIndexOf(':')
    if (at < 0 || since.slice(0, at) !== this.epoch) return undefined
    const digits = since.slice(at + 1)
    const n = Number(digits)
    return /^\d+$/.test(digits) && n <= this.version ? n : undefined
  }

  private update(nodes: Nodes): void {
    const next = this.version + 1
    let changed = false
    let i = 0
    for (const rec of nodes.all()) {
      const entry = rec.entry
      const lane = rec.lane
      const kids = rec.childCount
      if (this.recs[i] !== rec || this.entries[i] !== entry || this.lanes[i] !== lane || this.kids[i] !== kids) {
        this.recs[i] = rec
        this.entries[i] = entry
        this.lanes[i] = lane
        this.kids[i] = kids
        this.stamps[i] = next
        changed = true
      }
      i++
    }
    if (i < this.recs.length) {
      // A rollback took the newest nodes: the count in each answer says so.
      for (const list of [this.recs, this.entries, this.lanes, this.kids, this.stamps]) list.length = i
      changed = true
    }
    if (changed) this.version = next
  }
}
