/**
 * Carry work across branches: apply at the current node the file changes
 * another branch made since the paths parted (three-way, planned by
 * `workspace/carry.ts`). `carry` needs a decision per conflict, stores merged
 * contents durably and writes through the restore machinery, so Back undoes
 * it byte for byte. Git is never run. docs/workspace.md, "Carry work across
 * branches".
 */
import { clipped, fail, ok, quoted, type TreeResult } from '../tree/errors.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import { isFree } from '../harness/live.ts'
import {
  carriedState,
  decisionsFor,
  fileState,
  hashOf,
  planCarry,
  statOf,
  unifiedDiff,
  type CarryDecision,
  type CarryEntry,
  type FileState,
  type PlanEntry,
  type SessionWorkspace,
} from '../workspace/index.ts'
import { pathProblem } from '../workspace/paths.ts'
import { boundaryOf, type WorkspaceMoves } from './workspace.ts'
import type { Resolved } from './resolve.ts'
import type { JournalActor, MoveResult, SummaryChoice } from './wire.ts'
import { checkSummaryChoice, pathPart } from './branch-summary.ts'
import { canCarry, CARRY_REFUSALS } from '../tree/summary-rules.ts'
import type { OtherPart } from './summary-move.ts'
import { CARRIED_WORK_PREFIX } from '../harness/carried-summary.ts'
import type { CarryDiff, CarryPreview, CarryRequest, CarryResult, CarryStat } from './carry-wire.ts'

export interface CarryDeps {
  readonly workspaceMoves: WorkspaceMoves
  /** The branch summary machinery (`Movement.summarizeHere`): writes, records and carries one here. */
  readonly summarizeHere: (
    agentId: string,
    other: OtherPart,
    choice: SummaryChoice,
    actor: JournalActor,
    callId?: string,
  ) => Promise<TreeResult<MoveResult | undefined>>
  readonly resolveLoaded: (agentId: string) => TreeResult<Resolved>
  readonly resolveLive: (agentId: string) => Promise<TreeResult<Resolved>>
}

const DECISIONS: readonly CarryDecision[] = ['mine', 'theirs', 'markers']

function checkRequest(request: unknown): TreeResult<CarryRequest> {
  const r = request as CarryRequest | undefined
  if (typeof r !== 'object' || r === null || typeof r.from !== 'string' || r.from.trim() === '')
    return fail('INVALID_ARGUMENT', 'request must be { from: node id, label or branch, conflicts? }')
  if (r.conflicts !== undefined && !Array.isArray(r.conflicts))
    return fail('INVALID_ARGUMENT', 'conflicts must be a list of { path, decision }')
  for (const choice of r.conflicts ?? []) {
    if (
      typeof choice !== 'object' ||
      choice === null ||
      typeof choice.path !== 'string' ||
      (choice.path !== '*' && pathProblem(choice.path) !== undefined) ||
      !DECISIONS.includes(choice.decision)
    )
      return fail('INVALID_ARGUMENT', 'each conflicts entry must be { path, decision: mine | theirs | markers }')
  }
  const summary = checkSummaryChoice(r.summary)
  if (!summary.ok) return summary
  return ok(r)
}

/** A node id, a branch name (its tip) or a label, in that order. */
function resolveFrom(tree: SessionTree, text: string): TreeResult<{ nodeId: string; branch?: string }> {
  if (tree.has(text)) return ok({ nodeId: text })
  const head = tree.branchHeadList().find(([name]) => name === text)
  if (head) return ok({ nodeId: head[1], branch: head[0] })
  // Labels are unique within a tree.
  const labeled = tree.labeled(text).find((node) => node.label === text)
  if (labeled) return ok({ nodeId: labeled.nodeId })
  return fail('NODE_NOT_FOUND', `no node, branch or label ${quoted(text)} to carry from`, { nodeId: clipped(text) })
}

/** The last node both paths share (`null`: they share nothing, they parted before the first node). */
export function commonAncestor(tree: SessionTree, a: string | null, b: string): string | null {
  const seen = new Set<string>()
  for (let id = a; id !== null; id = tree.parentOf(id) ?? null) seen.add(id)
  for (let id: string | null = b; id !== null; id = tree.parentOf(id) ?? null) if (seen.has(id)) return id
  return null
}

/** A carry worked out: the preview's own fields, and what applying it needs. */
interface Planned extends Omit<CarryPreview, 'stat' | 'status'> {
  readonly found: Resolved
  readonly workspace: SessionWorkspace
  readonly contents: ReadonlyMap<string, string>
}

function statOfCarry(entries: readonly CarryEntry[], blocked: number): CarryStat {
  const count = (action: CarryEntry['action']) => entries.filter((e) => e.action === action).length
  return { take: count('take'), merge: count('merge'), conflict: count('conflict'), kept: count('kept'), blocked }
}

function actionOf(current: FileState, target: FileState): PlanEntry['action'] {
  if (target.kind === 'absent') return 'delete'
  return current.kind === 'absent' ? 'create' : 'update'
}

export class CarryMoves {
  private readonly deps: CarryDeps

  constructor(deps: CarryDeps) {
    this.deps = deps
  }

  private async plan(agentId: string, request: CarryRequest): Promise<TreeResult<Planned>> {
    const found = this.deps.resolveLoaded(agentId)
    if (!found.ok) return found
    const { projector } = found.value.state
    const { tree } = projector
    const resolved = resolveFrom(tree, request.from)
    if (!resolved.ok) return resolved
    const opened = await this.deps.workspaceMoves.workspace(found.value)
    if (!opened.ok) return opened
    const workspace = opened.value
    const from = resolved.value.nodeId
    const at = tree.cursor
    const common = commonAncestor(tree, at, from)
    const base = boundaryOf(projector, common)
    const other = boundaryOf(projector, from)
    const planned = planCarry({
      paths: workspace.paths(),
      baseOf: (rel) => workspace.stateAt(rel, base),
      theirsOf: (rel) => workspace.stateAt(rel, other),
      oursOf: (rel) => workspace.current(rel),
      textOf: (state, rel, side) => workspace.text(state, side === 'ours' ? rel : undefined) ?? undefined,
      stateOf: (text, exec) => {
        const bytes = Buffer.from(text, 'utf8')
        return fileState(bytes, hashOf(bytes), exec) as FileState & { kind: 'file' }
      },
      maxFileBytes: workspace.maxFileBytes,
      labels: { ours: 'mine', theirs: `theirs (${from})` },
    })
    return ok({
      found: found.value,
      workspace,
      from,
      ...(resolved.value.branch === undefined ? {} : { branch: resolved.value.branch }),
      at,
      common,
      entries: planned.entries,
      blocked: planned.blocked,
      contents: planned.contents,
    })
  }

  /** What carrying `request.from`'s changes here would do, per file. Writes nothing. */
  async preview(agentId: string, request: unknown): Promise<TreeResult<CarryPreview>> {
    const checked = checkRequest(request)
    if (!checked.ok) return checked
    const planned = await this.plan(agentId, checked.value)
    if (!planned.ok) return planned
    const p = planned.value
    return ok({
      from: p.from,
      ...(p.branch === undefined ? {} : { branch: p.branch }),
      at: p.at,
      common: p.common,
      entries: p.entries,
      blocked: p.blocked,
      stat: statOfCarry(p.entries, p.blocked.length),
      status: this.deps.workspaceMoves.statusOf(p.workspace),
    })
  }

  /** One file of a carry preview: what the other branch changed, and what the carry would write. Writes nothing. */
  async diff(agentId: string, request: unknown, path: string): Promise<TreeResult<CarryDiff>> {
    const checked = checkRequest(request)
    if (!checked.ok) return checked
    const problem = typeof path === 'string' ? pathProblem(path) : 'path must be a string'
    if (problem !== undefined) return fail('INVALID_ARGUMENT', problem, { path: String(path).slice(0, 200) })
    const planned = await this.plan(agentId, checked.value)
    if (!planned.ok) return planned
    const { workspace, entries, contents } = planned.value
    const entry = entries.find((e) => e.path === path)
    if (entry === undefined)
      return fail('INVALID_ARGUMENT', `${quoted(path)} is not changed by either branch since they parted`, { path })
    const text = (state: FileState | undefined, current?: string) =>
      state === undefined ? undefined : workspace.text(state, current)
    const diffOf = (before: string | null | undefined, after: string | null | undefined) =>
      before === undefined || after === undefined ? '' : unifiedDiff(path, before, after)
    const theirs = diffOf(text(entry.base), text(entry.theirs))
    const merged = contents.get(path)
    const goal = entry.action === 'kept' ? undefined : (merged ?? text(entry.result ?? entry.theirs))
    const result = goal === undefined ? '' : diffOf(text(entry.ours, path), goal)
    return ok({ path, theirs, result })
  }

  /** Carry the changes: every conflict decided, the merged contents stored, then written as one restore (Back undoes it). */
  async carry(
    agentId: string,
    request: unknown,
    actor: JournalActor,
    callId?: string,
  ): Promise<TreeResult<CarryResult>> {
    const checked = checkRequest(request)
    if (!checked.ok) return checked
    const early = callId === undefined ? await this.deps.resolveLive(agentId) : this.deps.resolveLoaded(agentId)
    if (!early.ok) return early
    const choice = checkSummaryChoice(checked.value.summary)
    if (!choice.ok) return choice
    // Refused before any file is written: a summary that could not reach the conversation.
    if (choice.value.kind !== 'none' && choice.value.carry === true && !canCarry(early.value.mode))
      return fail('SURFACE_UNAVAILABLE', CARRY_REFUSALS.carry, { mode: early.value.mode })
    const carried = await this.deps.workspaceMoves.serial(early.value.session.id, () =>
      this.apply(agentId, checked.value, callId),
    )
    if (!carried.ok || choice.value.kind === 'none') return carried
    return ok(await this.withSummary(agentId, carried.value, choice.value, actor, callId))
  }

  /** The other branch's part since the paths parted, summarized (and carried) after its files. */
  private async withSummary(
    agentId: string,
    result: CarryResult,
    choice: SummaryChoice,
    actor: JournalActor,
    callId: string | undefined,
  ): Promise<CarryResult> {
    const found = this.deps.resolveLoaded(agentId)
    if (!found.ok) return { ...result, summaryFailed: found.error }
    const tree = found.value.state.projector.tree
    const branch =
      result.branch ??
      tree.branchHeadList().find(([, head]) => head === result.from)?.[0] ??
      tree.get(result.from)?.branch ??
      result.from
    const part = pathPart(tree, branch, result.from, result.common)
    const summarized = await this.deps.summarizeHere(
      agentId,
      { part, lead: CARRIED_WORK_PREFIX },
      choice,
      actor,
      callId,
    )
    if (!summarized.ok)
      return { ...result, summaryFailed: { code: summarized.error.code, message: summarized.error.message } }
    return summarized.value?.summary === undefined ? result : { ...result, summary: summarized.value.summary }
  }

  private async apply(
    agentId: string,
    request: CarryRequest,
    callId: string | undefined,
  ): Promise<TreeResult<CarryResult>> {
    const planned = await this.plan(agentId, request)
    if (!planned.ok) return planned
    const { found, workspace, from, at, common, entries, blocked, contents } = planned.value
    const { agent, session } = found
    if (callId === undefined && agent && !isFree(agent))
      return fail('AGENT_BUSY', 'the agent is running; carry files when it is idle', { agentId, status: agent.status })
    const decisions = new Map((request.conflicts ?? []).map((c) => [c.path, c.decision]))
    const conflicts = entries.filter((e) => e.action === 'conflict')
    const decide = (entry: CarryEntry): CarryDecision | undefined => {
      const own = decisions.get(entry.path)
      if (own !== undefined) return own
      const all = decisions.get('*')
      // `*: markers` answers the text conflicts; the others still need their own answer.
      return all === 'markers' && !decisionsFor(entry).includes('markers') ? undefined : all
    }
    const wrong = conflicts.filter((e) => decisions.get(e.path) === 'markers' && !decisionsFor(e).includes('markers'))
    if (wrong.length > 0)
      return fail(
        'INVALID_ARGUMENT',
        `markers are only for text conflicts: ${wrong.map((e) => `${e.path} (${e.reason})`).join(', ')}; decide mine or theirs (nothing was changed)`,
        { paths: wrong.map((e) => e.path) },
      )
    const undecided = conflicts.filter((e) => decide(e) === undefined)
    if (undecided.length > 0)
      return fail(
        'WORKSPACE_CONFLICT',
        `${undecided.length} file(s) changed on both branches: ${undecided.map((e) => `${e.path} (${e.reason === 'text' ? `${e.hunks} overlapping region(s)` : e.reason})`).join(', ')}; decide mine, theirs${undecided.some((e) => e.reason === 'text') ? ' or markers' : ''} for each (nothing was changed)`,
        {
          conflicts: undecided.map((e) => ({ path: e.path, reason: e.reason, decisions: [...decisionsFor(e)] })),
        },
      )
    const writes: PlanEntry[] = []
    const taken: string[] = []
    const merged: string[] = []
    const marked: string[] = []
    const mine: string[] = []
    for (const entry of entries) {
      const decision = entry.action === 'conflict' ? decide(entry) : undefined
      const target = carriedState(entry, decision)
      if (target === undefined) {
        if (entry.action === 'conflict') mine.push(entry.path)
        continue
      }
      if (target !== entry.theirs) {
        // Merged bytes are stored durably before the journal names them.
        const text = contents.get(entry.path)
        if (text === undefined || target.kind !== 'file')
          return fail('WORKSPACE_IO', `the merge of ${entry.path} is missing; nothing was changed`, {
            path: entry.path,
          })
        const stored = workspace.store(Buffer.from(text, 'utf8'))
        if (!stored.ok) return fail('WORKSPACE_IO', `${stored.error.message}; nothing was changed`)
        if (stored.value !== target.hash)
          return fail('WORKSPACE_IO', `the merge of ${entry.path} changed while stored; nothing was changed`)
      }
      ;(entry.action === 'take' || decision === 'theirs' ? taken : decision === 'markers' ? marked : merged).push(
        entry.path,
      )
      writes.push({
        path: entry.path,
        action: actionOf(entry.ours, target),
        current: entry.ours,
        target,
        insertions: entry.insertions,
        deletions: entry.deletions,
      })
    }
    const w = Math.max(0, session.seq - 1)
    const named = planned.value.branch === undefined ? {} : { branch: planned.value.branch }
    const base = { from, ...named, at, common, taken, merged, marked, mine }
    if (writes.length === 0) {
      // Nothing to write is not a step of the files' history: a Back still undoes the restore before it.
      const files = { id: '', target: at, created: [], updated: [], deleted: [], kept: mine, blocked: [...blocked] }
      return ok({ ...base, files })
    }
    const plan = { target: at, entries: writes, conflicts: [], blocked, stat: statOf(writes) }
    const restored = await workspace.restore(plan, () => 'keep', w, undefined, from)
    if (!restored.ok) return restored
    const report = { ...restored.value, kept: [...mine, ...restored.value.kept] }
    await this.deps.workspaceMoves.afterRestore(found, workspace, report, callId !== undefined)
    // A file that changed while the carry ran was left alone: it is neither taken nor merged.
    const left = new Set(restored.value.kept)
    const keep = (paths: string[]) => paths.filter((p) => !left.has(p))
    return ok({ ...base, taken: keep(taken), merged: keep(merged), marked: keep(marked), files: report })
  }

  /** The text a tool or `/tree` shows for a carry. */
  static describe(result: CarryResult): string {
    const parts: string[] = []
    if (result.taken.length > 0) parts.push(`took ${result.taken.join(', ')}`)
    if (result.merged.length > 0) parts.push(`merged ${result.merged.join(', ')}`)
    if (result.marked.length > 0) parts.push(`wrote conflict markers into ${result.marked.join(', ')}`)
    const lines = [
      parts.length > 0
        ? `Carried the file changes of ${result.from} (since ${result.common ?? 'the start'}): ${parts.join('; ')}.`
        : `Nothing to carry from ${result.from}: no file it changed since ${result.common ?? 'the start'} differs here.`,
    ]
    const kept = result.files.kept
    if (kept.length > 0) lines.push(`Left as they are (changed on both branches): ${kept.join(', ')}.`)
    if (result.files.blocked.length > 0)
      lines.push(`Not carried: ${result.files.blocked.map((b) => `${b.path} (${b.reason})`).join(', ')}.`)
    if (result.summary)
      lines.push(
        result.summary.carriedNodeId === undefined
          ? `The summary of ${result.summary.branch} is kept in the tree.`
          : `The summary of ${result.summary.branch} is in the conversation (${result.summary.carriedNodeId}).`,
      )
    if (result.summaryFailed)
      lines.push(`The summary was not carried: ${result.summaryFailed.code}: ${result.summaryFailed.message}`)
    return lines.join('\n')
  }
}
