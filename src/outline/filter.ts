/**
 * Pi's `/tree` filters and search: which nodes pass a filter, a normalised
 * query matched against each node's search text (computed once per index),
 * and the highlighted pieces of a matching text.
 */
import type { TreeNode } from '../tree/types.ts'
import { isToolRequest, rowKind, searchText } from './node-text.ts'
import type { TreeIndex } from './tree-index.ts'

/** Pi-style filters. */
export type FilterMode = 'all' | 'no-tools' | 'user' | 'labeled'
export const FILTER_MODES: readonly FilterMode[] = ['all', 'no-tools', 'user', 'labeled']

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
