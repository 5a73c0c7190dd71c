/**
 * The independent model the properties check the tree against: node parents,
 * messages, labels, branch heads, cursor, selection, navigation history and
 * summaries, with the tree's rules (history of a path, auto-naming, which
 * branch an append joins) restated from the contract, not from src.
 */
import { HISTORY_LIMIT, type LlmMessage } from '../../src/tree/index.ts'
import { CONTROL, MAX_ID } from './tree-arbitraries.ts'

export interface Pos {
  cursor: string | null
  branch: string
}

/** Independent model of the tree state (nodes are never removed except by rollback). */
export interface Model {
  ids: string[]
  parent: Map<string, string | null>
  message: Map<string, LlmMessage>
  nodeLabel: Map<string, string>
  labels: Map<string, string>
  /** Call id → the newest node that issued it (call ids may repeat). */
  toolCalls: Map<string, string>
  /** Tool-call node → the call id it issued. */
  callOf: Map<string, string>
  /** Compaction node → the node ids whose messages it stands in for. */
  replaces: Map<string, readonly string[]>
  heads: Map<string, string>
  active: string
  cursor: string | null
  selected: string | null
  back: Pos[]
  forward: Pos[]
  summaries: Map<string, { text: string; nodeId: string }>
}

export function emptyModel(): Model {
  return {
    ids: [],
    parent: new Map(),
    message: new Map(),
    nodeLabel: new Map(),
    labels: new Map(),
    toolCalls: new Map(),
    callOf: new Map(),
    replaces: new Map(),
    heads: new Map(),
    active: 'main',
    cursor: null,
    selected: null,
    back: [],
    forward: [],
    summaries: new Map(),
  }
}

export function cloneModel(m: Model): Model {
  return {
    ids: [...m.ids],
    parent: new Map(m.parent),
    message: new Map(m.message),
    nodeLabel: new Map(m.nodeLabel),
    labels: new Map(m.labels),
    toolCalls: new Map(m.toolCalls),
    callOf: new Map(m.callOf),
    replaces: new Map(m.replaces),
    heads: new Map(m.heads),
    active: m.active,
    cursor: m.cursor,
    selected: m.selected,
    back: m.back.map((p) => ({ ...p })),
    forward: m.forward.map((p) => ({ ...p })),
    summaries: new Map(m.summaries),
  }
}

/** The validation rule for names, restated independently of src. */
export function validName(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined
  const name = value.trim()
  if (name === '' || name.length > max || CONTROL.test(name)) return undefined
  return name
}

export function validId(value: string): boolean {
  return value !== '' && value.trim() === value && value.length <= MAX_ID && !CONTROL.test(value)
}

export interface HistoryItem {
  readonly nodeId: string
  readonly message?: LlmMessage | undefined
  readonly replaces?: readonly string[] | undefined
}

/**
 * The model history of a root→node path, restated from the contract: nodes
 * without a message add nothing; a compaction entry drops the messages of the
 * nodes it replaces and stands where the first of them was (at the end when
 * none of them is in the history any more).
 */
export function historyOf(path: readonly HistoryItem[]): LlmMessage[] {
  let out: { nodeId: string; message: LlmMessage }[] = []
  for (const item of path) {
    if (item.replaces !== undefined) {
      const replaced = new Set(item.replaces)
      const first = out.findIndex((o) => replaced.has(o.nodeId))
      const kept = out.filter((o) => !replaced.has(o.nodeId))
      if (item.message)
        kept.splice(first === -1 ? kept.length : first, 0, { nodeId: item.nodeId, message: item.message })
      out = kept
    } else if (item.message) {
      out.push({ nodeId: item.nodeId, message: item.message })
    }
  }
  return out.map((o) => o.message)
}

export function modelPath(m: Model, from: string | null): string[] {
  const ids: string[] = []
  for (let id = from; id !== null; id = m.parent.get(id) ?? null) ids.push(id)
  return ids.reverse()
}

export function modelMessages(m: Model, from: string | null): LlmMessage[] {
  return historyOf(
    modelPath(m, from).map((id) => ({ nodeId: id, message: m.message.get(id), replaces: m.replaces.get(id) })),
  )
}

/** History of entries as `path()` returns them (compaction entries carry `replaces`). */
export function entryHistory(
  entries: readonly { nodeId: string; type?: string; message?: LlmMessage; replaces?: readonly string[] }[],
): LlmMessage[] {
  return historyOf(
    entries.map((e) => ({
      nodeId: e.nodeId,
      message: e.message,
      replaces: e.type === 'compaction' ? e.replaces : undefined,
    })),
  )
}

/** The tree's auto-naming rule: one above the highest `<stem>-<n>` in use (n up to 9 digits). */
export function autoName(m: Model, base: string): string {
  const stem = base.length > 90 ? base.slice(0, 90) : base
  let max = 1
  for (const name of m.heads.keys()) {
    const match = /^(.*)-(\d{1,9})$/.exec(name)
    if (match && match[1] === stem) max = Math.max(max, Number(match[2]))
  }
  return `${stem}-${max + 1}`
}

/**
 * The branch an append joins: a named new branch; else the active branch when
 * the parent is its head (or it has none); else the oldest branch ending at
 * the parent, which grows; else a new auto-named branch.
 */
export function joinedBranch(m: Model, parent: string | null, named: string | undefined): string {
  if (named !== undefined && named !== m.active) return named
  const head = m.heads.get(m.active)
  if (head === undefined || head === parent) return m.active
  for (const [name, h] of m.heads) if (h === parent) return name
  return autoName(m, m.active)
}

export function pushHistory(m: Model): void {
  m.back.push({ cursor: m.cursor, branch: m.active })
  if (m.back.length > HISTORY_LIMIT) m.back.shift()
  m.forward.length = 0
}
