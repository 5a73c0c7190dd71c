/**
 * Synchronous, durable file primitives that never follow a link (synchronous
 * on purpose: callers need "returned ⇒ on disk"). Below the sidecar root
 * anything but a regular file with one link or a checked directory is a
 * `ForeignEntry`: reported, never read, written through or replaced.
 * docs/service.md, "Durability".
 */
import {
  closeSync,
  constants,
  fstatSync,
  type Stats,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import path from 'node:path'

const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants

/** A path in the sidecar that is not a plain file (or directory) of ours: a link, a directory, a FIFO... */
export class ForeignEntry extends Error {
  readonly path: string
  /** What is wrong, completing "<path> ...": "is a symbolic link", "has 2 hard links", ... */
  readonly damage: string

  constructor(file: string, damage: string) {
    super(
      `${path.basename(file)} ${damage}; it is not followed, read or overwritten (move it away to let the sidecar write again)`,
    )
    this.name = 'ForeignEntry'
    this.path = file
    this.damage = damage
  }
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code
}

/** What a stat says is wrong with a path where a regular file of ours belongs, or undefined. */
function fileDamage(st: {
  isSymbolicLink(): boolean
  isDirectory(): boolean
  isFile(): boolean
  nlink: number
}): string | undefined {
  if (st.isSymbolicLink()) return 'is a symbolic link'
  if (st.isDirectory()) return 'is a directory'
  if (!st.isFile()) return 'is not a regular file'
  if (st.nlink !== 1) return `has ${st.nlink} hard links`
  return undefined
}

/** The entry at `file` without following it, or undefined when there is none. */
function lstatOrMissing(file: string): Stats | undefined {
  try {
    return lstatSync(file)
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined
    throw error
  }
}

/**
 * Open a regular file of ours without following a link: `undefined` when it
 * does not exist; a `ForeignEntry` thrown for anything that is not one plain file.
 */
export function openFile(file: string, mode: 'read' | 'write'): number | undefined {
  let fd: number
  try {
    fd = openSync(file, (mode === 'read' ? O_RDONLY : O_RDWR) | O_NOFOLLOW | O_NONBLOCK)
  } catch (error) {
    const errno = errnoOf(error)
    if (errno === 'ENOENT') return undefined
    // ELOOP: the last component is a link; EISDIR: a directory opened for writing; ENXIO: a FIFO without a reader.
    const st = errno === 'ELOOP' || errno === 'EISDIR' || errno === 'ENXIO' ? lstatOrMissing(file) : undefined
    const damage = st ? fileDamage(st) : undefined
    if (damage !== undefined) throw new ForeignEntry(file, damage)
    throw error
  }
  const damage = fileDamage(fstatSync(fd))
  if (damage !== undefined) {
    closeSync(fd)
    throw new ForeignEntry(file, damage)
  }
  return fd
}

/** The bytes of a regular file of ours, or undefined when it does not exist (see `openFile`). */
export function readFile(file: string): Buffer | undefined {
  const fd = openFile(file, 'read')
  if (fd === undefined) return undefined
  try {
    const chunks: Buffer[] = []
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024)
      const read = readSync(fd, chunk, 0, chunk.length, null)
      if (read === 0) break
      chunks.push(read === chunk.length ? chunk : chunk.subarray(0, read))
    }
    return Buffer.concat(chunks)
  } finally {
    closeSync(fd)
  }
}

/** Whether a directory exists at `dir` (false: nothing there); a `ForeignEntry` for a link or a non-directory. */
export function isDir(dir: string): boolean {
  const st = lstatOrMissing(dir)
  if (st === undefined) return false
  if (st.isSymbolicLink()) throw new ForeignEntry(dir, 'is a symbolic link')
  if (!st.isDirectory()) throw new ForeignEntry(dir, 'is not a directory')
  return true
}

/** Write all of `data` at `position`, else at the file's offset (`writeSync` may write less than asked). */
export function writeAll(fd: number, data: Uint8Array, position?: number): void {
  let done = 0
  while (done < data.length)
    done += writeSync(fd, data, done, data.length - done, position === undefined ? null : position + done)
}

/** Make a directory entry (create, rename) durable by syncing its directory (`follow`: only for the configured root). */
export function syncDir(dir: string, follow = false): void {
  const fd = openSync(dir, O_RDONLY | O_DIRECTORY | (follow ? 0 : O_NOFOLLOW))
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * Create the session directory `dir` (private) inside `root` if missing, and
 * make every new entry durable. The root and its ancestors are configuration
 * and may be links; `dir` itself must be a real directory.
 */
export function ensureSessionDir(root: string, dir: string): void {
  if (isDir(dir)) return
  const first = mkdirSync(root, { recursive: true, mode: 0o700 })
  if (first !== undefined) {
    // Sync the parent of every directory mkdir created, innermost first.
    for (let made = path.resolve(root); ; made = path.dirname(made)) {
      syncDir(path.dirname(made), true)
      if (made === first || made === path.dirname(made)) break
    }
  }
  // Not recursive: a link planted at `dir` meanwhile makes this fail instead of being followed.
  try {
    mkdirSync(dir, { mode: 0o700 })
  } catch (error) {
    // Another process made it first: fine if it is a real directory (isDir does not follow a link).
    if (errnoOf(error) !== 'EEXIST' || !isDir(dir)) throw error
  }
  syncDir(root, true)
}

/** Create `file` exclusively (never through a link); a stale temp file or planted link is unlinked first. */
function createExclusive(file: string): number {
  for (let attempt = 0; ; attempt++) {
    try {
      return openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
    } catch (error) {
      if (errnoOf(error) !== 'EEXIST' || attempt > 0) throw error
      // unlink removes the entry itself (a link, never its target); a directory there makes it throw.
      unlinkSync(file)
    }
  }
}

/**
 * Replace `file` atomically: write `<file>.tmp` in the same directory (created
 * exclusively), fsync it, rename it over `file`, fsync the directory. A crash
 * leaves either the old or the new file, plus at worst a stale `.tmp` the next
 * write removes. The caller has checked that `file` is ours to replace.
 */
export function replaceFile(file: string, data: Uint8Array): void {
  const tmp = file + '.tmp'
  const fd = createExclusive(tmp)
  try {
    writeAll(fd, data)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, file)
  syncDir(path.dirname(file))
}

/** Write a new file that must not exist yet (a `.corrupt-<n>` copy), durably. */
export function writeNewFile(file: string, data: Uint8Array): void {
  const fd = openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
  try {
    writeAll(fd, data)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  syncDir(path.dirname(file))
}
