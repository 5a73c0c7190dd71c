/** A tree path as the model reads it, for the request checks. */
import type { SessionTreeView } from '../../../src/types.ts'

/** Messages from the root to `nodeId` as `role: text`, user prompts and answers with text only. */
export function spoken(view: SessionTreeView, nodeId: string | null): string[] {
  const byId = new Map(view.nodes.map((n) => [n.nodeId, n]))
  const out: string[] = []
  for (let id = nodeId; id !== null; id = byId.get(id)!.parentId) {
    const m = byId.get(id)!.message
    if (m && (m.role === 'user' || m.role === 'assistant') && m.content !== '') out.unshift(`${m.role}: ${m.content}`)
  }
  return out
}
