/**
 * `compare(tree, a, b)`: two nodes of one tree side by side. Each path is walked root → node once (O(depth)); after
 * the common ancestor the two sides are aligned by node kind (Myers over the kinds, so an inserted tool call does
 * not shift every later pair) and each pair is diffed (`compare-node.ts`). All text diffs of one compare share one
 * work budget, and a diff past its bounds says so (`whole`) instead of running long (docs/compare.md, "Bounds").
 */
import { compareNode, kindKey, nodeDiff, sameNode, tokensOf } from './compare-node.ts'
import type { CompareLimits, CompareNode, CompareRow, CompareSide, Comparison, SideTotals } from './compare-types.ts'
import { diffIds, MAX_DIFF_EDITS, MAX_DIFF_TOKENS, TooLarge, type DiffBudget } from './diff.ts'
import { ok, type TreeResult } from './errors.ts'
import type { SessionTree } from './session-tree.ts'
import type { TreeEntry } from './types.ts'
import { checkNode } from './validate.ts'

/** Work all text diffs of one compare may spend (Myers steps; about a second of diffing on a slow machine). */
export const COMPARE_BUDGET = 50_000_000

/** Most nodes per side the path alignment diffs; longer paths pair by position. */
const MAX_ALIGN_EDITS = 2_000

function sideTotals(entries: readonly TreeEntry[]): SideTotals {
  const usage: Record<string, number> = {}
  let tokens: number | null = null
  let cost: number | null = null
  let messages = 0
  let withUsage = 0
  let assistants = 0
  for (const entry of entries) {
    if (entry.message) messages++
    if (entry.message?.role === 'assistant' && entry.type === 'message') assistants++
    if (entry.usage) {
      withUsage++
      for (const [key, value] of Object.entries(entry.usage))
        if (typeof value === 'number' && Number.isFinite(value)) usage[key] = (usage[key] ?? 0) + value
      const own = tokensOf(entry)
      if (own !== undefined) tokens = (tokens ?? 0) + own
    }
    if (typeof entry.cost === 'number' && Number.isFinite(entry.cost)) cost = (cost ?? 0) + entry.cost
  }
  return {
    nodes: entries.length,
    messages,
    usage,
    tokens,
    cost,
    nodesWithUsage: withUsage,
    assistantMessages: assistants,
  }
}

/** One aligned row before its diff: a pair of the same kind, or a node only one side has. */
type Aligned =
  readonly [CompareNode, CompareNode] | readonly [CompareNode, undefined] | readonly [undefined, CompareNode]

/** Pair nodes of the same kind where the alignment matches them; the rest stand alone, A's before B's. */
function align(as: readonly CompareNode[], bs: readonly CompareNode[]): Aligned[] {
  const ids = new Map<string, number>()
  const idsOf = (nodes: readonly CompareNode[]) =>
    Int32Array.from(nodes, (node) => {
      const key = kindKey(node)
      let id = ids.get(key)
      if (id === undefined) ids.set(key, (id = ids.size))
      return id
    })
  const ia = idsOf(as)
  const ib = idsOf(bs)
  // The alignment's own work is bounded apart from the text budget: a long path must not starve the diffs.
  const runs = diffIds(ia, ib, MAX_ALIGN_EDITS, { left: 20 * (as.length + bs.length + 1) * MAX_ALIGN_EDITS })
  const rows: Aligned[] = []
  if (runs instanceof TooLarge) {
    // Too different to align: pair by position where the kinds agree.
    for (let i = 0; i < Math.max(as.length, bs.length); i++) {
      const a = as[i]
      const b = bs[i]
      if (a && b && ia[i] === ib[i]) rows.push([a, b])
      else {
        if (a) rows.push([a, undefined])
        if (b) rows.push([undefined, b])
      }
    }
    return rows
  }
  let j = 0
  for (const run of runs) {
    if (run.kind === 'same') {
      for (let i = run.from; i < run.to; i++) rows.push([as[i]!, bs[j++]!])
    } else if (run.kind === 'removed') {
      for (let i = run.from; i < run.to; i++) rows.push([as[i]!, undefined])
    } else {
      for (let i = run.from; i < run.to; i++) rows.push([undefined, bs[i]!])
      j = run.to
    }
  }
  return rows
}

/** The first `maxRows` aligned rows diffed; the rest only counted. */
function diffRows(
  aligned: readonly Aligned[],
  limits: Required<CompareLimits>,
): { rows: CompareRow[]; changed: number } {
  const budget: DiffBudget = { left: limits.budget }
  const rows: CompareRow[] = []
  let changed = 0
  for (const [i, [a, b]] of aligned.entries()) {
    if (i >= limits.maxRows) {
      if (!a || !b || !sameNode(a, b)) changed++
      continue
    }
    let row: CompareRow
    if (a && b)
      row = {
        kind: 'pair',
        a,
        b,
        diff: nodeDiff(a, b, { maxTokens: limits.maxTokens, maxEdits: limits.maxEdits, budget }),
      }
    else row = a ? { kind: 'only_a', a } : { kind: 'only_b', b: b! }
    if (row.kind !== 'pair' || !row.diff.same) changed++
    rows.push(row)
  }
  return { rows, changed }
}

/**
 * Compare two nodes of a tree: their last common ancestor, their paths after
 * it aligned, per-pair diffs and per-side totals.
 * INVALID_ARGUMENT for a malformed id, NODE_NOT_FOUND for an unknown one,
 * TREE_CORRUPT when a path cannot be walked.
 */
export function compare(tree: SessionTree, a: unknown, b: unknown, limits: CompareLimits = {}): TreeResult<Comparison> {
  const idA = checkNode(tree, a, 'a')
  if (!idA.ok) return idA
  const idB = checkNode(tree, b, 'b')
  if (!idB.ok) return idB
  const pathA = tree.path(idA.value)
  if (!pathA.ok) return pathA
  const pathB = tree.path(idB.value)
  if (!pathB.ok) return pathB
  let common = 0
  const pa = pathA.value
  const pb = pathB.value
  while (common < pa.length && common < pb.length && pa[common]!.nodeId === pb[common]!.nodeId) common++
  const restA = pa.slice(common)
  const restB = pb.slice(common)
  const bounds: Required<CompareLimits> = {
    maxTokens: limits.maxTokens ?? MAX_DIFF_TOKENS,
    maxEdits: limits.maxEdits ?? MAX_DIFF_EDITS,
    budget: limits.budget ?? COMPARE_BUDGET,
    maxRows: limits.maxRows ?? Number.POSITIVE_INFINITY,
  }
  const aligned = align(restA.map(compareNode), restB.map(compareNode))
  const { rows, changed } = diffRows(aligned, bounds)
  const side = (id: string, rest: readonly TreeEntry[]): CompareSide => ({
    nodeId: id,
    branch: tree.laneOf(id) ?? '',
    path: rest.map((entry) => entry.nodeId),
    totals: sideTotals(rest),
  })
  return ok({
    ancestor: common === 0 ? null : pa[common - 1]!.nodeId,
    commonLength: common,
    a: side(idA.value, restA),
    b: side(idB.value, restB),
    rows,
    omittedRows: aligned.length - rows.length,
    changedRows: changed,
  })
}
