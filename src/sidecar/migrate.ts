/**
 * Moving a sidecar from `<root>/<encoded id>/` into `<session dir>/session-tree/`:
 * one `rename` on one file system; across file systems (EXDEV) mark, copy
 * (fsynced), publish, remove, so a crash at any step leaves one complete copy
 * the next start recognizes. Never through a link; both places holding a
 * sidecar is a conflict, reported, never merged. The steps and why each is
 * safe: docs/lineage.md, "Where a session's tree lives".
 */
import {
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  type Stats,
} from 'node:fs'
import path from 'node:path'
import { readFile, syncDir, writeAll } from './durable.ts'
import { describe } from './files.ts'

/** The steps of a migration, for a test hook that stops one (a thrown error is a crash there). */
export type MigrationStep = 'rename' | 'mark' | 'copy' | 'publish' | 'remove'

export interface MigrationOptions {
  /** Called before each step; throwing stops the migration there, as a crash would. */
  readonly hook?: (step: MigrationStep) => void
  /** Take the cross-file-system path even where a rename would do (tests). */
  readonly copy?: boolean
}

export type MigrationOutcome =
  | { readonly kind: 'none' }
  | { readonly kind: 'moved'; readonly from: string; readonly to: string; readonly how: 'rename' | 'copy' }
  | { readonly kind: 'conflict'; readonly from: string; readonly to: string; readonly message: string }
  | { readonly kind: 'refused'; readonly from: string; readonly to: string; readonly message: string }
  | { readonly kind: 'failed'; readonly from: string; readonly to: string; readonly message: string }

export const MIGRATING_PREFIX = '.migrating-'
/** Written into the copy before it is published: the copy is complete, and the marked directory it names may go. */
export const MIGRATED_FROM_FILE = '.migrated-from'

class Refused extends Error {}

/** 'dir', 'missing', or what is wrong with the entry (never followed). */
function kindOf(entry: string): 'dir' | 'missing' | string {
  let st: Stats
  try {
    st = lstatSync(entry)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing'
    throw error
  }
  if (st.isSymbolicLink()) return `${entry} is a symbolic link; it is not followed`
  if (!st.isDirectory()) return `${entry} is not a directory`
  return 'dir'
}

function fsyncFile(file: string): void {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW)
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Copy a directory tree of plain files and directories, each made durable; anything else is refused. */
function copyTree(from: string, to: string): void {
  mkdirSync(to, { mode: 0o700 })
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name)
    const target = path.join(to, entry.name)
    if (entry.isDirectory()) copyTree(source, target)
    else if (entry.isFile()) {
      const st = lstatSync(source)
      if (st.nlink !== 1) throw new Refused(`${source} has ${st.nlink} hard links; it is not copied`)
      const data = readFile(source)
      if (data === undefined) throw new Error(`${source} vanished while it was copied`)
      const fd = openSync(
        target,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        st.mode & 0o777,
      )
      try {
        writeAll(fd, data)
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
    } else
      throw new Refused(
        `${source} is ${entry.isSymbolicLink() ? 'a symbolic link' : 'not a plain file'}; it is not followed or copied`,
      )
  }
  fsyncFile(to)
}

/** Refuse a tree with anything but plain files (one link each) and directories, before anything moves. */
function checkTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const inner = path.join(dir, entry.name)
    if (entry.isDirectory()) checkTree(inner)
    else if (!entry.isFile())
      throw new Refused(
        `${inner} is ${entry.isSymbolicLink() ? 'a symbolic link' : 'not a plain file'}; it is not followed or copied`,
      )
    else if (lstatSync(inner).nlink !== 1)
      throw new Refused(`${inner} has ${lstatSync(inner).nlink} hard links; it is not copied`)
  }
}

function writeMarker(dir: string, marked: string): void {
  const fd = openSync(
    path.join(dir, MIGRATED_FROM_FILE),
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  )
  try {
    writeAll(fd, Buffer.from(`${marked}\n`))
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  fsyncFile(dir)
}

/** Whether `to` is the published copy of `marked` (its `.migrated-from` names it). */
function copiedFrom(to: string, marked: string): boolean {
  try {
    return readFile(path.join(to, MIGRATED_FROM_FILE))?.toString('utf8') === `${marked}\n`
  } catch {
    return false
  }
}

/** Step 4: the marked directory, then the marker that allowed removing it. */
function removeMarked(marked: string, to: string, hook: MigrationOptions['hook']): void {
  hook?.('remove')
  rmSync(marked, { recursive: true, force: true })
  syncDir(path.dirname(marked), true)
  rmSync(path.join(to, MIGRATED_FROM_FILE), { force: true })
  syncDir(to)
}

/** Steps 2-4 from the marked directory. */
function copyFromMarked(marked: string, to: string, hook: MigrationOptions['hook']): void {
  const partial = path.join(path.dirname(to), `.${path.basename(to)}.partial`)
  const stale = kindOf(partial)
  if (stale !== 'missing' && stale !== 'dir') throw new Refused(stale)
  // A copy a crash interrupted: it is not trusted, the marked directory is.
  if (stale === 'dir') rmSync(partial, { recursive: true, force: true })
  hook?.('copy')
  copyTree(marked, partial)
  writeMarker(partial, marked)
  syncDir(path.dirname(to))
  hook?.('publish')
  renameSync(partial, to)
  syncDir(path.dirname(to))
  removeMarked(marked, to, hook)
}

/** Move the sidecar at `from` (old layout) to `to` (inside the session's directory, which exists or is created). */
export function migrateSidecar(from: string, to: string, options: MigrationOptions = {}): MigrationOutcome {
  const marked = path.join(path.dirname(from), MIGRATING_PREFIX + path.basename(from))
  const { hook } = options
  try {
    const old = kindOf(from)
    const mark = kindOf(marked)
    const next = kindOf(to)
    for (const found of [old, mark, next]) {
      if (found !== 'dir' && found !== 'missing')
        return { kind: 'refused', from, to, message: `${found}: the sidecar is not moved` }
    }
    if (mark === 'dir') {
      if (old === 'dir')
        return {
          kind: 'conflict',
          from,
          to,
          message: `both ${from} and an interrupted move of it (${marked}) exist; both are kept, move one away`,
        }
      // An interrupted copy: after the publish only the removal is left, before it the copy starts over.
      if (next === 'dir') {
        if (!copiedFrom(to, marked))
          return {
            kind: 'conflict',
            from: marked,
            to,
            message: `the session has a sidecar at ${to} and an interrupted move of its old one at ${marked}; both are kept, remove the one you do not want`,
          }
        removeMarked(marked, to, hook)
      } else copyFromMarked(marked, to, hook)
      return { kind: 'moved', from, to, how: 'copy' }
    }
    if (old === 'missing') {
      // A removal finished but its marker not: the marker alone is harmless, and goes.
      if (next === 'dir' && copiedFrom(to, marked)) {
        rmSync(path.join(to, MIGRATED_FROM_FILE), { force: true })
        syncDir(to)
      }
      return { kind: 'none' }
    }
    if (next === 'dir') {
      return {
        kind: 'conflict',
        from,
        to,
        message: `the session has a sidecar at ${to} and another at the old place ${from}; both are kept as they are, remove the one you do not want`,
      }
    }
    checkTree(from)
    mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 })
    if (kindOf(path.dirname(to)) !== 'dir')
      return {
        kind: 'refused',
        from,
        to,
        message: `${path.dirname(to)} is not a plain directory: the sidecar is not moved`,
      }
    if (!options.copy) {
      try {
        hook?.('rename')
        renameSync(from, to)
        syncDir(path.dirname(from), true)
        syncDir(path.dirname(to))
        return { kind: 'moved', from, to, how: 'rename' }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
      }
    }
    hook?.('mark')
    renameSync(from, marked)
    syncDir(path.dirname(from), true)
    copyFromMarked(marked, to, hook)
    return { kind: 'moved', from, to, how: 'copy' }
  } catch (error) {
    if (error instanceof Refused)
      return { kind: 'refused', from, to, message: `${error.message}: the sidecar is not moved` }
    return { kind: 'failed', from, to, message: `moving the sidecar failed: ${describe(error)}` }
  }
}
