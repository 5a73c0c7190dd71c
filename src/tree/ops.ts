/**
 * The operations of a tree, one home each. An operation is a plain JSON value
 * (`SessionTreeOp`, what the log holds); its spec here knows how to read it
 * back from a log record (`decode`), what must hold before it runs (`check`),
 * how it changes the state (`apply`, which also returns what the log keeps),
 * and how a rollback undoes its effect on nodes (`undo`; the marks — cursor,
 * branches, history — come back from the checkpoint itself). Commands and
 * replays run through the same specs, so a log replays exactly.
 */
import { fail, type TreeResult, noNode, noBranch } from './errors.ts'
import { checkEntry, publicEntry, relabeled, toStored, type StoredEntry } from './entry.ts'
import type { Rec } from './nodes.ts'
import type { TreeState } from './state.ts'
import type { BranchSummary, SessionTreeOp } from './types.ts'
import { checkBranchName, checkLabel, checkNodeId, deepFreeze, Invalid } from './validate.ts'
import { canonicalSummary, checkSummary } from './summary-check.ts'

/** An operation as the tree runs and keeps it: a `SessionTreeOp` whose entries are stored entries. */
export type StoredOp =
  | Exclude<SessionTreeOp, { readonly op: 'append' | 'attach' }>
  | { readonly op: 'append'; readonly node: StoredEntry; readonly branch?: string }
  | { readonly op: 'attach'; readonly node: StoredEntry }

export type OpName = StoredOp['op']
export type OpOf<K extends OpName> = Extract<StoredOp, { readonly op: K }>

/** What applying an operation leaves: the operation as logged, and the entry its undo restores. */
export interface Applied {
  readonly logged: StoredOp
  readonly previous?: StoredEntry
}

export interface OpSpec<K extends OpName> {
  /** The operation of a log record, validated and copied; throws `Invalid` naming the field. */
  decode(record: Readonly<Record<string, unknown>>, where: string): OpOf<K>
  /** Structural preconditions, checked before anything changes (undefined: it may run). */
  check(state: TreeState, op: OpOf<K>): TreeResult<void> | undefined
  /** Make the change. */
  apply(state: TreeState, op: OpOf<K>): Applied
  /** Undo the change to nodes (rollback only, newest first). */
  undo?(state: TreeState, op: OpOf<K>, previous: StoredEntry | undefined): void
  /** The operation as the log shows it (entries with their summaries); the operation itself when absent. */
  encode?(op: OpOf<K>): SessionTreeOp
}

function branchTaken(branch: string, head: Rec): TreeResult<never> {
  return fail('BRANCH_EXISTS', `branch ${JSON.stringify(branch)} already exists`, { branch, headId: head.entry.nodeId })
}

function labelTaken(label: string, holder: Rec): TreeResult<never> {
  return fail('LABEL_EXISTS', `label ${JSON.stringify(label)} is already on node ${holder.entry.nodeId}`, {
    label,
    nodeId: holder.entry.nodeId,
  })
}

function flag(record: Readonly<Record<string, unknown>>, where: string): boolean {
  if (typeof record.record !== 'boolean') throw new Invalid(`${where}.record must be a boolean`)
  return record.record
}

/** Append a node (under `node.parentId`) and move the cursor to it. */
const append: OpSpec<'append'> = {
  decode(record, where) {
    const node = toStored(checkEntry(record.node, `${where}.node`))
    return record.branch === undefined
      ? { op: 'append', node }
      : { op: 'append', node, branch: checkBranchName(record.branch, `${where}.branch`) }
  },
  encode: ({ node, branch }) =>
    branch === undefined
      ? { op: 'append', node: publicEntry(node) }
      : { op: 'append', node: publicEntry(node), branch },
  check(state, { node, branch }) {
    const nodes = state.nodes
    if (nodes.has(node.nodeId))
      return fail('INVALID_ARGUMENT', `node ${node.nodeId} already exists`, { nodeId: node.nodeId })
    if (node.parentId !== null && !nodes.has(node.parentId)) return noNode(node.parentId)
    if (node.label !== undefined && nodes.labels.has(node.label))
      return labelTaken(node.label, nodes.labels.get(node.label)!)
    if (node.type === 'compaction' && node.replaces !== undefined && node.replaces.length > 0) {
      const ancestors = new Set<string>()
      for (let rec = node.parentId === null ? undefined : nodes.get(node.parentId); rec; rec = rec.parent)
        ancestors.add(rec.entry.nodeId)
      const stranger = node.replaces.find((id) => !ancestors.has(id))
      if (stranger !== undefined)
        return fail('INVALID_ARGUMENT', `node ${node.nodeId} replaces ${stranger}, which is not on its path`, {
          nodeId: stranger,
        })
    }
    if (branch !== undefined && branch !== state.active) {
      const head = state.branches.get(branch)
      if (head) return branchTaken(branch, head)
    }
    return undefined
  },
  apply(state, op) {
    const parent = op.node.parentId === null ? undefined : state.nodes.get(op.node.parentId)!
    const head = state.branches.get(state.active)
    let branch = state.active
    let logged = op
    if (op.branch !== undefined && op.branch !== state.active) {
      branch = op.branch
    } else if (head !== undefined && head !== (parent ?? null)) {
      // The parent ends another branch: that branch grows. Otherwise a new
      // branch starts here and the old line keeps its name.
      const owner = parent && state.branches.oldestAt(parent)
      branch = owner ?? state.branches.autoName(state.active)
      // Log the name chosen, so a replay never depends on how names were picked.
      if (owner === undefined) logged = { ...op, branch }
    }
    const rec = state.nodes.link(op.node, parent, branch)
    state.branches.set(branch, rec)
    state.active = branch
    state.cursor = rec
    return { logged }
  },
  undo(state, op) {
    state.nodes.unlink(state.nodes.get(op.node.nodeId)!)
  },
}

/** Replace a tool-call node's entry with its result folded in. */
const attach: OpSpec<'attach'> = {
  decode: (record, where) => ({ op: 'attach', node: toStored(checkEntry(record.node, `${where}.node`)) }),
  encode: (op) => ({ op: 'attach', node: publicEntry(op.node) }),
  check(state, { node }) {
    const rec = state.nodes.get(node.nodeId)
    if (!rec) return noNode(node.nodeId)
    const old = rec.entry
    // `replaces` too: which path a compaction shadows is fixed when it is made (`Rec.compacted`).
    if (
      old.parentId !== node.parentId ||
      old.type !== node.type ||
      old.label !== node.label ||
      JSON.stringify(old.replaces) !== JSON.stringify(node.replaces)
    ) {
      return fail('INVALID_ARGUMENT', `attach may only change the result of node ${node.nodeId}`)
    }
    return undefined
  },
  apply(state, op) {
    const rec = state.nodes.get(op.node.nodeId)!
    const previous = rec.entry
    state.nodes.replace(rec, op.node)
    return { logged: op, previous }
  },
  undo(state, _op, previous) {
    if (previous) state.nodes.replace(state.nodes.get(previous.nodeId)!, previous)
  },
}

/** Set or clear a node's label. */
const label: OpSpec<'label'> = {
  decode: (record, where) => ({
    op: 'label',
    nodeId: checkNodeId(record.nodeId, `${where}.nodeId`),
    label: record.label === null ? null : checkLabel(record.label, `${where}.label`),
  }),
  check(state, op) {
    if (!state.nodes.has(op.nodeId)) return noNode(op.nodeId)
    const holder = op.label === null ? undefined : state.nodes.labels.get(op.label)
    if (holder && holder.entry.nodeId !== op.nodeId) return labelTaken(op.label!, holder)
    return undefined
  },
  apply(state, op) {
    const rec = state.nodes.get(op.nodeId)!
    const previous = rec.entry
    state.nodes.replace(rec, relabeled(previous, op.label))
    return { logged: op, previous }
  },
  undo: attach.undo as OpSpec<'label'>['undo'],
}

/** Move the cursor to a node (or before the first node); landing on a branch head activates that branch. */
const jump: OpSpec<'jump'> = {
  decode: (record, where) => ({
    op: 'jump',
    target: record.target === null ? null : checkNodeId(record.target, `${where}.target`),
    record: flag(record, where),
  }),
  check: (state, op) => (op.target === null || state.nodes.has(op.target) ? undefined : noNode(op.target)),
  apply(state, op) {
    const target = op.target === null ? null : state.nodes.get(op.target)!
    if (op.record) state.pushHistory()
    state.cursor = target
    if (target !== null && state.branches.get(state.active) !== target) {
      const owner = state.branches.oldestAt(target)
      if (owner !== undefined) state.active = owner
    }
    return { logged: op }
  },
}

/** Make a branch active and move the cursor to its head. */
const switchBranch: OpSpec<'switch'> = {
  decode: (record, where) => ({
    op: 'switch',
    branch: checkBranchName(record.branch, `${where}.branch`),
    record: flag(record, where),
  }),
  check: (state, op) => (state.branches.has(op.branch) ? undefined : noBranch(op.branch)),
  apply(state, op) {
    if (op.record) state.pushHistory()
    state.active = op.branch
    state.cursor = state.branches.get(op.branch)!
    return { logged: op }
  },
}

/** Park a new branch at a node and move onto it. */
const fork: OpSpec<'fork'> = {
  decode: (record, where) => ({
    op: 'fork',
    target: checkNodeId(record.target, `${where}.target`),
    branch: checkBranchName(record.branch, `${where}.branch`),
  }),
  check(state, op) {
    if (!state.nodes.has(op.target)) return noNode(op.target)
    const head = state.branches.get(op.branch)
    return head ? branchTaken(op.branch, head) : undefined
  },
  apply(state, op) {
    state.pushHistory()
    const target = state.nodes.get(op.target)!
    state.branches.set(op.branch, target)
    state.active = op.branch
    state.cursor = target
    return { logged: op }
  },
}

/** Bind a node for context-aware commands (or clear it). */
const select: OpSpec<'select'> = {
  decode: (record, where) => ({
    op: 'select',
    nodeId: record.nodeId === null ? null : checkNodeId(record.nodeId, `${where}.nodeId`),
  }),
  check: (state, op) => (op.nodeId === null || state.nodes.has(op.nodeId) ? undefined : noNode(op.nodeId)),
  apply(state, op) {
    state.selected = op.nodeId === null ? null : state.nodes.get(op.nodeId)!
    return { logged: op }
  },
}

/** Record a branch summary. */
const summary: OpSpec<'summary'> = {
  decode: (record, where) => ({ op: 'summary', summary: checkSummary(record.summary, `${where}.summary`) }),
  check(state, { summary }) {
    if (!state.branches.has(summary.branch)) return noBranch(summary.branch)
    return state.nodes.has(summary.nodeId) ? undefined : noNode(summary.nodeId)
  },
  apply(state, op) {
    const recorded: BranchSummary = deepFreeze(canonicalSummary(op.summary))
    state.summaries.set(recorded.branch, recorded)
    return { logged: { op: 'summary', summary: recorded } }
  },
}

/**
 * A step through the cursor's history: `back` undoes the last move, `forward`
 * redoes one `back` undid; the position left goes onto the other history.
 */
function historyStep<K extends 'back' | 'forward'>(name: K, other: 'back' | 'forward', none: string): OpSpec<K> {
  return {
    decode: () => ({ op: name }) as OpOf<K>,
    check: (state) => (state[name].length > 0 ? undefined : fail('HISTORY_EMPTY', none)),
    apply(state, op) {
      const position = state[name].pop()!
      state[other].push(state.position())
      state.moveTo(position)
      return { logged: op }
    },
  }
}

const back = historyStep('back', 'forward', 'there is no earlier position to go back to')
const forward = historyStep('forward', 'back', 'there is no later position to go forward to')

/** Every operation by name. */
export const OPS: { readonly [K in OpName]: OpSpec<K> } = {
  append,
  attach,
  label,
  jump,
  switch: switchBranch,
  fork,
  select,
  summary,
  back,
  forward,
}

function specOf<K extends OpName>(op: OpOf<K>): OpSpec<K> {
  return OPS[op.op as K]
}

/** The operation part of a log record; throws `Invalid` for anything but a known, well-formed operation. */
export function decodeOp(record: Readonly<Record<string, unknown>>, where: string): StoredOp {
  const name = record.op
  if (typeof name !== 'string' || !Object.hasOwn(OPS, name))
    throw new Invalid(`${where}.op ${JSON.stringify(name)} is not a known operation`)
  return OPS[name as OpName].decode(record, where)
}

export function checkOp(state: TreeState, op: StoredOp): TreeResult<void> | undefined {
  return specOf(op).check(state, op)
}

export function applyOp(state: TreeState, op: StoredOp): Applied {
  return specOf(op).apply(state, op)
}

export function undoOp(state: TreeState, op: StoredOp, previous: StoredEntry | undefined): void {
  specOf(op).undo?.(state, op, previous)
}

export function encodeOp(op: StoredOp): SessionTreeOp {
  const encode = specOf(op).encode
  return encode ? encode(op) : (op as SessionTreeOp)
}
