/**
 * `ctx.sessionTree`: the harness plugin. It keeps every live session's tree
 * in step with its log (`harness/sync.ts`), persists what the log cannot hold
 * (`sidecar/`), switches the model history when the user moves in the tree
 * (`surface/`), and serves it all to the browser as the typert remote
 * namespace `sessionTree`.
 *
 * Wire contract: seed 001's `list` / `jump` / `fork` / `session`, args named
 * `agentId` (the session's agent id), `nodeId`, `branch`; plus `label`,
 * `summarize`, `export`, `back`, `forward`. Errors keep their code end to end
 * (`{ ok: false, error: { code, message, details } }`), bounded in size.
 *
 * Every mutating call runs as one unit on its session's FIFO queue
 * (`queue.ts`): concurrent calls are answered in order, each with its own
 * effect. Reads are not queued.
 */
import type { Context } from '@deepseek-ai/cordis'
// Brings the `ctx.sessions` declaration (the harness session store) into this program.
import type {} from '@deepseek-ai/dsh-agent'
import type {} from '@deepseek-ai/dsh-session'
import s from '@deepseek-ai/schemastery'
import { Remote, TypertLookupFailure, TypertRemoteService } from '@deepseek-ai/dsh-typert-protocol'
import { fail, ok, type TreeError, type TreeResult } from '../tree/errors.ts'
import { sessionTreeStore, type SessionTreeStore } from '../tree/store.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import type { BranchSummary, LinearExport, SessionTreeOutline, SessionTreeView, TreeNode } from '../tree/types.ts'
import { TreeSync } from '../harness/sync.ts'
import { TreeSidecar } from '../sidecar/index.ts'
import { meterEstimator, StockSwitcher } from '../surface/stock.ts'
import type { LiveAgent } from '../harness/live.ts'
import { SURFACE_NOTES, surfaceModeOf, type SurfaceModeSetting } from '../surface/mode.ts'
import { bounded, clipped, quoted } from './clip.ts'
import { applyMove, type HarnessSession, type MoveDeps, type MoveRequest, type Resolved } from './move.ts'
import { SessionQueue } from './queue.ts'
import { draftSummary } from './summarizer.ts'
import { buildChatPath, type ChatPath } from './chat-path.ts'
import type { ForkResult, MoveResult, SessionStatus, SummarizeOptions, SummaryChoice, SurfaceMode, TreeMove, TreeMoveOptions } from './wire.ts'
import { branchPart, checkMoveOptions, checkSummaryChoice, MAX_INSTRUCTIONS, writeSummary } from './branch-summary.ts'
import { routeOf, summarizedMove, type SummaryMoveDeps } from './summary-move.ts'
import type { SummaryLlm } from './model-summary.ts'
import type { WorkspaceRegistry } from '../workspace/index.ts'
import { WORKSPACE_CONFIG, workspaceMovesFor, type ResolvedSession, type WorkspaceConfig, type WorkspaceMoves } from './workspace.ts'
import type { FileContent, FileDiff, FilesAtNode, RestorePreview, RestoreRequest, RestoreResult, WorkspaceOverview } from './workspace-wire.ts'
import { compare as compareNodes } from '../tree/compare.ts'
import { boundedComparison, COMPARE_MAX_ROWS, type CompareResult } from './compare-wire.ts'
import { attemptImport, runExport, runImport, type ExportRequest, type ExportResult, type ImportAttempt, type ImportRequest, type ImportResult } from './interchange.ts'
import { DEFAULT_ORPHAN_GRACE_MS, SessionLineage } from './lineage.ts'
import type { GcResult, NewSessionResult } from './lineage-wire.ts'
import type { SessionTreeListing } from './wire.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    sessionTree: SessionTreeService
  }
}

/** Plugin configuration (the `session-tree` row of `cordis.patch.yml`). */
export interface Config {
  /** Directory of the per-session sidecars; no sidecar is written when absent. */
  readonly sidecarRoot?: string
  /** `auto` (default), or force `native`, `stock` or `projection`. */
  readonly surfaceMode: SurfaceModeSetting
  /** How long a history switch may take (ms, default 30 000). */
  readonly switchTimeoutMs?: number
  /** Workspace checkpoints (files per node, restores). */
  readonly workspace?: Partial<WorkspaceConfig>
  /** How long the session's model may take to write a branch summary (ms, default 30 000); then the extractive digest stands in. */
  readonly summaryTimeoutMs?: number
  /** How long a sidecar whose session is gone is kept before a scan removes it (ms, default 7 days). */
  readonly orphanGraceMs?: number
}

export class SessionTreeService extends TypertRemoteService {
  static inject = ['sessions']

  static Config: s<Config> = s.object({
    sidecarRoot: s.string(),
    surfaceMode: s.union(['auto', 'native', 'stock', 'projection']).default('auto'),
    switchTimeoutMs: s.natural().default(30_000),
    workspace: WORKSPACE_CONFIG,
    summaryTimeoutMs: s.natural().default(30_000),
    orphanGraceMs: s.natural().default(DEFAULT_ORPHAN_GRACE_MS),
  }) as unknown as s<Config>

  /** Keeps trees in step with harness logs; shared with the tool companion through the store. */
  readonly sync: TreeSync
  readonly store: SessionTreeStore
  private readonly switcher: StockSwitcher
  private readonly settings: Config & { readonly switchTimeoutMs: number }
  private readonly summaryDeps: SummaryMoveDeps
  /** One FIFO of mutating calls per session. */
  private readonly queue = new SessionQueue()
  private readonly moveDeps: MoveDeps
  /** Workspace checkpoints: capture (harness layer) and the files half of moves. */
  private readonly workspaceMoves: WorkspaceMoves
  /** Sessions across sessions: new sessions from a node, lineage, orphaned sidecars (`lineage.ts`). */
  readonly lineage: SessionLineage

  constructor(ctx: Context, config: Partial<Config> = {}) {
    super(ctx, 'sessionTree')
    this.settings = { surfaceMode: config.surfaceMode ?? 'auto', switchTimeoutMs: config.switchTimeoutMs ?? 30_000, ...(config.sidecarRoot ? { sidecarRoot: config.sidecarRoot } : {}) }
    this.store = sessionTreeStore
    this.sync = new TreeSync(this.store, this.settings.sidecarRoot ? new TreeSidecar(this.settings.sidecarRoot) : undefined)
    this.switcher = new StockSwitcher({
      projectorFor: (id) => this.sync.get(id)?.projector,
      flush: async (session) => { await this.ctx.sessions.flush(session as never) },
      timeoutMs: this.settings.switchTimeoutMs, estimator: () => meterEstimator(this.ctx.get('tokenMeter' as never)),
    })
    this.moveDeps = { sync: this.sync, switcher: this.switcher, flush: async (session) => { await this.ctx.sessions.flush(session as never) } }
    this.summaryDeps = {
      llm: () => this.ctx.get('llm' as never) as SummaryLlm | undefined,
      timeoutMs: config.summaryTimeoutMs ?? 30_000,
      record: (sessionId, summary) => this.recordSummary(sessionId, summary),
    }
    // Nothing below may throw into the harness: a failure costs the tree, never the session.
    ctx.on('session/created', (session) => this.guard(() => this.sync.attach(session)))
    ctx.on('session/event', (session, event) => this.guard(() => {
      if (this.sync.get(session.id)) this.sync.project(session.id, event)
      else this.sync.attach(session)
    }))
    ctx.on('session/disposed', (session) => this.guard(() => {
      this.sync.detach(session.id)
      this.workspaceMoves?.registry.forget(session.id)
    }))
    this.lineage = new SessionLineage({
      ctx, sync: this.sync, sidecarRoot: this.settings.sidecarRoot, graceMs: config.orphanGraceMs ?? DEFAULT_ORPHAN_GRACE_MS,
      warn: (message) => this.ctx.logger('session-tree').warn(message),
    })
    // After the tree's own `session/created` listener above: the host fork's tree is projected by then.
    ctx.on('session/created', (session) => this.guard(() => this.lineage.noteCreated(session as never)))
    // One scan at start: sidecars whose session is gone are reported, and removed once past their grace period.
    ctx.inject(['sessionPersistence'], () => {
      void this.lineage.scan().then((scanned) => {
        if (!scanned.ok) this.ctx.logger('session-tree').warn(`orphan scan: ${scanned.error.message}`)
      })
    })
    ctx.on('agent/pre-step', (payload, next) => this.switcher.preStep(payload, next), { prepend: true })
    this.workspaceMoves = workspaceMovesFor(ctx, this.settings.sidecarRoot, config.workspace, {
      resolveLoaded: (agentId) => this.resolvedSession(this.resolveLoaded(agentId)),
      resolveLive: async (agentId) => this.resolvedSession(await this.resolveLive(agentId)),
      move: (agentId, move, callId) => this.moveAs(agentId, move, callId),
    })
    ctx.effect(() => {
      for (const session of this.ctx.sessions.list()) this.guard(() => this.sync.attach(session as unknown as HarnessSession))
      return () => {
        for (const id of this.sync.list()) this.sync.detach(id)
      }
    }, 'session-tree.attach')
  }

  // ------------------------------------------------------------------ reads

  /** The whole tree: nodes, branches, cursor. No side effects. */
  @Remote
  async list(agentId: string): Promise<SessionTreeListing> {
    return this.run(() => {
      const found = this.resolveLoaded(agentId)
      return found.ok ? ok({ ...found.value.state.projector.tree.view(), lineage: this.lineage.view(found.value.session) }) : found
    })
  }

  /** The tree without branch paths (what a panel draws): nodes and branch heads. No side effects. */
  @Remote
  async outline(agentId: string): Promise<SessionTreeOutline> {
    return this.run(() => {
      const found = this.resolveLoaded(agentId)
      return found.ok ? ok(found.value.state.projector.tree.outline()) : found
    })
  }

  /** Status: counts, cursor, surface mode, quarantine, sidecar warnings. No side effects. */
  @Remote
  async session(agentId: string): Promise<SessionStatus> {
    return this.run(() => {
      const found = this.resolveLoaded(agentId)
      if (!found.ok) return found
      const orphanSidecars = this.lineage.lastScan()
      return ok({ ...this.status(found.value), lineage: this.lineage.view(found.value.session), ...(orphanSidecars ? { orphanSidecars } : {}) })
    })
  }

  /**
   * The active path (tool calls included) plus a digest of every off-path
   * branch: its recorded summary, else an extractive digest written now (no
   * model call, nothing recorded). No side effects.
   */
  @Remote
  async export(agentId: string): Promise<LinearExport> {
    return this.run(async () => {
      const found = this.resolveLoaded(agentId)
      if (!found.ok) return found
      const tree = found.value.state.projector.tree
      const exported = tree.linearExport()
      if (!exported.ok) return exported
      const branches: BranchSummary[] = []
      for (const branch of exported.value.branches) {
        const drafted = branch.fallback ? await draftSummary(tree, branch.branch) : undefined
        branches.push(drafted?.ok ? drafted.value : branch)
      }
      return ok({ ...exported.value, branches })
    })
  }

  /** What DSH's Chat should show of the raw log so it reads as the model's history (see `chat-path.ts`). No side effects. */
  @Remote
  async chatPath(agentId: string): Promise<ChatPath> {
    return this.run(() => {
      const found = this.resolveLoaded(agentId)
      if (!found.ok) return found
      const { session, state, mode } = found.value
      const revision = this.status(found.value).revision!
      return ok(buildChatPath({ sessionId: session.id, revision, mode, events: session.events, projector: state.projector }))
    })
  }

  /**
   * Two nodes side by side: their last common ancestor, both paths after it
   * aligned, word and tool-call diffs, token and cost totals per side
   * (bounded, see `compare-wire.ts`). No side effects.
   */
  @Remote
  async compare(agentId: string, a: string, b: string): Promise<CompareResult> {
    return this.run(() => {
      const found = this.resolveLoaded(agentId)
      if (!found.ok) return found
      const compared = compareNodes(found.value.state.projector.tree, a, b, { maxRows: COMPARE_MAX_ROWS })
      return compared.ok ? ok(boundedComparison(compared.value)) : compared
    })
  }

  // -------------------------------------------------------------- movement

  /**
   * Move the cursor (`null`: before the first node). In native and stock
   * modes the model history follows: the next request holds exactly the
   * root-to-node path. A node inside a tool exchange is moved to the end of
   * that exchange (a history never ends between a call and its result).
   */
  @Remote
  async jump(agentId: string, nodeId: string | null): Promise<MoveResult> {
    return this.jumpWith(agentId, nodeId, {})
  }

  /**
   * `jump` with options: `summary` summarizes the part the move leaves (the
   * session's model writes it, with the extractive fallback) and, with
   * `carry: true`, appends it to the new path, where the model reads it.
   */
  @Remote
  async jumpWith(agentId: string, nodeId: string | null, options: TreeMoveOptions): Promise<MoveResult> {
    return this.run(() => this.serial(agentId, async () => {
      if (nodeId !== null && typeof nodeId !== 'string') return fail('INVALID_ARGUMENT', 'nodeId must be a string or null')
      const summary = checkMoveOptions(options)
      if (!summary.ok) return summary
      const moved = await this.moveWith(agentId, { nodeId, operation: (tree, target) => tree.jump(target ?? null) }, summary.value)
      return moved.ok ? ok(moved.value.move) : moved
    }))
  }

  /** Park a new named branch at a node and move there (the model history follows). */
  @Remote
  async fork(agentId: string, nodeId: string, branch: string): Promise<ForkResult> {
    return this.forkWith(agentId, nodeId, branch, {})
  }

  /** `fork` with options (`summary`, as for `jumpWith`: a carried summary is the new branch's first node). */
  @Remote
  async forkWith(agentId: string, nodeId: string, branch: string, options: TreeMoveOptions): Promise<ForkResult> {
    return this.run(() => this.serial(agentId, async () => {
      if (typeof nodeId !== 'string') return fail('INVALID_ARGUMENT', 'nodeId must be a string')
      if (typeof branch !== 'string') return fail('INVALID_ARGUMENT', 'branch must be a string')
      const summary = checkMoveOptions(options)
      if (!summary.ok) return summary
      const moved = await this.moveWith(agentId, { nodeId, operation: (tree, target) => tree.fork(target!, branch), branch }, summary.value)
      return moved.ok ? ok({ ...moved.value.move, ...moved.value.value, cursor: moved.value.move.summary?.carriedNodeId ?? moved.value.value.cursor }) : moved
    }))
  }

  /** Undo the last cursor move (the model history follows). */
  @Remote
  async back(agentId: string): Promise<MoveResult> {
    return this.run(() => this.serial(agentId, () => this.move(agentId, { nodeId: undefined, operation: (tree) => tree.back() })))
  }

  /** Redo a cursor move undone by `back` (the model history follows). */
  @Remote
  async forward(agentId: string): Promise<MoveResult> {
    return this.run(() => this.serial(agentId, () => this.move(agentId, { nodeId: undefined, operation: (tree) => tree.forward() })))
  }

  // ------------------------------------------------------------ annotation

  /** Set (`label` text) or clear (`null`) a node's label (sidecar only: SIDECAR_IO when it cannot be saved). */
  @Remote
  async label(agentId: string, nodeId: string, label: string | null): Promise<TreeNode> {
    return this.run(() => this.serial(agentId, async () => {
      const found = this.resolveLoaded(agentId)
      if (!found.ok) return found
      return this.sync.mutate(found.value.session.id, (tree) => tree.label(nodeId, label))
    }))
  }

  /**
   * Summarize a branch for the panel (nothing reaches the model): written by
   * the session's model when it has one (`writer: 'extractive'` asks for the
   * local digest), with the extractive fallback when the model fails or is
   * too slow. Sidecar only: SIDECAR_IO when it cannot be saved.
   */
  @Remote
  async summarize(agentId: string, branch: string): Promise<BranchSummary> {
    return this.summarizeWith(agentId, branch, {})
  }

  /** `summarize` with options: `writer` (`model` by default, or `extractive`), the user's own `instructions`. */
  @Remote
  async summarizeWith(agentId: string, branch: string, options: SummarizeOptions): Promise<BranchSummary> {
    return this.run(() => this.serial(agentId, async () => {
      const found = this.resolveLoaded(agentId)
      if (!found.ok) return found
      if (typeof options !== 'object' || options === null) return fail('INVALID_ARGUMENT', 'options must be an object')
      const writerKind = options?.writer ?? 'model'
      if (writerKind !== 'model' && writerKind !== 'extractive') return fail('INVALID_ARGUMENT', 'options.writer must be "model" or "extractive"')
      const instructions = options?.instructions
      if (instructions !== undefined && (typeof instructions !== 'string' || instructions.length > MAX_INSTRUCTIONS)) {
        return fail('INVALID_ARGUMENT', `options.instructions must be a string of at most ${MAX_INSTRUCTIONS} characters`)
      }
      if (writerKind === 'extractive') {
        const drafted = await draftSummary(found.value.state.projector.tree, branch)
        if (!drafted.ok) return drafted
        return this.recordSummary(found.value.session.id, drafted.value)
      }
      const part = branchPart(found.value.state.projector.tree, branch)
      if (!part.ok) return part
      const written = await writeSummary(part.value, {
        llm: this.summaryDeps.llm(),
        route: routeOf(found.value),
        sessionId: found.value.session.id,
        timeoutMs: this.summaryDeps.timeoutMs,
      }, instructions?.trim() || undefined)
      return this.recordSummary(found.value.session.id, written)
    }))
  }

  /**
   * Record a branch summary someone wrote (the model's `tree_summarize_branch`
   * with a text), on the session's queue like every other change. Not a remote method.
   */
  setBranchSummary(agentId: string, branch: string, text: string, model?: string): Promise<TreeResult<BranchSummary>> {
    return this.serial(agentId, async () => {
      const found = this.resolveLoaded(agentId)
      if (!found.ok) return found
      return this.sync.mutate(found.value.session.id, (tree) => tree.setBranchSummary(branch, text, model))
    })
  }

  // ------------------------------------------------------------- workspace

  /** Workspace checkpoints: status, the nodes that changed files (with their paths), the restores. No side effects. */
  @Remote
  async files(agentId: string): Promise<WorkspaceOverview> {
    return this.run(() => this.workspaceMoves.overview(agentId))
  }

  /** Every tracked file as it was at a node (`null`: before the first node), and whether it differs now. No side effects. */
  @Remote
  async filesAt(agentId: string, nodeId: string | null): Promise<FilesAtNode> {
    return this.run(() => this.workspaceMoves.filesAt(agentId, nodeId))
  }

  /** One file's content at a node. No side effects. */
  @Remote
  async fileAt(agentId: string, nodeId: string | null, path: string): Promise<FileContent> {
    return this.run(() => this.workspaceMoves.fileAt(agentId, nodeId, path))
  }

  /** What a move would do to the files (added, changed, deleted, diff stat, conflicts); nothing is written. */
  @Remote
  async restorePreview(agentId: string, request: RestoreRequest): Promise<RestorePreview> {
    return this.run(() => this.workspaceMoves.preview(agentId, request))
  }

  /** One file of a preview as a unified diff (now → the move's target). No side effects. */
  @Remote
  async restoreDiff(agentId: string, request: RestoreRequest, path: string): Promise<FileDiff> {
    return this.run(() => this.workspaceMoves.diff(agentId, request, path))
  }

  /**
   * A move that takes the conversation, the files, or both. Conflicts (files
   * changed outside the agent) need a decision each, else `WORKSPACE_CONFLICT`
   * and nothing changes; what a restore replaces is checkpointed first, so a
   * `back` with files brings it back.
   */
  @Remote
  async restore(agentId: string, request: RestoreRequest): Promise<RestoreResult> {
    // One unit: the conversation half and the files half of a restore never interleave with another move.
    return this.run(() => this.serial(agentId, () => this.workspaceMoves.restore(agentId, request)))
  }

  /** The sessions' workspace checkpoints (capture writes them; tests and tools read them). Not a remote method. */
  get workspaces(): WorkspaceRegistry {
    return this.workspaceMoves.registry
  }

  /** The files half of a model's own move from inside its step (`callId`), or of a deferred one. Not a remote method. */
  restoreFor(agentId: string, request: RestoreRequest, callId?: string): Promise<TreeResult<RestoreResult>> {
    return this.serial(agentId, () => this.workspaceMoves.restore(agentId, request, callId))
  }

  // -------------------------------------------------------------- lineage

  /**
   * A new DSH session whose model history is exactly the root-to-node path
   * (a node inside a tool exchange: to that exchange's end). It joins the
   * source's workspace and, in `dsh web`, is live at once; both sessions
   * record the fork (`session`'s `lineage`). The source is not changed.
   */
  @Remote
  async openAsNewSession(agentId: string, nodeId: string): Promise<NewSessionResult> {
    return this.run(() => this.serial(agentId, async () => {
      const found = this.resolveLoaded(agentId)
      return found.ok ? this.lineage.openAsNewSession(found.value, nodeId) : found
    }))
  }

  /**
   * Remove every sidecar whose session no longer exists (`dryRun`: only
   * report them). A start-up scan reports them too, and removes them after
   * the grace period (`orphanGraceMs`).
   */
  @Remote
  async gc(dryRun: boolean): Promise<GcResult> {
    return this.run(() => {
      if (dryRun !== undefined && typeof dryRun !== 'boolean') return fail('INVALID_ARGUMENT', 'dryRun must be a boolean')
      return this.lineage.scan(dryRun ? { dryRun: true } : { force: true })
    })
  }

  // ---------------------------------------------------------- interchange

  /**
   * Import a Pi, Claude Code or Codex session as a new DSH session with its
   * whole tree (all or nothing); `dryRun` previews without writing. The new
   * session is stored, then resumed here the way the web host resumes one.
   */
  @Remote
  async importSession(request: ImportRequest): Promise<ImportResult> {
    return this.run(() => runImport(request, {
      persistence: this.ctx.get('sessionPersistence' as never) as never,
      sidecarRoot: this.settings.sidecarRoot,
      load: (sessionId) => this.resolveLive(sessionId),
    }))
  }

  /** `importSession` with its failure as data, for the Tree tab (dsh web's browser boundary carries only the host's error codes). */
  @Remote
  async tryImport(request: ImportRequest): Promise<ImportAttempt> {
    return attemptImport(() => this.importSession(request))
  }

  /** Export a loaded session's tree as Pi JSONL, Claude Code JSONL or Markdown (a new file, or inline). */
  @Remote
  async exportAs(request: ExportRequest): Promise<ExportResult> {
    return this.run(async () => {
      if (typeof request !== 'object' || request === null) return fail('INVALID_ARGUMENT', 'request must be an object')
      const found = this.resolveLoaded(request.agentId)
      if (!found.ok) return found
      const header = found.value.session.header as { cwd?: unknown } | undefined
      return runExport(request, found.value.state.projector.tree, {
        sidecarRoot: this.settings.sidecarRoot,
        cwd: typeof header?.cwd === 'string' ? header.cwd : undefined,
      })
    })
  }

  /**
   * The live tree and surface mode of a loaded session, for the tool companion and `/tree` (the
   * same resolution as `session`, without building a status). `tip`: the node the model's history
   * ends at now (the surface tip; `null`: empty). Not a remote method.
   */
  treeOf(agentId: string): TreeResult<{ tree: SessionTree; mode: SurfaceMode; tip: string | null }> {
    const found = this.resolveLoaded(agentId)
    return found.ok ? ok({ tree: found.value.state.projector.tree, mode: found.value.mode, tip: found.value.state.projector.tip }) : found
  }

  /**
   * A move the agent's model makes with a tool, from inside its running step
   * (stock mode): the tree moves and the history switches at once, within the
   * step that issued `callId`; the next request of the same turn holds the
   * selected path, then that call and its result. Queued like every move; it
   * cannot wait long, because no unit ever waits for a model turn (`queue.ts`).
   * Not a remote method.
   */
  async moveWithinStep(sessionId: string, callId: string, move: TreeMove): Promise<TreeResult<MoveResult>> {
    try {
      return await this.serial(sessionId, () => {
        switch (move.kind) {
          case 'jump':
            return this.move(sessionId, { nodeId: move.nodeId, operation: (tree, target) => tree.jump(target ?? null), withinCall: callId }, move.summary)
          case 'fork':
            return this.move(sessionId, { nodeId: move.nodeId, operation: (tree, target) => tree.fork(target!, move.branch), branch: move.branch, withinCall: callId }, move.summary)
          case 'back':
            return this.move(sessionId, { nodeId: undefined, operation: (tree) => tree.back(), withinCall: callId })
          case 'forward':
            return this.move(sessionId, { nodeId: undefined, operation: (tree) => tree.forward(), withinCall: callId })
        }
      })
    } catch (error) {
      return fail('INTERNAL', error instanceof Error ? error.message : String(error))
    }
  }

  // -------------------------------------------------------------- internals

  /** Run a mutating unit on its session's queue (an argument that names no session runs at once and fails). */
  private serial<T>(agentId: unknown, unit: () => Promise<TreeResult<T>>): Promise<TreeResult<T>> {
    if (typeof agentId !== 'string' || agentId === '') return unit()
    return this.queue.run(agentId, unit)
  }

  /** One cursor move of a session (see `move.ts`). Call it on the session's queue. */
  private async move(agentId: string, request: MoveRequest<unknown>, summary?: SummaryChoice): Promise<TreeResult<MoveResult>> {
    const moved = await this.moveWith(agentId, request, summary)
    return moved.ok ? ok(moved.value.move) : moved
  }

  /** A move, optionally summarizing the part it leaves (`summary-move.ts`). */
  private async moveWith<V>(agentId: string, request: MoveRequest<V>, summary: SummaryChoice = { kind: 'none' }): Promise<TreeResult<{ move: MoveResult; value: V }>> {
    const found = request.withinCall === undefined ? await this.resolveLive(agentId) : this.resolveLoaded(agentId)
    if (!found.ok) return found
    const checked = checkSummaryChoice(summary)
    if (!checked.ok) return checked
    return summarizedMove(this.summaryDeps, found.value, request.nodeId, checked.value, request.withinCall !== undefined, (carry) =>
      applyMove(this.moveDeps, found.value, carry === undefined ? request : { ...request, carry }))
  }

  /** Record a drafted summary in one synchronous step; SIDECAR_IO (and nothing recorded) when it cannot be saved. */
  private recordSummary(sessionId: string, summary: BranchSummary): TreeResult<BranchSummary> {
    return this.sync.mutate(sessionId, (tree) => {
      const applied = tree.applyOp({ op: 'summary', summary })
      if (!applied.ok) return applied
      return ok(tree.summaries().find((recorded) => recorded.branch === summary.branch) ?? summary)
    })
  }

  /**
   * A move given as a value: at once, or inside the running step of `callId`
   * (the workspace half's conversation part). Not queued itself: its callers
   * (`restore`, `restoreFor`) already run on the session's queue.
   */
  private async moveAs(agentId: string, move: TreeMove, callId?: string): Promise<TreeResult<MoveResult>> {
    try {
      const withinCall = callId === undefined ? {} : { withinCall: callId }
      switch (move.kind) {
        case 'jump':
          return await this.move(agentId, { nodeId: move.nodeId, operation: (tree, target) => tree.jump(target ?? null), ...withinCall }, move.summary)
        case 'fork':
          return await this.move(agentId, { nodeId: move.nodeId, operation: (tree, target) => tree.fork(target!, move.branch), branch: move.branch, ...withinCall }, move.summary)
        case 'back':
          return await this.move(agentId, { nodeId: undefined, operation: (tree) => tree.back(), ...withinCall })
        case 'forward':
          return await this.move(agentId, { nodeId: undefined, operation: (tree) => tree.forward(), ...withinCall })
      }
    } catch (error) {
      return fail('INTERNAL', error instanceof Error ? error.message : String(error))
    }
  }

  private resolvedSession(found: TreeResult<Resolved>): TreeResult<ResolvedSession> {
    if (!found.ok) return found
    const { session, agent, state, mode } = found.value
    return ok({ session, agent, tree: state.projector.tree, projector: state.projector, mode })
  }

  /** A loaded (live) session for reads; never resumes a cold one. */
  private resolveLoaded(agentId: unknown): TreeResult<Resolved> {
    if (typeof agentId !== 'string' || agentId === '') return fail('INVALID_ARGUMENT', 'agentId must be a non-empty string')
    const agent = this.agents()?.get(agentId)
    const session = (agent?.session ?? this.ctx.sessions.get(agentId as never)) as HarnessSession | undefined
    if (!session) {
      return fail('SESSION_NOT_FOUND', `session ${quoted(agentId)} is not loaded in this harness (a stored session loads when it gets a message)`, { agentId: clipped(agentId) })
    }
    const state = this.sync.attach(session)
    return ok({ session, agent, state, mode: surfaceModeOf(this.settings.surfaceMode, session, agent !== undefined) })
  }

  /** A live session for moves; a stored (cold) session is resumed the way the web host does it. */
  private async resolveLive(agentId: unknown): Promise<TreeResult<Resolved>> {
    const loaded = this.resolveLoaded(agentId)
    if (loaded.ok && loaded.value.agent) return loaded
    if (typeof agentId !== 'string' || agentId === '') return loaded
    const lookup = (this.ctx.get('typert' as never) as { lookups?: { get(key: string): { resolve(id: string): Promise<unknown> } | undefined } } | undefined)?.lookups?.get('agent')
    if (!lookup) return loaded
    try {
      await lookup.resolve(agentId)
    } catch {
      // The lookup knows no such session either: the same answer a read gives.
      return loaded
    }
    return this.resolveLoaded(agentId)
  }

  private agents(): { get(id: string): LiveAgent | undefined } | undefined {
    return this.ctx.get('agents' as never) as { get(id: string): LiveAgent | undefined } | undefined
  }

  private status(found: Resolved): SessionStatus {
    const { state, mode } = found
    const projector = state.projector
    const info = projector.tree.info()
    const hostedUsage = projector.hostedUsage
    const pending = projector.switchInProgress
    return {
      ...info,
      surfaceMode: mode,
      surfaceNote: SURFACE_NOTES[mode],
      watermark: projector.watermark,
      // The tree instance changes on a rebuild; its log seq on every mutation.
      revision: `${this.sync.generation(found.session.id)}:${projector.tree.logSeq}`,
      quarantine: [...projector.quarantine],
      sidecarWarnings: [...state.warnings],
      logWarnings: projector.logWarnings,
      ...(pending ? { pendingSwitch: { target: pending.target, branch: pending.branch ?? info.activeBranch } } : {}),
      ...(Object.keys(hostedUsage).length > 0 ? { hostedUsage } : {}),
    }
  }

  /** Settle a result at the remote edge: a value, or an error that keeps its code. */
  private async run<T>(operation: () => TreeResult<T> | Promise<TreeResult<T>>): Promise<T> {
    let result: TreeResult<T>
    try {
      result = await operation()
    } catch (error) {
      result = fail('INTERNAL', error instanceof Error ? error.message : String(error))
    }
    if (result.ok) return result.value
    // The gateway forwards a lookup failure's payload verbatim; anything else becomes `internal`.
    throw new TypertLookupFailure<TreeError>(bounded(result.error))
  }

  private guard(operation: () => unknown): void {
    try {
      operation()
    } catch (error) {
      this.ctx.logger('session-tree').warn(error)
    }
  }
}

export default SessionTreeService
