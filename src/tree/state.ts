/**
 * The whole mutable state of one tree: its nodes and branches, and the marks
 * on them — cursor, active branch, selection, branch summaries and the
 * navigation history (browser-style back/forward over cursor moves).
 *
 * Operations (`ops.ts`) are the only writers. A checkpoint saves the marks
 * (O(branches + history)); nodes are never copied, a rollback undoes them.
 */
import { Branches } from './branches.ts'
import { fail, ok, type TreeResult, noNode, noBranch, quoted, clipped } from './errors.ts'
import { Nodes, type Rec } from './nodes.ts'
import type { BranchSummary, JumpTarget, TreePosition } from './types.ts'
import { isRecord } from './validate.ts'

/** Name of the branch a new tree starts on. */
export const MAIN_BRANCH = 'main'
/** How many positions navigation history keeps in each direction. */
export const HISTORY_LIMIT = 100

/** Everything but the nodes, as a checkpoint keeps it. */
export interface Marks {
  readonly cursor: Rec | null
  readonly active: string
  readonly selected: Rec | null
  readonly heads: Map<string, Rec>
  readonly summaries: Map<string, BranchSummary>
  readonly back: readonly TreePosition[]
  readonly forward: readonly TreePosition[]
}

export class TreeState {
  readonly nodes = new Nodes()
  readonly branches = new Branches()
  /** Current leaf; `null` before the first node. */
  cursor: Rec | null = null
  /** Branch the next append joins. */
  active = MAIN_BRANCH
  /** Node bound to context-aware UI commands (never moves the cursor). */
  selected: Rec | null = null
  summaries = new Map<string, BranchSummary>()
  back: TreePosition[] = []
  forward: TreePosition[] = []

  get cursorId(): string | null {
    return this.cursor?.entry.nodeId ?? null
  }

  private depthOf: { rec: Rec | null; depth: number } = { rec: null, depth: 0 }

  /** Nodes on the path root → cursor (walked once per cursor position; nodes do not store their depth). */
  cursorDepth(): number {
    if (this.depthOf.rec !== this.cursor) {
      let depth = 0
      // Bounded by the node count: a corrupt (cyclic) chain must not hang a status read.
      for (let rec = this.cursor ?? undefined; rec && depth <= this.nodes.size; rec = rec.parent) depth++
      this.depthOf = { rec: this.cursor, depth }
    }
    return this.depthOf.depth
  }

  /** Where the cursor is, as navigation history records it. */
  position(): TreePosition {
    return Object.freeze({ cursor: this.cursorId, branch: this.active })
  }

  /** Record the current position before a move; a new move clears the forward list. */
  pushHistory(): void {
    this.back.push(this.position())
    if (this.back.length > HISTORY_LIMIT) this.back.shift()
    this.forward.length = 0
  }

  /** Go to a recorded position. */
  moveTo(position: TreePosition): void {
    this.cursor = position.cursor === null ? null : (this.nodes.get(position.cursor) ?? null)
    this.active = position.branch
  }

  save(): Marks {
    return {
      cursor: this.cursor,
      active: this.active,
      selected: this.selected,
      heads: this.branches.save(),
      summaries: new Map(this.summaries),
      back: [...this.back],
      forward: [...this.forward],
    }
  }

  restore(marks: Marks): void {
    this.cursor = marks.cursor
    this.active = marks.active
    this.selected = marks.selected
    this.branches.reset(marks.heads)
    this.summaries = new Map(marks.summaries)
    this.back = [...marks.back]
    this.forward = [...marks.forward]
  }
}

/** The node a jump target names: an id, `null` (before the first node), a label or a branch head. */
export function resolveTarget(state: TreeState, target: JumpTarget): TreeResult<string | null> {
  if (target === null) return ok(null)
  if (typeof target === 'string') {
    return state.nodes.has(target) ? ok(target) : noNode(target)
  }
  if (isRecord(target)) {
    if ('label' in target) {
      if (typeof target.label !== 'string') return fail('INVALID_ARGUMENT', 'label must be a string')
      const rec = state.nodes.labels.get(target.label.trim())
      return rec
        ? ok(rec.entry.nodeId)
        : fail('NODE_NOT_FOUND', `no node labeled ${quoted(target.label)}`, { label: clipped(target.label) })
    }
    if ('branch' in target) {
      if (typeof target.branch !== 'string') return fail('INVALID_ARGUMENT', 'branch must be a string')
      const head = state.branches.get(target.branch.trim())
      return head ? ok(head.entry.nodeId) : noBranch(target.branch)
    }
  }
  return fail('INVALID_ARGUMENT', 'target must be a node id, null, { label } or { branch }')
}
