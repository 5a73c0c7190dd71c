/**
 * `ctx.sessionTree`: the harness plugin, served as the typert namespace
 * `sessionTree`. Keeps each live session's tree in step with its log
 * (`harness/sync.ts`), persists what the log cannot hold (`sidecar/`) and
 * switches the model history (`surface/`). Mutating calls run on the session's
 * queue (`queue.ts`); reads are not queued. The remote methods stay here (the
 * client in `lib/` is generated from them); their work lives in area modules
 * built in the constructor. docs/service.md.
 */
import type { Context } from '@deepseek-ai/cordis'
// Brings the `ctx.sessions` declaration (the harness session store) into this program.
import type {} from '@deepseek-ai/dsh-agent'
import type {} from '@deepseek-ai/dsh-session'
import type s from '@deepseek-ai/schemastery'
import { Remote, TypertRemoteService } from '@deepseek-ai/dsh-typert-protocol'
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import { SessionTreeStore } from '../tree/store.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import type {
  BranchSummary,
  JsonValue,
  LinearExport,
  SessionTreeOutline,
  SessionTreeOutlineChanges,
  TreeNode,
} from '../tree/types.ts'
import { TreeSync } from '../harness/sync.ts'
// Registers this plugin's own log-only event types before any session is read.
import '../harness/plugin-events.ts'
import { claimRefusal, processClaims, TreeSidecar } from '../sidecar/index.ts'
import { processKind } from './process-kind.ts'
import { StockSwitcher, type TranscriptReader } from '../surface/stock.ts'
import { hostParts } from '../surface/surface.ts'
import { SurfaceChoices } from '../surface/choice.ts'
import { SessionQueue } from './queue.ts'
import type { ChatPath } from './chat-path.ts'
import type {
  ForkResult,
  MoveBrief,
  MoveResult,
  SessionStatus,
  SessionTreeListing,
  SummarizeOptions,
  SurfaceMode,
  TreeMoveOptions,
  WatchAnswer,
  WatchRequest,
  WireMoveRequest,
} from './wire.ts'
import { checkMove, movesFiles, type TreeMove } from './tree-move.ts'
import { RevisionWatch } from './changes.ts'
import type { WorkspaceRegistry } from '../workspace/index.ts'
import { checkRestore, workspaceMovesFor, type WorkspaceMoves } from './workspace.ts'
import type {
  FileCompareDiff,
  FileContent,
  FileDiff,
  FilesAtNode,
  FilesComparison,
  RestorePreview,
  RestoreRequest,
  RestoreAnswer,
  RestoreResult,
  WorkspaceOverview,
} from './workspace-wire.ts'
import type { CompareResult } from './compare-wire.ts'
import { CarryMoves } from './carry.ts'
import type { CarryDiff, CarryPreview, CarryRequest, CarryResult } from './carry-wire.ts'
import {
  exportLoaded,
  hostImportTarget,
  runImport,
  type ExportRequest,
  type ExportResult,
  type ImportRequest,
} from './interchange.ts'
import type { ImportResult } from '../interchange/session/import.ts'
import { DEFAULT_ORPHAN_GRACE_MS, DEFAULT_ORPHAN_SCAN_DELAY_MS, SessionLineage } from './lineage.ts'
import { SessionSidecars } from './sidecar-location.ts'
import type { GcResult, NewSessionResult } from './lineage-wire.ts'
import type { JournalActor } from '../sidecar/index.ts'
import { SessionResolver } from './resolve.ts'
import { TreeReads } from './reads.ts'
import { Movement } from './movement.ts'
import { Annotation, recordSummary } from './annotation.ts'
import type { SummaryLlm } from './model-summary.ts'
import type { SummaryMoveDeps } from './summary-move.ts'
import { settle } from './edge.ts'
import { attemptRemote, type Gateway, type RemoteAttempt } from './attempt.ts'
import { attachLoadedSessions, listenToHarness } from './harness-hooks.ts'
import { CONFIG, type Config } from './config.ts'
import { hostService } from '../harness/host.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    sessionTree: SessionTreeService
  }
}

/** A move's answer without the model's history (and a fork's count, which goes with it). */
function briefOf(move: MoveResult): MoveBrief {
  const { messages: _history, forkCount: _forks, ...brief } = move as MoveResult & { forkCount?: number }
  return brief
}

export class SessionTreeService extends TypertRemoteService {
  static inject = ['sessions']

  static Config: s<Config> = CONFIG

  /** Keeps trees in step with harness logs: the one registry of this plugin's trees. */
  readonly sync: TreeSync
  private readonly switcher: StockSwitcher
  private readonly settings: Config & { readonly switchTimeoutMs: number }
  /** One FIFO of mutating calls per session. */
  private readonly queue = new SessionQueue()
  /** The session a call is about, and its surface mode (`resolve.ts`). */
  private readonly resolver: SessionResolver
  /** The area modules the remote methods delegate to. */
  private readonly reads: TreeReads
  private readonly movement: Movement
  private readonly annotation: Annotation
  /** Workspace checkpoints: capture (harness layer) and the files half of moves. */
  private readonly workspaceMoves: WorkspaceMoves
  /** Another branch's file changes applied here (`carry.ts`). */
  private readonly carryMoves: CarryMoves
  /** Sessions across sessions: new sessions from a node, lineage, orphaned sidecars (`lineage.ts`). */
  readonly lineage: SessionLineage
  /** The push channel to the browser (`watch`). */
  private readonly changes: RevisionWatch
  /** Where each session's sidecar is (undefined without a sidecar root). */
  private readonly sidecars: SessionSidecars | undefined
  /** Whom this object's calls are journaled for: a person at the panel (any remote caller), unless `actingAs` said otherwise. */
  private readonly actor: JournalActor = { kind: 'user', via: 'panel' }
  /** The instance itself (`ctx.sessionTree` hands out proxies of it). */
  private readonly self: SessionTreeService = this

  constructor(ctx: Context, config: Partial<Config> = {}) {
    super(ctx, 'sessionTree')
    this.settings = {
      surfaceMode: config.surfaceMode ?? 'auto',
      switchTimeoutMs: config.switchTimeoutMs ?? 30_000,
      ...(config.sidecarRoot ? { sidecarRoot: config.sidecarRoot } : {}),
    }
    // How another process's refusal names this one (dsh-TUI's half says `dsh-TUI`: `describeProcess`).
    processClaims.kind = processKind()
    const sidecars = this.settings.sidecarRoot ? new SessionSidecars(ctx, this.settings.sidecarRoot) : undefined // where each session's sidecar is (sidecar-location.ts)
    this.sidecars = sidecars
    this.sync = new TreeSync(new SessionTreeStore(), sidecars ? new TreeSidecar(sidecars.locator) : undefined)
    this.changes = new RevisionWatch(this.sync)
    ctx.effect(() => () => this.changes.close(), 'session-tree.watch')
    const host = hostParts(ctx)
    this.switcher = new StockSwitcher({ trees: this.sync, ...host, timeoutMs: this.settings.switchTimeoutMs })
    const surfaces = new SurfaceChoices({
      setting: this.settings.surfaceMode,
      switcher: this.switcher,
      flush: host.flush,
      estimator: host.estimator,
    })
    this.resolver = new SessionResolver({ ctx, sync: this.sync, surfaces })
    const summary: Omit<SummaryMoveDeps, 'record'> = {
      llm: () => hostService<SummaryLlm>(ctx, 'llm'),
      timeoutMs: config.summaryTimeoutMs ?? 30_000,
    }
    const record = (sessionId: string, written: BranchSummary, actor: JournalActor) =>
      recordSummary(this.sync, sessionId, written, actor)
    this.lineage = new SessionLineage({
      ctx,
      sync: this.sync,
      sidecars,
      graceMs: config.orphanGraceMs ?? DEFAULT_ORPHAN_GRACE_MS,
      warn: (message) => ctx.logger('session-tree').warn(message),
    })
    this.reads = new TreeReads({ resolver: this.resolver, sync: this.sync, lineage: this.lineage, host: ctx })
    this.movement = new Movement({ resolver: this.resolver, move: { sync: this.sync }, summary, record })
    this.annotation = new Annotation({ resolver: this.resolver, sync: this.sync, summary })
    listenToHarness({
      ctx,
      sync: this.sync,
      lineage: this.lineage,
      forget: (sessionId) => this.workspaceMoves?.registry.forget(sessionId),
      warn: this.warn,
      scanDelayMs: config.orphanScanDelayMs ?? DEFAULT_ORPHAN_SCAN_DELAY_MS,
    })
    this.workspaceMoves = workspaceMovesFor(ctx, sidecars?.locator, config.workspace, {
      resolveLoaded: (agentId) => this.resolver.loaded(agentId),
      resolveLive: (agentId) => this.resolver.live(agentId),
      move: (agentId, move, actor, callId) => this.movement.run(agentId, move, actor, callId),
    })
    this.carryMoves = new CarryMoves({
      workspaceMoves: this.workspaceMoves,
      summarizeHere: (agentId, other, choice, actor, callId) =>
        this.movement.summarizeHere(agentId, other, choice, actor, callId),
      resolveLoaded: (agentId) => this.resolver.loaded(agentId),
      resolveLive: (agentId) => this.resolver.live(agentId),
    })
    attachLoadedSessions(ctx, this.sync, this.warn)
  }

  // ------------------------------------------------------------------ reads

  /** The whole tree: nodes, branches, cursor. No side effects. */
  @Remote
  async list(agentId: string): Promise<SessionTreeListing> {
    return this.run(() => this.reads.list(agentId))
  }

  /** The tree without branch paths (what a panel draws): nodes and branch heads. No side effects. */
  @Remote
  async outline(agentId: string): Promise<SessionTreeOutline> {
    return this.run(() => this.reads.outline(agentId))
  }

  /**
   * `outline` as what changed since an earlier answer (`since`: its `version`; null or another tree's: every
   * node): what the Tree tab reads after each change, so a jump re-sends no node. No side effects.
   */
  @Remote
  async outlineChanges(agentId: string, since: string | null): Promise<SessionTreeOutlineChanges> {
    return this.run(() => this.reads.outlineChanges(agentId, since))
  }

  /** `outlineChanges` in process, as a result (dsh-TUI's scene). Not a remote method. */
  outlineChangesOf(agentId: string, since: string | null): TreeResult<SessionTreeOutlineChanges> {
    return this.reads.outlineChanges(agentId, since)
  }

  /** Status: counts, cursor, surface mode, quarantine, sidecar warnings. No side effects. */
  @Remote
  async session(agentId: string): Promise<SessionStatus> {
    return this.run(() => this.sessionOf(agentId))
  }

  /** `session` in process, as a result (dsh-TUI's scene). Not a remote method. */
  sessionOf(agentId: string): TreeResult<SessionStatus> {
    return this.reads.session(agentId)
  }

  /**
   * Answers as soon as one of the named sessions' `revision` is not the one
   * given (at once when it already is not), else waits until it changes or
   * the caller cancels: what the Tree tab and the Chat hold instead of
   * polling `session`. Empty `changed`: cancelled, or the plugin stopped. No side effects.
   */
  @Remote
  async watch(request: WatchRequest, signal: AbortSignal): Promise<WatchAnswer> {
    return this.run(() => this.changes.watch(request, signal))
  }

  /**
   * The active path (tool calls included) plus a digest of every off-path
   * branch: its recorded summary, else an extractive digest written now (no
   * model call, nothing recorded). No side effects.
   */
  @Remote
  async export(agentId: string): Promise<LinearExport> {
    return this.run(() => this.reads.export(agentId))
  }

  /** What DSH's Chat should show of the raw log so it reads as the model's history (see `chat-path.ts`). No side effects. */
  @Remote
  async chatPath(agentId: string): Promise<ChatPath> {
    return this.run(() => this.reads.chatPath(agentId))
  }

  /**
   * Two nodes side by side: their last common ancestor, both paths after it
   * aligned, word and tool-call diffs, token and cost totals per side
   * (bounded, see `compare-wire.ts`). No side effects.
   */
  @Remote
  async compare(agentId: string, a: string, b: string): Promise<CompareResult> {
    return this.run(() => this.compareOf(agentId, a, b))
  }

  /** `compare` in process, as a result (the model's tool, `/tree`). Not a remote method. */
  compareOf(agentId: string, a: string, b: string): TreeResult<CompareResult> {
    return this.reads.compare(agentId, a, b)
  }

  // -------------------------------------------------------------- movement

  /**
   * One move, in process: what every caller uses (the remote methods below, the model tools, `/tree`,
   * dsh-TUI). `move` is checked here (`tree-move.ts`); with `files` it is the workspace's `restore`, else
   * the conversation move alone. `callId`: the model's own move from inside its running step (stock mode:
   * the next request of the same turn holds the selected path, then that call and its result). Queued on
   * the session's FIFO like every change. Not a remote method.
   */
  move(agentId: string, move: unknown, callId?: string): Promise<TreeResult<RestoreResult>> {
    return this.serial(agentId, () => this.moveChecked(agentId, checkMove(move), callId))
  }

  /**
   * Move the cursor (`null`: before the first node). In native and stock
   * modes the model history follows: the next request holds exactly the
   * root-to-node path. A node inside a tool exchange is moved to the end of
   * that exchange (a history never ends between a call and its result).
   */
  @Remote
  async jump(agentId: string, nodeId: string | null): Promise<MoveResult> {
    return this.moved(agentId, { kind: 'jump', nodeId })
  }

  /**
   * `jump` with options: `summary` summarizes the part the move leaves (the
   * session's model writes it, with the extractive fallback) and, with
   * `carry: true`, appends it to the new path, where the model reads it.
   */
  @Remote
  async jumpWith(agentId: string, nodeId: string | null, options: TreeMoveOptions): Promise<MoveResult> {
    return this.moved(agentId, { kind: 'jump', nodeId }, options)
  }

  /** Park a new named branch at a node and move there (the model history follows). */
  @Remote
  async fork(agentId: string, nodeId: string, branch: string): Promise<ForkResult> {
    return this.moved(agentId, { kind: 'fork', nodeId, branch })
  }

  /** `fork` with options (`summary`, as for `jumpWith`: a carried summary is the new branch's first node). */
  @Remote
  async forkWith(agentId: string, nodeId: string, branch: string, options: TreeMoveOptions): Promise<ForkResult> {
    return this.moved(agentId, { kind: 'fork', nodeId, branch }, options)
  }

  /** Undo the last cursor move (the model history follows). */
  @Remote
  async back(agentId: string): Promise<MoveResult> {
    return this.moved(agentId, { kind: 'back' })
  }

  /** Redo a cursor move undone by `back` (the model history follows). */
  @Remote
  async forward(agentId: string): Promise<MoveResult> {
    return this.moved(agentId, { kind: 'forward' })
  }

  /**
   * Any conversation move as one value (`tree-move.ts`: kind, target, branch, summary), answered without the
   * model's history: what the Tree tab sends (the history is megabytes on a long session, and it does not show
   * it). Files go along through `restore`.
   */
  @Remote
  async moveBrief(agentId: string, move: WireMoveRequest): Promise<MoveBrief> {
    return this.run(async () => {
      const checked = checkMove(move)
      if (!checked.ok) return checked
      if (checked.value.files !== undefined || checked.value.conflicts !== undefined)
        return fail('INVALID_ARGUMENT', 'moveBrief moves the conversation only (files go through restore)')
      const moved = await this.move(agentId, checked.value)
      return moved.ok ? ok(briefOf(moved.value.move!)) : moved
    })
  }

  // ------------------------------------------------------------ annotation

  /** Set (`label` text) or clear (`null`) a node's label (sidecar only: SIDECAR_IO when it cannot be saved). */
  @Remote
  async label(agentId: string, nodeId: string, label: string | null): Promise<TreeNode> {
    return this.run(() => this.setLabel(agentId, nodeId, label))
  }

  /** `label` in process, as a result, on the session's queue. Not a remote method. */
  setLabel(agentId: string, nodeId: string, label: string | null): Promise<TreeResult<TreeNode>> {
    return this.serial(agentId, async () => this.annotation.label(agentId, nodeId, label, this.actor))
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
    return this.run(() => this.summarizeBranch(agentId, branch, options))
  }

  /** `summarizeWith` in process, as a result, on the session's queue. Not a remote method. */
  summarizeBranch(agentId: string, branch: string, options: SummarizeOptions = {}): Promise<TreeResult<BranchSummary>> {
    return this.serial(agentId, () => this.annotation.summarize(agentId, branch, options, this.actor))
  }

  /**
   * Record a branch summary someone wrote (the model's `tree` summarize
   * with a text), on the session's queue like every other change. Not a remote method.
   */
  setBranchSummary(agentId: string, branch: string, text: string, model?: string): Promise<TreeResult<BranchSummary>> {
    return this.serial(agentId, async () => this.annotation.setBranchSummary(agentId, branch, text, this.actor, model))
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

  /** The files whose checkpointed states differ between node `a` and node `b` (`null`: before the first node). No side effects. */
  @Remote
  async compareFiles(agentId: string, a: string | null, b: string | null): Promise<FilesComparison> {
    return this.run(() => this.compareFilesOf(agentId, a, b))
  }

  /** `compareFiles` in process, as a result. Not a remote method. */
  compareFilesOf(agentId: string, a: string | null, b: string | null): Promise<TreeResult<FilesComparison>> {
    return this.workspaceMoves.compareFiles(agentId, a, b)
  }

  /** One file from node `a` to node `b`, as a unified diff ('' for a binary side). No side effects. */
  @Remote
  async compareFileDiff(agentId: string, a: string | null, b: string | null, path: string): Promise<FileCompareDiff> {
    return this.run(() => this.workspaceMoves.compareFileDiff(agentId, a, b, path))
  }

  /** What a move would do to the files (added, changed, deleted, diff stat, conflicts); nothing is written. */
  @Remote
  async restorePreview(agentId: string, request: RestoreRequest): Promise<RestorePreview> {
    return this.run(() => this.restorePreviewOf(agentId, request))
  }

  /** `restorePreview` in process, as a result (dsh-TUI's scene). Not a remote method. */
  restorePreviewOf(agentId: string, request: RestoreRequest): Promise<TreeResult<RestorePreview>> {
    return this.workspaceMoves.preview(agentId, request)
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
  async restore(agentId: string, request: RestoreRequest): Promise<RestoreAnswer> {
    // One unit: the conversation half and the files half of a restore never interleave with another move.
    return this.run(async () => {
      const restored = await this.serial(agentId, () => this.moveChecked(agentId, checkRestore(request)))
      if (!restored.ok) return restored
      const { move, ...rest } = restored.value
      return ok(move === undefined ? rest : { ...rest, move: briefOf(move) })
    })
  }

  /** A conversation move's answer at the remote edge (`options`: `jumpWith`/`forkWith`'s, checked here). */
  private moved<T extends MoveResult>(agentId: string, move: TreeMove, options?: TreeMoveOptions): Promise<T> {
    return this.run(async () => {
      if (options !== undefined && (typeof options !== 'object' || options === null))
        return fail('INVALID_ARGUMENT', 'options must be an object')
      const moved = await this.move(
        agentId,
        options?.summary === undefined ? move : { ...move, summary: options.summary },
      )
      return moved.ok ? ok(moved.value.move as T) : moved
    })
  }

  /** What carrying another node's (or branch's) file changes here would do, per file (take, merge, conflict, kept); nothing is written. */
  @Remote
  async carryPreview(agentId: string, request: CarryRequest): Promise<CarryPreview> {
    return this.run(() => this.carryPreviewOf(agentId, request))
  }

  /** `carryPreview` in process, as a result. Not a remote method. */
  carryPreviewOf(agentId: string, request: CarryRequest): Promise<TreeResult<CarryPreview>> {
    return this.carryMoves.preview(agentId, request)
  }

  /** One file of a carry preview: what the other branch changed, and what the carry would write. No side effects. */
  @Remote
  async carryDiff(agentId: string, request: CarryRequest, path: string): Promise<CarryDiff> {
    return this.run(() => this.carryMoves.diff(agentId, request, path))
  }

  /**
   * Apply the file changes another branch made since the paths parted (a
   * three-way merge per file). Every conflict needs a decision (`mine`,
   * `theirs`, `markers`), else `WORKSPACE_CONFLICT` and nothing changes; a
   * `back` with files undoes it.
   */
  @Remote
  async carry(agentId: string, request: CarryRequest): Promise<CarryResult> {
    return this.run(() => this.carryFor(agentId, request))
  }

  /** A carry for the model's tool (from inside its step: `callId`) or `/tree`. Not a remote method. */
  carryFor(agentId: string, request: CarryRequest, callId?: string): Promise<TreeResult<CarryResult>> {
    return this.serial(agentId, () => this.carryMoves.carry(agentId, request, this.actor, callId))
  }

  /** The sessions' workspace checkpoints (capture writes them; tests and tools read them). Not a remote method. */
  get workspaces(): WorkspaceRegistry {
    return this.workspaceMoves.registry
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
    return this.run(() => this.openNewSession(agentId, nodeId))
  }

  /** `openAsNewSession` in process, as a result, on the session's queue (dsh-TUI's scene). Not a remote method. */
  openNewSession(agentId: string, nodeId: string): Promise<TreeResult<NewSessionResult>> {
    return this.serial(agentId, async () => {
      const found = this.resolver.loaded(agentId)
      return found.ok ? this.lineage.openAsNewSession(found.value, nodeId) : found
    })
  }

  /**
   * Remove every sidecar whose session no longer exists (`dryRun`: only
   * report them). A start-up scan reports them too, and removes them after
   * the grace period (`orphanGraceMs`).
   */
  @Remote
  async gc(dryRun: boolean): Promise<GcResult> {
    return this.run(() => this.lineage.gc(dryRun))
  }

  // ---------------------------------------------------------- interchange

  /**
   * Import a Pi, Claude Code or Codex session as a new DSH session with its
   * whole tree (all or nothing); `dryRun` previews without writing. The new
   * session is stored, then resumed here the way the web host resumes one.
   */
  @Remote
  async importSession(request: ImportRequest): Promise<ImportResult> {
    return this.run(() => runImport(request, hostImportTarget(this.ctx, this.settings.sidecarRoot, this.resolver)))
  }

  /** Any other method by name, its failure as data with our code: what the Tree tab calls (`attempt.ts`). */
  @Remote
  async attempt(method: string, args: JsonValue): Promise<RemoteAttempt> {
    return attemptRemote(hostService<Gateway>(this.ctx, 'typertGateway'), 'sessionTree', method, args)
  }

  /** Export a loaded session's tree as Pi JSONL, Claude Code JSONL or Markdown (a new file, or inline). */
  @Remote
  async exportAs(request: ExportRequest): Promise<ExportResult> {
    return this.run(() => exportLoaded(request, this.resolver, this.lineage.sidecars))
  }

  /**
   * The live tree and surface mode of a loaded session, for the tool companion and `/tree` (the
   * same resolution as `session`, without building a status). `tip`: the node the model's history
   * ends at now (the surface tip; `null`: empty). Not a remote method.
   */
  treeOf(agentId: string): TreeResult<{ tree: SessionTree; mode: SurfaceMode; tip: string | null }> {
    return this.reads.treeOf(agentId)
  }

  /**
   * Who draws the transcript a stock switch writes into (`StockSwitcher.drawnBy`): the terminal
   * half says `dsh-tui` while dsh-TUI is loaded. Not a remote method.
   */
  setTranscriptReader(reader: TranscriptReader): void {
    this.switcher.drawnBy = reader
  }

  /** What this process is called in another process's refusal (`SIDECAR_CLAIMED`): the terminal half says `dsh-TUI`. Not a remote method. */
  describeProcess(kind: string): void {
    processClaims.kind = kind
  }

  /**
   * `chatPath` at once, as a result (the terminal's switch rows read it right
   * after a turn ends, before anything else can be appended). Not a remote method.
   */
  chatPathOf(agentId: string): TreeResult<ChatPath> {
    return this.reads.chatPath(agentId)
  }

  /**
   * This service, with its changes journaled as made by `actor` (the tool companion:
   * the model's tools, `/tree`); the same queue, trees and sidecar. Not a remote method.
   */
  actingAs(actor: JournalActor): SessionTreeService {
    return Object.create(this.self, { actor: { value: actor } }) as SessionTreeService
  }

  // -------------------------------------------------------------- internals

  /** A checked move: with the files, the workspace's restore; else the conversation move alone. */
  private async moveChecked(
    agentId: string,
    checked: TreeResult<TreeMove>,
    callId?: string,
  ): Promise<TreeResult<RestoreResult>> {
    if (!checked.ok) return checked
    if (movesFiles(checked.value)) {
      // No summary for a move that takes the files: they follow the node moved to, not a carried summary.
      const { summary: _none, ...move } = checked.value
      return this.workspaceMoves.restore(agentId, move, this.actor, callId)
    }
    const moved = await this.movement.run(agentId, checked.value, this.actor, callId)
    return moved.ok ? ok({ restore: 'conversation', target: moved.value.cursor, move: moved.value }) : moved
  }

  /**
   * Run a mutating unit on its session's queue (an argument that names no
   * session runs at once and fails). While another process writes the
   * session's tree, nothing runs: SIDECAR_CLAIMED names it. When that process
   * let go after changing the tree, the tree is rebuilt from disk first.
   */
  private serial<T>(agentId: unknown, unit: () => Promise<TreeResult<T>>): Promise<TreeResult<T>> {
    if (typeof agentId !== 'string' || agentId === '') return unit()
    return this.queue.run(agentId, async () => {
      const writable = await this.writable(agentId)
      if (!writable.ok) return writable
      const result = await unit()
      // A claim taken over from a process that changed the tree meanwhile: the next call works on it reloaded.
      if (!result.ok && result.error.code === 'SIDECAR_CLAIMED' && result.error.details?.changed === true)
        this.sync.detach(agentId)
      return result
    })
  }

  private async writable(agentId: string): Promise<TreeResult<void>> {
    // A cold session's claim sits in its own directory: find it before judging who writes.
    if (this.sidecars !== undefined && !this.sidecars.knows(agentId)) await this.sidecars.learnStored()
    const writer = this.sync.writer(agentId)
    if (writer?.kind === 'other') {
      const refusal = claimRefusal(writer)
      return fail('SIDECAR_CLAIMED', refusal.message, { holder: refusal.holder })
    }
    if (writer?.kind !== 'mine' && this.sync.changedElsewhere(agentId)) this.sync.detach(agentId)
    return ok(undefined)
  }

  private readonly run = settle // a value, or an error that keeps its code (edge.ts)

  /** Where a harness listener's failure goes: the log (it costs the tree, never the session). */
  private readonly warn = (error: unknown): void => this.ctx.logger('session-tree').warn(error)
}

export default SessionTreeService
