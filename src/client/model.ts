/**
 * The panel's view model, pure and framework-free: an index over one
 * `SessionTreeOutline`, the filters and search of Pi's `/tree`, and the row
 * layout (lanes, fork points, the cursor's path). Everything here is
 * iterative: a 100,000-deep linear chain lays out without recursion, and a
 * 10,000-node tree lays out in a few milliseconds.
 *
 * Layout rules (like `tree(1)`, but a linear chain does not indent): a node's
 * only child is drawn directly below it at the same depth; the children of a
 * fork point are drawn one level deeper, each starting with `├─` (`└─` for
 * the last), in creation order. A filtered-out node hands its children to its
 * nearest visible ancestor, so the shape of what remains is kept.
 */
import { argumentsText, oneLine } from '../tree/text.ts'
import type { ContentPart, SessionTreeOutline, TreeNode } from '../types.ts'

/** Pi-style filters. */
export type FilterMode = 'all' | 'no-tools' | 'user' | 'labeled'
export const FILTER_MODES: readonly FilterMode[] = ['all', 'no-tools', 'user', 'labeled']

/** What kind of entry a row shows (drives its badge). */
export type RowKind = 'user' | 'assistant' | 'system' | 'tool' | 'plugin' | 'model' | 'compaction' | 'summary' | 'custom'

/** Read-only index over one tree view; built once per fetched `list`. */
export interface TreeIndex {
  readonly view: SessionTreeOutline
  readonly byId: ReadonlyMap<string, TreeNode>
  /** Node ids parents-first (a node after its parent), in creation order otherwise. */
  readonly order: readonly string[]
  /** Direct children per node id (`null`: roots), creation order. */
  readonly children: ReadonlyMap<string | null, readonly string[]>
  /** Each node's parent as the index resolved it (`null`: a root, also when its parent is missing or itself). */
  readonly parentOf: ReadonlyMap<string, string | null>
  /** Root-to-cursor node ids. */
  readonly cursorPath: ReadonlySet<string>
  /** Branch names per head node id (active branch first). */
  readonly headsAt: ReadonlyMap<string, readonly string[]>
  /** Existing branch names and labels (for validating new ones). */
  readonly branchNames: ReadonlySet<string>
  readonly labels: ReadonlyMap<string, string>
  /** Nodes that no root reaches (a dangling or cyclic parent chain); never expected. */
  readonly unreachable: number
  /**
   * Tool-only assistant requests drawn as their tool call's row: the request
   * `read({...})` and the call `read(...) → result` are one exchange, one row.
   */
  readonly absorbed: ReadonlySet<string>
  /** The nodes the panel draws as rows when nothing is filtered (`byId.size - absorbed.size`). */
  readonly rowTotal: number
}

/** Build the index. Nodes whose parent is not in the view count as roots. */
export function indexTree(view: SessionTreeOutline): TreeIndex {
  const byId = new Map<string, TreeNode>()
  for (const node of view.nodes) if (!byId.has(node.nodeId)) byId.set(node.nodeId, node)
  const children = new Map<string | null, string[]>()
  const push = (parent: string | null, id: string): void => {
    const list = children.get(parent)
    if (list) list.push(id)
    else children.set(parent, [id])
  }
  const parentOf = new Map<string, string | null>()
  for (const node of byId.values()) {
    const parent = node.parentId !== null && byId.has(node.parentId) && node.parentId !== node.nodeId ? node.parentId : null
    parentOf.set(node.nodeId, parent)
    push(parent, node.nodeId)
  }
  // Parents-first order by an explicit-stack walk from the roots (preorder).
  const order: string[] = []
  const stack: string[] = [...(children.get(null) ?? [])].reverse()
  const seen = new Set<string>()
  while (stack.length > 0) {
    const id = stack.pop()!
    if (seen.has(id)) continue
    seen.add(id)
    order.push(id)
    const kids = children.get(id)
    if (kids) for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!)
  }
  const cursorPath = new Set<string>()
  let at: string | null = view.cursor
  for (let steps = 0; at !== null && steps <= byId.size; steps++) {
    const node = byId.get(at)
    if (!node || cursorPath.has(at)) break
    cursorPath.add(at)
    at = node.parentId
  }
  const heads = new Map<string, string>()
  for (const branch of view.branches) heads.set(branch.name, branch.headId)
  for (const [name, head] of Object.entries(view.branchHeads ?? {})) if (!heads.has(name)) heads.set(name, head)
  const headsAt = new Map<string, string[]>()
  for (const [name, head] of heads) {
    const list = headsAt.get(head)
    if (!list) headsAt.set(head, [name])
    else if (name === view.activeBranch) list.unshift(name)
    else list.push(name)
  }
  const labels = new Map<string, string>()
  for (const node of byId.values()) if (node.label !== undefined) labels.set(node.label, node.nodeId)
  const absorbed = new Set<string>()
  for (const node of byId.values()) if (absorbsIntoCall(node, children.get(node.nodeId), byId, view.cursor, headsAt)) absorbed.add(node.nodeId)
  return { view, byId, order, children, parentOf, cursorPath, headsAt, branchNames: new Set(heads.keys()), labels, unreachable: byId.size - order.length, absorbed, rowTotal: byId.size - absorbed.size }
}

/**
 * Whether a tool-only assistant request is drawn as its call's row: its only
 * child is the tool-call node of its first call, and nothing marks the request
 * itself (the cursor, a label, a branch head) that the call row would hide.
 */
function absorbsIntoCall(node: TreeNode, kids: readonly string[] | undefined, byId: ReadonlyMap<string, TreeNode>, cursor: string | null, headsAt: ReadonlyMap<string, readonly string[]>): boolean {
  if (kids?.length !== 1 || node.nodeId === cursor || node.label !== undefined || headsAt.has(node.nodeId) || !isToolRequest(node)) return false
  const first = parts(node).find((p) => p.type === 'tool_call')
  const child = byId.get(kids[0]!)
  const call = child?.type === 'tool_call' ? parts(child).find((p) => p.type === 'tool_call') : undefined
  return first?.type === 'tool_call' && call?.type === 'tool_call' && call.id === first.id
}

// ---------------------------------------------------------------------------
// Node text

function parts(node: TreeNode): readonly ContentPart[] {
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

// ---------------------------------------------------------------------------
// Filters and search

/** An assistant message that only requests tool calls (no text of its own). */
export function isToolRequest(node: TreeNode): boolean {
  if (rowKind(node) !== 'assistant' || (node.message?.content ?? '').trim() !== '') return false
  const content = parts(node)
  return content.some((p) => p.type === 'tool_call') && !content.some((p) => p.type === 'text' && p.text.trim() !== '')
}

/** Whether a node passes a filter. `no-tools` hides tool calls, results and tool-only requests. */
export function passesFilter(node: TreeNode, filter: FilterMode): boolean {
  switch (filter) {
    case 'all':
      return true
    case 'no-tools':
      return rowKind(node) !== 'tool' && !isToolRequest(node)
    case 'user':
      return rowKind(node) === 'user'
    case 'labeled':
      return node.label !== undefined
  }
}

/** Search text per node, computed on first use and kept for the index's lifetime. */
const searchCache = new WeakMap<TreeIndex, Map<string, string>>()

function cachedSearchText(index: TreeIndex, id: string, node: TreeNode): string {
  let cache = searchCache.get(index)
  if (!cache) {
    cache = new Map()
    searchCache.set(index, cache)
  }
  let text = cache.get(id)
  if (text === undefined) {
    text = searchText(node)
    cache.set(id, text)
  }
  return text
}

/** Normalised search query (trimmed, lower case); '' matches everything. */
export function normalizeQuery(query: string): string {
  return query.trim().toLowerCase()
}

/** Whether a node matches a normalised query. */
export function matchesQuery(index: TreeIndex, node: TreeNode, query: string): boolean {
  return query === '' || cachedSearchText(index, node.nodeId, node).includes(query)
}

// ---------------------------------------------------------------------------
// Layout

/** One gutter level: does the fork at that level have more children below? */
export interface GutterFrame {
  readonly parent: GutterFrame | null
  readonly more: boolean
}

export interface Row {
  readonly id: string
  readonly node: TreeNode
  /** Indentation level (fork nesting). */
  readonly depth: number
  /** Gutter chain of this row's levels (innermost first); length == depth. */
  readonly frame: GutterFrame | null
  /** First row of one child of a fork point (drawn with `├─` / `└─`). */
  readonly branchStart: boolean
  /** The visible parent (nearest visible ancestor), or null. */
  readonly parentId: string | null
  /** True when the tree parent is hidden by the filter (the row hangs off an ancestor). */
  readonly elided: boolean
  /** Visible children. */
  readonly childCount: number
  /** All direct children in the tree (a fork point has two or more). */
  readonly forkCount: number
  /** A fork point of the layout (two or more visible children): it can be folded. */
  readonly foldable: boolean
  /** Folded: how many rows below it are hidden. */
  readonly hidden?: number
}

export interface Layout {
  readonly rows: readonly Row[]
  /** Row index per node id (visible rows only). */
  readonly indexOf: ReadonlyMap<string, number>
  /** Rows of the whole tree, unfiltered and unfolded (`TreeIndex.rowTotal`). */
  readonly total: number
  /** Rows that matched: `rows.length` plus the rows folds hide. */
  readonly shown: number
}

export interface LayoutOptions {
  readonly filter?: FilterMode
  /** Raw query; see `normalizeQuery`. */
  readonly query?: string
  /** Fork points whose branches are folded away (as Pi's `/tree` folds). */
  readonly folded?: ReadonlySet<string>
}

/**
 * Lay the tree out as rows. O(n) time and memory, no recursion: one pass
 * assigns every visible node to its nearest visible ancestor, one explicit-
 * stack walk emits rows. The gutter of a row is a shared parent-linked chain,
 * so storing it costs O(1) per row (rendering walks it for visible rows only).
 */
export function layoutTree(index: TreeIndex, options: LayoutOptions = {}): Layout {
  const filter = options.filter ?? 'all'
  const query = normalizeQuery(options.query ?? '')
  const everything = filter === 'all' && query === ''
  const folded = options.folded
  const absorbed = index.absorbed
  const visible = (node: TreeNode): boolean => !absorbed.has(node.nodeId) && (everything || (passesFilter(node, filter) && matchesQuery(index, node, query)))

  // Visible parent of each visible node, and visible children per visible parent.
  const kids = new Map<string | null, string[]>()
  // Nearest visible ancestor-or-self of every node seen so far (parents come first in `order`).
  const anchorOf = new Map<string, string | null>()
  const elided = new Set<string>()
  for (const id of index.order) {
    const node = index.byId.get(id)!
    const treeParent = index.parentOf.get(id) ?? null
    const parentAnchor = treeParent === null ? null : (anchorOf.get(treeParent) ?? null)
    if (visible(node)) {
      anchorOf.set(id, id)
      const list = kids.get(parentAnchor)
      if (list) list.push(id)
      else kids.set(parentAnchor, [id])
      // A request drawn as its call's row hides nothing: the line stays solid.
      const drawnParent = treeParent !== null && absorbed.has(treeParent) ? (index.parentOf.get(treeParent) ?? null) : treeParent
      if (parentAnchor !== drawnParent) elided.add(id)
    } else {
      anchorOf.set(id, parentAnchor)
    }
  }
  interface Pending {
    readonly id: string
    readonly parentId: string | null
    readonly depth: number
    readonly frame: GutterFrame | null
    readonly branchStart: boolean
  }
  const rows: Row[] = []
  const indexOf = new Map<string, number>()
  const stack: Pending[] = []
  const pushChildren = (parentId: string | null, list: readonly string[], depth: number, frame: GutterFrame | null): void => {
    if (list.length === 1) {
      stack.push({ id: list[0]!, parentId, depth, frame, branchStart: false })
      return
    }
    for (let i = list.length - 1; i >= 0; i--) {
      stack.push({ id: list[i]!, parentId, depth: depth + 1, frame: { parent: frame, more: i < list.length - 1 }, branchStart: true })
    }
  }
  pushChildren(null, kids.get(null) ?? [], 0, null)
  while (stack.length > 0) {
    const item = stack.pop()!
    const node = index.byId.get(item.id)!
    const visibleKids = kids.get(item.id) ?? []
    const foldable = visibleKids.length > 1
    const fold = foldable && folded?.has(item.id) === true
    indexOf.set(item.id, rows.length)
    rows.push({
      id: item.id,
      node,
      depth: item.depth,
      frame: item.frame,
      branchStart: item.branchStart,
      parentId: item.parentId,
      elided: elided.has(item.id),
      childCount: fold ? 0 : visibleKids.length,
      forkCount: index.children.get(item.id)?.length ?? 0,
      foldable,
      ...(fold ? { hidden: countBelow(kids, item.id) } : {}),
    })
    if (visibleKids.length > 0 && !fold) pushChildren(item.id, visibleKids, item.depth, item.frame)
  }
  // Matches hidden by a fold still count as shown: the fold row says how many it holds.
  let shown = rows.length
  for (const row of rows) shown += row.hidden ?? 0
  return { rows, indexOf, total: index.rowTotal, shown }
}

/** Visible descendants of a row (explicit stack; each folded subtree is walked once per layout). */
function countBelow(kids: ReadonlyMap<string | null, readonly string[]>, id: string): number {
  let count = 0
  const stack = [...(kids.get(id) ?? [])]
  while (stack.length > 0) {
    const next = stack.pop()!
    count += 1
    for (const kid of kids.get(next) ?? []) stack.push(kid)
  }
  return count
}

/** The fold set without the folds that hide `id` (its ancestors), so that row shows. */
export function unfoldTo(index: TreeIndex, folded: ReadonlySet<string>, id: string | null): ReadonlySet<string> {
  if (id === null || folded.size === 0) return folded
  let next: Set<string> | undefined
  for (let at = index.parentOf.get(id) ?? null, steps = 0; at !== null && steps <= index.byId.size; at = index.parentOf.get(at) ?? null, steps++) {
    if (folded.has(at)) (next ??= new Set(folded)).delete(at)
  }
  return next ?? folded
}

/** Gutter glyph of one level. */
export type Glyph = 'pipe' | 'tee' | 'elbow' | 'blank'

/**
 * The gutter of a row, outermost level first, at most `max` levels (the
 * innermost ones; `clipped` says how many outer levels were left out).
 */
export function gutter(row: Row, max = 12): { glyphs: Glyph[]; clipped: number } {
  const glyphs: Glyph[] = []
  let frame = row.frame
  let innermost = true
  while (frame !== null && glyphs.length < max) {
    if (innermost && row.branchStart) glyphs.push(frame.more ? 'tee' : 'elbow')
    else glyphs.push(frame.more ? 'pipe' : 'blank')
    innermost = false
    frame = frame.parent
  }
  glyphs.reverse()
  return { glyphs, clipped: row.depth - glyphs.length }
}

// ---------------------------------------------------------------------------
// Virtual window

/** The slice of rows to render for a scroll position (overscan on both sides). */
export function visibleRange(scrollTop: number, viewportHeight: number, rowHeight: number, count: number, overscan = 8): { start: number; end: number } {
  if (count === 0 || rowHeight <= 0) return { start: 0, end: 0 }
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight)
  const last = Math.ceil((Math.max(0, scrollTop) + Math.max(0, viewportHeight)) / rowHeight)
  const start = Math.max(0, Math.min(count, first - overscan))
  const end = Math.max(start, Math.min(count, last + overscan))
  return { start, end }
}

/** The scrollTop that brings a row into view (unchanged when it already is). */
export function scrollToReveal(rowIndex: number, scrollTop: number, viewportHeight: number, rowHeight: number): number {
  const top = rowIndex * rowHeight
  const bottom = top + rowHeight
  if (top < scrollTop) return top
  if (bottom > scrollTop + viewportHeight) return Math.max(0, bottom - viewportHeight)
  return scrollTop
}

/** Lane colour slot of a branch name (stable, 8 slots; '' → none). */
export function laneColor(branch: string): number {
  if (!branch) return -1
  let hash = 0
  for (let i = 0; i < branch.length; i++) hash = (hash * 31 + branch.charCodeAt(i)) | 0
  return Math.abs(hash) % 8
}

/** Split `text` around case-insensitive occurrences of a normalised query (for highlighting). */
export function highlight(text: string, query: string): Array<{ text: string; match: boolean }> {
  if (query === '') return [{ text, match: false }]
  const lower = text.toLowerCase()
  const out: Array<{ text: string; match: boolean }> = []
  let from = 0
  for (let at = lower.indexOf(query); at !== -1 && out.length < 64; at = lower.indexOf(query, at + query.length)) {
    if (at > from) out.push({ text: text.slice(from, at), match: false })
    out.push({ text: text.slice(at, at + query.length), match: true })
    from = at + query.length
  }
  if (from < text.length) out.push({ text: text.slice(from), match: false })
  return out
}
