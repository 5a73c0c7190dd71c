/**
 * Branches: named pointers to head nodes, in creation order, with the indexes
 * that keep every branch question O(1): which branches end at a node, which of
 * them is oldest, and the next free auto-generated name.
 */
import type { Rec } from './nodes.ts'
import { recordOf } from './validate.ts'

/** Auto-generated names are `<stem>-<n>`; `n` has at most this many digits. */
const NUMBERED = /^(.*)-(\d{1,9})$/

export class Branches {
  /** Head of each branch, in branch creation order. */
  private heads = new Map<string, Rec>()
  /** Branch names by head node (derived from `heads`). */
  private at = new Map<Rec, string[]>()
  /** Creation rank of each branch (older first), derived from `heads` order. */
  private rank = new Map<string, number>()
  private nextRank = 0
  /** Highest numeric suffix per stem among branch names (`main-7` → main: 7), derived from `heads`. */
  private stemMax = new Map<string, number>()

  get size(): number {
    return this.heads.size
  }

  get(name: string): Rec | undefined {
    return this.heads.get(name)
  }

  has(name: string): boolean {
    return this.heads.has(name)
  }

  /** Point a branch at a node (creating it when new), keeping the reverse index in step. */
  set(name: string, rec: Rec): void {
    const old = this.heads.get(name)
    if (old) {
      const names = this.at.get(old)
      if (names) {
        names.splice(names.indexOf(name), 1)
        if (names.length === 0) this.at.delete(old)
      }
    } else if (!this.rank.has(name)) {
      this.rank.set(name, this.nextRank++)
      this.noteName(name)
    }
    this.heads.set(name, rec)
    const names = this.at.get(rec)
    if (names) names.push(name)
    else this.at.set(rec, [name])
  }

  /** The oldest branch whose head is this node, if any. */
  oldestAt(rec: Rec): string | undefined {
    const names = this.at.get(rec)
    if (!names || names.length === 0) return undefined
    let best = names[0]!
    for (const name of names) if (this.rank.get(name)! < this.rank.get(best)!) best = name
    return best
  }

  /** `<base>-<n>`, n one above the highest suffix in use for that stem (never taken, O(1)). */
  autoName(base: string): string {
    const stem = base.length > 90 ? base.slice(0, 90) : base
    return `${stem}-${(this.stemMax.get(stem) ?? 1) + 1}`
  }

  /** The heads, for a checkpoint (a copy). */
  save(): Map<string, Rec> {
    return new Map(this.heads)
  }

  /** Replace every head (a rollback or a restore) and rebuild the indexes from their order. */
  reset(heads: Map<string, Rec>): void {
    this.heads = new Map(heads)
    this.at = new Map()
    this.rank = new Map()
    this.stemMax = new Map()
    this.nextRank = 0
    for (const [name, rec] of this.heads) {
      this.rank.set(name, this.nextRank++)
      this.noteName(name)
      const names = this.at.get(rec)
      if (names) names.push(name)
      else this.at.set(rec, [name])
    }
  }

  /** Branch names, `active` first, then the others in creation order. */
  ordered(active: string): string[] {
    const names = [...this.heads.keys()]
    const i = names.indexOf(active)
    if (i > 0) names.unshift(...names.splice(i, 1))
    return names
  }

  /** [name, head] in creation order. */
  entries(): IterableIterator<[string, Rec]> {
    return this.heads.entries()
  }

  /** [name, head id] in creation order. */
  pairs(): [string, string][] {
    return [...this.heads].map(([name, rec]) => [name, rec.entry.nodeId])
  }

  /** Name → head id (any name is a safe key, `__proto__` included). */
  record(): Record<string, string> {
    return recordOf([...this.heads].map(([name, rec]) => [name, rec.entry.nodeId] as const))
  }

  private noteName(name: string): void {
    const match = NUMBERED.exec(name)
    if (!match) return
    const n = Number(match[2])
    if (n > (this.stemMax.get(match[1]!) ?? 0)) this.stemMax.set(match[1]!, n)
  }
}
