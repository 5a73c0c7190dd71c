/**
 * Synchronous, durable file primitives. Everything is synchronous on purpose:
 * the caller needs "returned ⇒ on disk", and a sidecar write is small.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs'
import path from 'node:path'

/** Write all of `data` at `position` (`writeSync` may write less than asked). */
export function writeAll(fd: number, data: Uint8Array, position = 0): void {
  let done = 0
  while (done < data.length) done += writeSync(fd, data, done, data.length - done, position + done)
}

/** Make a directory entry (create, rename) durable by syncing its directory. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Create `dir` (private) if missing, and make every new entry durable. */
export function ensureDir(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: 0o700 })
  if (first === undefined) return
  // Sync the parent of every directory mkdir created, innermost first.
  for (let made = path.resolve(dir); ; made = path.dirname(made)) {
    syncDir(path.dirname(made))
    if (made === first || made === path.dirname(made)) break
  }
}

/**
 * Replace `file` atomically: write `<file>.tmp` in the same directory, fsync
 * it, rename it over `file`, fsync the directory. A crash leaves either the
 * old or the new file, plus at worst a stale `.tmp` the next write overwrites.
 */
export function replaceFile(file: string, data: Uint8Array): void {
  const tmp = file + '.tmp'
  const fd = openSync(tmp, 'w', 0o600)
  try {
    writeAll(fd, data)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, file)
  syncDir(path.dirname(file))
}
