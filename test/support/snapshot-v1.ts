/**
 * A writer of the first snapshot format (version 1), restated from its
 * contract rather than taken from src: every node as its whole entry (the
 * view node without its `branch` and `forkCount`), in creation order, with
 * the branch heads, marks and log position beside them. Trees written before
 * format 2 look like this; tests use it to prove they still load.
 */
import type { SessionTree, SessionTreeSnapshotV1, TreeEntry } from '../../src/tree/index.ts'

export function snapshotV1(tree: SessionTree): SessionTreeSnapshotV1 {
  const info = tree.info()
  const nodes = tree.list().map(({ branch: _branch, forkCount: _forks, ...entry }) => entry as TreeEntry)
  return {
    version: 1,
    sessionId: tree.sessionId,
    nodes,
    cursor: tree.cursor,
    activeBranch: tree.activeBranch,
    selectedNodeId: tree.selectedNode,
    branches: tree.branchHeadList(),
    summaries: tree.summaries(),
    history: tree.navigation(),
    logSeq: tree.logSeq,
    ...(info.clonedFrom ? { clonedFrom: info.clonedFrom } : {}),
  }
}
