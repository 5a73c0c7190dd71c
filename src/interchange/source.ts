/**
 * Opening a session file to read: a regular file, never reached through a
 * symlink, no larger than the limit. The path is only ever opened for
 * reading; nothing in the file is used as a path.
 */
import {
  closeSync,
  constants,
  createReadStream,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  type ReadStream,
} from 'node:fs'
import path from 'node:path'
import { InterchangeError } from './errors.ts'

/** Largest session file an import reads by default (the whole limit is configurable). */
export const DEFAULT_MAX_FILE_BYTES = 512 * 1024 * 1024

export interface OpenedSource {
  readonly path: string
  readonly bytes: number
  readonly stream: ReadStream
}

/** Open `file` for streaming. Throws `InterchangeError` (INVALID_PATH, TOO_LARGE, READ_FAILED). */
export function openSource(file: string, maxBytes = DEFAULT_MAX_FILE_BYTES): OpenedSource {
  if (typeof file !== 'string' || file === '' || file.includes('\0')) {
    throw new InterchangeError('INVALID_PATH', 'the path must be a non-empty string without NUL characters')
  }
  const resolved = path.resolve(file)
  let fd: number
  try {
    // O_NOFOLLOW: a symlink as the last component is refused by the kernel, not checked then raced.
    fd = openSync(resolved, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP')
      throw new InterchangeError('INVALID_PATH', `${resolved} is a symbolic link; give the real file`, {
        path: resolved,
      })
    if (code === 'ENOENT') throw new InterchangeError('INVALID_PATH', `${resolved} does not exist`, { path: resolved })
    if (code === 'EISDIR') throw new InterchangeError('INVALID_PATH', `${resolved} is a directory`, { path: resolved })
    throw new InterchangeError('READ_FAILED', `${resolved} cannot be opened: ${(error as Error).message}`, {
      path: resolved,
    })
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile())
      throw new InterchangeError('INVALID_PATH', `${resolved} is not a regular file`, { path: resolved })
    if (stat.size > maxBytes) {
      throw new InterchangeError('TOO_LARGE', `${resolved} is ${stat.size} bytes; the limit is ${maxBytes}`, {
        path: resolved,
        bytes: stat.size,
        limit: maxBytes,
      })
    }
    return { path: resolved, bytes: stat.size, stream: createReadStream('', { fd, highWaterMark: 256 * 1024 }) }
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/** Chunks of a string, for sources that are already in memory (an upload). */
export async function* stringChunks(text: string, size = 1 << 20): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size)
}

/** The names in a folder, sorted; none when it cannot be listed (absent, not a folder, no access). */
function namesIn(folder: string): string[] {
  try {
    return readdirSync(folder).sort()
  } catch {
    return []
  }
}

/**
 * Claude Code subagent transcripts that belong beside a session file: found
 * by listing `<dir>/agent-*.jsonl` and `<dir>/<session>/subagents/agent-*.jsonl`
 * (names come from the directory, never from the file's contents; symlinks are
 * skipped). Whether one belongs to the session is decided from its records.
 */
export function subagentFiles(sessionFile: string): string[] {
  const dir = path.dirname(path.resolve(sessionFile))
  const base = path.basename(sessionFile).replace(/\.jsonl$/, '')
  const found: string[] = []
  for (const folder of [dir, path.join(dir, base, 'subagents')]) {
    for (const name of namesIn(folder)) {
      if (!/^agent-[A-Za-z0-9_-]+\.jsonl$/.test(name)) continue
      const file = path.join(folder, name)
      try {
        if (lstatSync(file).isFile()) found.push(file)
      } catch {
        // vanished meanwhile
      }
    }
  }
  return found
}

/** What the first line of a Codex rollout says about its thread. */
export interface RolloutHead {
  readonly path: string
  readonly id: string
  readonly forkedFrom?: string
  /** A later segment of the thread (0.171's rollback: `history_base` names the thread itself). */
  readonly segment?: true
}

/** Most rollout files looked at for one family (beside the file and in the other date folders of its sessions root). */
const MAX_ROLLOUT_CANDIDATES = 2000
/** Longest first line read from a candidate (session_meta carries the base instructions). */
const MAX_HEAD_BYTES = 4 << 20

/** The first line of a rollout file, when it is a `session_meta` (read as data; symlinks and non-files skipped). */
export function rolloutHead(file: string): RolloutHead | undefined {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  } catch {
    return undefined
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined
    const chunks: Buffer[] = []
    let total = 0
    const buffer = Buffer.allocUnsafe(64 * 1024)
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null)
      if (n <= 0) break
      const newline = buffer.subarray(0, n).indexOf(10)
      chunks.push(Buffer.from(buffer.subarray(0, newline === -1 ? n : newline)))
      total += newline === -1 ? n : newline
      if (newline !== -1 || total > MAX_HEAD_BYTES) break
    }
    if (total > MAX_HEAD_BYTES) return undefined
    const value = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      type?: unknown
      payload?: { id?: unknown; session_id?: unknown; forked_from_id?: unknown; history_base?: { thread_id?: unknown } }
    }
    if (value?.type !== 'session_meta' || typeof value.payload !== 'object' || value.payload === null) return undefined
    const id =
      typeof value.payload.id === 'string'
        ? value.payload.id
        : typeof value.payload.session_id === 'string'
          ? value.payload.session_id
          : undefined
    if (id === undefined) return undefined
    if (typeof value.payload.forked_from_id === 'string')
      return { path: file, id, forkedFrom: value.payload.forked_from_id }
    return { path: file, id, ...(value.payload.history_base?.thread_id === id ? { segment: true as const } : {}) }
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** Rollout files to look at for `main`'s family: `given`, then those beside it and, under `sessions/YYYY/MM/DD/`, in every date folder. */
function rolloutCandidates(main: string, given: readonly string[]): string[] {
  const found = new Set<string>(given.map((file) => path.resolve(file)))
  const dir = path.dirname(path.resolve(main))
  const dated = /^(.*)[/\\]\d{4}[/\\]\d{2}[/\\]\d{2}$/.exec(dir)
  const folders = dated ? datedFolders(dated[1]!) : [dir]
  for (const folder of folders) {
    for (const name of namesIn(folder)) {
      if (found.size >= MAX_ROLLOUT_CANDIDATES) return [...found]
      if (/^rollout-[A-Za-z0-9_.-]+\.jsonl$/.test(name)) found.add(path.join(folder, name))
    }
  }
  return [...found]
}

function datedFolders(root: string): string[] {
  const out: string[] = []
  const list = (dir: string, pattern: RegExp) => {
    try {
      return readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && pattern.test(e.name))
        .map((e) => path.join(dir, e.name))
        .sort()
    } catch {
      return []
    }
  }
  for (const year of list(root, /^\d{4}$/))
    for (const month of list(year, /^\d{2}$/)) out.push(...list(month, /^\d{2}$/))
  return out
}

/**
 * The rollouts of `main`'s family, parents before children: the threads it
 * forked from (by `forked_from_id`, up to the root) and every fork of any of
 * them, among the files given and those found beside it. Just `[main]` when
 * it has no relatives (or is not a rollout).
 */
export function codexFamily(main: string, given: readonly string[] = []): string[] {
  const mainPath = path.resolve(main)
  const head = rolloutHead(mainPath)
  if (head === undefined) return [mainPath]
  const heads = new Map<string, RolloutHead>()
  /** A thread's later segments (its rollbacks), by thread id. */
  const segments = new Map<string, RolloutHead[]>()
  for (const file of rolloutCandidates(mainPath, given)) {
    const found = file === mainPath ? head : rolloutHead(file)
    if (found === undefined) continue
    if (found.segment)
      segments.set(found.id, [...(segments.get(found.id) ?? []).filter((s) => s.path !== found.path), found])
    else if (!heads.has(found.id) || file === mainPath) heads.set(found.id, found)
  }
  if (!head.segment) heads.set(head.id, head)
  else if (!heads.has(head.id)) heads.set(head.id, head)
  let root = heads.get(head.id) ?? head
  for (
    const seen = new Set<string>([root.id]);
    root.forkedFrom !== undefined && heads.has(root.forkedFrom) && !seen.has(root.forkedFrom);
  ) {
    root = heads.get(root.forkedFrom)!
    seen.add(root.id)
  }
  const ordered: RolloutHead[] = [root]
  const inFamily = new Set([root.id])
  for (let i = 0; i < ordered.length; i++) {
    for (const candidate of heads.values()) {
      if (candidate.forkedFrom === ordered[i]!.id && !inFamily.has(candidate.id)) {
        inFamily.add(candidate.id)
        ordered.push(candidate)
      }
    }
  }
  // Each thread's first file, then its segments in the order they were written (the file names start with the time).
  return ordered.flatMap((h) => [
    h.path,
    ...(segments.get(h.id) ?? [])
      .filter((s) => s.path !== h.path)
      .map((s) => s.path)
      .sort((a, b) => path.basename(a).localeCompare(path.basename(b))),
  ])
}
