/**
 * Model contexts as comparable units, on both sides of the Claude Code tests:
 * a Messages API request the real \`claude\` sent (what its model read) and
 * the model history of a DSH tree path. A unit is [role, text], ['call', tool
 * name] or ['result', text]; thinking, the CLI's \`<system-reminder>\` blocks
 * and its mid-conversation system messages are left out (DSH never sends the
 * first, the other two are made up by the CLI on each request).
 */
import type { SessionTree } from '../../src/tree/session-tree.ts'

export type Unit = readonly [string, string]
export type ApiBlock = { type: string; text?: string; name?: string; content?: string | ApiBlock[] }
export type ApiMessage = { role: string; content: string | ApiBlock[] }

/** What a Messages request holds, as comparable units (the CLI's `<system-reminder>` blocks and mid-conversation system messages left out, thinking too). */
export function requestUnits(messages: readonly ApiMessage[]): Unit[] {
  const units: Unit[] = []
  const text = (content: string | ApiBlock[] | undefined) =>
    typeof content === 'string' ? content : (content ?? []).map((b) => b.text ?? '').join('')
  for (const message of messages) {
    if (message.role === 'system') continue
    const list: ApiBlock[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content
    for (const block of list) {
      if (block.type === 'text' && block.text!.startsWith('<system-reminder>')) continue
      if (block.type === 'text' && block.text!.trim() !== '') units.push([message.role, block.text!.trimEnd()])
      else if (block.type === 'tool_use') units.push(['call', block.name!])
      else if (block.type === 'tool_result') units.push(['result', text(block.content).trimEnd()])
    }
  }
  return units
}

/** The same units for the model history of a DSH tree path (what a switch to `nodeId` sends). */
export function pathUnits(tree: SessionTree, nodeId: string): Unit[] {
  const history = tree.historyPath(nodeId)
  if (!history.ok) throw new Error(history.error.message)
  const units: Unit[] = []
  for (const entry of history.value) {
    for (const part of entry.content ?? []) {
      if (part.type === 'text' && part.text.trim() !== '')
        units.push([entry.message?.role ?? 'user', part.text.trimEnd()])
      else if (part.type === 'tool_call' && entry.type !== 'tool_call') units.push(['call', part.name])
      else if (part.type === 'tool_result') units.push(['result', part.content.trimEnd()])
    }
    if ((entry.content ?? []).length === 0 && entry.message?.content)
      units.push([entry.message.role, entry.message.content.trimEnd()])
  }
  return units
}
