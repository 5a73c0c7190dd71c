/**
 * The workspace views' logic, pure (no React, no DOM, no remote): which rows
 * carry a files marker, what one node changed, the browsable file list of a
 * point (filtered and bounded), the restore plan as the preview shows it, the
 * user's per-conflict decisions and when Apply is allowed, and what an error
 * code means. `*.tsx` beside it only draw what these return.
 */
import type {
  BlockedReason,
  CarryAction,
  CarryChoice,
  CarryConflictReason,
  CarryDecision,
  CarryPreview,
  SummaryChoice,
  ConflictChoice,
  ConflictDecision,
  ConflictReason,
  FileAtNode,
  FileState,
  FilesAtNode,
  RestoreAction,
  RestoreChoice,
  RestorePreview,
  RestoreAnswer,
  SkipReason,
  TreeMove,
  WorkspaceOverview,
} from '../../types.ts'

/** The rows' markers: drawn row id → how many files that node changed. */
export type Markers = ReadonlyMap<string, number>

/**
 * One count per node that changed files. A node the tree draws inside
 * another row (a request absorbed into its call's row) lends its count to
 * that row, added to the row's own.
 */
export function markersOf(
  overview: WorkspaceOverview | undefined,
  absorbed: ReadonlySet<string>,
  children: ReadonlyMap<string | null, readonly string[]>,
): Markers {
  const markers = new Map<string, number>()
  if (!overview) return markers
  for (const { nodeId, paths } of overview.nodes) {
    if (paths.length === 0) continue
    const row = absorbed.has(nodeId) ? (children.get(nodeId)?.[0] ?? nodeId) : nodeId
    markers.set(row, (markers.get(row) ?? 0) + paths.length)
  }
  return markers
}

/** What one node did to one file. */
export type NodeChange =
  | {
      readonly path: string
      readonly kind: 'added' | 'changed' | 'deleted'
      readonly size?: number
      /** A binary file (shown by size, never as text). */
      readonly binary?: boolean
    }
  | { readonly path: string; readonly kind: 'skipped'; readonly reason: SkipReason; readonly size?: number }
  | { readonly path: string; readonly kind: 'unknown' }

/**
 * The files a node changed, from the states just before it (`before`: the
 * files at its parent) and at it (`after`). Sorted by path.
 */
export function nodeChanges(
  paths: readonly string[],
  before: FilesAtNode | undefined,
  after: FilesAtNode | undefined,
): NodeChange[] {
  const stateIn = (files: FilesAtNode | undefined): Map<string, FileState | undefined> =>
    new Map((files?.files ?? []).map((f) => [f.path, f.state]))
  const was = stateIn(before)
  const is = stateIn(after)
  return [...new Set(paths)].sort().map((path): NodeChange => {
    const then = was.get(path) ?? { kind: 'absent' }
    const now = is.get(path)
    if (now === undefined) return { path, kind: 'unknown' }
    if (now.kind === 'skipped')
      return { path, kind: 'skipped', reason: now.reason, ...(now.size === undefined ? {} : { size: now.size }) }
    if (now.kind === 'absent') return { path, kind: 'deleted' }
    return {
      path,
      kind: then.kind === 'absent' ? 'added' : 'changed',
      size: now.size,
      ...(now.binary === true ? { binary: true } : {}),
    }
  })
}

/** Rows of "files at this point" the list shows at first, and per "show more". */
export const FILES_PAGE = 200

export interface FileListView {
  readonly rows: readonly FileAtNode[]
  /** Files matching the filter. */
  readonly matching: number
  readonly total: number
  /** Matching files not shown yet. */
  readonly more: number
}

/**
 * The file list of a point: files that existed there (absent ones only when
 * they differ now, as "did not exist here"), filtered by a case-insensitive
 * substring, at most `limit` rows: a 5,000-file workspace draws 200 rows.
 */
export function fileListView(files: readonly FileAtNode[], query: string, limit: number): FileListView {
  const needle = query.trim().toLowerCase()
  const shown = files.filter((f) => f.state?.kind !== 'absent' || f.differs)
  const matching = needle ? shown.filter((f) => f.path.toLowerCase().includes(needle)) : shown
  const rows = matching.slice(0, Math.max(0, limit))
  return { rows, matching: matching.length, total: shown.length, more: matching.length - rows.length }
}

/** Lines of a file's content drawn at once (the rest is clipped, and said so). */
export const CONTENT_LINES = 2000

export function clipLines(text: string, max = CONTENT_LINES): { readonly text: string; readonly clipped: boolean } {
  let at = -1
  for (let n = 0; n < max; n++) {
    at = text.indexOf('\n', at + 1)
    if (at === -1) return { text, clipped: false }
  }
  return at === text.length - 1 ? { text, clipped: false } : { text: text.slice(0, at + 1), clipped: true }
}

// ---------------------------------------------------------------------------
// The restore preview

/** One file of the preview. */
export interface PlanRow {
  readonly path: string
  readonly action: RestoreAction
  readonly insertions: number
  readonly deletions: number
  /** Set when either side is a binary file: shown by size and hash, never as text. */
  readonly binary?: BinarySides
  /** Set when the user changed it outside the agent: a decision is needed. */
  readonly conflict?: ConflictReason
}

export interface PlanView {
  readonly target: string | null
  readonly snappedFrom?: string
  /** Files to change and conflicts, one row each, sorted by path. */
  readonly rows: readonly PlanRow[]
  readonly conflicts: readonly string[]
  readonly blocked: readonly { readonly path: string; readonly reason: BlockedReason }[]
  readonly stat: {
    readonly files: number
    readonly insertions: number
    readonly deletions: number
    readonly created: number
    readonly updated: number
    readonly deleted: number
  }
  /** Nothing to write (and nothing to decide). */
  readonly empty: boolean
}

/** A binary file's size and hash, on each side that is a file (the other side absent or text). */
export interface BinarySides {
  readonly from?: { readonly size: number; readonly hash: string }
  readonly to?: { readonly size: number; readonly hash: string }
}

/** The sides of a change as a binary file shows them, or undefined when neither side is binary. */
export function binarySides(from: FileState | undefined, to: FileState | undefined): BinarySides | undefined {
  const isBin = (s: FileState | undefined) => s?.kind === 'file' && s.binary === true
  if (!isBin(from) && !isBin(to)) return undefined
  const side = (s: FileState | undefined) => (s?.kind === 'file' ? { size: s.size, hash: s.hash } : undefined)
  const a = side(from)
  const b = side(to)
  return { ...(a ? { from: a } : {}), ...(b ? { to: b } : {}) }
}

export function planView(preview: RestorePreview): PlanView {
  const { plan } = preview
  const rows = new Map<string, PlanRow>()
  // A conflict's row replaces an entry's for the same path: it is the one that needs a decision.
  const entries: readonly (RestorePreview['plan']['entries'][number] & { readonly reason?: ConflictReason })[] = [
    ...plan.entries,
    ...plan.conflicts,
  ]
  for (const e of entries) {
    const binary = binarySides(e.current, e.target)
    rows.set(e.path, {
      path: e.path,
      action: e.action,
      insertions: e.insertions,
      deletions: e.deletions,
      ...(e.reason === undefined ? {} : { conflict: e.reason }),
      ...(binary ? { binary } : {}),
    })
  }
  const sorted = [...rows.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const conflicts = sorted.filter((r) => r.conflict !== undefined).map((r) => r.path)
  const count = (action: RestoreAction) => sorted.filter((r) => r.action === action).length
  return {
    target: preview.target,
    ...(preview.snappedFrom === undefined ? {} : { snappedFrom: preview.snappedFrom }),
    rows: sorted,
    conflicts,
    blocked: plan.blocked.map((b) => ({ path: b.path, reason: b.reason })),
    stat: {
      files: sorted.length,
      insertions: sorted.reduce((n, r) => n + r.insertions, 0),
      deletions: sorted.reduce((n, r) => n + r.deletions, 0),
      created: count('create'),
      updated: count('update'),
      deleted: count('delete'),
    },
    empty: sorted.length === 0,
  }
}

/** The user's answers so far: path → decision. */
export type Decisions = ReadonlyMap<string, ConflictDecision>

export function decide(decisions: Decisions, path: string, decision: ConflictDecision): Decisions {
  const next = new Map(decisions)
  next.set(path, decision)
  return next
}

/** Conflicts of the plan still without a decision (answers for paths no longer in conflict do not count). */
export function undecided(plan: PlanView, decisions: Decisions): string[] {
  return plan.conflicts.filter((path) => !decisions.has(path))
}

/** Apply is allowed once every conflict is decided (a plan without conflicts at once). */
export function canApply(plan: PlanView, decisions: Decisions): boolean {
  return undecided(plan, decisions).length === 0
}

/** The request's `conflicts`: exactly the plan's conflicts, each with its decision (never a `*`). */
export function conflictChoices(plan: PlanView, decisions: Decisions): ConflictChoice[] {
  return plan.conflicts.flatMap((path) => {
    const decision = decisions.get(path)
    return decision === undefined ? [] : [{ path, decision }]
  })
}

/**
 * A new preview (the files moved while it was open) keeps the answers for
 * paths still in conflict and drops the rest: a decision never carries over
 * to a file it was not made for.
 */
export function keepDecisions(plan: PlanView, decisions: Decisions): Decisions {
  const kept = new Map<string, ConflictDecision>()
  for (const path of plan.conflicts) {
    const decision = decisions.get(path)
    if (decision !== undefined) kept.set(path, decision)
  }
  return kept
}

/** The request a restore sends. */
export function restoreRequest(
  move: TreeMove,
  restore: Exclude<RestoreChoice, 'conversation'>,
  plan: PlanView,
  decisions: Decisions,
): { move: TreeMove; restore: RestoreChoice; conflicts: ConflictChoice[] } {
  return { move, restore, conflicts: conflictChoices(plan, decisions) }
}

/** What a finished restore says. */
export interface ResultView {
  readonly target: string | null
  readonly created: number
  readonly updated: number
  readonly deleted: number
  readonly kept: readonly string[]
  readonly blocked: readonly string[]
  /** The conversation moved too (`both`). */
  readonly moved: boolean
  readonly none: boolean
}

export function resultView(result: RestoreAnswer): ResultView {
  const files = result.files
  const created = files?.created.length ?? 0
  const updated = files?.updated.length ?? 0
  const deleted = files?.deleted.length ?? 0
  return {
    target: result.target,
    created,
    updated,
    deleted,
    kept: [...(files?.kept ?? [])],
    blocked: (files?.blocked ?? []).map((b) => b.path),
    moved: result.move !== undefined,
    none: created + updated + deleted === 0,
  }
}

/** Error codes with their own sentence (`ws.err.<code>`); any other code reads `ws.err.other`. */
export const KNOWN_ERRORS = [
  'WORKSPACE_CONFLICT',
  'WORKSPACE_IO',
  'WORKSPACE_UNAVAILABLE',
  'AGENT_BUSY',
  'NODE_NOT_FOUND',
  'HISTORY_EMPTY',
  'INVALID_ARGUMENT',
] as const

export type KnownError = (typeof KNOWN_ERRORS)[number]

export function knownError(code: string): KnownError | undefined {
  return (KNOWN_ERRORS as readonly string[]).includes(code) ? (code as KnownError) : undefined
}

/** A failed `both` restore whose conversation part went through (`details.conversationMoved`). */
export function conversationMoved(details: unknown): boolean {
  return (details as { conversationMoved?: unknown } | undefined)?.conversationMoved === true
}

// ---------------------------------------------------------------------------
// The carry preview

/** One file of a carry preview. */
export interface CarryRow {
  readonly path: string
  readonly action: CarryAction
  /** Taken from the other branch, where it was deleted. */
  readonly deletes: boolean
  readonly binary?: BinarySides
  readonly insertions: number
  readonly deletions: number
  readonly reason?: CarryConflictReason
  readonly hunks?: number
}

export interface CarryView {
  readonly rows: readonly CarryRow[]
  readonly conflicts: readonly string[]
  readonly blocked: readonly { readonly path: string; readonly reason: BlockedReason }[]
  readonly empty: boolean
}

export function carryView(preview: CarryPreview): CarryView {
  const rows = preview.entries.map((e): CarryRow => {
    const binary = binarySides(e.ours, e.result ?? e.theirs)
    return {
      path: e.path,
      action: e.action,
      deletes: e.action === 'take' && e.theirs.kind === 'absent',
      ...(binary ? { binary } : {}),
      insertions: e.insertions,
      deletions: e.deletions,
      ...(e.reason === undefined ? {} : { reason: e.reason }),
      ...(e.hunks === undefined ? {} : { hunks: e.hunks }),
    }
  })
  return {
    rows,
    conflicts: rows.filter((r) => r.action === 'conflict').map((r) => r.path),
    blocked: preview.blocked.map((b) => ({ path: b.path, reason: b.reason })),
    empty: rows.length === 0 && preview.blocked.length === 0,
  }
}

/** A conflict's answers: markers only where a line merge exists (a text conflict). */
export function carryDecisions(row: CarryRow): readonly CarryDecision[] {
  return row.reason === 'text' ? ['mine', 'theirs', 'markers'] : ['mine', 'theirs']
}

/** The `carry` request: exactly the preview's conflicts with their answers, and the summary when chosen. */
export function carryRequest(
  from: string,
  view: CarryView,
  decisions: ReadonlyMap<string, CarryDecision>,
  summary?: SummaryChoice,
): { from: string; conflicts: CarryChoice[]; summary?: SummaryChoice } {
  const conflicts = view.conflicts.flatMap((path) => {
    const decision = decisions.get(path)
    return decision === undefined ? [] : [{ path, decision }]
  })
  return { from, conflicts, ...(summary ? { summary } : {}) }
}
