/**
 * What a tree node reads as in the panel: its badge (row kind), a tool call
 * folded with its result, its one-line row text, and the text search looks at.
 */
import { argumentsText, oneLine } from '../tree/text.ts'
import type { ContentPart, TreeNode } from '../tree/types.ts'

/** What kind of entry a row shows (drives its badge). */
export type RowKind =
  'user' | 'assistant' | 'system' | 'tool' | 'plugin' | 'model' | 'compaction' | 'summary' | 'custom'

export function parts(node: TreeNode): readonly ContentPart[] {
  return node.content ?? []
}

/** The badge a node gets. */
export function rowKind(node: TreeNode): RowKind {
  switch (node.type) {
    case 'tool_call':
    case 'tool_result':
      return 'tool'
    case 'model_change':
      return 'model'
    case 'compaction':
      return 'compaction'
    case 'branch_summary':
      return 'summary'
    case 'custom':
      return 'custom'
    default: {
      const role = node.message?.role
      if (role === 'user') return node.origin?.injected ? 'plugin' : 'user'
      if (role === 'assistant') return 'assistant'
      if (role === 'system') return 'system'
      if (role === 'tool') return 'tool'
      return 'custom'
    }
  }
}

/** A tool call folded with its result, when the node is one. */
export interface FoldedTool {
  readonly name: string
  readonly args: string
  readonly result?: string
  readonly isError: boolean
}

export function foldedTool(node: TreeNode): FoldedTool | undefined {
  if (node.type !== 'tool_call' && node.type !== 'tool_result') return undefined
  let call: Extract<ContentPart, { type: 'tool_call' }> | undefined
  let result: Extract<ContentPart, { type: 'tool_result' }> | undefined
  for (const part of parts(node)) {
    if (part.type === 'tool_call' && !call) call = part
    else if (part.type === 'tool_result' && !result) result = part
  }
  const name = call?.name ?? node.message?.name ?? 'tool'
  const resultText = result?.content ?? (node.message?.role === 'tool' ? node.message.content : undefined)
  return {
    name,
    args: call ? argumentsText(call.arguments) : '',
    ...(resultText === undefined ? {} : { result: resultText }),
    isError: result?.isError === true || node.error !== undefined,
  }
}

const flat = (text: string): string => oneLine(text, Infinity)

/** One line of text for a row (the node's summary, or its message). */
export function rowText(node: TreeNode): string {
  const tool = foldedTool(node)
  if (tool) {
    const head = `${tool.name}(${flat(tool.args)})`
    return tool.result === undefined ? head : `${head} → ${flat(tool.result)}`
  }
  if (node.summary) return node.summary
  const text = node.message?.content ?? parts(node).find((p) => p.type === 'text')?.text ?? ''
  return flat(text) || `(${node.type})`
}

/** Everything search looks at, lower-cased: text, tool name/args/result, label, branch, model. */
export function searchText(node: TreeNode): string {
  let text = `${node.summary}\n${node.message?.content ?? ''}`
  for (const part of parts(node)) {
    if (part.type === 'text' || part.type === 'reasoning') text += `\n${part.text}`
    else if (part.type === 'tool_call') text += `\n${part.name} ${argumentsText(part.arguments)}`
    else if (part.type === 'tool_result') text += `\n${part.content}`
  }
  if (node.label) text += `\n${node.label}`
  if (node.branch) text += `\n${node.branch}`
  if (node.model) text += `\n${node.model}`
  return text.toLowerCase()
}

/** An assistant message that only requests tool calls (no text of its own). */
export function isToolRequest(node: TreeNode): boolean {
  if (rowKind(node) !== 'assistant' || (node.message?.content ?? '').trim() !== '') return false
  const content = parts(node)
  return content.some((p) => p.type === 'tool_call') && !content.some((p) => p.type === 'text' && p.text.trim() !== '')
}
