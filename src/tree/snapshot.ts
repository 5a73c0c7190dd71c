/**
 * The snapshot codec: a tree's whole state as one versioned JSON value, and back (the row format:
 * docs/tree-api.md, "Snapshot format 2"). Loading validates as it builds into a fresh state, and the tree that
 * owns the state exists only once everything passed: a malformed snapshot (`Invalid`, `INVALID_SNAPSHOT` for
 * callers) leaves nothing half-loaded.
 */
import { checkFields, ENTRY_FIELDS, stored, type Draft, type StoredEntry } from './entry.ts'
import type { Rec } from './nodes.ts'
import { HISTORY_LIMIT, type TreeState } from './state.ts'
import { isoTime, MAX_TIME, MIN_TIME, timeOfIso } from './time.ts'
import {
  SNAPSHOT_VERSION,
  type SessionTreeSnapshot,
  type SnapshotExtra,
  type SnapshotPart,
  type SnapshotRow,
  type TreePosition,
} from './types.ts'
import {
  checkBranchName,
  checkEntryType,
  checkNodeId,
  checkPosition,
  checkRole,
  checkTime,
  deepFreeze,
  Invalid,
  isNodeId,
  isRecord,
  knownEntryType,
  knownRole,
  str,
  type Mutable,
} from './validate.ts'
import { checkSummary } from './summary-check.ts'

/** Where a tree was cloned from. */
export type ClonedFrom = { readonly sessionId: string; readonly nodeId: string | null }

/** Facts about a tree that live outside its state. */
export interface SnapshotMeta {
  readonly sessionId: string
  readonly logSeq: number
  readonly clonedFrom: ClonedFrom | undefined
  /** Labels to write instead of the nodes' own (node id → label). */
  readonly labels?: ReadonlyMap<string, string>
}

/** The snapshot of a state, in format 2. */
export function encodeSnapshot(state: TreeState, meta: SnapshotMeta): SessionTreeSnapshot {
  const rows: SnapshotRow[] = new Array(state.nodes.size)
  let previous = 0
  let previousText: string | undefined
  let i = 0
  // Row of each node so far (nodes do not store their index); a parent is always an earlier row.
  const rowOfRec = new Map<Rec, number>()
  let last: Rec | undefined
  for (const rec of state.nodes.all()) {
    const entry = rec.entry
    // A time as a delta after the previous row's (0 for the same string), or as its text when it is not canonical.
    let time: number | string = 0
    if (entry.createdAt !== previousText) {
      const ms = timeOfIso(entry.createdAt)
      // A delta of 0 means "the previous row's text", so it is only written for that.
      if (ms !== undefined && (ms !== previous || previousText === undefined)) {
        time = ms - previous
        previous = ms
      } else {
        time = entry.createdAt
        previous = Math.floor(Date.parse(entry.createdAt))
      }
      previousText = entry.createdAt
    }
    const parent = rec.parent === undefined ? 0 : rec.parent === last ? 1 : i - rowOfRec.get(rec.parent)!
    rowOfRec.set(rec, i)
    rows[i++] = rowOf(rec, parent, time, meta.labels)
    last = rec
  }
  const snapshot: Mutable<SessionTreeSnapshot> = {
    version: SNAPSHOT_VERSION,
    sessionId: meta.sessionId,
    nodes: rows,
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

function rowOf(
  rec: Rec,
  parent: number,
  time: number | string,
  labels: ReadonlyMap<string, string> | undefined,
): SnapshotRow {
  const entry = rec.entry
  const message = entry.message
  const label = labels?.get(entry.nodeId) ?? entry.label
  const plain =
    message?.name === undefined &&
    message?.toolCallId === undefined &&
    entry.content === undefined &&
    entry.model === undefined &&
    entry.provider === undefined &&
    entry.usage === undefined &&
    entry.cost === undefined &&
    entry.error === undefined &&
    entry.metadata === undefined &&
    label === undefined &&
    entry.origin === undefined &&
    entry.replaces === undefined &&
    entry.summary === undefined
  if (plain)
    return message
      ? [entry.nodeId, parent, entry.type, time, message.role, message.content]
      : [entry.nodeId, parent, entry.type, time]
  const extra: Mutable<SnapshotExtra> = {}
  if (message?.name !== undefined) extra.name = message.name
  if (message?.toolCallId !== undefined) extra.toolCallId = message.toolCallId
  if (entry.content !== undefined)
    extra.content = message ? entry.content.map((part) => sharedPart(part, message.content)) : entry.content
  if (entry.model !== undefined) extra.model = entry.model
  if (entry.provider !== undefined) extra.provider = entry.provider
  if (entry.usage !== undefined) extra.usage = entry.usage
  if (entry.cost !== undefined) extra.cost = entry.cost
  if (entry.error !== undefined) extra.error = entry.error
  if (entry.metadata !== undefined) extra.metadata = entry.metadata
  if (label !== undefined) extra.label = label
  if (entry.origin !== undefined) extra.origin = entry.origin
  if (entry.replaces !== undefined) extra.replaces = entry.replaces
  if (entry.summary !== undefined) extra.summary = entry.summary
  return [entry.nodeId, parent, entry.type, time, message?.role ?? null, message?.content ?? null, extra]
}

/** A part without the text it shares with the message. */
function sharedPart(part: SnapshotPart, text: string): SnapshotPart {
  if (part.type === 'text' && 'text' in part && part.text === text) return { type: 'text' }
  if (part.type === 'tool_result' && 'content' in part && part.content === text) {
    return part.isError === undefined
      ? { type: 'tool_result', toolCallId: part.toolCallId }
      : { type: 'tool_result', toolCallId: part.toolCallId, isError: part.isError }
  }
  return part
}

/** Load a snapshot of session `sessionId` into an empty state; throws `Invalid` naming the first problem. */
export function decodeSnapshot(
  raw: unknown,
  sessionId: string,
  state: TreeState,
): { logSeq: number; clonedFrom: ClonedFrom | undefined } {
  if (!isRecord(raw)) throw new Invalid('snapshot must be an object')
  if (raw.version !== SNAPSHOT_VERSION)
    throw new Invalid(`snapshot version ${JSON.stringify(raw.version)} is not ${SNAPSHOT_VERSION}`)
  if (raw.sessionId !== sessionId)
    throw new Invalid(`snapshot belongs to session ${JSON.stringify(raw.sessionId)}, not ${JSON.stringify(sessionId)}`)
  if (!Array.isArray(raw.nodes)) throw new Invalid('snapshot.nodes must be an array')
  decodeRows(raw.nodes, state)
  return decodeMarks(raw, state)
}

// A row's message is its role and text (and these two of its fields); the entry's other fields follow.
const EXTRA_KEYS = new Set<string>(['name', 'toolCallId', ...ENTRY_FIELDS.filter((field) => field !== 'message')])

/** Row `i` as a reason names it (made only when a reason is given: a restore checks every row). */
function place(i: number): string {
  return `snapshot.nodes[${i}]`
}

/** Every row checked and linked in order (a parent is always an earlier row). */
function decodeRows(rows: readonly unknown[], state: TreeState): void {
  const nodes = state.nodes
  const recs: Rec[] = new Array(rows.length)
  let previous = 0
  let previousText: string | undefined
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]
    if (!Array.isArray(row) || row.length < 4 || row.length > 7)
      throw new Invalid(`${place(i)} must be a row [nodeId, parent, type, time, role?, text?, extra?]`)
    const id = row[0]
    const nodeId = isNodeId(id) ? id : checkNodeId(id, `${place(i)} node id`)
    const offset = row[1]
    if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0 || offset > i)
      throw new Invalid(`${place(i)} parent must be 0 or an earlier row (1..${i} back)`)
    const parent = offset === 0 ? undefined : recs[i - offset]!
    const type = knownEntryType(row[2]) ?? checkEntryType(row[2], `${place(i)} type`)
    // Time: a delta after the previous row (equal times share one string), or the ISO text.
    const time = row[3]
    let createdAt: string
    if (typeof time === 'number') {
      const ms = previous + time
      if (!Number.isSafeInteger(time) || ms < MIN_TIME || ms > MAX_TIME)
        throw new Invalid(`${place(i)} time must be a whole number of milliseconds within years 0-9999`)
      createdAt = time === 0 && previousText !== undefined ? previousText : isoTime(ms)
      previous = ms
    } else {
      createdAt = checkTime(time, `${place(i)} time`)
      previous = Math.floor(Date.parse(createdAt))
    }
    previousText = createdAt
    const parentId = parent ? parent.entry.nodeId : null
    const role = row[4] ?? null
    const text = row[5] ?? null
    if ((role === null) !== (text === null))
      throw new Invalid(`${place(i)} has a role without a text or a text without a role`)
    if (text !== null && typeof text !== 'string') throw new Invalid(`${place(i)} text must be a string`)
    const message =
      role === null
        ? undefined
        : Object.freeze({ role: knownRole(role) ?? checkRole(role, `${place(i)} role`), content: text as string })
    const extra = row[6]
    let entry: StoredEntry
    if (extra === undefined) {
      // The common row: built in canonical key order at once.
      entry = Object.freeze(
        message ? { nodeId, parentId, type, createdAt, message } : { nodeId, parentId, type, createdAt },
      ) as StoredEntry
    } else {
      const draft: Draft = message
        ? { nodeId, parentId, type, createdAt, message }
        : { nodeId, parentId, type, createdAt }
      decodeExtra(extra, draft, i)
      if (draft.label !== undefined && nodes.labels.has(draft.label))
        throw new Invalid(`snapshot label ${JSON.stringify(draft.label)} is used twice`)
      if (draft.replaces !== undefined) onPath(draft.replaces, parent, nodeId, place(i))
      entry = stored(draft)
    }
    const rec = nodes.linkNew(entry, parent)
    if (rec === undefined) throw new Invalid(`${place(i)} repeats node id ${nodeId}`)
    recs[i] = rec
  }
  nodes.mintAfter(rows.length)
}

function decodeExtra(value: unknown, entry: Draft, row: number): void {
  const where = (): string => `${place(row)} extra`
  if (!isRecord(value)) throw new Invalid(`${where()} must be an object`)
  for (const key in value) if (!EXTRA_KEYS.has(key)) throw new Invalid(`${where()}.${key} is not a row field`)
  const message = entry.message
  if (value.name !== undefined || value.toolCallId !== undefined) {
    if (!message) throw new Invalid(`${where()} has message fields but the row no message`)
    entry.message = {
      ...message,
      ...(value.name === undefined ? {} : { name: str(value.name, `${where()}.name`) }),
      ...(value.toolCallId === undefined ? {} : { toolCallId: str(value.toolCallId, `${where()}.toolCallId`) }),
    }
  }
  // Parts that left out the message text get it back before the usual checks.
  let fields: Readonly<Record<string, unknown>> = value
  if (Array.isArray(value.content)) {
    const content = value.content.map((part, i) => {
      if (!isRecord(part)) return part
      const missing =
        part.type === 'text' ? !('text' in part) : part.type === 'tool_result' ? !('content' in part) : false
      if (!missing) return part
      if (!message) throw new Invalid(`${where()}.content[${i}] leaves out a message text the row does not have`)
      return part.type === 'text' ? { ...part, text: message.content } : { ...part, content: message.content }
    })
    fields = { ...value, content }
  }
  checkFields(fields, entry, where)
  if (value.summary !== undefined) entry.summary = str(value.summary, `${where()}.summary`)
}

/** A compaction replaces only nodes on its own path. */
function onPath(replaces: readonly string[], parent: Rec | undefined, nodeId: string, where: string): void {
  const ancestors = new Set<string>()
  for (let rec = parent; rec; rec = rec.parent) ancestors.add(rec.entry.nodeId)
  const stranger = replaces.find((id) => !ancestors.has(id))
  if (stranger !== undefined) throw new Invalid(`${where} (${nodeId}) replaces ${stranger}, which is not on its path`)
}

/** Cursor, selection, branches, summaries, history and log position, checked against the loaded nodes. */
function decodeMarks(
  raw: Readonly<Record<string, unknown>>,
  state: TreeState,
): { logSeq: number; clonedFrom: ClonedFrom | undefined } {
  const nodes = state.nodes
  const nodeRef = (value: unknown, where: string): Rec | null => {
    if (value === null || value === undefined) return null
    const id = checkNodeId(value, where)
    const rec = nodes.get(id)
    if (!rec) throw new Invalid(`${where} points at a missing node ${id}`)
    return rec
  }
  if (!Object.hasOwn(raw, 'cursor') || !Object.hasOwn(raw, 'selectedNodeId'))
    throw new Invalid('snapshot.cursor and snapshot.selectedNodeId are required (null or a node id)')
  const cursor = nodeRef(raw.cursor, 'snapshot.cursor')
  const selected = nodeRef(raw.selectedNodeId, 'snapshot.selectedNodeId')
  const active = checkBranchName(raw.activeBranch, 'snapshot.activeBranch')
  if (active !== raw.activeBranch) throw new Invalid('snapshot.activeBranch is not trimmed')
  if (!Array.isArray(raw.branches)) throw new Invalid('snapshot.branches must be an array of [name, head]')
  const heads = new Map<string, Rec>()
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
  const history = raw.history
  if (!isRecord(history) || !Array.isArray(history.back) || !Array.isArray(history.forward))
    throw new Invalid('snapshot.history must be { back: [], forward: [] }')
  const positions = (list: unknown[], where: string): TreePosition[] =>
    list.map((p, i) => {
      const position = checkPosition(p, `${where}[${i}]`)
      nodeRef(position.cursor, `${where}[${i}].cursor`)
      return position
    })
  const back = positions(history.back, 'snapshot.history.back')
  const forward = positions(history.forward, 'snapshot.history.forward')
  if (back.length > HISTORY_LIMIT || forward.length > HISTORY_LIMIT)
    throw new Invalid(`snapshot.history keeps more than ${HISTORY_LIMIT} positions`)
  if (typeof raw.logSeq !== 'number' || !Number.isSafeInteger(raw.logSeq) || raw.logSeq < 0)
    throw new Invalid('snapshot.logSeq must be a non-negative integer')
  let clonedFrom: ClonedFrom | undefined
  if (raw.clonedFrom !== undefined) {
    const c = raw.clonedFrom
    if (!isRecord(c) || typeof c.sessionId !== 'string' || !(c.nodeId === null || typeof c.nodeId === 'string'))
      throw new Invalid('snapshot.clonedFrom must be { sessionId, nodeId }')
    clonedFrom = { sessionId: c.sessionId, nodeId: c.nodeId }
  }
  state.cursor = cursor
  state.active = active
  state.selected = selected
  state.branches.reset(heads)
  state.summaries = new Map(summaries.map((s) => [s.branch, deepFreeze(s)]))
  state.back = back
  state.forward = forward
  // Lanes: the oldest branch (heads keep creation order) whose path holds the node.
  for (const [name, head] of state.branches.entries()) {
    for (let r: Rec | undefined = head; r && r.lane === 0; r = r.parent) nodes.setLane(r, name)
  }
  return { logSeq: raw.logSeq, clonedFrom }
}
