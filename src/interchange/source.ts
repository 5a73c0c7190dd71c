/**
 * Opening a session file to read: a regular file, never reached through a
 * symlink, no larger than the limit. The path is only ever opened for
 * reading; nothing in the file is used as a path.
 */
import { closeSync, constants, createReadStream, fstatSync, lstatSync, openSync, readdirSync, type ReadStream } from 'node:fs'
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
    if (code === 'ELOOP') throw new InterchangeError('INVALID_PATH', `${resolved} is a symbolic link; give the real file`, { path: resolved })
    if (code === 'ENOENT') throw new InterchangeError('INVALID_PATH', `${resolved} does not exist`, { path: resolved })
    if (code === 'EISDIR') throw new InterchangeError('INVALID_PATH', `${resolved} is a directory`, { path: resolved })
    throw new InterchangeError('READ_FAILED', `${resolved} cannot be opened: ${(error as Error).message}`, { path: resolved })
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) throw new InterchangeError('INVALID_PATH', `${resolved} is not a regular file`, { path: resolved })
    if (stat.size > maxBytes) {
      throw new InterchangeError('TOO_LARGE', `${resolved} is ${stat.size} bytes; the limit is ${maxBytes}`, { path: resolved, bytes: stat.size, limit: maxBytes })
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
    let names: string[]
    try {
      names = readdirSync(folder)
    } catch {
      continue
    }
    for (const name of names.sort()) {
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
