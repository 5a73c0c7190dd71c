/**
 * Compact, bounded text renderings of a session tree for the tool and `/tree`
 * (pure). Linear runs stay at one indentation, forks indent (`↳`), long runs
 * and deep subtrees are elided, the listing is capped at `maxLines`. The
 * cursor, labels, branch heads and the path to the cursor's forks are never
 * elided, so the model always sees where it is and where it can jump.
 */
import type { SessionTree } from '../tree/session-tree.ts'
import { oneLine } from '../tree/text.ts'
import type { TreeNode } from '../tree/types.ts'

export interface RenderOptions {
  /** Render only the subtree under this node (default: the whole tree). */
  readonly from?: string
  /** Nested forks shown in full (default 2); deeper subtrees collapse to one line. Forks on the path to the cursor always expand. */
  readonly depth?: number
  /** Maximum number of node lines (default 60). */
  readonly maxLines?: number
  /** Maximum characters of node text per line (default 80). */
  readonly width?: number
}

export interface RenderedTree {
  readonly lines: readonly string[]
  /** True when anything was elided, collapsed or cut. */
  readonly abridged: boolean
}

export const DEFAULT_DEPTH = 2
export const DEFAULT_MAX_LINES = 60
export const DEFAULT_WIDTH = 80

/** The short role word shown for a node. */
export function roleOf(node: TreeNode): string {
  switch (node.type) {
    case 'tool_call':
    case 'tool_result':
      return 'tool'
    case 'compaction':
      return 'compaction'
    case 'branch_summary':
      return 'summary'
    case 'model_change':
      return 'model'
    case 'custom':
      return 'custom'
    default:
      // Prompts a plugin injected (runtime context, skills) are not the user talking.
      if (node.message?.role === 'user' && node.origin?.injected) return 'context'
      return node.message?.role ?? 'note'
  }
}

/** Head names by node id. */
/** Branch names by the node each one ends at. */
export function headsOf(tree: SessionTree): Map<string, string[]> {
  const heads = new Map<string, string[]>()
  for (const [name, id] of tree.branchHeadList()) {
    const list = heads.get(id) ?? []
    list.push(name)
    heads.set(id, list)
  }
  return heads
}

/** One node as a line: `e4 assistant: text [label: x] [head: main] ← cursor`. */
export function nodeLine(tree: SessionTree, node: TreeNode, width: number, heads = headsOf(tree)): string {
  const tags: string[] = []
  if (node.label !== undefined) tags.push(`[label: ${node.label}]`)
  const names = heads.get(node.nodeId)
  if (names) tags.push(`[head: ${names.join(', ')}]`)
  // An assistant message that only issued tool calls: name the calls (the call nodes follow it).
  const calls =
    node.type === 'message'
      ? (node.content ?? [])
          .filter((part) => part.type === 'tool_call')
          .map((part) => (part.type === 'tool_call' ? part.name : ''))
      : []
  const text =
    calls.length > 0 && (node.message?.content ?? '') === ''
      ? `(calls ${calls.join(', ')})`
      : oneLine(node.summary || (node.message?.content ?? ''), width)
  return `${node.nodeId} ${roleOf(node)}: ${text === '' ? '(empty)' : text}${tags.length > 0 ? ` ${tags.join(' ')}` : ''}${tree.cursor === node.nodeId ? ' ← cursor' : ''}`
}

interface Shape {
  readonly head: number
  readonly tail: number
  readonly around: number
  readonly depth: number
}

/** Render the outline with one elision shape. */
function outline(
  tree: SessionTree,
  options: Required<Pick<RenderOptions, 'width'>> & { from?: string },
  shape: Shape,
  { heads, onPath }: { heads: Map<string, string[]>; onPath: ReadonlySet<string> },
): { lines: string[]; abridged: boolean } {
  const lines: string[] = []
  let abridged = false

  const subtreeFacts = (start: string): { count: number; heads: string[] } => {
    let count = 0
    const names: string[] = []
    const stack = [start]
    while (stack.length > 0) {
      const id = stack.pop()!
      count++
      for (const name of heads.get(id) ?? []) names.push(name)
      stack.push(...tree.children(id))
    }
    return { count, heads: names }
  }

  /**
   * One linear run starting at `start`, then its forks: `first` prefixes the
   * run's first line (`↳ ` marks a fork), `body` the rest. Each fork's runs
   * are indented under their parent's text.
   */
  const block = (start: string, level: number, first: string, body: string): void => {
    const chain: TreeNode[] = []
    for (let id: string | undefined = start; id !== undefined;) {
      const node = tree.get(id)
      if (!node) break
      chain.push(node)
      const kids = tree.children(id)
      id = kids.length === 1 ? kids[0] : undefined
    }
    const keep = new Array<boolean>(chain.length).fill(false)
    const cursorAt = chain.findIndex((node) => node.nodeId === tree.cursor)
    chain.forEach((node, i) => {
      if (i < shape.head || i >= chain.length - shape.tail) keep[i] = true
      if (cursorAt !== -1 && Math.abs(i - cursorAt) <= shape.around) keep[i] = true
      if (node.label !== undefined || heads.has(node.nodeId)) keep[i] = true
    })
    let skipped = 0
    const flush = (): void => {
      if (skipped === 0) return
      lines.push(`${body}… ${skipped} more node${skipped === 1 ? '' : 's'} …`)
      abridged = true
      skipped = 0
    }
    chain.forEach((node, i) => {
      if (!keep[i]) {
        skipped++
        return
      }
      flush()
      lines.push(`${i === 0 ? first : body}${nodeLine(tree, node, options.width, heads)}`)
    })
    flush()
    const last = chain.at(-1)
    if (!last) return
    const kids = tree.children(last.nodeId)
    if (kids.length < 2) return
    for (const kid of kids) {
      if (level + 1 > shape.depth && !onPath.has(kid)) {
        const node = tree.get(kid)!
        const facts = subtreeFacts(kid)
        const more = facts.count - 1
        const detail = [
          more > 0 ? `+${more} node${more === 1 ? '' : 's'}` : '',
          facts.heads.length > 0 ? `heads: ${facts.heads.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join('; ')
        lines.push(`${body}  ↳ ${nodeLine(tree, node, options.width, new Map())}${detail ? ` (${detail})` : ''}`)
        if (more > 0) abridged = true
        continue
      }
      block(kid, level + 1, `${body}  ↳ `, `${body}    `)
    }
  }

  if (options.from !== undefined) {
    block(options.from, 0, '', '')
  } else {
    const roots = tree.children(null)
    if (roots.length === 1) block(roots[0]!, 0, '', '')
    else for (const root of roots) block(root, 0, '↳ ', '  ')
  }
  return { lines, abridged }
}

/**
 * The tree as an indented outline, bounded by `maxLines`. Tighter elision
 * shapes are tried until the outline fits; as a last resort the listing is
 * cut, keeping the cursor line.
 */
export function renderTree(tree: SessionTree, options: RenderOptions = {}): RenderedTree {
  const width = options.width ?? DEFAULT_WIDTH
  const maxLines = Math.max(1, options.maxLines ?? DEFAULT_MAX_LINES)
  const depth = Math.max(0, options.depth ?? DEFAULT_DEPTH)
  if (tree.nodeCount === 0) return { lines: ['(empty: no messages yet)'], abridged: false }
  const shapes: Shape[] = [
    { head: Number.MAX_SAFE_INTEGER, tail: 0, around: 0, depth },
    { head: 2, tail: 4, around: 2, depth },
    { head: 1, tail: 2, around: 1, depth },
    { head: 1, tail: 1, around: 1, depth: 0 },
  ]
  // The same for every shape tried.
  const facts = { heads: headsOf(tree), onPath: new Set(tree.currentPath().map((node) => node.nodeId)) }
  let result = { lines: [] as string[], abridged: false }
  for (const shape of shapes) {
    result = outline(tree, { width, ...(options.from === undefined ? {} : { from: options.from }) }, shape, facts)
    if (result.lines.length <= maxLines) return result
  }
  // Still too long (many labels, heads or roots): cut, but keep the cursor visible.
  const cut = result.lines.slice(0, maxLines)
  const cursorLine = result.lines.find((line) => line.endsWith('← cursor'))
  if (cursorLine !== undefined && !cut.includes(cursorLine)) cut.splice(maxLines - 1, 1, '…', cursorLine)
  cut.push(`… ${result.lines.length - maxLines} more lines cut`)
  return { lines: cut, abridged: true }
}

export interface FindOptions {
  /** Where to look: labels, message text, or both (default). */
  readonly by?: 'label' | 'text' | 'any'
  /** Maximum matches (default 10). */
  readonly limit?: number
  /** Nodes never to match by text (labels still match). */
  readonly skip?: (node: TreeNode) => boolean
}

/**
 * Nodes whose label or text contains `query` (case-insensitive). Exact label
 * matches come first, then the newest matches.
 */
export function findNodes(
  tree: SessionTree,
  query: string,
  options: FindOptions = {},
): { matches: TreeNode[]; total: number } {
  const needle = query.trim().toLowerCase()
  if (needle === '') return { matches: [], total: 0 }
  const by = options.by ?? 'any'
  const scored: { node: TreeNode; score: number; order: number }[] = []
  tree.list().forEach((node, order) => {
    const label = node.label?.toLowerCase()
    let score = 0
    if ((by === 'label' || by === 'any') && label !== undefined) {
      if (label === needle) score = 3
      else if (label.includes(needle)) score = 2
    }
    if (score === 0 && (by === 'text' || by === 'any') && !options.skip?.(node)) {
      const text = `${node.message?.content ?? ''}\n${node.summary}`.toLowerCase()
      if (text.includes(needle)) score = 1
    }
    if (score > 0) scored.push({ node, score, order })
  })
  scored.sort((a, b) => b.score - a.score || b.order - a.order)
  return { matches: scored.slice(0, Math.max(1, options.limit ?? 10)).map((entry) => entry.node), total: scored.length }
}

/**
 * Resolve what a person or the model typed as a node: an exact node id, an
 * exact label, or a label matching case-insensitively when that is unique.
 */
export function resolveNode(tree: SessionTree, text: string): string | undefined {
  const wanted = text.trim()
  if (wanted === '') return undefined
  if (tree.has(wanted)) return wanted
  const exact = tree.labeled(wanted)[0]
  if (exact) return exact.nodeId
  const folded = wanted.toLowerCase()
  const loose = tree.labeled().filter((node) => node.label?.toLowerCase() === folded)
  return loose.length === 1 ? loose[0]!.nodeId : undefined
}
