/**
 * Subagent conversations of a Claude Code session, hung under the tool
 * exchange of the call that started them, after the last result of its answer
 * (no model API accepts a branch while parallel calls wait). Matched by
 * `agentId` (2.0.x / 2.1.x) or by the Task call's `prompt` (1.0.x inline
 * sidechains); unreferenced ones stay roots; a file that starts with the answer
 * gets the call's prompt first.
 */
import type { LineRecord } from '../lines.ts'
import type { InterchangeNode } from '../model.ts'
import type { TreeBuilder } from '../builder.ts'
import { str } from '../values.ts'
import { isJsonObject } from '../../tree/validate.ts'

/** One subagent transcript file, opened by the caller (found by listing, never by a name taken from the file). */
export interface SubagentSource {
  readonly name: string
  readonly records: AsyncIterable<LineRecord>
}

interface Linkable {
  node: InterchangeNode
  readonly sidechain: boolean
  readonly agentId?: string
}

export function linkSubagents(nodes: Linkable[], builder: TreeBuilder): void {
  const byAgent = new Map<string, string>()
  const promptOfResult = new Map<string, string>()
  const byPrompt = new Map<string, string>()
  const resultOfCall = new Map<string, string>()
  for (const p of nodes) {
    const entry = p.node.entry
    if (p.sidechain) continue
    if (entry.kind === 'tool_result') {
      resultOfCall.set(entry.callId, p.node.id)
      const raw = p.node.raw?.[0]
      const agent = isJsonObject(raw)
        ? (str(raw.agentId) ?? (isJsonObject(raw.toolUseResult) ? str(raw.toolUseResult.agentId) : undefined))
        : undefined
      if (agent) byAgent.set(agent, p.node.id)
    }
  }
  const line = new Map(nodes.map((p) => [p.node.id, p.node.line]))
  /** A result → the last result of the answer that made its call (results follow in file order). */
  const exchangeEnd = new Map<string, string>()
  for (const p of nodes) {
    if (p.sidechain || p.node.entry.kind !== 'assistant') continue
    const results = p.node.entry.parts.flatMap((part) => {
      const result = part.type === 'tool_call' ? resultOfCall.get(part.id) : undefined
      return result === undefined ? [] : [result]
    })
    const last = results.reduce<string | undefined>(
      (best, id) => (best === undefined || line.get(id)! > line.get(best)! ? id : best),
      undefined,
    )
    for (const id of results) exchangeEnd.set(id, last!)
    for (const part of p.node.entry.parts) {
      if (part.type !== 'tool_call' || !isJsonObject(part.arguments)) continue
      const prompt = str(part.arguments.prompt)
      const result = resultOfCall.get(part.id)
      if (prompt && result) {
        byPrompt.set(prompt.trim(), result)
        promptOfResult.set(result, prompt)
      }
    }
  }
  const ids = new Set(nodes.map((p) => p.node.id))
  let linked = 0
  let unlinked = 0
  let prompted = 0
  const added: Linkable[] = []
  for (const p of nodes) {
    if (!p.sidechain || (p.node.parentId !== null && ids.has(p.node.parentId))) continue
    const entry = p.node.entry
    const prompt =
      entry.kind === 'user'
        ? entry.parts
            .map((part) => (part.type === 'text' ? part.text : ''))
            .join('')
            .trim()
        : undefined
    const result = (p.agentId ? byAgent.get(p.agentId) : undefined) ?? (prompt ? byPrompt.get(prompt) : undefined)
    if (result !== undefined) {
      const parent = exchangeEnd.get(result) ?? result
      const prompt = promptOfResult.get(result)
      if (entry.kind !== 'user' && prompt !== undefined) {
        // The agent's prompt, from the call that started it: the branch's first message.
        const id = `${p.node.id}#prompt`
        added.push({
          node: {
            id,
            parentId: parent,
            time: p.node.time,
            entry: { kind: 'user', parts: [{ type: 'text', text: prompt }], origin: 'prompt' },
            line: p.node.line,
          },
          sidechain: true,
        })
        p.node = { ...p.node, parentId: id }
        prompted++
      } else {
        p.node = { ...p.node, parentId: parent }
      }
      linked++
    } else {
      if (p.node.parentId !== null) p.node = { ...p.node, parentId: null }
      unlinked++
    }
  }
  nodes.push(...added)
  if (linked > 0) builder.note(`${linked} subagent conversation(s) linked to the tool call that started them`)
  if (prompted > 0)
    builder.note(`${prompted} subagent conversation(s) given their prompt (from the call) as first message`)
  if (unlinked > 0)
    builder.note(`${unlinked} subagent conversation(s) with no call referring to them kept as roots of their own`)
}
