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

/** Build the index. Nodes whose parent is not in the view count as roots. */
export function indexTree(view: SessionTreeOutline): TreeIndex {
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
  const cursorPath = new Set<string>()
  let at: string | null = view.cursor
  for (let steps = 0; at !== null && steps <= byId.size; steps++) {
    const node = byId.get(at)
    if (!node || cursorPath.has(at)) break
    cursorPath.add(at)
    at = node.parentId
  }
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
  const labels = new Map<string, string>()
  for (const node of byId.values()) if (node.label !== undefined) labels.set(node.label, node.nodeId)
  const absorbed = new Set<string>()
  for (const node of byId.values())
    if (absorbsIntoCall(node, children.get(node.nodeId), byId, view.cursor, headsAt)) absorbed.add(node.nodeId)
  return {
    view,
    byId,
    order,
    children,
    parentOf,
    cursorPath,
    headsAt,
    branchNames: new Set(heads.keys()),
    labels,
    unreachable: byId.size - order.length,
    absorbed,
    rowTotal: byId.size - absorbed.size,
  }
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
  return leavesPathOf(index.view.cursor, target, (id) => index.parentOf.get(id))
}
