/**
 * One session's workspace checkpoints: capture, the files at any point,
 * restore plans and restores; owns `log.ts`, `blobs.ts`, `timeline.ts` and
 * `git.ts`. Every capture is durable before it returns; a restore journals its
 * intent and its end, so one cut short is visible and can be repeated.
 * Why: docs/workspace.md, "Crash safety" and "Restoring".
 */
import { randomUUID } from 'node:crypto'
import { fail, ok, type TreeResult, errorMessage } from '../tree/errors.ts'
import { hashOf, type BlobStore } from './blobs.ts'
import { diffCounts, unifiedDiff } from './diff.ts'
import type { GitChange, GitSide, GitSnapshots, Snapshot } from './git.ts'
import type { CheckpointLog, LogLoad } from './log.ts'
import { CheckpointWriter } from './writer.ts'
import { pathProblem, relativeTo } from './paths.ts'
import { planRestore, statOf } from './planner.ts'
import { prepareRestore, removeLeftovers, writeRestore, type RestoreHook } from './restorer.ts'
import { probe, readNoFollow, type StatSignature } from './safe-fs.ts'
import { Timeline, type RestoreEntry } from './timeline.ts'
import {
  fileState,
  sameState,
  skipMessage,
  type BlockedFile,
  type ConflictDecision,
  type FileChange,
  type FileCompareDiff,
  type FileComparison,
  type FileDiff,
  type FileState,
  type SingleOp,
  type PlanEntry,
  type RestorePlan,
  type RestoreReport,
  type RestoreStep,
  type ShellTracking,
} from './types.ts'

/** The tool call a capture belongs to. */
export interface CallPoint {
  /** `2 × seq` of the call's `tool/call` event. */
  readonly key: number
  /** Its tree node (`e<seq>`). */
  readonly node: string
  readonly call: string
  readonly tool: string
  /** The session's last event seq now (journal watermark). */
  readonly w: number
}

export type CaptureOutcome =
  | { readonly kind: 'captured'; readonly path: string; readonly state: FileState }
  | { readonly kind: 'already'; readonly path: string }
  | { readonly kind: 'outside'; readonly absolute: string }
  | { readonly kind: 'failed'; readonly path?: string; readonly message: string }

/** A file at a conversation point, next to what it is now. */
export interface FileAtPoint {
  readonly path: string
  /** Undefined: unknown (the after-image of a change was never written). */
  readonly state?: FileState
  /** Whether the file now differs from that state. */
  readonly differs: boolean
}

export interface WorkspaceStatusInfo {
  readonly root: string
  readonly shell: ShellTracking
  readonly maxFileBytes: number
  /** Paths the journal tracks. */
  readonly tracked: number
  /** Restores that never finished (repeat them). */
  readonly interrupted: readonly RestoreEntry[]
  readonly problems: readonly string[]
}

export interface SessionWorkspaceInit {
  readonly sessionId: string
  readonly root: string
  readonly shell: ShellTracking
  readonly maxFileBytes: number
  readonly log: CheckpointLog
  /** What the journal held when the workspace was opened. */
  readonly loaded: LogLoad
  readonly blobs: BlobStore
  readonly git: GitSnapshots | undefined
  readonly hook?: RestoreHook
  /** Contents up to this size travel in the journal line (default INLINE_MAX_BYTES; negative: every content is synced to the pack first, the bench's two-sync baseline). */
  readonly inlineMaxBytes?: number
}

/**
 * Contents up to this size travel in the journal line that first refers to
 * them (one fsync per checkpoint); larger ones are synced to the pack first.
 */
export const INLINE_MAX_BYTES = 64 * 1024
/** A shell call's line carries at most this many content bytes (a call changing many files puts the rest in the pack). */
export const SHELL_INLINE_TOTAL = 256 * 1024

/** Files younger than this may change again within their timestamp's granularity: never trusted by stat alone. */
const RACY_MS = 3_000

interface Cached {
  readonly signature: StatSignature
  readonly state: FileState
  readonly trusted: boolean
}

export class SessionWorkspace {
  readonly sessionId: string
  readonly root: string
  readonly shell: ShellTracking
  readonly maxFileBytes: number
  private readonly blobs: BlobStore
  private readonly git: GitSnapshots | undefined
  private readonly hook: RestoreHook | undefined
  private readonly inlineMaxBytes: number
  private readonly timeline = new Timeline()
  private readonly cache = new Map<string, Cached>()
  private readonly problemList: string[] = []
  private readonly writer: CheckpointWriter

  constructor(init: SessionWorkspaceInit) {
    this.sessionId = init.sessionId
    this.root = init.root
    this.shell = init.shell
    this.maxFileBytes = init.maxFileBytes
    this.blobs = init.blobs
    this.git = init.git
    this.hook = init.hook
    this.inlineMaxBytes = init.inlineMaxBytes ?? INLINE_MAX_BYTES
    const loaded = init.loaded
    this.problemList.push(...loaded.problems)
    for (const entry of loaded.ops) this.timeline.apply(entry)
    // The journal holds the durable copy of small contents; the pack's copy is checked and rewritten where a crash cut it.
    try {
      this.blobs.adopt(loaded.contents)
    } catch (error) {
      this.problemList.push(`checkpoint contents could not be copied into the pack: ${describe(error)}`)
    }
    this.writer = new CheckpointWriter({
      log: init.log,
      blobs: init.blobs,
      root: init.root,
      shell: init.shell,
      rooted: loaded.ops.some((entry) => entry.op.t === 'root'),
      problem: (message) => this.problemList.push(message),
    })
    // A restore cut short may have left a temporary file next to the one it was writing.
    for (const restore of this.timeline.restores()) {
      if (!restore.complete) removeLeftovers(this.root, restore.id, restore.paths)
    }
  }

  get problems(): readonly string[] {
    return this.problemList
  }

  // ------------------------------------------------------------ capture

  /** Durably journal `op` (carrying `contents`, with any after-images waiting), then index it. */
  private append(op: SingleOp, w: number, contents?: ReadonlyMap<string, Buffer>): TreeResult<number> {
    const written = this.writer.append(op, w, contents)
    if (written.ok) this.timeline.apply({ n: written.value, op })
    return written
  }

  /** Journal the after-images waiting, now (on shutdown, or before another process reads the journal). */
  flush(): void {
    this.writer.flush()
  }

  /**
   * Read a file and store its content: a small new content is returned in
   * `contents` for the journal line to carry; a large one is put in the pack
   * (durably unless told otherwise). The state to record.
   */
  private snapshotFile(rel: string, durable: boolean, contents: Map<string, Buffer>): FileState {
    const read = readNoFollow(this.root, rel, this.maxFileBytes)
    if (read.kind !== 'file') return read
    const hash = hashOf(read.bytes)
    if (!this.blobs.needsHome(hash)) {
      // Stored and durable already: the record refers to it by hash.
    } else if (read.bytes.length <= this.inlineMaxBytes) {
      this.blobs.putJournaled(read.bytes, hash)
      contents.set(hash, read.bytes)
    } else {
      this.blobs.put(read.bytes, hash, durable)
    }
    const state = fileState(read.bytes, hash, read.exec)
    this.cache.set(rel, { signature: read.signature, state, trusted: Date.now() - read.mtimeMs > RACY_MS })
    return state
  }

  /**
   * A file tool is about to write `absolute` for the call `point`: record the
   * file's content right now, durably, before the write happens. The first
   * capture of a path in a call counts; outside the root nothing is recorded.
   */
  captureBefore(point: CallPoint, absolute: string): CaptureOutcome {
    const rel = relativeTo(this.root, absolute)
    if (rel === undefined) return { kind: 'outside', absolute }
    if (this.timeline.isOpen(point.key, point.call, rel)) return { kind: 'already', path: rel }
    try {
      const contents = new Map<string, Buffer>()
      const state = this.snapshotFile(rel, true, contents)
      const written = this.append(
        { t: 'before', key: point.key, node: point.node, call: point.call, tool: point.tool, path: rel, state },
        point.w,
        contents,
      )
      return written.ok
        ? { kind: 'captured', path: rel, state }
        : { kind: 'failed', path: rel, message: written.error.message }
    } catch (error) {
      return { kind: 'failed', path: rel, message: `checkpoint failed: ${describe(error)}` }
    }
  }

  /** The call ended: record the after-image of every file it captured. */
  captureAfter(point: CallPoint): FileChange[] {
    const changes: FileChange[] = []
    for (const rel of this.timeline.openPaths(point.key, point.call)) {
      const before = this.timeline.openState(point.key, point.call, rel)
      try {
        const contents = new Map<string, Buffer>()
        const state = this.snapshotFile(rel, false, contents)
        const op: SingleOp = { t: 'after', key: point.key, call: point.call, path: rel, state }
        this.timeline.apply({ n: 0, op })
        this.writer.defer(op, point.w, contents)
        if (before !== undefined) changes.push({ path: rel, before, after: state })
      } catch (error) {
        this.problemList.push(`after-image of ${rel}: ${describe(error)}`)
      }
    }
    return changes
  }

  /** Stop watching the folder for changes (this process forgets the session). */
  close(): void {
    this.git?.close()
  }

  /** How shell snapshots learn what changed, and what the latest one walked (undefined when shell changes are not tracked). */
  shellWatching(): ReturnType<GitSnapshots['watching']> | undefined {
    return this.git?.watching()
  }

  /** Snapshot the work tree before a shell call (undefined when shell changes are not tracked). */
  async shellBefore(): Promise<Snapshot | undefined> {
    return this.git?.snapshot()
  }

  /** After the shell call: record what it changed. */
  async shellAfter(point: CallPoint, before: Snapshot): Promise<TreeResult<FileChange[]>> {
    if (!this.git) return ok([])
    // Contents the line carries: durable nowhere until it is written (told to the pack when it is not).
    const carried = new Map<string, Buffer>()
    try {
      const after = await this.git.snapshot()
      const changes = await this.git.changes(before, after)
      if (changes.length === 0) return ok([])
      const oids = changes
        .flatMap((c) => [c.before, c.after])
        .flatMap((side) => (side.kind === 'blob' ? [side.oid] : []))
      const contents = await this.git.blobs(oids)
      const files: FileChange[] = []
      const room = { left: SHELL_INLINE_TOTAL }
      for (const change of changes) {
        if (pathProblem(change.path) !== undefined || isGitlink(change)) continue
        files.push({
          path: change.path,
          before: this.sideState(change.before, contents, carried, room),
          after: this.sideState(change.after, contents, carried, room),
        })
      }
      if (files.length === 0) {
        this.blobs.unjournaled(carried.keys())
        return ok([])
      }
      // Small new contents ride in the line (one fsync: the line's); the rest were put unsynced: one fdatasync of the pack first.
      this.blobs.sync()
      const written = this.append(
        { t: 'shell', key: point.key, node: point.node, call: point.call, tool: point.tool, files },
        point.w,
        carried,
      )
      if (!written.ok) return written
      for (const file of files) this.cache.delete(file.path)
      return ok(files)
    } catch (error) {
      this.blobs.unjournaled(carried.keys())
      return fail('WORKSPACE_IO', `shell snapshot failed: ${describe(error)}`)
    }
  }

  /**
   * A shell snapshot's side as a state; its content is stored: carried by the
   * journal line (`carried`, while `room` lasts) or put in the pack unsynced.
   */
  private sideState(
    side: GitSide,
    contents: ReadonlyMap<string, Buffer>,
    carried: Map<string, Buffer>,
    room: { left: number },
  ): FileState {
    if (side.kind === 'absent') return { kind: 'absent' }
    if (side.kind === 'large') return { kind: 'skipped', reason: 'too-large', size: side.size }
    if (side.mode === '120000') return { kind: 'skipped', reason: 'symlink' }
    const bytes = contents.get(side.oid)
    if (bytes === undefined) return { kind: 'skipped', reason: 'unreadable' }
    if (bytes.length > this.maxFileBytes) return { kind: 'skipped', reason: 'too-large', size: bytes.length }
    const hash = hashOf(bytes)
    if (carried.has(hash) || !this.blobs.needsHome(hash)) {
      // Carried by this line already, or stored and durable: referred to by hash.
    } else if (bytes.length <= this.inlineMaxBytes && bytes.length <= room.left) {
      this.blobs.putJournaled(bytes, hash)
      carried.set(hash, bytes)
      room.left -= bytes.length
    } else {
      this.blobs.put(bytes, hash, false)
    }
    return fileState(bytes, hash, side.mode === '100755')
  }

  // ------------------------------------------------------------ reading

  /** What a tracked file is now (stat cache: a file is re-read only when its signature moved; `seen` keeps what was read). */
  current(rel: string, seen?: Map<string, { readonly hash: string; readonly bytes: Buffer }>): FileState {
    const found = probe(this.root, rel)
    if (found.kind !== 'file') return found
    if (found.size > this.maxFileBytes) return { kind: 'skipped', reason: 'too-large', size: found.size }
    const cached = this.cache.get(rel)
    if (cached !== undefined && cached.trusted && cached.signature === found.signature) return cached.state
    const read = readNoFollow(this.root, rel, this.maxFileBytes)
    if (read.kind !== 'file') return read
    const hash = hashOf(read.bytes)
    const state = fileState(read.bytes, hash, read.exec)
    this.cache.set(rel, { signature: read.signature, state, trusted: Date.now() - read.mtimeMs > RACY_MS })
    seen?.set(rel, { hash, bytes: read.bytes })
    return state
  }

  /** Every tracked path. */
  paths(): string[] {
    return this.timeline.paths()
  }

  /** The files at a conversation point (`boundary` = 2 × seq; -2 before the first node). */
  filesAt(boundary: number): FileAtPoint[] {
    return this.timeline.paths().map((path) => {
      const state = this.timeline.stateAt(path, boundary)
      return state === undefined
        ? { path, differs: true }
        : { path, state, differs: !sameState(state, this.current(path)) }
    })
  }

  /** A tracked file's state at a point (undefined: unknown or not tracked). */
  stateAt(rel: string, boundary: number): FileState | undefined {
    return this.timeline.stateAt(rel, boundary)
  }

  /** A stored content (text, at most the size limit). */
  content(hash: string): TreeResult<Buffer> {
    const read = this.blobs.get(hash, this.maxFileBytes)
    return read.ok ? ok(read.bytes) : fail('WORKSPACE_IO', read.reason, { hash })
  }

  /** The text of a state (`textOf`); `currentPath`: read from that file when it still holds the state. */
  text(state: FileState | undefined, currentPath?: string): string | null | undefined {
    return this.textOf(state, currentPath)
  }

  /** Store content durably (before a journal line names it); its hash. */
  store(bytes: Buffer): TreeResult<string> {
    try {
      return ok(this.blobs.put(bytes, hashOf(bytes), true))
    } catch (error) {
      return fail('WORKSPACE_IO', `storing content failed: ${describe(error)}`)
    }
  }

  /** The text of a state: null for absent, undefined when it has no text (not checkpointed, binary, unreadable). */
  private textOf(
    state: FileState | undefined,
    currentPath?: string,
    seen?: ReadonlyMap<string, { readonly hash: string; readonly bytes: Buffer }>,
  ): string | null | undefined {
    if (state === undefined || state.kind === 'skipped' || (state.kind === 'file' && state.binary === true))
      return undefined
    if (state.kind === 'absent') return null
    // Read by this plan a moment ago: not read again.
    const read = currentPath === undefined ? undefined : seen?.get(currentPath)
    if (read !== undefined && read.hash === state.hash) return read.bytes.toString('utf8')
    if (currentPath !== undefined) {
      const read = readNoFollow(this.root, currentPath, this.maxFileBytes)
      if (read.kind === 'file' && hashOf(read.bytes) === state.hash) return read.bytes.toString('utf8')
    }
    const stored = this.blobs.get(state.hash, this.maxFileBytes)
    return stored.ok ? stored.bytes.toString('utf8') : undefined
  }

  /**
   * Where a move's files go: the state at the point `boundary`, or, for a back
   * or forward over a restore, exactly what the restores it undoes replaced.
   */
  private goal(
    boundary: number,
    step: RestoreStep | undefined,
  ): { readonly paths: string[]; readonly targetOf: (rel: string) => FileState | undefined } {
    const group = step === undefined ? [] : this.timeline.undoing(step)
    if (group.length === 0)
      return { paths: this.timeline.paths(), targetOf: (rel) => this.timeline.stateAt(rel, boundary) }
    const targets = this.timeline.undoTargets(group)
    return { paths: [...targets.keys()].sort(), targetOf: (rel) => targets.get(rel) }
  }

  /** Whether a back or forward with the files has a restore to undo (else it takes the files at its node). */
  canStep(step: RestoreStep): boolean {
    return this.timeline.undoing(step).length > 0
  }

  /**
   * Restore plan to the point `boundary` (its node is `target`), or, with
   * `step`, of a back or forward (`goal`). Reads files; writes nothing.
   */
  plan(boundary: number, target: string | null, step?: RestoreStep): RestorePlan {
    const current = new Map<string, FileState>()
    const seen = new Map<string, { hash: string; bytes: Buffer }>()
    const currentOf = (rel: string): FileState => {
      let state = current.get(rel)
      if (state === undefined) {
        state = this.current(rel, seen)
        current.set(rel, state)
      }
      return state
    }
    const goal = this.goal(boundary, step)
    const plan = planRestore({
      target,
      paths: goal.paths,
      targetOf: goal.targetOf,
      expectedOf: (rel) => this.timeline.expected(rel),
      currentOf,
    })
    const counted = <T extends PlanEntry>(entry: T): T => {
      const before = this.textOf(entry.current, entry.path, seen)
      const after = this.textOf(entry.target)
      if (before === undefined || after === undefined) return entry
      return { ...entry, ...diffCounts(before ?? '', after ?? '') }
    }
    const { entries, conflicts } = this.blobs.reading(() => ({
      entries: plan.entries.map(counted),
      conflicts: plan.conflicts.map(counted),
    }))
    return { ...plan, entries, conflicts, stat: statOf([...entries, ...conflicts]) }
  }

  /** One file's diff from now to the point `boundary` (or to what a back or forward puts back). */
  diff(boundary: number, rel: string, step?: RestoreStep): TreeResult<FileDiff> {
    const problem = pathProblem(rel)
    if (problem !== undefined) return fail('INVALID_ARGUMENT', problem, { path: rel })
    if (!this.timeline.has(rel))
      return fail('INVALID_ARGUMENT', `${JSON.stringify(rel)} has no checkpoints in this session`, { path: rel })
    const current = this.current(rel)
    const target = this.goal(boundary, step).targetOf(rel)
    const before = this.textOf(current, rel)
    const after = this.textOf(target)
    const diff =
      before === undefined || after === undefined || (target !== undefined && sameState(current, target))
        ? ''
        : unifiedDiff(rel, before, after)
    return ok(target === undefined ? { path: rel, current, diff } : { path: rel, current, target, diff })
  }

  /**
   * The tracked files whose checkpointed states differ between two points
   * (`a`, `b`: boundaries), sorted by path. A state unknown or not
   * checkpointed on either side counts as differing: its content is not known.
   */
  compareFiles(a: number, b: number): FileComparison[] {
    const out: FileComparison[] = []
    for (const path of this.timeline.paths()) {
      const from = this.timeline.stateAt(path, a)
      const to = this.timeline.stateAt(path, b)
      if (from !== undefined && to !== undefined && sameState(from, to)) continue
      out.push({ path, ...(from === undefined ? {} : { a: from }), ...(to === undefined ? {} : { b: to }) })
    }
    return out
  }

  /** One tracked file's diff from point `a` to point `b` ('' when a side is not text, or nothing differs). */
  compareDiff(a: number, b: number, rel: string): TreeResult<FileCompareDiff> {
    const problem = pathProblem(rel)
    if (problem !== undefined) return fail('INVALID_ARGUMENT', problem, { path: rel })
    if (!this.timeline.has(rel))
      return fail('INVALID_ARGUMENT', `${JSON.stringify(rel)} has no checkpoints in this session`, { path: rel })
    const from = this.timeline.stateAt(rel, a)
    const to = this.timeline.stateAt(rel, b)
    const before = this.textOf(from)
    const after = this.textOf(to)
    const same = from !== undefined && to !== undefined && sameState(from, to)
    const diff = before === undefined || after === undefined || same ? '' : unifiedDiff(rel, before, after)
    return ok({ path: rel, ...(from === undefined ? {} : { a: from }), ...(to === undefined ? {} : { b: to }), diff })
  }

  // ------------------------------------------------------------ restore

  /**
   * Carry out a plan. `decide` answers each conflict (`keep` unless told
   * otherwise). What each file is now is stored and journaled before the
   * first write; files that changed since the plan are left alone. `step`:
   * the plan is a back's or forward's (made with the same `step`), and the
   * restore takes its place in the files' history. `carry`: the plan applies
   * that node's branch's changes (journaled with it; a back undoes it like any restore).
   */
  async restore(
    plan: RestorePlan,
    decide: (path: string) => ConflictDecision,
    w: number,
    step?: RestoreStep,
    carry?: string,
  ): Promise<TreeResult<RestoreReport>> {
    const id = randomUUID().replaceAll('-', '')
    const of = step === undefined ? [] : this.timeline.undoing(step)
    const chosen = [...plan.entries, ...plan.conflicts.filter((c) => decide(c.path) === 'overwrite')].sort((a, b) =>
      a.path < b.path ? -1 : 1,
    )
    const kept = plan.conflicts.filter((c) => decide(c.path) !== 'overwrite').map((c) => c.path)
    const prepared = this.blobs.reading(() => prepareRestore(this.root, this.blobs, chosen, this.maxFileBytes))
    if (!prepared.ok) return prepared
    const { writes, files } = prepared.value
    kept.push(...prepared.value.changed)
    const blocked: BlockedFile[] = [...plan.blocked, ...prepared.value.damaged]
    const report = (written: readonly string[], keptNow: readonly string[]): RestoreReport => {
      const byPath = new Map(files.map((f) => [f.path, f]))
      const pick = (action: 'create' | 'update' | 'delete') =>
        written.filter((p) => {
          const f = byPath.get(p)!
          return action === 'delete'
            ? f.after.kind === 'absent'
            : action === 'create'
              ? f.before.kind === 'absent'
              : f.before.kind !== 'absent' && f.after.kind !== 'absent'
        })
      return {
        id,
        target: plan.target,
        created: pick('create'),
        updated: pick('update'),
        deleted: pick('delete'),
        kept: [...kept, ...keptNow],
        blocked,
      }
    }
    // Journaled even with nothing to write: it is a step of the files' history (a back undoes it, not an older one).
    // A session that never checkpointed a file keeps no journal.
    if (writes.length === 0 && this.timeline.paths().length === 0) return ok(report([], []))
    const intent = this.append(
      {
        t: 'restore',
        key: 2 * w + 1,
        id,
        target: plan.target,
        files,
        ...(step === undefined ? {} : { step, of }),
        ...(carry === undefined ? {} : { carry }),
      },
      w,
    )
    if (!intent.ok)
      return fail('WORKSPACE_IO', `the restore could not be journaled; nothing was written: ${intent.error.message}`)
    let outcome
    try {
      outcome = await writeRestore(this.root, id, writes, this.hook)
    } catch (error) {
      return fail(
        'WORKSPACE_IO',
        `restoring the files failed part way (each file is either as it was or restored; repeat the restore): ${describe(error)}`,
        { restoreId: id },
      )
    } finally {
      for (const write of writes) this.cache.delete(write.path)
    }
    for (const refused of outcome.refused)
      blocked.push({
        path: refused.path,
        reason: 'current-not-replaceable',
        current: { kind: 'skipped', reason: 'not-regular' },
      })
    const done = this.append({ t: 'restored', id, kept: [...outcome.kept, ...outcome.refused.map((r) => r.path)] }, w)
    if (!done.ok)
      return fail(
        'WORKSPACE_IO',
        `the files were restored, but the journal could not record it: ${done.error.message}`,
        { restoreId: id },
      )
    return ok(report(outcome.written, outcome.kept))
  }

  /** Completed restores the model has not been told about, with the files they changed. */
  unnoted(): RestoreEntry[] {
    return this.timeline.restores().filter((r) => r.complete && !r.noted && r.paths.some((p) => !r.kept.includes(p)))
  }

  /** Record that the model was told about a restore. */
  markNoted(id: string, w: number): TreeResult<number> {
    return this.append({ t: 'noted', id }, w)
  }

  /** Paths each tool or shell call node changed (for markers with counts). */
  changedByNode(): Map<string, string[]> {
    return this.timeline.changedByNode()
  }

  restores(): readonly RestoreEntry[] {
    return this.timeline.restores()
  }

  status(): WorkspaceStatusInfo {
    return {
      root: this.root,
      shell: this.shell,
      maxFileBytes: this.maxFileBytes,
      tracked: this.timeline.paths().length,
      interrupted: this.timeline.restores().filter((r) => !r.complete),
      problems: [...this.problemList],
    }
  }

  /** The plain-language message of a skipped state. */
  skipText(state: FileState): string | undefined {
    return state.kind === 'skipped' ? skipMessage(state, this.maxFileBytes) : undefined
  }
}

function isGitlink(change: GitChange): boolean {
  return (
    (change.before.kind === 'blob' && change.before.mode === '160000') ||
    (change.after.kind === 'blob' && change.after.mode === '160000')
  )
}

function describe(error: unknown): string {
  return errorMessage(error)
}
