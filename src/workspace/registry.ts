/**
 * Opens each session's workspace checkpoints once, lazily (a session that
 * never changes a file gets no directory). The root (the session's directory,
 * or the top of its git work tree) is fixed in the journal's first record, so
 * stored paths always mean the same files. Layout: docs/workspace.md, "Where
 * it is stored".
 */
import { lstatSync, mkdirSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { fail, ok, type TreeResult, errorMessage } from '../tree/errors.ts'
import { SidecarLocator } from '../sidecar/index.ts'
import { BlobStore } from './blobs.ts'
import { detectWorkTree, GitSnapshots, type GitWorkTree } from './git.ts'
import { relativeTo } from './paths.ts'
import { CheckpointLog } from './log.ts'
import type { RestoreHook } from './restorer.ts'
import { SessionWorkspace } from './session-workspace.ts'
import type { ShellTracking, WorkspaceOptions } from './types.ts'

export interface RegistryOptions extends WorkspaceOptions {
  /** Where sidecars live; without one nothing is checkpointed. */
  readonly sidecarRoot: string | undefined
  /** Where each session's sidecar directory is (default: every session under `sidecarRoot`). */
  readonly sidecars?: SidecarLocator
  readonly enabled: boolean
  readonly hook?: RestoreHook
  /** See `SessionWorkspaceInit.inlineMaxBytes` (the bench's two-sync baseline sets -1). */
  readonly inlineMaxBytes?: number
}

/** A snapshot root (a plain folder, or a git work tree's top level): the sidecar is kept out when it sits inside it. */
function sidecarOut(tree: GitWorkTree, sidecarRoot: string): GitWorkTree {
  const inside = relativeTo(tree.toplevel, sidecarRoot)
  return inside === undefined ? tree : { ...tree, excluded: [inside] }
}

function describe(error: unknown): string {
  return errorMessage(error)
}

export class WorkspaceRegistry {
  readonly options: RegistryOptions
  private readonly opening = new Map<string, Promise<TreeResult<SessionWorkspace>>>()
  private readonly open = new Map<string, SessionWorkspace>()

  constructor(options: RegistryOptions) {
    this.options = options
  }

  /** Why checkpoints are off for every session, or undefined when they are on. */
  get unavailable(): string | undefined {
    if (!this.options.enabled) return 'workspace checkpoints are turned off (workspace.enabled: false)'
    if (this.options.sidecarRoot === undefined) return 'workspace checkpoints need a sidecarRoot'
    return undefined
  }

  /** The opened workspace of a session, if any (no I/O). */
  peek(sessionId: string): SessionWorkspace | undefined {
    return this.open.get(sessionId)
  }

  /** Open (once) the workspace of a session whose directory is `cwd`. */
  get(sessionId: string, cwd: string | undefined): Promise<TreeResult<SessionWorkspace>> {
    let pending = this.opening.get(sessionId)
    if (pending === undefined) {
      pending = this.load(sessionId, cwd).then((result) => {
        if (result.ok) this.open.set(sessionId, result.value)
        // A failure is not remembered: the next call tries again.
        else this.opening.delete(sessionId)
        return result
      })
      this.opening.set(sessionId, pending)
    }
    return pending
  }

  /** Forget a session in this process (its files stay; what waits to be journaled is journaled first). */
  forget(sessionId: string): void {
    this.open.get(sessionId)?.flush()
    this.open.get(sessionId)?.close()
    this.opening.delete(sessionId)
    this.open.delete(sessionId)
  }

  /** Journal whatever waits, in every open workspace, and stop watching their folders (on shutdown). */
  closeAll(): void {
    for (const workspace of this.open.values()) {
      workspace.flush()
      workspace.close()
    }
  }

  private async load(sessionId: string, cwd: string | undefined): Promise<TreeResult<SessionWorkspace>> {
    const off = this.unavailable
    if (off !== undefined) return fail('WORKSPACE_UNAVAILABLE', off)
    if (typeof cwd !== 'string' || !path.isAbsolute(cwd))
      return fail('WORKSPACE_UNAVAILABLE', 'the session has no workspace directory')
    try {
      const place = (this.options.sidecars ?? new SidecarLocator(this.options.sidecarRoot as string)).place(sessionId)
      mkdirSync(place.base, { recursive: true, mode: 0o700 })
      if (place.inSession && lstatSync(place.base).isSymbolicLink())
        return fail('WORKSPACE_IO', `${place.base} is a symbolic link; it is not followed`, { sessionId })
      // Trusted from here down to the sidecar directory (it is checked, never followed, below).
      const sidecarRoot = realpathSync(place.base)
      const dirRel = `${path.basename(place.dir)}/workspace`
      const log = new CheckpointLog(path.join(sidecarRoot, dirRel), sessionId)
      const loaded = log.load()
      const recorded = loaded.ops.find((entry) => entry.op.t === 'root')?.op
      let root: string
      let worktree: GitWorkTree | undefined
      const problems: string[] = []
      if (recorded?.t === 'root') {
        root = recorded.root
        if (recorded.shell === 'git') {
          worktree = await detectWorkTree(root)
          if (worktree?.toplevel !== root) {
            // The repository went away: the same root is snapshotted as a plain folder from here on.
            problems.push(`${root} is no longer the top level of a git work tree: it is snapshotted as a plain folder`)
            worktree = undefined
          }
        }
      } else {
        const dir = realpathSync(cwd)
        worktree = this.options.shell === 'auto' ? await detectWorkTree(dir) : undefined
        if (worktree) worktree = { ...worktree, toplevel: realpathSync(worktree.toplevel) }
        root = worktree?.toplevel ?? dir
      }
      // A plain folder (or a journal from before plain folders were snapshotted): our own git directory, nothing borrowed.
      if (worktree === undefined && this.options.shell === 'auto') worktree = { toplevel: root }
      if (worktree !== undefined) worktree = sidecarOut(worktree, sidecarRoot)
      const shell: ShellTracking = worktree === undefined ? 'off' : worktree.commonDir === undefined ? 'folder' : 'git'
      const workspace = new SessionWorkspace({
        sessionId,
        root,
        shell,
        maxFileBytes: this.options.maxFileBytes,
        log,
        loaded: problems.length > 0 ? { ...loaded, problems: [...loaded.problems, ...problems] } : loaded,
        blobs: new BlobStore(sidecarRoot, `${dirRel}/blobs.pack`),
        git: worktree
          ? new GitSnapshots(path.join(sidecarRoot, dirRel, 'git'), worktree, {
              maxFileBytes: this.options.maxFileBytes,
              watch: this.options.watch === false ? 'walk' : 'events',
            })
          : undefined,
        ...(this.options.hook ? { hook: this.options.hook } : {}),
        ...(this.options.inlineMaxBytes !== undefined ? { inlineMaxBytes: this.options.inlineMaxBytes } : {}),
      })
      return ok(workspace)
    } catch (error) {
      return fail('WORKSPACE_IO', `opening the workspace checkpoints failed: ${describe(error)}`, { sessionId })
    }
  }
}
