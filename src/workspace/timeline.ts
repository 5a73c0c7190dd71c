/**
 * The checkpoint journal indexed per file (pure): `stateAt` (the file when the
 * conversation was at a point), `expected` (what it should be now; anything
 * else is a conflict) and `undoing` (what a back or forward puts back, from the
 * files' own restore history). The rules: docs/workspace.md, "What is
 * checkpointed" (the files at a node) and "Restoring" (back and forward).
 */
import type { LoggedOp } from './log.ts'
import { sameState, type ChangeSource, type FileState, type RestoreStep } from './types.ts'

/** One change to one file. */
interface Change {
  readonly n: number
  readonly key: number
  readonly source: ChangeSource
  readonly node?: string
  readonly call?: string
  readonly restore?: string
  readonly before: FileState
  /** Undefined until known (the call is still running, or never finished). */
  after: FileState | undefined
}

/** What a file may be right now without being someone else's edit. */
export interface Expected {
  readonly states: readonly FileState[]
  /** The latest change never got its after-image: its outcome is unknown. */
  readonly unknown: boolean
}

/** A restore, as the journal tells it. */
export interface RestoreEntry {
  readonly id: string
  readonly key: number
  readonly target: string | null
  readonly paths: readonly string[]
  readonly complete: boolean
  /** Files it left alone (changed while it ran). */
  readonly kept: readonly string[]
  readonly noted: boolean
  /** A carry: the node whose branch's changes it applied. */
  readonly carry?: string
}

function upperBound(list: readonly Change[], key: number): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((list[mid] as Change).key <= key) lo = mid + 1
    else hi = mid
  }
  return lo
}

export class Timeline {
  private readonly byPath = new Map<string, Change[]>()
  /** The latest change of each path in journal order (what is on disk now, by our account). */
  private readonly latest = new Map<string, Change>()
  /** Open before-images (their call has not ended): `key call` → path → change (a call id may come back in a later call). */
  private readonly open = new Map<string, Map<string, Change>>()
  private readonly restoreList: RestoreEntry[] = []
  private readonly restoreIndex = new Map<string, number>()
  private readonly restoreChanges = new Map<string, Change[]>()
  private readonly byNode = new Map<string, Set<string>>()
  /** The files' history: restores a back would undo (oldest first), and backs a forward would undo. */
  private readonly done: string[] = []
  private readonly undone: string[] = []

  /** Add one journal op (in journal order). */
  apply({ n, op }: LoggedOp): void {
    switch (op.t) {
      case 'before': {
        const callId = `${op.key} ${op.call}`
        let calls = this.open.get(callId)
        if (calls === undefined) {
          calls = new Map()
          this.open.set(callId, calls)
        }
        if (calls.has(op.path)) return // the first before-image of a call wins
        const change: Change = {
          n,
          key: op.key,
          source: 'tool',
          node: op.node,
          call: op.call,
          before: op.state,
          after: undefined,
        }
        calls.set(op.path, change)
        this.insert(op.path, change)
        this.noteNode(op.node, op.path)
        return
      }
      case 'after': {
        const callId = `${op.key} ${op.call}`
        const calls = this.open.get(callId)
        const change = calls?.get(op.path)
        if (calls === undefined || change === undefined) return
        calls.delete(op.path)
        if (calls.size === 0) this.open.delete(callId)
        change.after = op.state
        return
      }
      case 'shell':
        for (const file of op.files) {
          this.insert(file.path, {
            n,
            key: op.key,
            source: 'shell',
            node: op.node,
            call: op.call,
            before: file.before,
            after: file.after,
          })
          if (!sameState(file.before, file.after)) this.noteNode(op.node, file.path)
        }
        return
      case 'restore': {
        const changes = op.files.map((file): Change => ({
          n,
          key: op.key,
          source: 'restore',
          restore: op.id,
          before: file.before,
          after: file.after,
        }))
        op.files.forEach((file, i) => this.insert(file.path, changes[i] as Change))
        this.restoreChanges.set(op.id, changes)
        this.restoreIndex.set(op.id, this.restoreList.length)
        this.restoreList.push({
          id: op.id,
          key: op.key,
          target: op.target,
          paths: op.files.map((f) => f.path),
          complete: false,
          kept: [],
          noted: false,
          ...(op.carry === undefined ? {} : { carry: op.carry }),
        })
        this.step(op.id, op.step, op.of ?? [])
        return
      }
      case 'restored': {
        const index = this.restoreIndex.get(op.id)
        if (index === undefined) return
        const kept = new Set(op.kept)
        const entry = this.restoreList[index] as RestoreEntry
        entry.paths.forEach((path, i) => {
          // A file the restore left alone did not change.
          if (kept.has(path))
            (this.restoreChanges.get(op.id)?.[i] as Change).after = (
              this.restoreChanges.get(op.id)?.[i] as Change
            ).before
        })
        this.restoreList[index] = { ...entry, complete: true, kept: [...op.kept] }
        return
      }
      case 'root':
        return
      case 'noted': {
        const index = this.restoreIndex.get(op.id)
        if (index !== undefined) this.restoreList[index] = { ...(this.restoreList[index] as RestoreEntry), noted: true }
        return
      }
    }
  }

  /** A new restore joins the files' history: a back moves what it undid to the forward side, a forward back again. */
  private step(id: string, step: RestoreStep | undefined, of: readonly string[]): void {
    if (step === undefined) {
      this.done.push(id)
      this.undone.length = 0
      return
    }
    const [from, to] = step === 'back' ? [this.done, this.undone] : [this.undone, this.done]
    for (const undid of of) {
      const at = from.lastIndexOf(undid)
      if (at >= 0) from.splice(at, 1)
    }
    to.push(id)
  }

  /**
   * The restores a back (or forward) undoes, latest first: the latest one on
   * its side of the files' history, with the interrupted ones right before it
   * (a restore cut short and its repeat are one restore to the person).
   */
  undoing(step: RestoreStep): string[] {
    const stack = step === 'back' ? this.done : this.undone
    const group: string[] = []
    for (let i = stack.length - 1; i >= 0; i--) {
      const id = stack[i] as string
      if (group.length > 0 && this.restoreList[this.restoreIndex.get(id) ?? -1]?.complete !== false) break
      group.push(id)
    }
    return group
  }

  /**
   * What undoing `group` (latest first) puts back in each file: the latest
   * restore's before-image, or, where that is what an earlier one of the
   * group wrote, the earlier one's. Files a restore left alone are not in it.
   */
  undoTargets(group: readonly string[]): Map<string, FileState> {
    const targets = new Map<string, FileState>()
    for (const id of group) {
      const paths = this.restoreList[this.restoreIndex.get(id) ?? -1]?.paths ?? []
      ;(this.restoreChanges.get(id) ?? []).forEach((change, i) => {
        if (change.after === undefined || sameState(change.before, change.after)) return
        const path = paths[i] as string
        const later = targets.get(path)
        if (later === undefined || sameState(later, change.after)) targets.set(path, change.before)
      })
    }
    return targets
  }

  private insert(path: string, change: Change): void {
    let list = this.byPath.get(path)
    if (list === undefined) {
      list = []
      this.byPath.set(path, list)
    }
    // Keys grow with time, so this is an append but for parallel calls.
    if (list.length === 0 || (list[list.length - 1] as Change).key <= change.key) list.push(change)
    else list.splice(upperBound(list, change.key), 0, change)
    this.latest.set(path, change)
  }

  private noteNode(node: string, path: string): void {
    let paths = this.byNode.get(node)
    if (paths === undefined) {
      paths = new Set()
      this.byNode.set(node, paths)
    }
    paths.add(path)
  }

  /** Every path ever written by the agent or a restore, sorted. */
  paths(): string[] {
    return [...this.byPath.keys()].sort()
  }

  has(path: string): boolean {
    return this.byPath.has(path)
  }

  /**
   * The file at the conversation point `boundary` (`2 × seq` of the node's
   * event; -2 before the first node). Undefined: unknown (a change whose
   * after-image never came) or never tracked.
   */
  stateAt(path: string, boundary: number): FileState | undefined {
    const list = this.byPath.get(path)
    if (list === undefined) return undefined
    const i = upperBound(list, boundary)
    if (i < list.length) return (list[i] as Change).before
    return (list[i - 1] as Change | undefined)?.after
  }

  /** What the file should be now by the journal's account. */
  expected(path: string): Expected | undefined {
    const last = this.latest.get(path)
    if (last === undefined) return undefined
    if (last.after === undefined) return { states: [last.before], unknown: true }
    const pending =
      last.restore !== undefined && !(this.restoreList[this.restoreIndex.get(last.restore) ?? -1]?.complete ?? true)
    // A restore cut short may or may not have reached this file.
    return { states: pending ? [last.after, last.before] : [last.after], unknown: false }
  }

  /** Paths changed by each tool or shell call node (changes that changed something, or whose outcome is unknown). */
  changedByNode(): Map<string, string[]> {
    const result = new Map<string, string[]>()
    for (const [node, paths] of this.byNode) {
      const real = [...paths].filter((path) =>
        (this.byPath.get(path) ?? []).some(
          (c) => c.node === node && (c.after === undefined || !sameState(c.before, c.after)),
        ),
      )
      if (real.length > 0) result.set(node, real.sort())
    }
    return result
  }

  /** Every restore, oldest first. */
  restores(): readonly RestoreEntry[] {
    return this.restoreList
  }

  /** Whether the call at `key` already recorded a before-image of `path` (its after-image is still to come). */
  isOpen(key: number, call: string, path: string): boolean {
    return this.open.get(`${key} ${call}`)?.has(path) ?? false
  }

  /** The before-image the call at `key` recorded for `path`, while its after-image is still to come. */
  openState(key: number, call: string, path: string): FileState | undefined {
    return this.open.get(`${key} ${call}`)?.get(path)?.before
  }

  /** Paths with an open before-image for the call at `key`. */
  openPaths(key: number, call: string): string[] {
    return [...(this.open.get(`${key} ${call}`)?.keys() ?? [])]
  }
}
