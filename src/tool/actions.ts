/**
 * What the model tools and `/tree` do, once: read the calling agent's own tree
 * and move, label or summarize through the service, so panel, tools and
 * command share one store and journal. Each action returns text for its reader
 * plus a small value; failures keep their tree error code. Moves are validated
 * at once; when they apply: docs/tools.md, "When a move takes effect".
 */
import type { RestoreChoice } from '../service/workspace-wire.ts'
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import type { BranchSummary, JsonValue } from '../tree/types.ts'
import { checkBranchName, validated } from '../tree/validate.ts'
import type { SessionTreeService } from '../service/service.ts'
import type { JournalActor, SurfaceMode } from '../service/wire.ts'
import { filesValue, runMove } from './files.ts'
import { describeMove, type TreeMove } from '../service/tree-move.ts'
import { landing } from '../tree/move.ts'
import { isFree, type LiveAgent } from '../harness/live.ts'
import { SURFACE_NOTES } from '../surface/mode.ts'
import type { DeferredMoves, MoveRequester } from './deferred.ts'
import { DEFAULT_DEPTH, findNodes, headsOf, nodeLine, renderTree, resolveNode } from './render.ts'
import {
  appliedText,
  describeOutcome,
  filesOnlyText,
  isTreeToolCall,
  latestPromptDropped,
  notFound,
  plural,
  quote,
  scheduledText,
  withinStepRefusal,
  withinStepText,
  type Plan,
} from './wording.ts'
import { renderComparison, renderFilesComparison, resolvePair } from './compare-text.ts'

/** The result of one action. */
export interface ActionOutput {
  /** What the reader sees. */
  readonly text: string
  /** Structured facts (the tool's canonical value; the command ignores it). */
  readonly value: { readonly [key: string]: JsonValue }
}

export type ActionResult = TreeResult<ActionOutput>

/** Whether moves can reach a next request at all (false in a one-shot headless run). */
export interface ActionEnvironment {
  readonly oneShot: () => boolean
  readonly maxLines: number
}

interface Loaded {
  readonly tree: SessionTree
  readonly mode: SurfaceMode
  /** Where the model's history ends now. */
  readonly tip: string | null
}

/** Who a tool or `/tree` change is journaled for: the model (through the call `callId`), or a person at `/tree`. */
export function actorOf(by: MoveRequester, callId?: string): JournalActor {
  if (by === 'user') return { kind: 'user', via: 'command' }
  return callId === undefined ? { kind: 'model' } : { kind: 'model', callId }
}

export class TreeActions {
  private readonly service: SessionTreeService
  private readonly moves: DeferredMoves
  private readonly env: ActionEnvironment

  constructor(service: SessionTreeService, moves: DeferredMoves, env: ActionEnvironment) {
    this.service = service
    this.moves = moves
    this.env = env
  }

  /** The service behind the actions (`/tree import` and `/tree export` call it directly). */
  get sessionTree(): SessionTreeService {
    return this.service
  }

  private load(agent: LiveAgent): TreeResult<Loaded> {
    return this.service.treeOf(agent.id)
  }

  /** The header every listing starts with. */
  private header(agent: LiveAgent, { tree, mode }: Loaded): string[] {
    const branches = tree.branchHeadList().map(([name]) => name)
    const lines = [
      `Conversation tree: ${plural(tree.nodeCount, 'node')}, ${plural(branches.length, 'branch')}${branches.length > 0 ? ` (${branches.join(', ')})` : ''}. ` +
        (tree.cursor === null
          ? 'The history is empty. '
          : `The history ends at ${tree.cursor} (← cursor) on branch ${quote(tree.activeBranch)}. `) +
        `Surface mode: ${mode}.`,
    ]
    const pending = this.moves.pending(agent.id)
    if (pending)
      lines.push(
        `Waiting: ${describeMove(pending.op)} (asked by the ${pending.by}; applies when the current turn ends).`,
      )
    const last = this.moves.lastOutcome(agent.id)
    // A move that did not happen as announced is worth saying (a cancel by `back` was said at the time).
    if (last && (last.status === 'failed' || last.status === 'dropped'))
      lines.push(`Last deferred move: ${describeOutcome(last)}.`)
    return lines
  }

  /** The outline of the tree (or of the subtree under `from`). */
  async list(
    agent: LiveAgent,
    options: { depth?: number; from?: string; maxLines?: number; human?: boolean } = {},
  ): Promise<ActionResult> {
    const loaded = this.load(agent)
    if (!loaded.ok) return loaded
    const { tree, mode } = loaded.value
    let from: string | undefined
    if (options.from !== undefined) {
      from = resolveNode(tree, options.from)
      if (from === undefined) return notFound(options.from)
    }
    const rendered = renderTree(tree, {
      depth: options.depth ?? DEFAULT_DEPTH,
      maxLines: options.maxLines ?? this.env.maxLines,
      ...(from === undefined ? {} : { from }),
    })
    const lines = [...this.header(agent, loaded.value)]
    if (options.human) lines.push(SURFACE_NOTES[mode])
    lines.push('', ...rendered.lines)
    if (rendered.abridged) {
      lines.push(
        '',
        options.human
          ? '(abridged: `/tree list <depth>` expands nested forks)'
          : '(abridged: "…" marks elided nodes; list with `node` set to a node id, or a larger `depth`, shows more)',
      )
    }
    return ok({
      text: lines.join('\n'),
      value: {
        cursor: tree.cursor,
        branch: tree.activeBranch,
        nodeCount: tree.nodeCount,
        mode,
        abridged: rendered.abridged,
      },
    })
  }

  /** Nodes by label or text. */
  async find(
    agent: LiveAgent,
    query: string,
    options: { by?: 'label' | 'text' | 'any'; limit?: number } = {},
  ): Promise<ActionResult> {
    if (typeof query !== 'string' || query.trim() === '')
      return fail('INVALID_ARGUMENT', 'query must be a non-empty string')
    const loaded = this.load(agent)
    if (!loaded.ok) return loaded
    const { tree } = loaded.value
    const { matches, total } = findNodes(tree, query, { ...options, skip: isTreeToolCall })
    const onPath = new Set(tree.currentPath().map((node) => node.nodeId))
    const heads = headsOf(tree)
    const lines = matches.map(
      (node) => `${nodeLine(tree, node, 100, heads)}${onPath.has(node.nodeId) ? ' (on your current path)' : ''}`,
    )
    const head =
      total === 0
        ? `No node matches ${quote(query)}.`
        : `${plural(total, 'node')} match${total === 1 ? 'es' : ''} ${quote(query)}${total > matches.length ? ` (showing ${matches.length})` : ''}:`
    return ok({
      text: [head, ...lines].join('\n'),
      value: {
        total,
        matches: matches.map((node) => ({
          nodeId: node.nodeId,
          summary: node.summary,
          ...(node.label === undefined ? {} : { label: node.label }),
        })),
      },
    })
  }

  /**
   * Two nodes (ids, labels or branch names) side by side, as a compact text
   * diff; with `files`, the workspace files that differ between them
   * (`files`: instead, `both`: after the words). Read-only.
   */
  async compare(agent: LiveAgent, a: string, b: string, files?: RestoreChoice): Promise<ActionResult> {
    const loaded = this.load(agent)
    if (!loaded.ok) return loaded
    const pair = resolvePair(loaded.value.tree, a, b)
    if (!pair.ok) return pair
    if (files === 'files' || files === 'both') {
      const [x, y] = pair.value
      const differ = await this.service.compareFilesOf(agent.id, x, y)
      if (!differ.ok) return differ
      const words = files === 'both' ? await this.compare(agent, x, y) : undefined
      if (words !== undefined && !words.ok) return words
      const listed = renderFilesComparison(differ.value)
      return ok({
        text: words === undefined ? listed : `${words.value.text}\n\n${listed}`,
        value: {
          ...(words === undefined ? { a: x, b: y } : (words.value.value as Record<string, JsonValue>)),
          files: differ.value.files.map((f) => f.path),
        },
      })
    }
    const compared = await this.service.compareOf(agent.id, pair.value[0], pair.value[1])
    if (!compared.ok) return compared
    const c = compared.value
    return ok({
      text: renderComparison(c),
      value: {
        a: c.a.nodeId,
        b: c.b.nodeId,
        ancestor: c.ancestor,
        changedRows: c.changedRows,
        rows: c.rows.length + c.omittedRows,
        tokensA: c.a.totals.tokens,
        tokensB: c.b.totals.tokens,
      },
    })
  }

  /** Set (`text`) or clear (`null`) a label; immediate, the history does not change. */
  async label(agent: LiveAgent, node: string, text: string | null, actor: JournalActor): Promise<ActionResult> {
    const loaded = this.load(agent)
    if (!loaded.ok) return loaded
    const nodeId = resolveNode(loaded.value.tree, node)
    if (nodeId === undefined) return notFound(node)
    const before = loaded.value.tree.get(nodeId)?.label
    const labeled = await this.service.actingAs(actor).setLabel(agent.id, nodeId, text)
    if (!labeled.ok) return labeled
    const summary = nodeLine(loaded.value.tree, labeled.value, 80)
    return ok({
      text:
        text === null
          ? before === undefined
            ? `${nodeId} had no label; nothing changed.`
            : `Removed the label ${quote(before)} from ${nodeId}.`
          : `Labeled ${nodeId} ${quote(labeled.value.label ?? text)}: ${summary}`,
      value: { nodeId, label: labeled.value.label ?? null },
    })
  }

  /** Record a branch summary: the caller's text, or an extractive digest. */
  async summarize(
    agent: LiveAgent,
    branch: string,
    summary: string | undefined,
    model: string | undefined,
    actor: JournalActor,
  ): Promise<ActionResult> {
    const loaded = this.load(agent)
    if (!loaded.ok) return loaded
    let recorded: TreeResult<BranchSummary>
    if (summary === undefined) {
      recorded = await this.service.actingAs(actor).summarizeBranch(agent.id, branch)
    } else {
      if (summary.trim() === '')
        return fail('INVALID_ARGUMENT', 'summary must be a non-empty string (omit it for an extractive digest)')
      recorded = await this.service.actingAs(actor).setBranchSummary(agent.id, branch, summary, model)
    }
    if (!recorded.ok) return recorded
    const value = recorded.value
    const by = value.fallback
      ? value.failure
        ? `the extractive digest (the model's summary failed: ${value.failure.code})`
        : 'a fallback digest (the summarizer failed)'
      : value.model
        ? `by ${value.provider ? `${value.provider}/` : ''}${value.model}${value.usage ? `, ${value.usage.inputTokens + (value.usage.cacheReadTokens ?? 0)} tokens in, ${value.usage.outputTokens} out` : ''}`
        : 'caller-written'
    return ok({
      text: `Recorded the summary of branch ${quote(value.branch)} (head ${value.nodeId}, ${by}):\n${value.summary}`,
      value: {
        branch: value.branch,
        nodeId: value.nodeId,
        summary: value.summary,
        ...(value.model ? { model: value.model } : {}),
        ...(value.fallback ? { fallback: true } : {}),
      },
    })
  }

  /**
   * A cursor move. An idle agent moves now (a person's `/tree jump`). On a
   * running agent, the model's own move (`callId`, stock mode) switches its
   * history within the step that made the call; when that is impossible (the
   * call shares its message with other calls, or a move already waits) and
   * for a person's move, it is deferred to the end of the turn.
   */
  async move(agent: LiveAgent, requested: TreeMove, by: MoveRequester, callId?: string): Promise<ActionResult> {
    const loaded = this.load(agent)
    if (!loaded.ok) return loaded
    const { tree, mode, tip } = loaded.value
    const pending = this.moves.pending(agent.id)
    if (requested.kind === 'back' && pending) {
      this.moves.cancel(agent.id)
      return ok({
        text: `Cancelled the waiting ${describeMove(pending.op)}; it had not been applied, so nothing changed.`,
        value: { status: 'cancelled', mode },
      })
    }
    const planned = this.plan(tree, requested, mode)
    if (!planned.ok) return planned
    const plan = planned.value
    const idle = isFree(agent) && !pending
    if (idle) {
      const moved = await runMove(this.service.actingAs(actorOf(by, callId)), agent.id, plan.op)
      if (!moved.ok) return moved
      if (moved.value.filesOnly)
        return ok({
          text: filesOnlyText(plan, moved.value),
          value: { status: 'applied', mode, target: plan.target, files: filesValue(moved.value) },
        })
      return ok({
        text: appliedText(plan, moved.value),
        value: {
          status: 'applied',
          mode,
          cursor: moved.value.cursor,
          branch: moved.value.branch ?? tree.activeBranch,
          ...(moved.value.files ? { files: filesValue(moved.value) } : {}),
        },
      })
    }
    // The model's own move, in stock mode: switch now, inside the step that made the call.
    let notNow: string | undefined
    if (callId !== undefined && mode === 'stock' && !pending) {
      const before = tree.historyPath(tip)
      const moved = await runMove(this.service.actingAs(actorOf(by, callId)), agent.session.id, plan.op, callId)
      if (moved.ok && moved.value.filesOnly) {
        return ok({
          text: filesOnlyText(plan, moved.value),
          value: { status: 'applied', mode, target: plan.target, files: filesValue(moved.value) },
        })
      }
      if (moved.ok) {
        const dropped = before.ok ? latestPromptDropped(before.value, plan.target, tree) : undefined
        return ok({
          text: withinStepText(plan, moved.value, dropped),
          value: {
            status: 'applied',
            mode,
            target: plan.target,
            cursor: moved.value.cursor,
            branch: moved.value.branch ?? plan.branch,
            messages: plan.messageCount,
            ...(moved.value.files ? { files: filesValue(moved.value) } : {}),
          },
        })
      }
      // AGENT_BUSY: the call shares its message or is not the last thing said; wait for the turn's end.
      if (moved.error.code !== 'AGENT_BUSY') return moved
      notNow = withinStepRefusal(moved.error)
    } else if (callId !== undefined && mode === 'stock' && pending) {
      notNow = 'another move already waits for the end of the turn'
    }
    if (this.env.oneShot()) {
      return ok({
        text:
          notNow === undefined
            ? `Not applied: ${describeMove(plan.op)}. This is a one-shot headless run that ends with this turn, so there is no next request to change; the tree and your history stay as they are.`
            : `Not applied: ${describeMove(plan.op)}. It cannot switch your history at once (${notNow}), and this one-shot headless run ends with this turn, so there is no later request to change; the tree and your history stay as they are.`,
        value: { status: 'not-applied', mode },
      })
    }
    const scheduled = this.moves.schedule(agent, plan.op, by)
    if (!scheduled.ok) return scheduled
    return ok({
      text: scheduledText(plan, mode, by, scheduled.value.replaced, agent.status !== 'idle', notNow),
      value: { status: 'scheduled', mode, target: plan.target, branch: plan.branch, messages: plan.messageCount },
    })
  }

  /** Check a move against the tree as it is now (node ids or labels), and resolve what it will do. */
  private plan(tree: SessionTree, op: TreeMove, mode: SurfaceMode): TreeResult<Plan> {
    let branch = tree.activeBranch
    let resolved: TreeMove = { ...op, ...choicesOf(op) }
    if (op.kind === 'jump' || op.kind === 'fork') {
      const nodeId = op.nodeId === null ? null : resolveNode(tree, op.nodeId)
      if (nodeId === undefined) return notFound(op.nodeId!)
      if (op.kind === 'fork') {
        const name = validated(() => checkBranchName(op.branch))
        if (!name.ok) return name
        branch = name.value
        if (tree.branchHeadList().some(([name]) => name === branch))
          return fail('BRANCH_EXISTS', `branch ${quote(branch)} already exists; pick another name`, { branch })
        resolved = { kind: 'fork', nodeId: nodeId!, branch, ...choicesOf(op) }
      } else {
        resolved = { kind: 'jump', nodeId, ...choicesOf(op) }
        // Landing on a branch head makes that branch active (the active one when it is a head there too).
        const heads = tree
          .branchHeadList()
          .filter(([, id]) => id === nodeId)
          .map(([name]) => name)
        branch = heads.includes(tree.activeBranch) ? tree.activeBranch : (heads[0] ?? tree.activeBranch)
      }
    }
    // A recorded position inside a tool exchange (say, the call that made a move) lands at the nearest complete point, as in the service.
    const landed = landing(tree, resolved, mode !== 'projection')
    if (!landed.ok) return landed
    const { target, snappedFrom } = landed.value
    if (landed.value.branch !== undefined) branch = landed.value.branch
    const history = tree.historyPath(target)
    if (!history.ok) return history
    return ok({
      op: resolved,
      target,
      branch,
      messageCount: history.value.length,
      ...(snappedFrom === undefined ? {} : { snappedFrom }),
    })
  }
}

/**
 * What a move takes along, as the service is asked for it: a summary unless `none`, and for a move with
 * the files a decision for every conflict (keep, unless the caller said overwrite).
 */
function choicesOf(op: TreeMove): Pick<TreeMove, 'files' | 'conflicts' | 'summary'> {
  const files = op.files === 'files' || op.files === 'both'
  return {
    ...(op.files === undefined ? {} : { files: op.files }),
    ...(files ? { conflicts: op.conflicts ?? [{ path: '*', decision: 'keep' }] } : {}),
    ...(op.summary === undefined || op.summary.kind === 'none' ? {} : { summary: op.summary }),
  }
}
