/**
 * The checks the property runner makes: result and failure helpers, state
 * fingerprints (a failed operation must leave the tree byte-identical), and
 * the full invariant sweeps — everything recomputed from `list()` against the
 * model, snapshot round trips, and snapshot + log replay.
 */
import { SessionTree, type LlmMessage, type TreeNode } from '../../src/tree/index.ts'
import { SESSION } from './tree-arbitraries.ts'
import { entryHistory, modelMessages, type Model } from './tree-model.ts'

export class Failure extends Error {}

export function fails(message: string, data?: unknown): never {
  throw new Failure(data === undefined ? message : `${message}: ${safeJson(data)}`)
}

export function safeJson(value: unknown): string {
  try {
    const text = JSON.stringify(value)
    return text === undefined ? String(value) : text.length > 2000 ? `${text.slice(0, 2000)}…` : text
  } catch {
    return String(value)
  }
}

export function check(condition: unknown, message: string, data?: unknown): void {
  if (!condition) fails(message, data)
}

export function sameJson(a: unknown, b: unknown, message: string): void {
  const x = JSON.stringify(a)
  const y = JSON.stringify(b)
  if (x !== y) fails(`${message}\n  got:      ${x?.slice(0, 1500)}\n  expected: ${y?.slice(0, 1500)}`)
}

/**
 * Identity of a tree state, at three costs: `quick` (O(branches): the
 * position, counters and log seq), `state` (plus every mark — branches,
 * summaries, history — and the newest nodes, still without encoding the tree)
 * and `full` (plus the snapshot JSON, byte for byte). `full` runs on every
 * failure of a small tree and on a sample of the rest.
 */
export interface Fingerprint {
  quick: string
  rest?: string
  full?: string
}

export type Depth = 'quick' | 'state' | 'full'

/** How many of the newest nodes a `state` fingerprint compares. */
const NEWEST = 32

export function fingerprint(tree: SessionTree, depth: Depth, ids: readonly string[] = []): Fingerprint {
  const info = tree.info()
  const quick = JSON.stringify([
    tree.logSeq,
    info.nodeCount,
    info.cursor,
    info.activeBranch,
    info.selectedNodeId,
    info.branchCount,
    info.labelCount,
    info.canGoBack,
    info.canGoForward,
    info.messageCount,
  ])
  if (depth === 'quick') return { quick }
  const newest = ids.slice(-NEWEST).map((id) => tree.get(id))
  const rest = JSON.stringify([tree.branchHeadList(), tree.summaries(), tree.navigation(), info, newest])
  return depth === 'full' ? { quick, rest, full: JSON.stringify(tree.snapshot()) } : { quick, rest }
}

export function assertUnchanged(
  tree: SessionTree,
  before: Fingerprint,
  what: string,
  ids: readonly string[] = [],
): void {
  const after = fingerprint(
    tree,
    before.full !== undefined ? 'full' : before.rest !== undefined ? 'state' : 'quick',
    ids,
  )
  if (before.full !== undefined && after.full !== before.full) {
    fails(
      `${what} changed the snapshot\n  before: ${before.full.slice(0, 1500)}\n  after:  ${after.full!.slice(0, 1500)}`,
    )
  }
  check(after.quick === before.quick, `${what} changed the tree`, { before: before.quick, after: after.quick })
  if (before.rest !== undefined)
    check(after.rest === before.rest, `${what} changed the marks or the newest nodes`, {
      before: before.rest,
      after: after.rest,
    })
}

/**
 * Branch heads of a snapshot, in its order: `branches` ([name, head] pairs in
 * creation order) or, in the first snapshot format, the `branchHeads` record.
 */
export function headsOf(snapshot: unknown): [string, string][] {
  const s = snapshot as { branches?: unknown; branchHeads?: unknown }
  if (Array.isArray(s.branches)) return (s.branches as [string, string][]).map(([name, head]) => [name, head])
  return Object.entries((s.branchHeads ?? {}) as Record<string, string>)
}

/** The snapshot field holding the branch heads. */
export function headsField(snapshot: Record<string, unknown>): 'branches' | 'branchHeads' {
  return Array.isArray(snapshot.branches) || !('branchHeads' in snapshot) ? 'branches' : 'branchHeads'
}

/** Context around the first difference of two strings. */
export function firstDiff(got: string, expected: string): string {
  let i = 0
  while (i < got.length && got[i] === expected[i]) i++
  return `…${got.slice(Math.max(0, i - 200), i + 200)}…\n  expected: …${expected.slice(Math.max(0, i - 200), i + 200)}…`
}

/** A snapshot to replay the log from. */
export interface ReplayBase {
  json: string
  logSeq: number
}

/** Everything, recomputed from list(). O(n). */
export function fullCheck(tree: SessionTree, m: Model): void {
  const list = tree.list()
  sameJson(
    list.map((n) => n.nodeId),
    m.ids,
    'list() ids vs model',
  )
  const byId = new Map<string, TreeNode>()
  const children = new Map<string, number>()
  list.forEach((node, i) => {
    check(!byId.has(node.nodeId), `duplicate node id ${node.nodeId}`)
    check(node.parentId === m.parent.get(node.nodeId), `node ${node.nodeId} changed parent`, node)
    if (node.parentId !== null) {
      check(node.parentId !== node.nodeId, `node ${node.nodeId} is its own parent`)
      check(byId.has(node.parentId), `node #${i} ${node.nodeId} does not follow its parent ${node.parentId}`)
      children.set(node.parentId, (children.get(node.parentId) ?? 0) + 1)
    }
    byId.set(node.nodeId, node)
  })
  // Every node reaches a root through existing parents (memoized walk, cycle-proof).
  const reaches = new Set<string>()
  for (const node of list) {
    const trail = new Set<string>()
    for (let id: string | null = node.nodeId; id !== null && !reaches.has(id);) {
      check(!trail.has(id), `parent cycle through ${id}`)
      trail.add(id)
      const n = byId.get(id)
      check(n !== undefined, `node ${node.nodeId} reaches a missing node ${id}`)
      id = n!.parentId
    }
    for (const id of trail) reaches.add(id)
  }
  // forkCount, labels, lanes.
  const labels = new Map<string, string>()
  for (const node of list) {
    check((node.forkCount ?? 0) === (children.get(node.nodeId) ?? 0), `forkCount of ${node.nodeId}`, node)
    if (node.label !== undefined) {
      check(!labels.has(node.label), `label ${node.label} is on two nodes`)
      labels.set(node.label, node.nodeId)
    }
  }
  sameJson([...labels].sort(), [...m.labels].sort(), 'labels vs model')
  for (const [callId, nodeId] of m.toolCalls)
    check(
      tree.findToolCallNode(callId)?.nodeId === nodeId,
      `findToolCallNode(${callId}) vs model ${nodeId}`,
      tree.findToolCallNode(callId),
    )
  sameJson(
    tree.labeled().map((n) => n.nodeId),
    list.filter((n) => n.label !== undefined).map((n) => n.nodeId),
    'labeled() vs list()',
  )
  // Messages of the cursor: the tree, its path, an independent walk of list(), and the model agree.
  const walk = (from: string | null): { messages: LlmMessage[]; length: number } => {
    const nodes: TreeNode[] = []
    for (let id = from; id !== null; id = byId.get(id)!.parentId) nodes.push(byId.get(id)!)
    return { messages: entryHistory(nodes.reverse()), length: nodes.length }
  }
  const cursorWalk = walk(tree.cursor)
  sameJson(tree.messages(tree.cursor), cursorWalk.messages, 'messages(cursor) vs walk of list()')
  sameJson(tree.messages(), modelMessages(m, m.cursor), 'messages() vs model')
  const path = tree.path()
  check(path.ok, 'path() failed')
  if (path.ok) {
    sameJson(
      path.value.map((e) => e.nodeId),
      tree.currentPath().map((n) => n.nodeId),
      'path() vs currentPath()',
    )
    sameJson(entryHistory(path.value), tree.messages(), 'messages() vs the history of path()')
  }
  // A few other nodes.
  for (let k = 0; k < Math.min(5, list.length); k++) {
    const id = list[(k * 7919) % list.length]!.nodeId
    sameJson(tree.messages(id), walk(id).messages, `messages(${id}) vs walk`)
    sameJson(tree.messages(id), modelMessages(m, id), `messages(${id}) vs model`)
  }
  // info() recomputed from list().
  const info = tree.info()
  check(info.nodeCount === list.length, 'info.nodeCount')
  check(info.messageCount === list.filter((n) => n.message !== undefined).length, 'info.messageCount', info)
  check(info.currentPathLength === cursorWalk.length, 'info.currentPathLength', info)
  check(
    info.cursor === tree.cursor && info.activeBranch === tree.activeBranch && info.selectedNodeId === tree.selectedNode,
    'info position',
  )
  // Branch heads exist; branches() agrees with the heads and with list().
  const branches = tree.branches()
  sameJson(branches.map((b) => b.name).sort(), [...m.heads.keys()].sort(), 'branches() names vs model')
  check(
    branches.length === 0 || branches[0]!.name === tree.activeBranch || !m.heads.has(tree.activeBranch),
    'the active branch is listed first',
  )
  const lanes = new Map<string, Set<string>>()
  for (const branch of branches) {
    check(byId.has(branch.headId) && branch.headId === m.heads.get(branch.name), `branch ${branch.name} head`, branch)
    const ids: string[] = []
    for (let id: string | null = branch.headId; id !== null; id = byId.get(id)!.parentId) ids.push(id)
    sameJson(branch.nodeIds, ids.reverse(), `branch ${branch.name} path`)
    lanes.set(branch.name, new Set(ids))
    const summary = m.summaries.get(branch.name)
    check(
      summary === undefined
        ? branch.summary === undefined
        : branch.summary?.summary === summary.text && branch.summary.nodeId === summary.nodeId,
      `summary of ${branch.name}`,
      branch,
    )
  }
  for (const node of list)
    check(
      node.branch === '' || lanes.get(node.branch)?.has(node.nodeId),
      `lane of ${node.nodeId} is ${node.branch}, whose path lacks it`,
    )
  sameJson(Object.entries(info.branchHeads ?? {}).sort(), [...m.heads].sort(), 'info.branchHeads vs model')
  // view() is the same data.
  const view = tree.view()
  sameJson(view.nodes, list, 'view().nodes vs list()')
  sameJson(view.branches, branches, 'view().branches vs branches()')
  sameJson(
    [view.cursor, view.activeBranch, view.selectedNodeId, view.branchHeads],
    [info.cursor, info.activeBranch, info.selectedNodeId, info.branchHeads],
    'view() header',
  )
  const exported = tree.linearExport()
  check(exported.ok, 'linearExport failed')
  if (exported.ok) {
    // The model's messages, each assistant one with the tool calls it requested.
    sameJson(
      exported.value.messages.map(({ toolCalls: _, ...message }) => message),
      tree.messages(),
      'linearExport messages',
    )
    const calls = exported.value.messages.filter((m) => m.toolCalls !== undefined)
    check(
      calls.every((m) => m.role === 'assistant' && m.toolCalls!.length > 0),
      'toolCalls only on assistant messages that made calls',
      calls,
    )
  }
  // snapshot → JSON → restore → snapshot is byte-identical, and the restored tree reads the same.
  const json = JSON.stringify(tree.snapshot())
  let restored: SessionTree
  try {
    restored = new SessionTree(SESSION, JSON.parse(json))
  } catch (error) {
    fails(`a snapshot of the tree does not restore: ${(error as Error).message}`)
  }
  const again = JSON.stringify(restored.snapshot())
  if (again !== json) fails(`snapshot → restore → snapshot differs\n  restored: ${firstDiff(again, json)}`)
  sameJson(restored.info(), info, 'info() of the restored tree')
  sameJson(restored.view(), view, 'view() of the restored tree')
}

/** Snapshot S + replay(log after S) reproduces the tree exactly (journal semantics). */
export function replayCheck(tree: SessionTree, bases: readonly ReplayBase[]): void {
  const json = JSON.stringify(tree.snapshot())
  for (const base of bases) {
    const replica = new SessionTree(SESSION, JSON.parse(base.json))
    const records = JSON.parse(JSON.stringify(tree.log(base.logSeq))) as unknown[]
    const result = replica.replay(records)
    if (!result.ok) fails(`replay from logSeq ${base.logSeq} failed`, result.error)
    const replayed = JSON.stringify(replica.snapshot())
    if (replayed !== json)
      fails(
        `snapshot(logSeq ${base.logSeq}) + replay(${records.length} records) differs from the tree\n  replayed: ${firstDiff(replayed, json)}`,
      )
    sameJson(replica.view(), tree.view(), `view() after replay from logSeq ${base.logSeq}`)
    sameJson(replica.info(), tree.info(), `info() after replay from logSeq ${base.logSeq}`)
  }
}
