/**
 * The read-only index the panel builds once per fetched outline: nodes by id,
 * parents-first order, children, the cursor's path, branch heads, labels, and
 * which tool-only requests are drawn as their call's row.
 */
import type { SessionTreeOutline, TreeNode } from '../tree/types.ts'
import { leavesPath as leavesPathOf } from '../tree/summary-rules.ts'
import { isToolRequest, parts } from './node-text.ts'

/** Read-only index over one tree view; built once per fetched `list`. */
export interface TreeIndex {
  readonly view: SessionTreeOutline
  readonly byId: ReadonlyMap<string, TreeNode>
  /** Node ids parents-first (a node after its parent), in creation order otherwise. */
  readonly order: readonly string[]
  /** Direct children per node id (`null`: roots), creation order. */
  readonly children: ReadonlyMap<string | null, readonly string[]>
  /** Each node's parent as the index resolved it (`null`: a root, also when its parent is missing or itself). */
  readonly parentOf: ReadonlyMap<string, string | null>
  /** Root-to-cursor node ids. */
  readonly cursorPath: ReadonlySet<string>
  /** Branch names per head node id (active branch first). */
  readonly headsAt: ReadonlyMap<string, readonly string[]>
  /** Existing branch names and labels (for validating new ones). */
  readonly branchNames: ReadonlySet<string>
  readonly labels: ReadonlyMap<string, string>
  /** Nodes that no root reaches (a dangling or cyclic parent chain); never expected. */
  readonly unreachable: number
  /**
   * Tool-only assistant requests drawn as their tool call's row: the request
   * `read({...})` and the call `read(...) → result` are one exchange, one row.
   */
  readonly absorbed: ReadonlySet<string>
  /** The nodes the panel draws as rows when nothing is filtered (`byId.size - absorbed.size`). */
  readonly rowTotal: number
}

/**
 * Build the index. Nodes whose parent is not in the view count as roots. With the index of the outline this one
 * was merged from (`applyOutlineChanges` keeps unchanged nodes' objects), a view whose nodes keep their ids and
 * parents (a jump, a label) reuses its structure and recomputes only what the changed nodes, the cursor and the
 * branch heads touch: the same index, without a walk over every node.
 */
export function indexTree(view: SessionTreeOutline, previous?: TreeIndex): TreeIndex {
  const changed = previous && sameShape(previous, view)
  return changed ? reindexed(previous!, view, changed) : fullIndex(view)
}

function fullIndex(view: SessionTreeOutline): TreeIndex {
  const byId = new Map<string, TreeNode>()
  for (const node of view.nodes) if (!byId.has(node.nodeId)) byId.set(node.nodeId, node)
  const children = new Map<string | null, string[]>()
  const push = (parent: string | null, id: string): void => {
    const list = children.get(parent)
    if (list) list.push(id)
    else children.set(parent, [id])
  }
  const parentOf = new Map<string, string | null>()
  for (const node of byId.values()) {
    const parent =
      node.parentId !== null && byId.has(node.parentId) && node.parentId !== node.nodeId ? node.parentId : null
    parentOf.set(node.nodeId, parent)
    push(parent, node.nodeId)
  }
  // Parents-first order by an explicit-stack walk from the roots (preorder).
  const order: string[] = []
  const stack: string[] = [...(children.get(null) ?? [])].reverse()
  const seen = new Set<string>()
  while (stack.length > 0) {
    const id = stack.pop()!
    if (seen.has(id)) continue
    seen.add(id)
    order.push(id)
    const kids = children.get(id)
    if (kids) for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!)
  }
  const { heads, headsAt } = headsOf(view)
  const absorbed = new Set<string>()
  for (const node of byId.values())
    if (absorbsIntoCall(node, children.get(node.nodeId), byId, view.cursor, headsAt)) absorbed.add(node.nodeId)
  return {
    view,
    byId,
    order,
    children,
    parentOf,
    cursorPath: cursorPathOf(view.cursor, byId),
    headsAt,
    branchNames: new Set(heads.keys()),
    labels: labelsOf(byId),
    unreachable: byId.size - order.length,
    absorbed,
    rowTotal: byId.size - absorbed.size,
  }
}

/** The positions whose node object changed, when every node keeps its id and parent (else undefined: rebuild). */
function sameShape(previous: TreeIndex, view: SessionTreeOutline): number[] | undefined {
  const before = previous.view.nodes
  const after = view.nodes
  if (before.length !== after.length) return undefined
  const changed: number[] = []
  for (let i = 0; i < after.length; i++) {
    const old = before[i]!
    const node = after[i]!
    if (node === old) continue
    // A repeated id was indexed at its first position only: leave that case to a full build.
    if (node.nodeId !== old.nodeId || node.parentId !== old.parentId || previous.byId.get(old.nodeId) !== old)
      return undefined
    changed.push(i)
  }
  return changed
}

/** `previous` after the nodes at `changed` (same ids and parents) and the view's cursor and heads. */
function reindexed(previous: TreeIndex, view: SessionTreeOutline, changed: readonly number[]): TreeIndex {
  const byId = new Map(previous.byId)
  let relabeled = false
  const touched = new Set<string>()
  for (const i of changed) {
    const node = view.nodes[i]!
    if (node.label !== previous.byId.get(node.nodeId)!.label) relabeled = true
    byId.set(node.nodeId, node)
    touched.add(node.nodeId)
    // A request's absorption reads its child.
    const parent = previous.parentOf.get(node.nodeId)
    if (parent) touched.add(parent)
  }
  const { heads, headsAt } = headsOf(view)
  for (const id of [previous.view.cursor, view.cursor, ...previous.headsAt.keys(), ...headsAt.keys()])
    if (id !== null) touched.add(id)
  const absorbed = new Set(previous.absorbed)
  for (const id of touched) {
    const node = byId.get(id)
    if (node && absorbsIntoCall(node, previous.children.get(id), byId, view.cursor, headsAt)) absorbed.add(id)
    else absorbed.delete(id)
  }
  return {
    ...previous,
    view,
    byId,
    cursorPath: cursorPathOf(view.cursor, byId),
    headsAt,
    branchNames: new Set(heads.keys()),
    labels: relabeled ? labelsOf(byId) : previous.labels,
    absorbed,
    rowTotal: byId.size - absorbed.size,
  }
}

/** Root-to-cursor ids, following the nodes' own parents (a missing node or a repeat ends it). */
function cursorPathOf(cursor: string | null, byId: ReadonlyMap<string, TreeNode>): Set<string> {
  const path = new Set<string>()
  let at: string | null = cursor
  for (let steps = 0; at !== null && steps <= byId.size; steps++) {
    const node = byId.get(at)
    if (!node || path.has(at)) break
    path.add(at)
    at = node.parentId
  }
  return path
}

/** Head per branch name, and branch names per head node (the active branch first). */
function headsOf(view: SessionTreeOutline): { heads: Map<string, string>; headsAt: Map<string, string[]> } {
  const heads = new Map<string, string>()
  for (const branch of view.branches) heads.set(branch.name, branch.headId)
  for (const [name, head] of Object.entries(view.branchHeads ?? {})) if (!heads.has(name)) heads.set(name, head)
  const headsAt = new Map<string, string[]>()
  for (const [name, head] of heads) {
    const list = headsAt.get(head)
    if (!list) headsAt.set(head, [name])
    else if (name === view.activeBranch) list.unshift(name)
    else list.push(name)
  }
  return { heads, headsAt }
}

function labelsOf(byId: ReadonlyMap<string, TreeNode>): Map<string, string> {
  const labels = new Map<string, string>()
  for (const node of byId.values()) if (node.label !== undefined) labels.set(node.label, node.nodeId)
  return labels
}

/**
 * Whether a tool-only assistant request is drawn as its call's row: its only
 * child is the tool-call node of its first call, and nothing marks the request
 * itself (the cursor, a label, a branch head) that the call row would hide.
 */
function absorbsIntoCall(
  node: TreeNode,
  kids: readonly string[] | undefined,
  byId: ReadonlyMap<string, TreeNode>,
  cursor: string | null,
  headsAt: ReadonlyMap<string, readonly string[]>,
): boolean {
  if (
    kids?.length !== 1 ||
    node.nodeId === cursor ||
    node.label !== undefined ||
    headsAt.has(node.nodeId) ||
    !isToolRequest(node)
  )
    return false
  const first = parts(node).find((p) => p.type === 'tool_call')
  const child = byId.get(kids[0]!)
  const call = child?.type === 'tool_call' ? parts(child).find((p) => p.type === 'tool_call') : undefined
  return first?.type === 'tool_call' && call?.type === 'tool_call' && call.id === first.id
}

/**
 * Whether a move to `target` leaves part of the current path behind (`tree/summary-rules.ts`), read on the
 * outline. The service decides at the exchange boundary; this only says whether to offer the choice.
 */
export function leavesPath(index: TreeIndex, target: string): boolean {
  return leavesPathOf(
    index.view.cursor,
    target,
    (id) => index.parentOf.get(id),
    (id) => index.cursorPath.has(id),
  )
}
