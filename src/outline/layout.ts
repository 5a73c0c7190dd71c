/**
 * The row layout of the panel (rules in `../model.ts`): rows with their depth,
 * gutter chain and fork marks, folds, and the lane colour of a branch.
 */
import type { TreeNode } from '../tree/types.ts'
import { matchesQuery, normalizeQuery, passesFilter, type FilterMode } from './filter.ts'
import type { TreeIndex } from './tree-index.ts'

/** One gutter level: does the fork at that level have more children below? */
export interface GutterFrame {
  readonly parent: GutterFrame | null
  readonly more: boolean
}

export interface Row {
  readonly id: string
  readonly node: TreeNode
  /** Indentation level (fork nesting). */
  readonly depth: number
  /** Gutter chain of this row's levels (innermost first); length == depth. */
  readonly frame: GutterFrame | null
  /** First row of one child of a fork point (drawn with `├─` / `└─`). */
  readonly branchStart: boolean
  /** The visible parent (nearest visible ancestor), or null. */
  readonly parentId: string | null
  /** True when the tree parent is hidden by the filter (the row hangs off an ancestor). */
  readonly elided: boolean
  /** Visible children. */
  readonly childCount: number
  /** All direct children in the tree (a fork point has two or more). */
  readonly forkCount: number
  /** A fork point of the layout (two or more visible children): it can be folded. */
  readonly foldable: boolean
  /** Folded: how many rows below it are hidden. */
  readonly hidden?: number
}

export interface Layout {
  readonly rows: readonly Row[]
  /** Row index per node id (visible rows only). */
  readonly indexOf: ReadonlyMap<string, number>
  /** Rows of the whole tree, unfiltered and unfolded (`TreeIndex.rowTotal`). */
  readonly total: number
  /** Rows that matched: `rows.length` plus the rows folds hide. */
  readonly shown: number
}

export interface LayoutOptions {
  readonly filter?: FilterMode
  /** Raw query; see `normalizeQuery`. */
  readonly query?: string
  /** Fork points whose branches are folded away (as Pi's `/tree` folds). */
  readonly folded?: ReadonlySet<string>
}

/**
 * Lay the tree out as rows. O(n) time and memory, no recursion: one pass
 * assigns every visible node to its nearest visible ancestor, one explicit-
 * stack walk emits rows. The gutter of a row is a shared parent-linked chain,
 * so storing it costs O(1) per row (rendering walks it for visible rows only).
 */
export function layoutTree(index: TreeIndex, options: LayoutOptions = {}): Layout {
  const filter = options.filter ?? 'all'
  const query = normalizeQuery(options.query ?? '')
  const everything = filter === 'all' && query === ''
  const folded = options.folded
  const absorbed = index.absorbed
  const visible = (node: TreeNode): boolean =>
    !absorbed.has(node.nodeId) && (everything || (passesFilter(node, filter) && matchesQuery(index, node, query)))

  // Visible parent of each visible node, and visible children per visible parent.
  const kids = new Map<string | null, string[]>()
  // Nearest visible ancestor-or-self of every node seen so far (parents come first in `order`).
  const anchorOf = new Map<string, string | null>()
  const elided = new Set<string>()
  for (const id of index.order) {
    const node = index.byId.get(id)!
    const treeParent = index.parentOf.get(id) ?? null
    const parentAnchor = treeParent === null ? null : (anchorOf.get(treeParent) ?? null)
    if (visible(node)) {
      anchorOf.set(id, id)
      const list = kids.get(parentAnchor)
      if (list) list.push(id)
      else kids.set(parentAnchor, [id])
      // A request drawn as its call's row hides nothing: the line stays solid.
      const drawnParent =
        treeParent !== null && absorbed.has(treeParent) ? (index.parentOf.get(treeParent) ?? null) : treeParent
      if (parentAnchor !== drawnParent) elided.add(id)
    } else {
      anchorOf.set(id, parentAnchor)
    }
  }
  interface Pending {
    readonly id: string
    readonly parentId: string | null
    readonly depth: number
    readonly frame: GutterFrame | null
    readonly branchStart: boolean
  }
  const rows: Row[] = []
  const indexOf = new Map<string, number>()
  const stack: Pending[] = []
  const pushChildren = (
    parentId: string | null,
    list: readonly string[],
    depth: number,
    frame: GutterFrame | null,
  ): void => {
    if (list.length === 1) {
      stack.push({ id: list[0]!, parentId, depth, frame, branchStart: false })
      return
    }
    for (let i = list.length - 1; i >= 0; i--) {
      stack.push({
        id: list[i]!,
        parentId,
        depth: depth + 1,
        frame: { parent: frame, more: i < list.length - 1 },
        branchStart: true,
      })
    }
  }
  pushChildren(null, kids.get(null) ?? [], 0, null)
  while (stack.length > 0) {
    const item = stack.pop()!
    const node = index.byId.get(item.id)!
    const visibleKids = kids.get(item.id) ?? []
    const foldable = visibleKids.length > 1
    const fold = foldable && folded?.has(item.id) === true
    indexOf.set(item.id, rows.length)
    rows.push({
      id: item.id,
      node,
      depth: item.depth,
      frame: item.frame,
      branchStart: item.branchStart,
      parentId: item.parentId,
      elided: elided.has(item.id),
      childCount: fold ? 0 : visibleKids.length,
      forkCount: index.children.get(item.id)?.length ?? 0,
      foldable,
      ...(fold ? { hidden: countBelow(kids, item.id) } : {}),
    })
    if (visibleKids.length > 0 && !fold) pushChildren(item.id, visibleKids, item.depth, item.frame)
  }
  // Matches hidden by a fold still count as shown: the fold row says how many it holds.
  let shown = rows.length
  for (const row of rows) shown += row.hidden ?? 0
  return { rows, indexOf, total: index.rowTotal, shown }
}

/** Visible descendants of a row (explicit stack; each folded subtree is walked once per layout). */
function countBelow(kids: ReadonlyMap<string | null, readonly string[]>, id: string): number {
  let count = 0
  const stack = [...(kids.get(id) ?? [])]
  while (stack.length > 0) {
    const next = stack.pop()!
    count += 1
    for (const kid of kids.get(next) ?? []) stack.push(kid)
  }
  return count
}

/** The fold set without the folds that hide `id` (its ancestors), so that row shows. */
export function unfoldTo(index: TreeIndex, folded: ReadonlySet<string>, id: string | null): ReadonlySet<string> {
  if (id === null || folded.size === 0) return folded
  let next: Set<string> | undefined
  for (
    let at = index.parentOf.get(id) ?? null, steps = 0;
    at !== null && steps <= index.byId.size;
    at = index.parentOf.get(at) ?? null, steps++
  ) {
    if (folded.has(at)) (next ??= new Set(folded)).delete(at)
  }
  return next ?? folded
}

/** Gutter glyph of one level. */
export type Glyph = 'pipe' | 'tee' | 'elbow' | 'blank'

/**
 * The gutter of a row, outermost level first, at most `max` levels (the
 * innermost ones; `clipped` says how many outer levels were left out).
 */
export function gutter(row: Row, max = 12): { glyphs: Glyph[]; clipped: number } {
  const glyphs: Glyph[] = []
  let frame = row.frame
  let innermost = true
  while (frame !== null && glyphs.length < max) {
    if (innermost && row.branchStart) glyphs.push(frame.more ? 'tee' : 'elbow')
    else glyphs.push(frame.more ? 'pipe' : 'blank')
    innermost = false
    frame = frame.parent
  }
  glyphs.reverse()
  return { glyphs, clipped: row.depth - glyphs.length }
}

/** Lane colour slot of a branch name (stable, 8 slots; '' → none). */
export function laneColor(branch: string): number {
  if (!branch) return -1
  let hash = 0
  for (let i = 0; i < branch.length; i++) hash = (hash * 31 + branch.charCodeAt(i)) | 0
  return Math.abs(hash) % 8
}
