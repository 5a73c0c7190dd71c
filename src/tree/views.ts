/**
 * Read views of a tree, as served to the panel, the tools and the wire:
 * nodes with their lane and fork count, branches with or without their
 * paths, and the O(branches) status.
 */
import { summaryOf, type Nodes, type Rec } from './nodes.ts'
import type { TreeState } from './state.ts'
import type {
  BranchOutline,
  BranchView,
  SessionTreeOutline,
  SessionTreeOutlineChanges,
  SessionTreeSessionInfo,
  SessionTreeView,
  TreeNode,
  TreePlace,
} from './types.ts'
import { recordOf, type Mutable } from './validate.ts'
import type { ClonedFrom } from './snapshot.ts'
import type { OutlineTracker } from './outline-changes.ts'

/** One node as views serve it. */
export function nodeView(nodes: Nodes, rec: Rec): TreeNode {
  return { ...rec.entry, summary: summaryOf(rec), branch: nodes.laneOf(rec), forkCount: rec.childCount } as TreeNode
}

/** Labeled nodes in creation order; with `text`, the node carrying exactly that label. */
export function labeledNodes(state: TreeState, text: string | undefined): TreeNode[] {
  const labels = state.nodes.labels
  if (text !== undefined) {
    const rec = labels.get(typeof text === 'string' ? text.trim() : text)
    return rec ? [nodeView(state.nodes, rec)] : []
  }
  if (labels.size === 0) return []
  // Creation order: nodes do not store their index, so walk them (labels are few, lookups by text are direct).
  const out: TreeNode[] = []
  for (const rec of state.nodes.all()) if (rec.entry.label !== undefined) out.push(nodeView(state.nodes, rec))
  return out
}

/** Named branches with their root-to-head paths, active branch first. */
export function branchViews(state: TreeState): BranchView[] {
  return branchOutlines(state).map((outline) => {
    const nodeIds: string[] = []
    for (let rec: Rec | undefined = state.branches.get(outline.name); rec; rec = rec.parent)
      nodeIds.push(rec.entry.nodeId)
    nodeIds.reverse()
    return outline.summary
      ? { name: outline.name, headId: outline.headId, nodeIds, summary: outline.summary }
      : { name: outline.name, headId: outline.headId, nodeIds }
  })
}

/** Named branches and their heads (no paths), active branch first. */
export function branchOutlines(state: TreeState): BranchOutline[] {
  return state.branches.ordered(state.active).flatMap((name) => {
    const head = state.branches.get(name)
    if (!head) return []
    const summary = state.summaries.get(name)
    return [summary ? { name, headId: head.entry.nodeId, summary } : { name, headId: head.entry.nodeId }]
  })
}

/** Where the cursor and the branch heads are. */
function position(state: TreeState, sessionId: string): TreePlace {
  return {
    sessionId,
    cursor: state.cursorId,
    activeBranch: state.active,
    selectedNodeId: state.selected?.entry.nodeId ?? null,
    branchHeads: state.branches.record(),
  }
}

/** What the full view and the outline share: the nodes and where the cursor and branch heads are. */
function nodesAndPosition(state: TreeState, sessionId: string) {
  return { ...position(state, sessionId), nodes: Array.from(state.nodes.all(), (rec) => nodeView(state.nodes, rec)) }
}

/** The outline as the nodes changed since `since` (a version `tracker` gave), the position whole. */
export function treeOutlineChanges(
  state: TreeState,
  sessionId: string,
  tracker: OutlineTracker,
  since: string | null,
): SessionTreeOutlineChanges {
  const changes = tracker.changes(state.nodes, since)
  return {
    ...position(state, sessionId),
    branches: branchOutlines(state),
    version: changes.version,
    base: changes.base,
    nodeCount: changes.count,
    changedAt: changes.changedAt,
    nodes: changes.recs.map((rec) => nodeView(state.nodes, rec)),
  }
}

export function treeView(state: TreeState, sessionId: string): SessionTreeView {
  return { ...nodesAndPosition(state, sessionId), branches: branchViews(state) }
}

export function treeOutline(state: TreeState, sessionId: string): SessionTreeOutline {
  return { ...nodesAndPosition(state, sessionId), branches: branchOutlines(state) }
}

/** Compact status; O(branches), never walks the nodes. */
export function treeInfo(
  state: TreeState,
  sessionId: string,
  clonedFrom: ClonedFrom | undefined,
): SessionTreeSessionInfo {
  const nodes = state.nodes
  const totals = nodes.usageTotals()
  const usage = recordOf(totals)
  const info: Mutable<SessionTreeSessionInfo> = {
    sessionId,
    nodeCount: nodes.size,
    messageCount: nodes.messageCount,
    branchCount: state.branches.size,
    cursor: state.cursorId,
    activeBranch: state.active,
    selectedNodeId: state.selected?.entry.nodeId ?? null,
    branchHeads: state.branches.record(),
    currentPathLength: state.cursorDepth(),
    snapshotVersion: 1,
    labelCount: nodes.labels.size,
    canGoBack: state.back.length > 0,
    canGoForward: state.forward.length > 0,
  }
  if (totals.length > 0) {
    info.usage = usage
    info.tokenCount =
      (usage.inputTokens ?? 0) +
      (usage.outputTokens ?? 0) +
      (usage.cacheReadTokens ?? 0) +
      (usage.cacheWriteTokens ?? 0)
  }
  const cost = nodes.cost()
  if (cost !== undefined) info.cost = cost
  if (clonedFrom) info.clonedFrom = clonedFrom
  return info
}
