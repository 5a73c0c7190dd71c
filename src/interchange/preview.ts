/**
 * What an import will create, before anything is written: every branch of
 * the tree as one line — where it leaves the rest, how many entries it adds,
 * its first prompt and its last words — with the active one marked. Built from
 * the neutral tree in one pass (each node is visited once: branches are the
 * segments between forks), for the Tree tab's import dialog and `--dry-run`.
 */
import type { ContentPart, InterchangeNode, InterchangeTree } from './model.ts'
import { oneLine } from '../tree/text.ts'

export interface BranchPreview {
  /** Source id of the branch's last node (its leaf). */
  readonly leaf: string
  /** Source id of the node it forks from (null: it starts at the root). */
  readonly forkAt: string | null
  /** Entries from the fork point (exclusive) to the leaf. */
  readonly entries: number
  /** Entries from the root to the leaf. */
  readonly depth: number
  /** The branch's first prompt (one line), or '' when it has none. */
  readonly firstPrompt: string
  /** Its last message (one line). */
  readonly last: string
  /** The branch the import continues on (it holds the cursor). */
  readonly active: boolean
}

export interface ImportPreview {
  readonly branches: number
  /** At most `limit` of them, the active one first, then by depth (deepest first). */
  readonly shown: readonly BranchPreview[]
}

export function previewTree(tree: InterchangeTree, limit = 50): ImportPreview {
  const children = new Map<string | null, number>()
  for (const node of tree.nodes) children.set(node.parentId, (children.get(node.parentId) ?? 0) + 1)
  const byId = new Map(tree.nodes.map((node) => [node.id, node]))
  const depth = new Map<string, number>()
  for (const node of tree.nodes) depth.set(node.id, (node.parentId === null ? 0 : (depth.get(node.parentId) ?? 0)) + 1)
  const onCursorPath = new Set<string>()
  for (let at = tree.cursor; at !== null && !onCursorPath.has(at);) {
    onCursorPath.add(at)
    at = byId.get(at)?.parentId ?? null
  }
  const branches: BranchPreview[] = []
  for (const leaf of tree.nodes) {
    if (children.has(leaf.id)) continue
    // Up to the fork point: the first ancestor with more than one child (or the root).
    let entries = 0
    let firstPrompt = ''
    let at: InterchangeNode | undefined = leaf
    let forkAt: string | null = null
    let active = false
    while (at !== undefined) {
      entries++
      // Between forks every node has one child: a node of the cursor's path here means the cursor is here.
      if (onCursorPath.has(at.id)) active = true
      if (at.entry.kind === 'user' && at.entry.origin === 'prompt') firstPrompt = oneLine(inputText(at), 100)
      const parent: InterchangeNode | undefined = at.parentId === null ? undefined : byId.get(at.parentId)
      if (parent === undefined || (children.get(parent.id) ?? 0) > 1) {
        forkAt = parent?.id ?? null
        break
      }
      at = parent
    }
    branches.push({
      leaf: leaf.id,
      forkAt,
      entries,
      depth: depth.get(leaf.id) ?? entries,
      firstPrompt,
      last: oneLine(summary(leaf), 100),
      active,
    })
  }
  branches.sort((a, b) => Number(b.active) - Number(a.active) || b.depth - a.depth)
  return { branches: branches.length, shown: branches.slice(0, limit) }
}

function inputText(node: InterchangeNode): string {
  return node.entry.kind === 'user'
    ? node.entry.parts.map((p) => (p.type === 'text' ? p.text : `[image ${p.mediaType}]`)).join(' ')
    : ''
}

function partsText(parts: readonly ContentPart[]): string {
  return parts
    .map((p) => (p.type === 'text' ? p.text : p.type === 'tool_call' ? `${p.name}(…)` : ''))
    .filter(Boolean)
    .join(' ')
}

function summary(node: InterchangeNode): string {
  const entry = node.entry
  switch (entry.kind) {
    case 'user':
      return inputText(node)
    case 'assistant':
      return partsText(entry.parts) || '(empty answer)'
    case 'tool_result':
      return `${entry.toolName ?? 'tool'} → ${entry.parts.map((p) => (p.type === 'text' ? p.text : '[image]')).join(' ')}`
    case 'compaction':
      return `compaction: ${entry.summary}`
    case 'branch_summary':
      return `branch summary: ${entry.summary}`
    case 'model_change':
      return `model: ${entry.provider}/${entry.model}`
    case 'label':
      return `label ${entry.label ?? '(cleared)'} on ${entry.target}`
    case 'custom':
      return entry.summary
  }
}
