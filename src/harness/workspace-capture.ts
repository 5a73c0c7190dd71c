/**
 * Capture: every change the agent makes to workspace files is checkpointed on
 * the node of the tool call that made it. File tools through a prepended
 * `fs/write-intent` / `fs/edit-intent` listener (before-image, then `next()`);
 * shell calls through a `tools/execute` wrapper that snapshots before and
 * after (`workspace/git.ts`). A failed checkpoint never fails the tool: its
 * result gets one line. Why this seam: docs/workspace.md, "What is checkpointed".
 */
import type { Context } from '@deepseek-ai/cordis'
import type { CallPoint, SessionWorkspace, Snapshot, WorkspaceRegistry } from '../workspace/index.ts'
import { skipMessage, type FileChange } from '../workspace/types.ts'
import { nodeIdForSeq } from './surface-mirror.ts'
import { errorMessage } from '../tree/errors.ts'
import { hostEvents, hostService } from './host.ts'

/** The slice of a tool execution the capture reads (dsh-tools `ToolExecution`). */
interface Execution {
  readonly callId: string
  readonly rootCallId?: string
  readonly name: string
  readonly agent?: { readonly session?: CapturedSession }
}

/** The slice of a harness session the capture reads. */
export interface CapturedSession {
  readonly id: string
  readonly seq: number
  readonly events: readonly unknown[]
  readonly header?: { readonly cwd?: string }
}

/** The slice of `ctx.fs` the capture needs (dsh-fs `FileSystem`). */
interface FileSystemLike {
  processPath(target: unknown): string
  resolve(path: string, opts?: { cwd?: string }): Promise<unknown>
}

type ContentBlock = { readonly type: string; readonly text?: string }
type PostDecision = { readonly kind: string; readonly content?: readonly ContentBlock[]; readonly value?: unknown }

export interface CaptureOptions {
  /** Tool names whose calls are shell commands (default `bash`, `pwsh`). */
  readonly shellTools: readonly string[]
}

/** Calls scanned back from the log's end for the execution's `tool/call` (it is among the last events). */
const CALL_LOOKBACK = 10_000

export class WorkspaceCapture {
  private readonly ctx: Context
  private readonly registry: WorkspaceRegistry
  private readonly shellTools: ReadonlySet<string>
  /** File-tool captures per execution, flushed when the call ends. */
  private readonly touched = new WeakMap<object, { readonly workspace: SessionWorkspace; readonly point: CallPoint }>()
  /** Lines to add to an execution's result. */
  private readonly notes = new WeakMap<object, string[]>()
  /** Sessions already told that shell changes are not tracked (this process). */
  private readonly told = new Set<string>()

  constructor(ctx: Context, registry: WorkspaceRegistry, options: CaptureOptions) {
    this.ctx = ctx
    this.registry = registry
    this.shellTools = new Set(options.shellTools)
    const on = hostEvents(ctx)
    const gate = async (target: unknown, actor: unknown, next: () => unknown) => {
      await this.guard(() => this.before(target, actor))
      return next()
    }
    on('fs/write-intent', gate, { prepend: true })
    on('fs/edit-intent', gate, { prepend: true })
    on('tools/execute', (exec: Execution, next: () => Promise<unknown>) => this.around(exec, next), { prepend: true })
    on(
      'tools/post-execute',
      async (exec: Execution, result: { content: readonly ContentBlock[] }, next: () => Promise<PostDecision>) => {
        const decision = await next()
        const lines = this.notes.get(exec)
        if (!lines || lines.length === 0 || decision.kind !== 'accept' || decision.value !== undefined) return decision
        this.notes.delete(exec)
        return {
          ...decision,
          content: [...(decision.content ?? result.content), { type: 'text', text: lines.join('\n') }],
        }
      },
      { prepend: true },
    )
  }

  /** The call point of an execution: its root call's `tool/call` event. */
  callPoint(session: CapturedSession, exec: Execution): CallPoint {
    const callId = exec.rootCallId ?? exec.callId
    const last = session.seq - 1
    for (let i = session.events.length - 1; i >= 0 && i >= session.events.length - CALL_LOOKBACK; i--) {
      const event = session.events[i] as
        { type?: unknown; seq?: unknown; data?: { callId?: unknown; name?: unknown } } | undefined
      if (event?.type === 'tool/call' && event.data?.callId === callId && typeof event.seq === 'number') {
        return {
          key: 2 * event.seq,
          node: nodeIdForSeq(event.seq),
          call: callId,
          tool: typeof event.data.name === 'string' ? event.data.name : exec.name,
          w: last,
        }
      }
    }
    // Not in the log (a call made outside the agent loop): it belongs after everything so far.
    return { key: 2 * Math.max(0, last), node: nodeIdForSeq(Math.max(0, last)), call: callId, tool: exec.name, w: last }
  }

  private note(exec: object, line: string): void {
    const lines = this.notes.get(exec) ?? []
    lines.push(line)
    this.notes.set(exec, lines)
  }

  private async workspaceOf(session: CapturedSession | undefined): Promise<SessionWorkspace | undefined> {
    if (!session || typeof session.id !== 'string' || this.registry.unavailable !== undefined) return undefined
    const opened = await this.registry.get(session.id, session.header?.cwd)
    return opened.ok ? opened.value : undefined
  }

  /** Before a file tool writes: checkpoint the file as it is. */
  private async before(target: unknown, actor: unknown): Promise<void> {
    const exec = actor as Execution | undefined
    const session = exec?.agent?.session
    if (!exec || !session) return
    const fs = hostService<FileSystemLike>(this.ctx, 'fs')
    if (!fs) return
    const workspace = await this.workspaceOf(session)
    if (!workspace) return
    const point = this.touched.get(exec)?.point ?? this.callPoint(session, exec)
    const outcome = workspace.captureBefore(point, fs.processPath(target))
    if (outcome.kind === 'outside')
      this.note(
        exec,
        `[session-tree] ${outcome.absolute} is outside the workspace (${workspace.root}): not checkpointed, a restore leaves it alone.`,
      )
    else if (outcome.kind === 'failed')
      this.note(
        exec,
        `[session-tree] ${outcome.path ?? 'a file'} was not checkpointed (${outcome.message}); a restore cannot bring back its previous content.`,
      )
    else if (outcome.kind === 'captured' && outcome.state.kind === 'skipped')
      this.note(
        exec,
        `[session-tree] ${outcome.path}: ${skipMessage(outcome.state, workspace.maxFileBytes)}; a restore cannot bring back its previous content.`,
      )
    if (outcome.kind === 'captured' || outcome.kind === 'already') this.touched.set(exec, { workspace, point })
  }

  /** Around every tool call: shell snapshots, and the after-images of what file tools wrote. */
  private async around(exec: Execution, next: () => Promise<unknown>): Promise<unknown> {
    const session = exec.agent?.session
    let shell: { workspace: SessionWorkspace; before: Snapshot; point: CallPoint } | undefined
    if (session && this.shellTools.has(exec.name)) {
      await this.guard(async () => {
        const workspace = await this.workspaceOf(session)
        if (!workspace) return
        if (workspace.shell === 'off') {
          if (!this.told.has(session.id)) {
            this.told.add(session.id)
            this.note(
              exec,
              '[session-tree] Shell changes are not tracked here (workspace.shell is off): a files restore brings back only what the file tools (write, edit, …) changed.',
            )
          }
          return
        }
        try {
          const before = await workspace.shellBefore()
          if (before) shell = { workspace, before, point: this.callPoint(session, exec) }
        } catch (error) {
          this.note(exec, `[session-tree] This command's file changes are not tracked: ${describe(error)}`)
        }
      })
    }
    try {
      return await next()
    } finally {
      await this.guard(async () => {
        const touched = this.touched.get(exec)
        if (touched) {
          this.touched.delete(exec)
          this.skipNotes(
            exec,
            touched.workspace,
            touched.workspace.captureAfter({ ...touched.point, w: session ? session.seq - 1 : touched.point.w }),
          )
        }
        if (shell) {
          const recorded = await shell.workspace.shellAfter(
            { ...shell.point, w: session ? session.seq - 1 : shell.point.w },
            shell.before,
          )
          if (!recorded.ok)
            this.note(exec, `[session-tree] This command's file changes are not tracked: ${recorded.error.message}`)
          else this.skipNotes(exec, shell.workspace, recorded.value)
        }
      })
    }
  }

  private skipNotes(exec: object, workspace: SessionWorkspace, changes: readonly FileChange[]): void {
    for (const change of changes) {
      if (change.after.kind === 'skipped')
        this.note(
          exec,
          `[session-tree] ${change.path}: ${skipMessage(change.after, workspace.maxFileBytes)}; a restore cannot bring this version back.`,
        )
    }
  }

  /**
   * After a restore: make the read-before-write policy forget what the model
   * saw of these files (`fs/observed` with a version no file ever has, so a
   * guarded write or edit answers "stale: re-read the file"; a deleted file
   * is observed absent, which is true). Without `ctx.fs` there is no policy to tell.
   */
  async invalidateReads(
    agent: object,
    root: string,
    changes: readonly { readonly path: string; readonly deleted: boolean }[],
    restoreId: string,
  ): Promise<void> {
    const fs = hostService<FileSystemLike>(this.ctx, 'fs')
    if (!fs) return
    const emit = this.ctx.emit.bind(this.ctx) as unknown as (name: string, ...args: unknown[]) => void
    for (const change of changes) {
      await this.guard(async () => {
        const target = await fs.resolve(`${root}/${change.path}`)
        emit(
          'fs/observed',
          target,
          change.deleted ? { kind: 'absent' } : { kind: 'present', version: `session-tree:restored:${restoreId}` },
          { agent },
        )
      })
    }
  }

  private async guard(work: () => unknown): Promise<void> {
    try {
      await work()
    } catch (error) {
      this.ctx.logger('session-tree').warn(error)
    }
  }
}

function describe(error: unknown): string {
  return errorMessage(error)
}
