/**
 * The workspace half of `ctx.sessionTree`: previews, diffs, the files at a
 * node, and moves that take the files along (`restore`). Refusals and order:
 * docs/workspace.md, "Restoring"; the note the model gets after a restore:
 * "What the model sees".
 */
import type { Context } from '@deepseek-ai/cordis'
import s from '@deepseek-ai/schemastery'
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import { checkNode } from '../tree/validate.ts'
import type { SessionProjector } from '../harness/projector.ts'
import { PLUGIN_ID } from '../harness/marker.ts'
import { WorkspaceCapture } from '../harness/workspace-capture.ts'
import type {} from '@deepseek-ai/dsh-agent'
import type { UserMessage } from '@deepseek-ai/dsh-session'
import { isFree, type PreStepDecision, type PreStepPayload } from '../harness/live.ts'
import {
  DEFAULT_MAX_FILE_BYTES,
  restoreHookFromEnv,
  WorkspaceRegistry,
  type RestoreEntry,
  type SessionWorkspace,
} from '../workspace/index.ts'
import { pathProblem } from '../workspace/paths.ts'
import type { ConflictDecision, RestoreReport, RestoreStep, ShellTracking } from '../workspace/types.ts'
import type { JournalActor, MoveResult } from './wire.ts'
import { checkMove, movesFiles, type TreeMove } from './tree-move.ts'
import type { Resolved } from './resolve.ts'
import { landing, type Landing } from '../tree/move.ts'
import type {
  ConflictChoice,
  FileCompareDiff,
  FileContent,
  FileDiff,
  FilesComparison,
  FilesAtNode,
  RestoreChoice,
  RestorePreview,
  RestoreRequest,
  RestoreResult,
  WorkspaceOverview,
  WorkspaceStatus,
} from './workspace-wire.ts'

export interface WorkspaceMovesDeps {
  readonly registry: WorkspaceRegistry
  readonly capture: WorkspaceCapture
  readonly resolveLoaded: (agentId: string) => TreeResult<Resolved>
  readonly resolveLive: (agentId: string) => Promise<TreeResult<Resolved>>
  /** The service's conversation move (inside a running step when `callId` is set). */
  readonly move: (
    agentId: string,
    move: TreeMove,
    actor: JournalActor,
    callId?: string,
  ) => Promise<TreeResult<MoveResult>>
}

/** The `workspace` part of the `session-tree` configuration. */
export interface WorkspaceConfig {
  /** Checkpoint what the agent changes in the workspace (default true; needs `sidecarRoot`). */
  readonly enabled: boolean
  /** Files larger than this are not checkpointed (bytes, default 1 MiB). */
  readonly maxFileBytes: number
  /** `auto`: snapshot shell commands through git (a work tree, or a plain folder through our own git directory); `off`: never. */
  readonly shell: 'auto' | 'off'
  /** Learn what changed between shell snapshots from file events (Linux; default true); false walks the whole folder each time. */
  readonly watch: boolean
  /** Tools whose calls are shell commands. */
  readonly shellTools: readonly string[]
}

export const WORKSPACE_CONFIG: s<Partial<WorkspaceConfig>> = s.object({
  enabled: s.boolean().default(true),
  maxFileBytes: s.natural().min(1).default(DEFAULT_MAX_FILE_BYTES),
  shell: s.union(['auto', 'off']).default('auto'),
  watch: s.boolean().default(true),
  shellTools: s.array(s.string()).default(['bash', 'pwsh']),
}) as unknown as s<Partial<WorkspaceConfig>>

/** The workspace half of the service, wired: registry, capture listeners, moves. */
export function workspaceMovesFor(
  ctx: Context,
  sidecars: import('../sidecar/index.ts').SidecarLocator | undefined,
  config: Partial<WorkspaceConfig> | undefined,
  service: Omit<WorkspaceMovesDeps, 'registry' | 'capture'>,
): WorkspaceMoves {
  const registry = new WorkspaceRegistry({
    sidecarRoot: sidecars?.root,
    ...(sidecars ? { sidecars } : {}),
    enabled: config?.enabled ?? true,
    maxFileBytes: config?.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    shell: config?.shell ?? 'auto',
    watch: config?.watch ?? true,
    // Test only: stop a restore at a chosen file (see restoreHookFromEnv).
    ...(process.env.DSH_SESSION_TREE_TEST_RESTORE_STOP
      ? { hook: restoreHookFromEnv(process.env.DSH_SESSION_TREE_TEST_RESTORE_STOP)! }
      : {}),
  })
  const capture = new WorkspaceCapture(ctx, registry, { shellTools: config?.shellTools ?? ['bash', 'pwsh'] })
  return new WorkspaceMoves(ctx, { ...service, registry, capture })
}

/** Paths a note names before it says "and N more". */
const NOTE_PATHS = 20
/** What happens to shell commands' changes, per tracking, in plain words (`files`). */
const SHELL_NOTES: Readonly<Record<ShellTracking, string>> = {
  git: 'Shell commands are snapshotted through git (own index and object store; the repository is never written); .gitignore-d files are not tracked.',
  folder:
    'A plain folder: shell commands are snapshotted through a git directory of our own in the sidecar (no .git is written here); files a .gitignore names are not tracked.',
  off: 'Shell changes are not tracked (workspace.shell is off): only what the file tools write is checkpointed.',
}
const CHOICES: readonly RestoreChoice[] = ['conversation', 'files', 'both']

function cwdOf(session: Resolved['session']): string | undefined {
  const header = session.header as { cwd?: unknown } | undefined
  return typeof header?.cwd === 'string' ? header.cwd : undefined
}

/** `2 × seq` of the event a node stands for; tree-only nodes count at their nearest harness ancestor. */
export function boundaryOf(projector: SessionProjector, nodeId: string | null): number {
  for (let id = nodeId; id !== null;) {
    const source = projector.sourceOf(id)
    if (source) return 2 * (source.kind === 'message' ? source.seq : source.callSeq)
    id = projector.tree.parentOf(id) ?? null
  }
  return -2
}

/** A back or forward that takes the files undoes a restore (`RestoreStep`); other moves go to their node's files. */
function stepOf(move: TreeMove): RestoreStep | undefined {
  return movesFiles(move) && (move.kind === 'back' || move.kind === 'forward') ? move.kind : undefined
}

function checkConflicts(conflicts: unknown): TreeResult<void> {
  if (conflicts === undefined) return ok(undefined)
  const entries = Array.isArray(conflicts) ? (conflicts as unknown[]) : [conflicts]
  for (const choice of entries) {
    const c = choice as ConflictChoice | null
    if (
      typeof c !== 'object' ||
      c === null ||
      (c.path !== '*' && pathProblem(c.path) !== undefined) ||
      !['keep', 'overwrite'].includes(c.decision)
    ) {
      return fail('INVALID_ARGUMENT', 'each conflicts entry must be { path, decision: keep | overwrite }')
    }
  }
  return ok(undefined)
}

/** A `restore`/`restorePreview` request as the move it makes (`tree-move.ts`), with `files` set. */
export function checkRestore(request: unknown): TreeResult<TreeMove & { readonly files: RestoreChoice }> {
  const r = request as RestoreRequest | undefined
  if (typeof r !== 'object' || r === null || typeof r.move !== 'object' || r.move === null)
    return fail('INVALID_ARGUMENT', 'request must be { move, restore, conflicts? }')
  if (!CHOICES.includes(r.restore)) return fail('INVALID_ARGUMENT', 'restore must be conversation, files or both')
  const conflicts = checkConflicts(r.conflicts)
  if (!conflicts.ok) return conflicts
  const move = checkMove({ kind: r.move.kind, nodeId: r.move.nodeId, branch: r.move.branch }, 'move.')
  if (!move.ok) return move
  return ok({ ...move.value, files: r.restore, ...(r.conflicts === undefined ? {} : { conflicts: r.conflicts }) })
}

/** The note the model reads once after a files restore. */
export function restoreNote(restores: readonly RestoreEntry[]): string {
  const changed = new Set<string>()
  const kept = new Set<string>()
  for (const restore of restores) {
    for (const path of restore.paths) if (!restore.kept.includes(path)) changed.add(path)
    for (const path of restore.kept) kept.add(path)
  }
  const list = (paths: Set<string>) => {
    const all = [...paths].sort()
    return all.length <= NOTE_PATHS
      ? all.join(', ')
      : `${all.slice(0, NOTE_PATHS).join(', ')} and ${all.length - NOTE_PATHS} more`
  }
  const last = restores.at(-1)
  const where = last?.target === null || last === undefined ? 'the start of the conversation' : last.target
  const lines = [
    last?.carry === undefined
      ? `[session-tree] The workspace files were restored to their state at ${where}. Changed since you last saw them: ${list(changed)}.`
      : `[session-tree] The file changes of the branch at ${last.carry} were carried into the workspace. Changed since you last saw them: ${list(changed)}.`,
  ]
  for (const path of kept) changed.delete(path)
  if (kept.size > 0) lines.push(`Left as they are (changed outside the agent): ${list(kept)}.`)
  lines.push('Read a file again before you edit or overwrite it.')
  return lines.join(' ')
}

export class WorkspaceMoves {
  readonly registry: WorkspaceRegistry
  private readonly ctx: Context
  private readonly deps: WorkspaceMovesDeps
  /** One restore at a time per session. */
  private readonly queues = new Map<string, Promise<unknown>>()

  constructor(ctx: Context, deps: WorkspaceMovesDeps) {
    this.ctx = ctx
    this.deps = deps
    this.registry = deps.registry
    // After every other pre-step listener: a switch turn never gets here, a model step does.
    ctx.on('agent/pre-step', (payload, next) => this.deliverNotes(payload, next))
    ctx.effect(() => () => this.registry.closeAll(), 'session-tree.workspace.flush')
  }

  /** Run `work` after the session's earlier restores (and carries). */
  serial<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(sessionId) ?? Promise.resolve()
    const run = previous.then(work, work)
    const settled = run.catch(() => undefined)
    this.queues.set(sessionId, settled)
    void settled.then(() => {
      if (this.queues.get(sessionId) === settled) this.queues.delete(sessionId)
    })
    return run
  }

  async workspace(found: Resolved): Promise<TreeResult<SessionWorkspace>> {
    return this.deps.registry.get(found.session.id, cwdOf(found.session))
  }

  statusOf(workspace: SessionWorkspace | undefined, reason?: string): WorkspaceStatus {
    const max = this.deps.registry.options.maxFileBytes
    if (!workspace) {
      return {
        available: false,
        reason: reason ?? 'no workspace',
        shellNote: 'Nothing is checkpointed.',
        maxFileBytes: max,
        tracked: 0,
        interrupted: [],
        problems: [],
      }
    }
    const info = workspace.status()
    return {
      available: true,
      root: info.root,
      shell: info.shell,
      shellNote: SHELL_NOTES[info.shell],
      maxFileBytes: info.maxFileBytes,
      tracked: info.tracked,
      interrupted: info.interrupted.map((r) => ({ id: r.id, target: r.target, files: r.paths.length })),
      problems: [...info.problems],
    }
  }

  /**
   * Where a move with the files lands: where the conversation would, or, for
   * a files-only back or forward with a restore to undo, where the
   * conversation is (it stays; the files undo that restore).
   */
  private landing(found: Resolved, move: TreeMove, workspace: SessionWorkspace): TreeResult<Landing> {
    const step = stepOf(move)
    if (move.files === 'files' && step !== undefined && workspace.canStep(step))
      return ok({ target: found.state.projector.tree.cursor })
    return landing(found.state.projector.tree, move, found.mode !== 'projection')
  }

  async overview(agentId: string): Promise<TreeResult<WorkspaceOverview>> {
    const found = this.deps.resolveLoaded(agentId)
    if (!found.ok) return found
    const opened = await this.workspace(found.value)
    if (!opened.ok) return ok({ status: this.statusOf(undefined, opened.error.message), nodes: [], restores: [] })
    const workspace = opened.value
    return ok({
      status: this.statusOf(workspace),
      nodes: [...workspace.changedByNode()].map(([nodeId, paths]) => ({ nodeId, paths })),
      restores: workspace
        .restores()
        .map((r) => ({ id: r.id, target: r.target, paths: [...r.paths], kept: [...r.kept], complete: r.complete })),
    })
  }

  async filesAt(agentId: string, nodeId: string | null): Promise<TreeResult<FilesAtNode>> {
    const found = this.deps.resolveLoaded(agentId)
    if (!found.ok) return found
    const known = nodeId === null ? ok(null) : checkNode(found.value.state.projector.tree, nodeId)
    if (!known.ok) return known
    const opened = await this.workspace(found.value)
    if (!opened.ok) return opened
    const boundary = boundaryOf(found.value.state.projector, nodeId)
    return ok({
      nodeId,
      files: opened.value
        .filesAt(boundary)
        .map((f) =>
          f.state ? { path: f.path, state: f.state, differs: f.differs } : { path: f.path, differs: f.differs },
        ),
    })
  }

  async fileAt(agentId: string, nodeId: string | null, path: string): Promise<TreeResult<FileContent>> {
    const found = this.deps.resolveLoaded(agentId)
    if (!found.ok) return found
    const known = nodeId === null ? ok(null) : checkNode(found.value.state.projector.tree, nodeId)
    if (!known.ok) return known
    const problem = pathProblem(path)
    if (problem !== undefined) return fail('INVALID_ARGUMENT', problem, { path })
    const opened = await this.workspace(found.value)
    if (!opened.ok) return opened
    const workspace = opened.value
    const state = workspace.stateAt(path, boundaryOf(found.value.state.projector, nodeId))
    if (state === undefined)
      return ok({
        nodeId,
        path,
        note: workspace.paths().includes(path)
          ? 'unknown: the checkpoint after a change to it was never written'
          : 'no checkpoints for this path',
      })
    if (state.kind === 'absent') return ok({ nodeId, path, state, note: 'the file did not exist at this point' })
    if (state.kind === 'skipped')
      return ok({ nodeId, path, state, note: workspace.skipText(state) ?? 'not checkpointed' })
    if (state.binary === true)
      return ok({ nodeId, path, state, note: `a binary file: ${state.size} bytes, SHA-256 ${state.hash}` })
    const content = workspace.content(state.hash)
    if (!content.ok) return content
    return ok({ nodeId, path, state, text: content.value.toString('utf8') })
  }

  /** The files whose checkpointed states differ between two nodes (`null`: before the first node). Reads only. */
  async compareFiles(agentId: string, a: string | null, b: string | null): Promise<TreeResult<FilesComparison>> {
    const opened = await this.comparing(agentId, a, b)
    if (!opened.ok) return opened
    const { workspace, from, to } = opened.value
    return ok({ a, b, files: workspace.compareFiles(from, to), tracked: workspace.paths().length })
  }

  /** One file from node `a` to node `b`, as a unified diff. Reads only. */
  async compareFileDiff(
    agentId: string,
    a: string | null,
    b: string | null,
    path: string,
  ): Promise<TreeResult<FileCompareDiff>> {
    const opened = await this.comparing(agentId, a, b)
    if (!opened.ok) return opened
    const { workspace, from, to } = opened.value
    return workspace.compareDiff(from, to, path)
  }

  /** The session's workspace and the boundaries of two checked nodes (`null`: before the first node). */
  private async comparing(agentId: string, a: string | null, b: string | null) {
    const found = this.deps.resolveLoaded(agentId)
    if (!found.ok) return found
    for (const nodeId of [a, b]) {
      const known = nodeId === null ? ok(null) : checkNode(found.value.state.projector.tree, nodeId)
      if (!known.ok) return known
    }
    const opened = await this.workspace(found.value)
    if (!opened.ok) return opened
    const { projector } = found.value.state
    return ok({ workspace: opened.value, from: boundaryOf(projector, a), to: boundaryOf(projector, b) })
  }

  /** A restore request checked and landed: the session's workspace, where it lands and the boundary there. */
  private async restoring(agentId: string, request: unknown) {
    const checked = checkRestore(request)
    if (!checked.ok) return checked
    const found = this.deps.resolveLoaded(agentId)
    if (!found.ok) return found
    const opened = await this.workspace(found.value)
    if (!opened.ok) return opened
    const landing = this.landing(found.value, checked.value, opened.value)
    if (!landing.ok) return landing
    const boundary = boundaryOf(found.value.state.projector, landing.value.target)
    return ok({ workspace: opened.value, landing: landing.value, boundary, step: stepOf(checked.value) })
  }

  async preview(agentId: string, request: unknown): Promise<TreeResult<RestorePreview>> {
    const restoring = await this.restoring(agentId, request)
    if (!restoring.ok) return restoring
    const { workspace, landing, boundary, step } = restoring.value
    const { target, snappedFrom } = landing
    return ok({
      target,
      ...(snappedFrom === undefined ? {} : { snappedFrom }),
      plan: workspace.plan(boundary, target, step),
      status: this.statusOf(workspace),
    })
  }

  async diff(agentId: string, request: unknown, path: string): Promise<TreeResult<FileDiff>> {
    const restoring = await this.restoring(agentId, request)
    if (!restoring.ok) return restoring
    const { workspace, boundary, step } = restoring.value
    return workspace.diff(boundary, path, step)
  }

  /**
   * A move that takes the files along. `callId`: the model's own move from
   * inside its running step (stock mode; the tool result tells the model
   * what changed, so no note is queued).
   */
  async restore(
    agentId: string,
    move: TreeMove,
    actor: JournalActor,
    callId?: string,
  ): Promise<TreeResult<RestoreResult>> {
    if (!movesFiles(move)) return fail('INTERNAL', 'a move without the files is the conversation move alone')
    const conflicts = checkConflicts(move.conflicts)
    if (!conflicts.ok) return conflicts
    const early = callId === undefined ? await this.deps.resolveLive(agentId) : this.deps.resolveLoaded(agentId)
    if (!early.ok) return early
    return this.serial(early.value.session.id, () => this.restoreFiles(agentId, move, actor, callId))
  }

  private async restoreFiles(
    agentId: string,
    request: TreeMove,
    actor: JournalActor,
    callId: string | undefined,
  ): Promise<TreeResult<RestoreResult>> {
    const found = this.deps.resolveLoaded(agentId)
    if (!found.ok) return found
    const { agent, session } = found.value
    if (callId === undefined && agent && !isFree(agent)) {
      return fail('AGENT_BUSY', 'the agent is running; restore files when it is idle', {
        agentId,
        status: agent.status,
      })
    }
    const opened = await this.workspace(found.value)
    if (!opened.ok) return opened
    const workspace = opened.value
    const landing = this.landing(found.value, request, workspace)
    if (!landing.ok) return landing
    const decisions = new Map<string, ConflictDecision>((request.conflicts ?? []).map((c) => [c.path, c.decision]))
    const decide = (path: string): ConflictDecision | undefined => decisions.get(path) ?? decisions.get('*')
    const step = stepOf(request)
    let target = landing.value.target
    let plan = workspace.plan(boundaryOf(found.value.state.projector, target), target, step)
    const undecided = plan.conflicts.filter((c) => decide(c.path) === undefined)
    if (undecided.length > 0) {
      return fail(
        'WORKSPACE_CONFLICT',
        `${undecided.length} file(s) changed outside the agent since their checkpoint: ${undecided.map((c) => c.path).join(', ')}; decide keep or overwrite for each (nothing was changed)`,
        {
          conflicts: undecided.map((c) => ({ path: c.path, reason: c.reason, action: c.action })),
        },
      )
    }
    let moved: MoveResult | undefined
    if (request.files === 'both') {
      const result = await this.deps.move(agentId, request, actor, callId)
      if (!result.ok) return result
      moved = result.value
      // Inside a step the cursor is the re-stated call; the files follow the node asked for.
      const landed = callId === undefined ? result.value.cursor : target
      if (landed !== target) {
        target = landed
        plan = workspace.plan(boundaryOf(found.value.state.projector, target), target, step)
      }
    }
    const w = Math.max(0, session.seq - 1)
    const restored = await workspace.restore(plan, (path) => decide(path) ?? 'keep', w, step)
    if (!restored.ok) {
      return fail(
        restored.error.code,
        moved
          ? `the conversation moved to ${moved.cursor ?? 'the start'}, but ${restored.error.message}`
          : restored.error.message,
        {
          ...(restored.error.details ?? {}),
          ...(moved ? { conversationMoved: true, cursor: moved.cursor } : {}),
        },
      )
    }
    const report = restored.value
    await this.afterRestore(found.value, workspace, report, callId !== undefined)
    return ok({ restore: request.files!, target, ...(moved ? { move: moved } : {}), files: report })
  }

  /** Make the model re-read what changed, and tell it (unless the tool result already does). */
  async afterRestore(
    found: Resolved,
    workspace: SessionWorkspace,
    report: RestoreReport,
    toldInResult: boolean,
  ): Promise<void> {
    const changed = [
      ...report.created.map((path) => ({ path, deleted: false })),
      ...report.updated.map((path) => ({ path, deleted: false })),
      ...report.deleted.map((path) => ({ path, deleted: true })),
    ]
    if (changed.length === 0) return
    if (found.agent) await this.deps.capture.invalidateReads(found.agent, workspace.root, changed, report.id)
    if (toldInResult) workspace.markNoted(report.id, Math.max(0, found.session.seq - 1))
  }

  /** The first model step after a files restore carries one short note about it. */
  private async deliverNotes(payload: PreStepPayload, next: () => Promise<PreStepDecision>): Promise<PreStepDecision> {
    const decision = await next()
    if (decision.kind !== 'enter') return decision
    try {
      const workspace = this.deps.registry.peek(payload.agent.session.id)
      const pending = workspace?.unnoted() ?? []
      if (!workspace || pending.length === 0) return decision
      const last = pending.at(-1) as RestoreEntry
      const note: UserMessage = {
        // The brand is type-only (dsh-llm's `MessageId()` returns the string itself).
        id: `${PLUGIN_ID}:files:${last.id}` as UserMessage['id'],
        role: 'user',
        content: [{ type: 'text', text: restoreNote(pending) }],
        source: { kind: 'plugin', plugin: PLUGIN_ID },
      }
      for (const restore of pending) workspace.markNoted(restore.id, Math.max(0, payload.agent.session.seq - 1))
      return { kind: 'enter', messages: [note, ...decision.messages] }
    } catch (error) {
      this.ctx.logger('session-tree').warn(error)
      return decision
    }
  }

  /** The text a tool or `/tree` shows for a files restore. */
  static describe(result: RestoreResult): string {
    const files = result.files
    if (!files) return ''
    const parts: string[] = []
    if (files.created.length > 0) parts.push(`created ${files.created.join(', ')}`)
    if (files.updated.length > 0) parts.push(`updated ${files.updated.join(', ')}`)
    if (files.deleted.length > 0) parts.push(`deleted ${files.deleted.join(', ')}`)
    const lines = [
      parts.length > 0
        ? `Files restored to their state at ${result.target ?? 'the start'}: ${parts.join('; ')}.`
        : `No file needed restoring to reach the state at ${result.target ?? 'the start'}.`,
    ]
    if (files.kept.length > 0) lines.push(`Left as they are (changed outside the agent): ${files.kept.join(', ')}.`)
    if (files.blocked.length > 0)
      lines.push(`Not restorable: ${files.blocked.map((b) => `${b.path} (${b.reason})`).join(', ')}.`)
    return lines.join('\n')
  }
}
