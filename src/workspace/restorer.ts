/**
 * Writing a restore's files atomically (temporary file, fsync, rename,
 * directory fsync), in rounds whose fsyncs run together. A kill leaves each
 * file old or restored, never half-written; a file that changed while the
 * restore ran is left alone. Why: docs/workspace.md, "Restoring".
 */
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { fail, ok, type TreeResult, errorMessage } from '../tree/errors.ts'
import { hashOf, type BlobStore } from './blobs.ts'
import {
  commitStagedAsync,
  probe,
  readNoFollow,
  removeFileAsync,
  removeStale,
  SafeFsError,
  stageFile,
  syncInParallel,
  type Staged,
  type StatSignature,
} from './safe-fs.ts'
import type { BlockedFile, FileChange, FileState, PlanEntry } from './types.ts'

/** One file to write (or delete) and what it must still be right before. */
export interface RestoreWrite {
  readonly path: string
  /** `undefined` for a deletion. */
  readonly bytes: Uint8Array | undefined
  readonly target: FileState
  /** The signature (or absence) the file had when its before-image was stored. */
  readonly expect: StatSignature | 'absent'
}

/** Called before the `index`-th file (1-based) is committed: the test hook that stops a restore at a chosen file. */
export type RestoreHook = (index: number, path: string) => void | Promise<void>

export interface RestoreOutcome {
  readonly written: readonly string[]
  /** Changed while the restore ran: left alone. */
  readonly kept: readonly string[]
  /** Refused by the file system checks (a link appeared, ...): left alone, with why. */
  readonly refused: readonly { readonly path: string; readonly message: string }[]
}

/** The temporary file name a restore uses for `rel` (deterministic: a repeat finds a leftover). */
export function tempNameFor(restoreId: string, rel: string): string {
  const base = path.posix.basename(rel)
  const name = `.${base}.dsh-restore-${restoreId.slice(0, 12)}`
  // File names stop at 255 bytes.
  return Buffer.byteLength(name) <= 240
    ? name
    : `.dsh-restore-${restoreId.slice(0, 12)}-${createHash('sha256').update(base).digest('hex').slice(0, 16)}`
}

export interface PreparedRestore {
  readonly writes: readonly RestoreWrite[]
  /** What the restore journals: each file's content now (stored) and its target. */
  readonly files: readonly FileChange[]
  /** Changed since the plan was made: left alone. */
  readonly changed: readonly string[]
  /** Target content missing or damaged: not written. */
  readonly damaged: readonly BlockedFile[]
}

/**
 * Before anything is written: store what each file is now (the user's own
 * edit included, so the restore can be undone) and load every target content.
 * A file that is no longer what the plan saw is left out.
 */
export function prepareRestore(
  root: string,
  blobs: BlobStore,
  entries: readonly PlanEntry[],
  maxBytes: number,
): TreeResult<PreparedRestore> {
  const writes: RestoreWrite[] = []
  const files: FileChange[] = []
  const changed: string[] = []
  const damaged: BlockedFile[] = []
  try {
    for (const entry of entries) {
      const now = readNoFollow(root, entry.path, maxBytes)
      let before: FileState
      let expect: StatSignature | 'absent'
      if (now.kind === 'file' && entry.current.kind === 'file' && hashOf(now.bytes) === entry.current.hash) {
        before = { ...entry.current, hash: blobs.put(now.bytes) }
        expect = now.signature
      } else if (now.kind === 'absent' && entry.current.kind === 'absent') {
        before = entry.current
        expect = 'absent'
      } else {
        changed.push(entry.path)
        continue
      }
      let bytes: Buffer | undefined
      if (entry.target.kind === 'file') {
        const stored = blobs.get(entry.target.hash, maxBytes)
        if (!stored.ok) {
          damaged.push({ path: entry.path, reason: 'content-damaged', current: entry.current, target: entry.target })
          continue
        }
        bytes = stored.bytes
      }
      writes.push({ path: entry.path, bytes, target: entry.target, expect })
      files.push({ path: entry.path, before, after: entry.target })
    }
  } catch (error) {
    return fail(
      'WORKSPACE_IO',
      `storing the files a restore replaces failed; nothing was written: ${errorMessage(error)}`,
    )
  }
  return ok({ writes, files, changed, damaged })
}

/** Remove what an interrupted restore may have left behind; returns the paths removed. */
export function removeLeftovers(root: string, restoreId: string, paths: readonly string[]): string[] {
  const removed: string[] = []
  for (const rel of paths) {
    const dir = path.posix.dirname(rel)
    const tempRel = dir === '.' ? tempNameFor(restoreId, rel) : `${dir}/${tempNameFor(restoreId, rel)}`
    // The directories on the way are checked like any restored file's.
    const found = probe(root, tempRel)
    if (found.kind !== 'file') continue
    try {
      if (removeStale(path.join(root, tempRel))) removed.push(tempRel)
    } catch {
      /* not a regular file: left alone */
    }
  }
  return removed
}

function signatureNow(root: string, rel: string): StatSignature | 'absent' | undefined {
  const found = probe(root, rel)
  if (found.kind === 'file') return found.signature
  return found.kind === 'absent' ? 'absent' : undefined
}

/** Files staged and fsynced together before their renames: the first alone, then twice as many each round, up to this. */
const BATCH_MAX = 256
/** Renames (or unlinks) of a round in flight at once: libuv's default thread pool. */
const COMMITS_AT_ONCE = 4

/**
 * Write the files in order, in rounds: each round stages its files (temporary
 * files, unsynced), fsyncs them all at once, renames them a few at a time
 * (each checked again right before its own), then fsyncs their directories at once. A file
 * is renamed only once its temporary file is durable, so a kill leaves each
 * old or new. I/O failures other than the checks above throw (what was
 * written so far stays written).
 */
export async function writeRestore(
  root: string,
  restoreId: string,
  writes: readonly RestoreWrite[],
  hook?: RestoreHook,
): Promise<RestoreOutcome> {
  const written: string[] = []
  const kept: string[] = []
  const refused: { path: string; message: string }[] = []
  const refuse = (rel: string, error: unknown): void => {
    if (!(error instanceof SafeFsError) || error.problem === 'io') throw error
    refused.push({ path: rel, message: error.message })
  }
  let index = 0
  for (let start = 0, size = 1; start < writes.length; start += size, size = Math.min(2 * size, BATCH_MAX)) {
    const round = writes.slice(start, start + size)
    const staged = new Map<RestoreWrite, Staged>()
    const dirs = new Set<string>()
    try {
      for (const write of round) {
        if (write.bytes === undefined || signatureNow(root, write.path) !== write.expect) continue
        const exec = write.target.kind === 'file' && write.target.exec === true
        try {
          staged.set(
            write,
            stageFile(root, write.path, write.bytes, exec, tempNameFor(restoreId, write.path), false, false),
          )
        } catch (error) {
          refuse(write.path, error)
        }
      }
    } finally {
      // Every descriptor is closed, durable or not (a failure above leaves temporary files the next start removes).
      const fds = [...staged.values()].flatMap((s) => (s.fd === undefined ? [] : [s.fd]))
      await syncInParallel(fds, [])
    }
    const refusedNow = new Set(refused.map((r) => r.path))
    const first = index
    index += round.length
    // Per file of the round, once its commit is over: written, kept (changed meanwhile), or failed (with whether it is ours to report).
    const outcome: ({ kind: 'written' } | { kind: 'kept' } | { kind: 'failed'; error: unknown; fatal: boolean })[] = []
    // Each file is checked right before its own rename; a few renames run at once (in order, one at a time, with the test hook).
    const commit = async (at: number): Promise<void> => {
      const write = round[at] as RestoreWrite
      if (refusedNow.has(write.path)) return
      const stage = staged.get(write)
      try {
        if (signatureNow(root, write.path) !== write.expect) {
          try {
            if (stage !== undefined) removeStale(stage.temp)
          } catch (error) {
            outcome[at] = { kind: 'failed', error, fatal: true }
            stopped = true
            return
          }
          outcome[at] = { kind: 'kept' }
          return
        }
        await hook?.(first + at + 1, write.path)
        if (stage === undefined) await removeFileAsync(root, write.path)
        else await commitStagedAsync(stage)
        dirs.add(path.dirname(path.join(root, write.path)))
        outcome[at] = { kind: 'written' }
      } catch (error) {
        const refusal = error instanceof SafeFsError && error.problem !== 'io'
        outcome[at] = { kind: 'failed', error, fatal: !refusal }
        // An I/O failure (or a kill) stops the round: no further rename starts, those in flight finish.
        if (!refusal) stopped = true
      }
    }
    let next = 0
    let stopped = false
    const worker = async (): Promise<void> => {
      while (next < round.length && !stopped) await commit(next++)
    }
    await Promise.all(Array.from({ length: hook === undefined ? COMMITS_AT_ONCE : 1 }, worker))
    // Reported in the files' order, as one by one; an I/O failure throws once the round's renames are over.
    for (let at = 0; at < round.length; at++) {
      const rel = (round[at] as RestoreWrite).path
      const result = outcome[at]
      if (result === undefined) continue
      if (result.kind === 'written') written.push(rel)
      else if (result.kind === 'kept') kept.push(rel)
      else if (result.fatal) throw result.error
      else refuse(rel, result.error)
    }
    await syncInParallel([], dirs)
    // Long restores let the event loop breathe (no other write can interleave: the agent is idle).
    await new Promise((resolve) => setImmediate(resolve))
  }
  return { written, kept, refused }
}

/**
 * TEST ONLY. The hook named by `DSH_SESSION_TREE_TEST_RESTORE_STOP=<n>:<marker file>`:
 * before the n-th file of a restore is committed (its temporary file written
 * and fsynced), write the file's path to the marker file and stop there for
 * good, so a test can kill the process at exactly that point.
 */
export function restoreHookFromEnv(value: string | undefined): RestoreHook | undefined {
  const match = value === undefined ? null : /^(\d+):(.+)$/.exec(value)
  if (!match) return undefined
  const stopAt = Number(match[1])
  const marker = match[2] as string
  return async (index, rel) => {
    if (index !== stopAt) return
    writeFileSync(marker, rel)
    await new Promise<never>(() => {})
  }
}
