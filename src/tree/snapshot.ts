/**
 * The snapshot codec: a tree's complete state as one versioned JSON value,
 * and back. Loading validates everything before it builds anything, so a
 * malformed snapshot (`Invalid`, turned into `INVALID_SNAPSHOT` by the tree)
 * leaves nothing half-loaded.
 */
import { checkEntry } from './entry.ts'
import type { Rec } from './nodes.ts'
import { HISTORY_LIMIT, type TreeState } from './state.ts'
import { SNAPSHOT_VERSION, type BranchSummary, type SessionTreeSnapshot, type TreeEntry, type TreePosition } from './types.ts'
import { checkBranchName, checkNodeId, checkPosition, checkSummary, deepFreeze, Invalid, isRecord, type Mutable } from './validate.ts'

/** Where a tree was cloned from. */
export type ClonedFrom = { readonly sessionId: string; readonly nodeId: string | null }

/** Facts about a tree that live outside its state. */
export interface SnapshotMeta {
  readonly sessionId: string
  readonly logSeq: number
  readonly clonedFrom: ClonedFrom | undefined
}

/** Versioned, complete, immutable snapshot (entries are shared, not copied). */
export function encodeSnapshot(state: TreeState, meta: SnapshotMeta): SessionTreeSnapshot {
  const snapshot: Mutable<SessionTreeSnapshot> = {
    version: SNAPSHOT_VERSION,
    sessionId: meta.sessionId,
    nodes: state.nodes.order.map((rec) => rec.entry),
    cursor: state.cursorId,
    activeBranch: state.active,
    selectedNodeId: state.selected?.entry.nodeId ?? null,
    branches: state.branches.pairs(),
    summaries: [...state.summaries.values()],
    history: { back: [...state.back], forward: [...state.forward] },
    logSeq: meta.logSeq,
  }
  if (meta.clonedFrom) snapshot.clonedFrom = meta.clonedFrom
  return snapshot
}

/** A snapshot that passed validation: everything needed to build the tree. */
interface Decoded {
  readonly entries: TreeEntry[]
  readonly cursor: string | null
  readonly selected: string | null
  readonly active: string
  readonly heads: Map<string, string>
  readonly summaries: BranchSummary[]
  readonly back: TreePosition[]
  readonly forward: TreePosition[]
  readonly logSeq: number
  readonly clonedFrom: ClonedFrom | undefined
}

/** Validate a snapshot of session `sessionId`; throws `Invalid` naming the first problem. */
export function decodeSnapshot(raw: unknown, sessionId: string): Decoded {
  if (!isRecord(raw)) throw new Invalid('snapshot must be an object')
  if (raw.version !== SNAPSHOT_VERSION) throw new Invalid(`snapshot version ${JSON.stringify(raw.version)} is not ${SNAPSHOT_VERSION}`)
  if (raw.sessionId !== sessionId) throw new Invalid(`snapshot belongs to session ${JSON.stringify(raw.sessionId)}, not ${JSON.stringify(sessionId)}`)
  if (!Array.isArray(raw.nodes)) throw new Invalid('snapshot.nodes must be an array')
  const entries: TreeEntry[] = raw.nodes.map((node, i) => checkEntry(node, `snapshot.nodes[${i}]`))
  const position = checkStructure(entries)
  const nodeRef = (value: unknown, where: string): string | null => {
    if (value === null || value === undefined) return null
    const id = checkNodeId(value, where)
    if (!position.has(id)) throw new Invalid(`${where} points at a missing node ${id}`)
    return id
  }
  if (!Object.hasOwn(raw, 'cursor') || !Object.hasOwn(raw, 'selectedNodeId')) throw new Invalid('snapshot.cursor and snapshot.selectedNodeId are required (null or a node id)')
  const cursor = nodeRef(raw.cursor, 'snapshot.cursor')
  const selected = nodeRef(raw.selectedNodeId, 'snapshot.selectedNodeId')
  const active = checkBranchName(raw.activeBranch, 'snapshot.activeBranch')
  if (active !== raw.activeBranch) throw new Invalid('snapshot.activeBranch is not trimmed')
  if (!Array.isArray(raw.branches)) throw new Invalid('snapshot.branches must be an array of [name, head]')
  const heads = new Map<string, string>()
  raw.branches.forEach((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) throw new Invalid(`snapshot.branches[${i}] must be [name, head]`)
    const name = checkBranchName(pair[0], `snapshot.branches[${i}] name`)
    if (name !== pair[0]) throw new Invalid(`snapshot branch name ${JSON.stringify(pair[0])} is not trimmed`)
    if (heads.has(name)) throw new Invalid(`snapshot branch ${JSON.stringify(name)} appears twice`)
    const head = nodeRef(pair[1], `snapshot.branches[${i}] head`)
    if (head === null) throw new Invalid(`snapshot.branches[${i}] head must be a node id`)
    heads.set(name, head)
  })
  if (!Array.isArray(raw.summaries)) throw new Invalid('snapshot.summaries must be an array')
  const summaries = raw.summaries.map((s, i) => checkSummary(s, `snapshot.summaries[${i}]`))
  const summarized = new Set<string>()
  for (const summary of summaries) {
    if (!heads.has(summary.branch)) throw new Invalid(`snapshot summary of unknown branch ${summary.branch}`)
    if (summarized.has(summary.branch)) throw new Invalid(`snapshot has two summaries of branch ${summary.branch}`)
    summarized.add(summary.branch)
    nodeRef(summary.nodeId, `snapshot summary of ${summary.branch}`)
  }
  if (!isRecord(raw.history) || !Array.isArray(raw.history.back) || !Array.isArray(raw.history.forward)) {
    throw new Invalid('snapshot.history must be { back: [], forward: [] }')
  }
  const positions = (list: unknown[], where: string): TreePosition[] => list.map((p, i) => {
    const position = checkPosition(p, `${where}[${i}]`)
    nodeRef(position.cursor, `${where}[${i}].cursor`)
    return position
  })
  const back = positions(raw.history.back, 'snapshot.history.back')
  const forward = positions(raw.history.forward, 'snapshot.history.forward')
  if (back.length > HISTORY_LIMIT || forward.length > HISTORY_LIMIT) throw new Invalid(`snapshot.history keeps more than ${HISTORY_LIMIT} positions`)
  if (typeof raw.logSeq !== 'number' || !Number.isSafeInteger(raw.logSeq) || raw.logSeq < 0) {
    throw new Invalid('snapshot.logSeq must be a non-negative integer')
  }
  let clonedFrom: ClonedFrom | undefined
  if (raw.clonedFrom !== undefined) {
    const c = raw.clonedFrom
    if (!isRecord(c) || typeof c.sessionId !== 'string' || !(c.nodeId === null || typeof c.nodeId === 'string')) {
      throw new Invalid('snapshot.clonedFrom must be { sessionId, nodeId }')
    }
    clonedFrom = { sessionId: c.sessionId, nodeId: c.nodeId }
  }
  return { entries, cursor, selected, active, heads, summaries, back, forward, logSeq: raw.logSeq, clonedFrom }
}

/**
 * Ids unique, every parent stored before its children, compactions replacing
 * only nodes on their own path, labels unique. Returns each id's position.
 */
function checkStructure(entries: readonly TreeEntry[]): Map<string, number> {
  const position = new Map<string, number>()
  entries.forEach((entry, i) => {
    if (position.has(entry.nodeId)) throw new Invalid(`snapshot.nodes[${i}] repeats node id ${entry.nodeId}`)
    position.set(entry.nodeId, i)
  })
  entries.forEach((entry, i) => {
    if (entry.parentId === null) return
    const at = position.get(entry.parentId)
    if (at === undefined) throw new Invalid(`snapshot.nodes[${i}] (${entry.nodeId}) has a missing parent ${entry.parentId}`)
    if (at > i) {
      // Either a cycle or a parent stored after its child; say which.
      let cursor: string | null = entry.parentId
      for (let steps = 0; cursor !== null && steps <= entries.length; steps++) {
        if (cursor === entry.nodeId) throw new Invalid(`snapshot node ${entry.nodeId} is part of a parent cycle`)
        cursor = entries[position.get(cursor)!]?.parentId ?? null
      }
      throw new Invalid(`snapshot.nodes[${i}] (${entry.nodeId}) comes before its parent ${entry.parentId}`)
    }
  })
  entries.forEach((entry, i) => {
    if (entry.type !== 'compaction' || entry.replaces === undefined) return
    const ancestors = new Set<string>()
    for (let id = entry.parentId; id !== null; id = entries[position.get(id)!]!.parentId) ancestors.add(id)
    const stranger = entry.replaces.find((id) => !ancestors.has(id))
    if (stranger !== undefined) throw new Invalid(`snapshot.nodes[${i}] (${entry.nodeId}) replaces ${stranger}, which is not on its path`)
  })
  const labels = new Set<string>()
  for (const entry of entries) {
    if (entry.label === undefined) continue
    if (labels.has(entry.label)) throw new Invalid(`snapshot label ${JSON.stringify(entry.label)} is used twice`)
    labels.add(entry.label)
  }
  return position
}

/** Build a validated snapshot into an empty state. */
export function buildState(state: TreeState, decoded: Decoded): void {
  const nodes = state.nodes
  for (const entry of decoded.entries) nodes.link(deepFreeze(entry), entry.parentId === null ? undefined : nodes.get(entry.parentId), '')
  nodes.mintAfter(decoded.entries.length)
  const rec = (id: string | null): Rec | null => (id === null ? null : nodes.get(id)!)
  state.cursor = rec(decoded.cursor)
  state.active = decoded.active
  state.selected = rec(decoded.selected)
  state.branches.reset(new Map([...decoded.heads].map(([name, id]) => [name, nodes.get(id)!])))
  state.summaries = new Map(decoded.summaries.map((s) => [s.branch, deepFreeze(s)]))
  state.back = decoded.back
  state.forward = decoded.forward
  // Lanes: the oldest branch (heads keep creation order) whose path holds the node.
  for (const [name, head] of state.branches.entries()) {
    for (let r: Rec | undefined = head; r && r.lane === ''; r = r.parent) r.lane = name
  }
}
