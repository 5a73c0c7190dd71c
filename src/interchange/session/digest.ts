/**
 * A fingerprint of a session tree, node by node, so an import can check the
 * tree the plugin rebuilds from the written log against the one it built
 * without holding both trees at once: the built tree is reduced to 8 bytes
 * per node (plus cursor and branches), then released.
 */
import { hash } from 'node:crypto'
import type { SessionTree } from '../../tree/session-tree.ts'
import type { TreeNode } from '../../tree/types.ts'

export interface TreeDigest {
  readonly nodes: number
  readonly cursor: string | null
  readonly branches: string
  /** 8 bytes of SHA-256 per node, in creation order. */
  readonly perNode: Buffer
}

/** The fields a rebuild must reproduce (what the Tree tab and the model read). */
function nodeHash(node: TreeNode): Buffer {
  const fields = [
    node.nodeId,
    node.parentId,
    node.type,
    node.summary,
    node.label,
    node.model,
    node.provider,
    node.createdAt,
    node.message?.role,
    node.message?.content,
    (node.replaces ?? []).join('\u0000'),
  ]
  // One-shot: a Hash object per node costs more than the hashing itself (two digests of every node per import).
  return hash('sha256', JSON.stringify(fields), 'buffer').subarray(0, 8)
}

export function treeDigest(tree: SessionTree): TreeDigest {
  const list = tree.list()
  const perNode = Buffer.alloc(list.length * 8)
  list.forEach((node, i) => nodeHash(node).copy(perNode, i * 8))
  return { nodes: list.length, cursor: tree.cursor, branches: JSON.stringify(tree.branchHeadList()), perNode }
}

/** Where `actual` differs from the tree `expected` was taken of; undefined when it does not. */
export function digestDifference(expected: TreeDigest, actual: SessionTree): string | undefined {
  if (actual.nodeCount !== expected.nodes) return `${actual.nodeCount} nodes instead of ${expected.nodes}`
  if (actual.cursor !== expected.cursor) return `cursor ${String(actual.cursor)} instead of ${String(expected.cursor)}`
  if (JSON.stringify(actual.branchHeadList()) !== expected.branches) return 'different branches'
  const list = actual.list()
  for (let i = 0; i < list.length; i++) {
    if (!nodeHash(list[i]!).equals(expected.perNode.subarray(i * 8, i * 8 + 8)))
      return `node ${list[i]!.nodeId} (the ${i + 1}th) differs from the one built`
  }
  return undefined
}
