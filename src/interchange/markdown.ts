/**
 * The neutral tree → a readable Markdown transcript: the active path (root
 * to cursor) in full, then one short digest per branch that leaves it (where
 * it forks, how many messages, its first prompt and its last words).
 * Thinking is shown folded; images by reference.
 */
import { activePath, type ContentPart, type InterchangeNode, type LabeledTree } from './model.ts'
import { oneLine } from '../tree/text.ts'

export interface MarkdownInput extends LabeledTree {
  readonly title?: string
}

export function* writeMarkdown(input: MarkdownInput): Generator<string> {
  const { tree } = input
  const byId = new Map(tree.nodes.map((node) => [node.id, node]))
  const children = new Map<string | null, InterchangeNode[]>()
  for (const node of tree.nodes) {
    const list = children.get(node.parentId) ?? []
    list.push(node)
    children.set(node.parentId, list)
  }
  const path = activePath(tree, byId)
  const onPath = new Set(path.map((node) => node.id))
  yield `# ${input.title ?? tree.meta.title ?? `Session ${tree.meta.sessionId ?? ''}`.trim()}\n`
  yield `Source: ${tree.meta.format} ${tree.meta.version}${tree.meta.cwd ? ` · ${tree.meta.cwd}` : ''} · ${tree.nodes.length} nodes, active path ${path.length}\n`
  yield '## Active path\n'
  for (const node of path) {
    const text = render(node)
    if (text === undefined) continue
    const label = input.labels.get(node.id)
    yield `${text}${label ? `\n\n> label: **${label}**` : ''}\n`
  }
  // Every branch that leaves the path: a child of a path node that is not on the path.
  const branches: { fork: InterchangeNode | null; head: InterchangeNode }[] = []
  for (const at of [null, ...path.map((node) => node.id)]) {
    for (const child of children.get(at) ?? [])
      if (!onPath.has(child.id)) branches.push({ fork: at === null ? null : byId.get(at)!, head: child })
  }
  if (branches.length === 0) return
  yield `## Other branches (${branches.length})\n`
  for (const { fork, head } of branches) {
    const nodes = subtree(head, children)
    const messages = nodes.filter(
      (node) => node.entry.kind === 'user' || node.entry.kind === 'assistant' || node.entry.kind === 'tool_result',
    )
    const prompt = nodes.find((node) => node.entry.kind === 'user')
    const lastWords = [...nodes].reverse().find((node) => node.entry.kind === 'assistant')
    const where = fork === null ? 'at the start' : `after “${oneLine(summaryOf(fork), 60)}”`
    yield `- **${where}**: ${messages.length} message(s)${prompt ? `, first prompt “${oneLine(summaryOf(prompt), 80)}”` : ''}${lastWords ? `, last answer “${oneLine(summaryOf(lastWords), 80)}”` : ''}\n`
  }
}

function subtree(head: InterchangeNode, children: Map<string | null, InterchangeNode[]>): InterchangeNode[] {
  const out: InterchangeNode[] = []
  const stack = [head]
  while (stack.length > 0) {
    const node = stack.pop()!
    out.push(node)
    stack.push(...(children.get(node.id) ?? []))
  }
  return out.sort((a, b) => a.time - b.time)
}

function partsText(parts: readonly ContentPart[]): string {
  return parts
    .map((part) => {
      switch (part.type) {
        case 'text':
          return part.text
        case 'thinking':
          return part.text ? `<details><summary>thinking</summary>\n\n${part.text}\n\n</details>` : ''
        case 'image':
          return `[image: ${part.mediaType}]`
        case 'tool_call':
          return `\`${part.name}(${oneLine(JSON.stringify(part.arguments), 200)})\``
      }
    })
    .filter((text) => text !== '')
    .join('\n\n')
}

function summaryOf(node: InterchangeNode): string {
  const entry = node.entry
  switch (entry.kind) {
    case 'user':
    case 'assistant':
    case 'tool_result':
      return partsText(entry.parts)
    case 'compaction':
    case 'branch_summary':
      return entry.summary
    case 'model_change':
      return `${entry.provider}/${entry.model}`
    case 'label':
      return entry.label ?? ''
    case 'custom':
      return entry.summary
  }
}

function render(node: InterchangeNode): string | undefined {
  const entry = node.entry
  switch (entry.kind) {
    case 'user':
      return `### ${entry.origin === 'prompt' ? 'User' : 'Context'}\n\n${partsText(entry.parts)}`
    case 'assistant':
      return `### Assistant${entry.model ? ` (${entry.model})` : ''}\n\n${partsText(entry.parts)}`
    case 'tool_result':
      return `#### Result${entry.toolName ? ` of ${entry.toolName}` : ''}${entry.isError ? ' (error)' : ''}\n\n\`\`\`\n${partsText(entry.parts)}\n\`\`\``
    case 'compaction':
      return `### Compacted history\n\n${entry.summary}`
    case 'branch_summary':
      return entry.contextText !== undefined ? `### Branch summary\n\n${entry.summary}` : undefined
    case 'model_change':
      return `*model: ${entry.provider}/${entry.model}*`
    case 'custom':
      return entry.contextText !== undefined ? `### ${entry.customType}\n\n${entry.contextText}` : undefined
    case 'label':
      return undefined
  }
}
