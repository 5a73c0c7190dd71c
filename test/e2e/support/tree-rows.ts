/**
 * Which nodes the Tree tab draws as rows, written independently of the panel's
 * model: every node except a tool-only assistant request (empty text, a tool
 * call part) that is not the cursor — its call's row shows it (one row per tool
 * exchange). Close enough for the e2e demos, whose requests carry no label or
 * branch head.
 */
import type { SessionTreeView, TreeNode } from '../../../src/types.ts'

export function rowNodes(view: Pick<SessionTreeView, 'nodes' | 'cursor'>): TreeNode[] {
  return view.nodes.filter(
    (n) =>
      !(
        n.message?.role === 'assistant' &&
        n.message.content === '' &&
        n.content?.some((p) => p.type === 'tool_call') &&
        n.nodeId !== view.cursor
      ),
  )
}
