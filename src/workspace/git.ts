/**
 * Snapshots of a git work tree through git plumbing, for shell commands
 * (which change files no tool reports). Nothing of the user's repository is
 * written: the snapshots live in a git directory of our own under the
 * session's sidecar directory, with its own index (`GIT_INDEX_FILE`), its
 * own object store (the user's objects are only read, as alternates, so
 * unchanged files cost nothing), and `info/attributes` that turn every
 * content filter off (`-text -eol -filter -ident -working-tree-encoding`):
 * a blob holds the file's exact bytes, CRLF and LFS files included. The
 * user's index, branches, stash, hooks and config are never touched;
 * `.gitignore` rules apply as in the user's repository.
 *
 * A snapshot: list untracked (`ls-files --others --exclude-standard`) and
 * changed (`diff-files`) paths of our index, add what is at most
 * `maxFileBytes` (`update-index --add --remove`), then `write-tree`. Larger
 * files are kept out and remembered by their stat signature, so a change to
 * one is still reported (as not checkpointed).
 */
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { probe, type StatSignature } from './safe-fs.ts'

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

export interface Snapshot {
  /** Tree object id of everything snapshotted. */
  readonly tree: string
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
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'
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

export class GitSnapshots {
  private readonly gitDir: string
  private readonly tree: GitWorkTree
  private readonly maxFileBytes: number
  private readonly env: NodeJS.ProcessEnv
  /** One git command sequence at a time: they share an index. */
  private queue: Promise<unknown> = Promise.resolve()
  private ready = false

  constructor(gitDir: string, tree: GitWorkTree, maxFileBytes: number) {
    this.gitDir = gitDir
    this.tree = tree
    this.maxFileBytes = maxFileBytes
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
    for (const [key, value] of CONFIG)
      await run(['config', key, value], cleanEnv({ GIT_DIR: this.gitDir }), this.gitDir)
    mkdirSync(path.join(this.gitDir, 'info'), { recursive: true })
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

  /** Snapshot the work tree as it is now. */
  snapshot(): Promise<Snapshot> {
    return this.serial(async () => {
      await this.init()
      const untracked = nulList(await this.git(['ls-files', '-z', '--others', '--exclude-standard']))
      const changed = nulList(await this.git(['diff-files', '-z', '--name-only', '--no-renames']))
      const update: string[] = []
      const drop: string[] = []
      const large = new Map<string, { signature: StatSignature; size: number }>()
      for (const rel of [...untracked, ...changed]) {
        // A nested repository is listed as a directory; it is not ours to snapshot.
        if (rel.endsWith('/')) continue
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
      const tree = (await this.git(['write-tree'])).toString('utf8').trim()
      return { tree, large }
    })
  }

  /** What changed from `a` to `b`, per path (large files included as `large`). */
  changes(a: Snapshot, b: Snapshot): Promise<GitChange[]> {
    return this.serial(async () => {
      const byPath = new Map<string, GitChange>()
      if (a.tree !== b.tree) {
        const raw = nulList(
          await this.git([
            'diff-tree',
            '-r',
            '-z',
            '--no-renames',
            '--raw',
            a.tree || EMPTY_TREE,
            b.tree || EMPTY_TREE,
          ]),
        )
        for (let i = 0; i + 1 < raw.length; i += 2) {
          const [oldMode, newMode, oldOid, newOid] = (raw[i] as string).slice(1).split(' ')
          const rel = raw[i + 1] as string
          const side = (mode: string | undefined, oid: string | undefined): GitSide =>
            mode === undefined || oid === undefined || /^0+$/.test(mode)
              ? { kind: 'absent' }
              : { kind: 'blob', oid, mode }
          byPath.set(rel, { path: rel, before: side(oldMode, oldOid), after: side(newMode, newOid) })
        }
      }
      for (const [rel, now] of b.large) {
        const was = a.large.get(rel)
        if (was?.signature === now.signature) continue
        const before = byPath.get(rel)?.before ?? (was ? { kind: 'large' as const, size: was.size } : undefined)
        byPath.set(rel, {
          path: rel,
          before: before ?? (await this.blobSide(a.tree, rel)),
          after: { kind: 'large', size: now.size },
        })
      }
      for (const [rel, was] of a.large) {
        if (b.large.has(rel) || byPath.has(rel)) continue
        const after = await this.blobSide(b.tree, rel)
        byPath.set(rel, { path: rel, before: { kind: 'large', size: was.size }, after })
      }
      return [...byPath.values()].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0))
    })
  }

  private async blobSide(tree: string, rel: string): Promise<GitSide> {
    if (!tree) return { kind: 'absent' }
    const out = (await this.git(['ls-tree', '-z', tree, '--', rel])).toString('utf8')
    const match = /^(\d+) blob ([0-9a-f]+)\t/.exec(out)
    return match ? { kind: 'blob', mode: match[1] as string, oid: match[2] as string } : { kind: 'absent' }
  }

  /** The contents of blobs (missing ones are left out). */
  blobs(oids: readonly string[]): Promise<Map<string, Buffer>> {
    return this.serial(async () => {
      const result = new Map<string, Buffer>()
      const unique = [...new Set(oids)]
      if (unique.length === 0) return result
      const out = await this.git(['cat-file', '--batch'], unique.join('\n') + '\n')
      let offset = 0
      for (const oid of unique) {
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
