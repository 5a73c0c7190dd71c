/**
 * Shell-call snapshots of a git work tree or a plain folder, through a git
 * directory of our own under the sidecar (own index and objects, the user's
 * objects read as alternates, every content filter off): nothing of the
 * user's repository is written. After the first, a snapshot is one
 * `ls-files -o -m -d` process, narrowed by `watch.ts` where it can be trusted.
 * Why and figures: docs/workspace.md, "What is checkpointed" and "Measured".
 */
import { execFile, spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, readlinkSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { constants as zlib, deflateSync, inflateSync } from 'node:zlib'
import { errorMessage } from '../tree/errors.ts'
import { probe, readNoFollow, type StatSignature } from './safe-fs.ts'
import { ChangeFeed, type ChangedPaths, feedUnavailable, type FeedLimits } from './watch.ts'

/**
 * What the snapshots cover: a git work tree (as git reports it), or a plain
 * folder (no repository: only our own git directory, nothing borrowed).
 */
export interface GitWorkTree {
  /** Absolute, resolved top level of the work tree (or the folder). */
  readonly toplevel: string
  /** The repository's common git directory (its `objects` are read as alternates); undefined in a plain folder. */
  readonly commonDir?: string
  /** Root-relative directories never snapshotted (the sidecar, when it sits inside a plain folder). */
  readonly excluded?: readonly string[]
}

/** One snapshotted path: its git blob id and mode (`100644`, `100755`, `120000` for a link, never followed). */
export interface SnapshotEntry {
  readonly oid: string
  readonly mode: string
}

/** A snapshot (immutable; an unchanged tree gives back the same one). */
export interface Snapshot {
  /** Every path snapshotted. */
  readonly entries: ReadonlyMap<string, SnapshotEntry>
  /** Files kept out for their size: path → signature and size. */
  readonly large: ReadonlyMap<string, { readonly signature: StatSignature; readonly size: number }>
}

/** One side of a changed path in a snapshot diff. */
export type GitSide =
  | { readonly kind: 'blob'; readonly oid: string; readonly mode: string }
  | { readonly kind: 'absent' }
  | { readonly kind: 'large'; readonly size: number }

export interface GitChange {
  readonly path: string
  readonly before: GitSide
  readonly after: GitSide
}

const ATTRIBUTES = '* -text -eol -filter -ident -working-tree-encoding -diff -merge\n'
/** Settings of our own git directory (repository config wins over the user's global one). */
const CONFIG: readonly (readonly [string, string])[] = [
  ['core.bare', 'false'],
  ['core.autocrlf', 'false'],
  ['core.safecrlf', 'false'],
  ['core.fsmonitor', 'false'],
  ['core.untrackedCache', 'false'],
  ['core.splitIndex', 'false'],
  ['core.symlinks', 'true'],
  ['core.quotePath', 'false'],
  ['core.fsync', 'added'],
  ['gc.auto', '0'],
]
/** Paths read here (not by git) that wait before they are written into our index in one `update-index`. */
export const FLUSH_AT = 32
const ZERO_OID = '0'.repeat(40)
const MAX_OUTPUT = 256 * 1024 * 1024

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value
  return { ...env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', ...extra }
}

function run(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string, input?: string | Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (input === undefined) {
      execFile('git', args, { env, cwd, encoding: 'buffer', maxBuffer: MAX_OUTPUT }, (error, stdout, stderr) => {
        if (error) reject(new Error(`git ${args[0]}: ${stderr.toString('utf8').trim() || error.message}`))
        else resolve(stdout)
      })
      return
    }
    const child = spawn('git', args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (d: Buffer) => out.push(d))
    child.stderr.on('data', (d: Buffer) => err.push(d))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out))
      else reject(new Error(`git ${args[0]}: ${Buffer.concat(err).toString('utf8').trim() || `exit ${code}`}`))
    })
    child.stdin.end(input)
  })
}

function nulList(buf: Buffer): string[] {
  return buf
    .toString('utf8')
    .split('\0')
    .filter((p) => p !== '')
}

/** The work tree `cwd` belongs to, or undefined when it is not inside one (or git is missing). */
export async function detectWorkTree(cwd: string): Promise<GitWorkTree | undefined> {
  try {
    const out = (
      await run(['rev-parse', '--is-inside-work-tree', '--show-toplevel', '--git-common-dir'], cleanEnv({}), cwd)
    )
      .toString('utf8')
      .split('\n')
    if (out[0] !== 'true' || !out[1] || !out[2]) return undefined
    return { toplevel: path.resolve(out[1]), commonDir: path.resolve(cwd, out[2]) }
  } catch {
    return undefined
  }
}

/** The git blob id of `bytes` (what `git hash-object` gives with every filter off). */
export function blobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
}

function sameEntry(a: SnapshotEntry | undefined, b: SnapshotEntry | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.oid === b.oid && a.mode === b.mode)
}

function byPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** How a snapshot learns what to walk: `events` a change feed when it can serve (else a full walk), `walk` always everything. */
export type ShellWatch = 'events' | 'walk'

export interface GitSnapshotsOptions {
  readonly maxFileBytes: number
  readonly watch: ShellWatch
  /** The feed's limits (tests set small ones). */
  readonly feedLimits?: FeedLimits
}

export class GitSnapshots {
  private readonly gitDir: string
  private readonly tree: GitWorkTree
  private readonly maxFileBytes: number
  private readonly env: NodeJS.ProcessEnv
  private readonly watchMode: ShellWatch
  private readonly feedLimits: FeedLimits | undefined
  /** The change feed once started; `feedOff` says why there is none. */
  private feed: ChangeFeed | undefined
  private feedOff: string | undefined
  private closed = false
  /** A snapshot started and did not finish (its feed interval is consumed): the next one walks everything. */
  private unfinished = false
  /** What the latest snapshot walked: everything (and why), or how many paths. */
  private lastWalk: ChangedPaths | undefined
  /** One git command sequence at a time: they share an index. */
  private queue: Promise<unknown> = Promise.resolve()
  private ready = false
  /** The latest snapshot (undefined until the first of this process). */
  private last: Snapshot | undefined
  /** Paths where our index differs from `last` (read here, or kept out): written into it by `flushIndex`. */
  private readonly stale = new Set<string>()
  /** Contents read by the latest snapshot (oid → bytes), so its changes need no object read. */
  private recent = new Map<string, Buffer>()

  constructor(gitDir: string, tree: GitWorkTree, options: GitSnapshotsOptions) {
    this.gitDir = gitDir
    this.tree = tree
    this.maxFileBytes = options.maxFileBytes
    this.watchMode = options.watch
    this.feedLimits = options.feedLimits
    if (options.watch === 'walk') this.feedOff = 'turned off (workspace.watch: false)'
    this.env = cleanEnv({
      GIT_DIR: gitDir,
      GIT_WORK_TREE: tree.toplevel,
      GIT_INDEX_FILE: path.join(gitDir, 'snapshot-index'),
    })
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work)
    this.queue = next.catch(() => undefined)
    return next
  }

  private git(args: readonly string[], input?: string | Buffer): Promise<Buffer> {
    return run(args, this.env, this.tree.toplevel, input)
  }

  /** Create our git directory once (idempotent: an existing one is reused). */
  private async init(): Promise<void> {
    if (this.ready) return
    if (!existsSync(path.join(this.gitDir, 'HEAD'))) {
      mkdirSync(path.dirname(this.gitDir), { recursive: true, mode: 0o700 })
      await run(['init', '--quiet', '--bare', this.gitDir], cleanEnv({}), path.dirname(this.gitDir))
    }
    // Set once per git directory (a git process each): a marker names the settings written.
    const configured = path.join(this.gitDir, 'info', 'session-tree-config')
    const wanted = CONFIG.map(([key, value]) => `${key}=${value}\n`).join('')
    let written = ''
    try {
      written = readFileSync(configured, 'utf8')
    } catch {
      /* first time */
    }
    if (written !== wanted) {
      for (const [key, value] of CONFIG)
        await run(['config', key, value], cleanEnv({ GIT_DIR: this.gitDir }), this.gitDir)
    }
    mkdirSync(path.join(this.gitDir, 'info'), { recursive: true })
    if (written !== wanted) writeFileSync(configured, wanted)
    writeFileSync(path.join(this.gitDir, 'info', 'attributes'), ATTRIBUTES)
    // The user's own exclusions apply to our snapshots too; our own sidecar is never snapshotted.
    let exclude = ''
    if (this.tree.commonDir !== undefined) {
      try {
        exclude = readFileSync(path.join(this.tree.commonDir, 'info', 'exclude'), 'utf8')
      } catch {
        /* none */
      }
    }
    for (const dir of this.tree.excluded ?? []) exclude += `\n/${dir.replace(/([*?[\\!#])/g, '\\$1')}/\n`
    writeFileSync(path.join(this.gitDir, 'info', 'exclude'), exclude)
    mkdirSync(path.join(this.gitDir, 'objects', 'info'), { recursive: true })
    writeFileSync(
      path.join(this.gitDir, 'objects', 'info', 'alternates'),
      this.tree.commonDir === undefined ? '' : `${path.join(this.tree.commonDir, 'objects')}\n`,
    )
    this.ready = true
  }

  /** What git's stat cache says may differ from our index: untracked, modified and deleted paths (below `only`, when given). */
  private async listed(only?: readonly string[]): Promise<string[]> {
    const args = ['ls-files', '-z', '--others', '--modified', '--deleted', '--exclude-standard']
    const out = nulList(await this.git(only === undefined ? args : ['--literal-pathspecs', ...args, '--', ...only]))
    // A nested repository is listed as a directory; it is not ours to snapshot.
    return [...new Set(out)].filter((rel) => !rel.endsWith('/'))
  }

  /** Start the change feed once (after `init`): what git ignores, the sidecar and `.git` are not watched. */
  private async startFeed(last: Snapshot): Promise<void> {
    if (this.feed?.outdated) {
      // What it skips or watches no longer fits the folder: a new feed (its first interval walks everything).
      this.feed.close()
      this.feed = undefined
    }
    if (this.feed !== undefined || this.feedOff !== undefined) return
    if (this.closed) {
      this.feedOff = 'closed'
      return
    }
    this.feedOff = feedUnavailable(this.tree.toplevel, this.feedLimits)
    if (this.feedOff !== undefined) return
    const ignored = nulList(
      await this.git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory']),
    )
    // `--directory` also names a directory whose files all happen to be ignored: only one ignored itself is skipped.
    const dirs = ignored.filter((rel) => rel.endsWith('/'))
    const own =
      dirs.length === 0
        ? []
        : nulList(
            await this.git(['check-ignore', '-z', '--stdin', '--no-index'], dirs.join('\0') + '\0').catch(
              () => Buffer.alloc(0), // exit 1: none of them is ignored itself
            ),
          )
    // A directory ignored now may still hold files snapshotted before a rule ignored it: git lists their changes.
    const holding = new Set<string>()
    for (const rel of last.entries.keys())
      for (let cut = rel.lastIndexOf('/'); cut > 0; cut = rel.lastIndexOf('/', cut - 1)) holding.add(rel.slice(0, cut))
    const skip = new Set([
      ...own.map((rel) => rel.slice(0, -1)).filter((dir) => !holding.has(dir)),
      ...(this.tree.excluded ?? []),
    ])
    const cookieDir = path.join(this.gitDir, 'watch')
    mkdirSync(cookieDir, { recursive: true, mode: 0o700 })
    const feed = new ChangeFeed({
      root: this.tree.toplevel,
      cookieDir,
      skip,
      ...(this.feedLimits ? { limits: this.feedLimits } : {}),
    })
    feed.start()
    this.feed = feed
  }

  /** What the snapshots learn changes from, and what the latest one walked (for `files` and the bench). */
  watching(): { readonly mode: ShellWatch; readonly off?: string; readonly lastWalk?: ChangedPaths } {
    const off = this.feed?.stoppedBecause ?? this.feedOff
    return {
      mode: this.watchMode,
      ...(off !== undefined ? { off } : {}),
      ...(this.lastWalk ? { lastWalk: this.lastWalk } : {}),
    }
  }

  /** Stop the change feed (the process forgets this session). */
  close(): void {
    this.closed = true
    this.feed?.close()
  }

  /** The paths this snapshot must look at: git's listing, everywhere or below what the feed names. */
  private async candidates(last: Snapshot): Promise<string[]> {
    const start = () =>
      this.startFeed(last).catch((error: unknown) => {
        this.feed?.close()
        this.feed = undefined
        this.feedOff = `the change feed could not start: ${errorMessage(error)}`
      })
    await start()
    let changed: ChangedPaths = this.feed ? await this.feed.take() : { kind: 'all', why: this.feedOff ?? 'no feed' }
    // The previous snapshot read the feed and then failed: what its interval named was never looked at.
    if (this.unfinished && changed.kind === 'paths') changed = { kind: 'all', why: 'the previous snapshot failed' }
    this.unfinished = true
    if (this.feed?.outdated) {
      if (changed.kind === 'paths') changed = { kind: 'all', why: 'the feed is renewed' }
      // Renewed before this walk of everything, so the next snapshot is narrowed again.
      await start()
      await this.feed?.take()
    }
    this.lastWalk = changed
    if (changed.kind === 'all') return this.listed()
    return changed.paths.length === 0 ? [] : this.listed(changed.paths)
  }

  /** Snapshot the work tree as it is now. */
  snapshot(): Promise<Snapshot> {
    return this.serial(async () => {
      await this.init()
      this.recent = new Map()
      const last = this.last ?? (await this.first())
      const paths = new Set([...(await this.candidates(last)), ...this.stale, ...last.large.keys()])
      let entries: Map<string, SnapshotEntry> | undefined
      let large: Map<string, { signature: StatSignature; size: number }> | undefined
      for (const rel of [...paths].sort(byPath)) {
        const seen = this.look(rel)
        const wasLarge = last.large.get(rel)
        const nowLarge = seen.kind === 'large' ? seen : undefined
        if (wasLarge?.signature !== nowLarge?.signature) {
          large ??= new Map(last.large)
          if (nowLarge === undefined) large.delete(rel)
          else large.set(rel, { signature: nowLarge.signature, size: nowLarge.size })
        }
        const entry = seen.kind === 'entry' ? seen.entry : undefined
        if (!sameEntry(last.entries.get(rel), entry)) {
          entries ??= new Map(last.entries)
          if (entry === undefined) entries.delete(rel)
          else entries.set(rel, entry)
        }
        // Our index holds git's older reading of it (or none, or one to remove): written there later, listed again until then.
        if (entry !== undefined || last.entries.has(rel)) this.stale.add(rel)
      }
      const next =
        entries === undefined && large === undefined
          ? last
          : { entries: entries ?? last.entries, large: large ?? last.large }
      this.last = next
      // Only git's stat cache is behind when this fails: the paths stay listed, read and compared, and it is tried again.
      if (this.stale.size >= FLUSH_AT) await this.flushIndex(next).catch(() => undefined)
      this.unfinished = false
      return next
    })
  }

  /** The first snapshot of this process: everything into our index (git's stat cache spares what it already holds). */
  private async first(): Promise<Snapshot> {
    const update: string[] = []
    const drop: string[] = []
    const large = new Map<string, { signature: StatSignature; size: number }>()
    for (const rel of await this.listed()) {
      const found = probe(this.tree.toplevel, rel)
      if (found.kind === 'file' && found.size > this.maxFileBytes) {
        large.set(rel, { signature: found.signature, size: found.size })
        drop.push(rel)
      } else if (found.kind === 'skipped' && found.reason !== 'symlink') {
        // Now a directory (its files are listed on their own), or unreadable: out of the snapshot.
        drop.push(rel)
      } else {
        update.push(rel)
      }
    }
    if (update.length > 0)
      await this.git(['update-index', '-z', '--add', '--remove', '--stdin'], update.join('\0') + '\0')
    if (drop.length > 0) await this.git(['update-index', '-z', '--force-remove', '--stdin'], drop.join('\0') + '\0')
    const entries = new Map<string, SnapshotEntry>()
    for (const line of nulList(await this.git(['ls-files', '-z', '--stage']))) {
      const match = /^(\d+) ([0-9a-f]+) (\d)\t(.*)$/s.exec(line)
      if (match && match[3] === '0')
        entries.set(match[4] as string, { mode: match[1] as string, oid: match[2] as string })
    }
    // A large file listed above but held in our index from an older process is left out.
    for (const rel of large.keys()) entries.delete(rel)
    return { entries, large }
  }

  /** What is at `rel` now, read without following a link: an entry (stored as a loose object), a large file, or nothing. */
  private look(
    rel: string,
  ):
    | { readonly kind: 'entry'; readonly entry: SnapshotEntry }
    | { readonly kind: 'large'; readonly signature: StatSignature; readonly size: number }
    | { readonly kind: 'none' } {
    const found = probe(this.tree.toplevel, rel)
    if (found.kind === 'file' && found.size > this.maxFileBytes)
      return { kind: 'large', signature: found.signature, size: found.size }
    if (found.kind === 'skipped' && found.reason === 'symlink') {
      let target: Buffer
      try {
        target = readlinkSync(path.join(this.tree.toplevel, rel), { encoding: 'buffer' })
      } catch {
        return { kind: 'none' }
      }
      return { kind: 'entry', entry: { oid: this.store(target), mode: '120000' } }
    }
    if (found.kind !== 'file') return { kind: 'none' }
    const read = readNoFollow(this.tree.toplevel, rel, this.maxFileBytes)
    if (read.kind === 'skipped' && read.reason === 'too-large' && read.size !== undefined) {
      const again = probe(this.tree.toplevel, rel)
      return again.kind === 'file' ? { kind: 'large', signature: again.signature, size: again.size } : { kind: 'none' }
    }
    if (read.kind !== 'file') return { kind: 'none' }
    // Git's rule: the owner's execute bit.
    return { kind: 'entry', entry: { oid: this.store(read.bytes), mode: found.mode & 0o100 ? '100755' : '100644' } }
  }

  /** Write `bytes` as a loose object of our git directory (temp file, rename: never half there); its id. */
  private store(bytes: Buffer): string {
    const oid = blobId(bytes)
    this.recent.set(oid, bytes)
    const dir = path.join(this.gitDir, 'objects', oid.slice(0, 2))
    const file = path.join(dir, oid.slice(2))
    if (existsSync(file)) return oid
    mkdirSync(dir, { recursive: true })
    const temp = path.join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`)
    const header = Buffer.from(`blob ${bytes.length}\0`, 'latin1')
    writeFileSync(temp, deflateSync(Buffer.concat([header, bytes]), { level: zlib.Z_BEST_SPEED }), { mode: 0o444 })
    try {
      renameSync(temp, file)
    } catch (error) {
      try {
        unlinkSync(temp)
      } catch {
        /* best effort */
      }
      throw error
    }
    return oid
  }

  /** A loose object of our own git directory, checked against its id (undefined when not there or damaged). */
  private loose(oid: string): Buffer | undefined {
    let raw: Buffer
    try {
      raw = inflateSync(readFileSync(path.join(this.gitDir, 'objects', oid.slice(0, 2), oid.slice(2))))
    } catch {
      return undefined
    }
    const nul = raw.indexOf(0)
    const header = nul < 0 ? '' : raw.toString('latin1', 0, nul)
    const bytes = raw.subarray(nul + 1)
    if (header !== `blob ${bytes.length}` || blobId(bytes) !== oid) return undefined
    return bytes
  }

  /**
   * Write the paths read here into our index, so git's stat cache covers them
   * again: their entries as snapshotted (`--index-info`, a path left out is
   * removed), then `--refresh` records their stat data — except for a file
   * that changed since it was read, which git then lists again.
   */
  private async flushIndex(snapshot: Snapshot): Promise<void> {
    const lines = [...this.stale].map((rel) => {
      const entry = snapshot.entries.get(rel)
      return entry === undefined ? `0 ${ZERO_OID}\t${rel}` : `${entry.mode} ${entry.oid}\t${rel}`
    })
    await this.git(['update-index', '-z', '--index-info'], lines.join('\0') + '\0')
    this.stale.clear()
    await this.git(['update-index', '-q', '--refresh'])
  }

  /** What changed from `a` to `b`, per path (large files included as `large`). */
  changes(a: Snapshot, b: Snapshot): Promise<GitChange[]> {
    return this.serial(async () => {
      const changed = new Map<string, GitChange>()
      const side = (entry: SnapshotEntry | undefined): GitSide =>
        entry === undefined ? { kind: 'absent' } : { kind: 'blob', oid: entry.oid, mode: entry.mode }
      if (a.entries !== b.entries) {
        for (const [rel, entry] of b.entries) {
          const was = a.entries.get(rel)
          if (!sameEntry(was, entry)) changed.set(rel, { path: rel, before: side(was), after: side(entry) })
        }
        for (const [rel, was] of a.entries)
          if (!b.entries.has(rel)) changed.set(rel, { path: rel, before: side(was), after: { kind: 'absent' } })
      }
      for (const [rel, now] of b.large) {
        const was = a.large.get(rel)
        if (was?.signature === now.signature) continue
        const before =
          changed.get(rel)?.before ?? (was ? { kind: 'large' as const, size: was.size } : side(a.entries.get(rel)))
        changed.set(rel, { path: rel, before, after: { kind: 'large', size: now.size } })
      }
      for (const [rel, was] of a.large) {
        if (b.large.has(rel) || changed.has(rel)) continue
        changed.set(rel, { path: rel, before: { kind: 'large', size: was.size }, after: side(b.entries.get(rel)) })
      }
      return [...changed.values()].sort((x, y) => byPath(x.path, y.path))
    })
  }

  /** The contents of blobs (missing ones are left out): read here, loose in our directory, else from git. */
  blobs(oids: readonly string[]): Promise<Map<string, Buffer>> {
    return this.serial(async () => {
      const result = new Map<string, Buffer>()
      const rest: string[] = []
      for (const oid of new Set(oids)) {
        const bytes = this.recent.get(oid) ?? this.loose(oid)
        if (bytes === undefined) rest.push(oid)
        else result.set(oid, bytes)
      }
      if (rest.length === 0) return result
      // Packed, or in the user's repository (alternates): one git process for all of them.
      const out = await this.git(['cat-file', '--batch'], rest.join('\n') + '\n')
      let offset = 0
      for (const oid of rest) {
        const newline = out.indexOf(0x0a, offset)
        if (newline < 0) break
        const header = out.toString('utf8', offset, newline).split(' ')
        offset = newline + 1
        if (header[1] === 'missing') continue
        const size = Number(header[2])
        result.set(oid, out.subarray(offset, offset + size))
        offset += size + 1
      }
      return result
    })
  }
}
