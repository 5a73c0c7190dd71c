/**
 * `TreeSidecar`: per-session durable files (`journal.jsonl`: a header, then one
 * record per line; `overlay.json`: the fold of every record ≤ its n). An append
 * is one write and one fsync; compaction replaces both files, overlay first.
 * One writer per directory (`claim.ts`), so appends trust the state kept here.
 * A link or foreign file blocks writes (`SIDECAR_IO`), never replaced.
 * docs/service.md, "Durability".
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, lstatSync } from 'node:fs'
import path from 'node:path'
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import type { JsonObject } from '../tree/types.ts'
import { ForeignEntry, isDir, openFile, replaceFile, writeAll, writeNewFile } from './durable.ts'
import { actorProblem, FORMAT_VERSION, encodeOverlay, frameHeader, frameRecord, isCount } from './framing.ts'
import { describe, readJournal, readOverlay, type Report } from './files.ts'
import { SidecarLocator } from './location.ts'
import { processClaims, type ClaimLook, type WriterClaims } from './claim.ts'
import type { JournalActor, SidecarFold, SidecarLoad, SidecarOptions, SidecarProblem, SidecarRecord } from './types.ts'
import { isRecord } from '../tree/validate.ts'

export const JOURNAL_FILE = 'journal.jsonl'
export const OVERLAY_FILE = 'overlay.json'
export const DEFAULT_COMPACT_RECORDS = 200
export const DEFAULT_COMPACT_BYTES = 64 * 1024

/** What is remembered per session, so appends and `needsCompaction` are O(1). */
interface SessionState {
  /** Highest record number in use: the next append gets `last + 1`. */
  readonly last: number
  /** Number just before the first loadable record (`last` when there is none). */
  readonly floor: number
  /** Byte length of the journal's valid prefix: where the next record goes. */
  readonly end: number
  /** Loadable records (after the fold) and their bytes: the compaction trigger. */
  readonly count: number
  readonly bytes: number
  /** What the journal needs before a record can be appended at `end`. */
  readonly repair: 'none' | 'truncate' | 'rewrite'
  /** Set when the directory holds files that are not ours to overwrite. */
  readonly blocked?: string
  /** The overlay is ours but damaged: the next write folds anew (`needsCompaction`). */
  readonly overlayDamaged?: boolean
  /** What both files were when this process last read or wrote them (`stampOf`): another writer changes it. */
  readonly stamp?: string
}

/** A session that must not be written (`blocked` says why): nothing loaded, nothing to append after. */
function blockedState(blocked: string): SessionState {
  return { last: 0, floor: 0, end: 0, count: 0, bytes: 0, repair: 'rewrite', blocked }
}

interface Inspection {
  readonly load: SidecarLoad
  readonly state: SessionState
  /** The journal's bytes, when a rewrite would discard more than a torn last line. */
  readonly salvage?: Buffer
  /** A damaged overlay's bytes, kept aside before a fold replaces it. */
  readonly overlaySalvage?: Buffer
}

/** Whether the session directory exists; a string says why it must not be used (a link, not a directory). */
function directoryOf(dir: string): boolean | string {
  try {
    return isDir(dir)
  } catch (error) {
    if (error instanceof ForeignEntry) return `sidecar directory ${error.message}`
    throw error
  }
}

/** Keep a damaged file's bytes next to it as `<file>.corrupt-<time>[-k]`, never over an existing file. */
function saveAside(file: string, data: Buffer): void {
  const stem = `${file}.corrupt-${Date.now()}`
  for (let k = 0; ; k++) {
    try {
      return writeNewFile(k === 0 ? stem : `${stem}-${k}`, data)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || k >= 100) throw error
    }
  }
}

/** Identity and size of the journal and the overlay, as far as they exist: what another writer's append or fold changes. */
function stampOf(dir: string): string {
  return [JOURNAL_FILE, OVERLAY_FILE]
    .map((name) => {
      try {
        const st = lstatSync(path.join(dir, name))
        return `${st.ino}:${st.size}:${st.mtimeMs}`
      } catch {
        return '-'
      }
    })
    .join('|')
}

/** `undefined` when `value` serializes to JSON, else why not. */
function unserializable(value: unknown): string | undefined {
  try {
    JSON.stringify(value)
    return undefined
  } catch (error) {
    return describe(error)
  }
}

export class TreeSidecar {
  readonly root: string
  /** Where each session's directory is (one rule for every sidecar file). */
  readonly locator: SidecarLocator
  private readonly compactRecords: number
  private readonly compactBytes: number
  private readonly states = new Map<string, SessionState>()
  /** Who writes which session directory (one process each). */
  private readonly claims: WriterClaims

  /** `root`: every session under it (`<root>/<encoded id>/`); a locator: wherever it says. */
  constructor(root: string | SidecarLocator, options: SidecarOptions & { readonly claims?: WriterClaims } = {}) {
    this.locator = typeof root === 'string' ? new SidecarLocator(root) : root
    this.root = this.locator.root
    this.compactRecords = options.compactRecords ?? DEFAULT_COMPACT_RECORDS
    this.compactBytes = options.compactBytes ?? DEFAULT_COMPACT_BYTES
    this.claims = options.claims ?? processClaims
  }

  /** Who writes this session's sidecar now, judged from this process (reads the claim, writes nothing). */
  writer(sessionId: string): ClaimLook {
    try {
      return this.claims.look(this.dirFor(sessionId))
    } catch (error) {
      return { kind: 'foreign', message: describe(error) }
    }
  }

  /** Whether another process changed this session's files since this one last read or wrote them (then reload). */
  changedElsewhere(sessionId: string): boolean {
    const known = this.states.get(sessionId)?.stamp
    return known !== undefined && known !== stampOf(this.dirFor(sessionId))
  }

  /** Stop writing this session: its claim goes (and what is remembered about its files). */
  release(sessionId: string): void {
    this.states.delete(sessionId)
    try {
      this.claims.release(this.dirFor(sessionId))
    } catch {
      /* a claim left behind is stale once this process is gone */
    }
  }

  /**
   * Be the session's one writer before a write. SIDECAR_CLAIMED while another
   * live process is; also when this process just took the claim over and the
   * files changed since it read them: what it holds in memory is older than
   * the journal, so it must reload before it writes.
   */
  private claim(sessionId: string): TreeResult<void> {
    const dir = this.locator.ensure(sessionId)
    const held = this.claims.hold(dir)
    if (!held.ok) return held
    if (held.value === 'taken' && this.changedElsewhere(sessionId)) {
      this.states.delete(sessionId)
      return fail(
        'SIDECAR_CLAIMED',
        "another process changed this session's tree since this one loaded it; reload the session's tree, then try again",
        { changed: true },
      )
    }
    return ok(undefined)
  }

  /** Remember the files as this process leaves them. */
  private stamped(sessionId: string): void {
    const state = this.states.get(sessionId)
    if (state !== undefined) this.states.set(sessionId, { ...state, stamp: stampOf(this.dirFor(sessionId)) })
  }

  /** Absolute directory for a session (see `location.ts`). */
  dirFor(sessionId: string): string {
    return this.locator.dirFor(sessionId)
  }

  /** Never throws. Missing, truncated or corrupt files never block: report problems, return what is valid. */
  load(sessionId: string): SidecarLoad {
    return this.inspect(sessionId).load
  }

  /** Durably append one record (assigns n). Returns only after the data is fsynced. */
  append(
    sessionId: string,
    record: { w: number; op: JsonObject; at?: string; actor?: JournalActor },
  ): TreeResult<SidecarRecord> {
    const written = this.appendAll(sessionId, [record])
    return written.ok ? ok(written.value[0]!) : written
  }

  /**
   * Durably append records (numbered in order) with one write and one fsync:
   * on failure none of them is kept (a partial write is cut off again).
   */
  appendAll(
    sessionId: string,
    records: readonly { w: number; op: JsonObject; at?: string; actor?: JournalActor }[],
  ): TreeResult<SidecarRecord[]> {
    const invalid =
      typeof sessionId !== 'string'
        ? 'session id must be a string'
        : !Array.isArray(records) || records.length === 0
          ? 'records must be a non-empty array'
          : records
              .map((record) =>
                !isRecord(record)
                  ? 'record must be an object'
                  : !isCount(record.w)
                    ? 'w must be a non-negative integer'
                    : !isRecord(record.op)
                      ? 'op must be a JSON object'
                      : record.at !== undefined && typeof record.at !== 'string'
                        ? 'at must be an ISO time string'
                        : record.actor !== undefined && actorProblem(record.actor) !== undefined
                          ? actorProblem(record.actor)
                          : unserializable(record.op),
              )
              .find((problem) => problem !== undefined)
    if (invalid !== undefined) return fail('INVALID_ARGUMENT', invalid)
    let open: { readonly fd: number; readonly state: SessionState } | string | undefined
    try {
      const claimed = this.claim(sessionId)
      if (!claimed.ok) return claimed
      open = this.openForAppend(sessionId)
      if (typeof open === 'string') return fail('SIDECAR_IO', open, { sessionId })
      const { fd, state } = open
      const now = new Date().toISOString()
      const written: SidecarRecord[] = records.map((record, k) => ({
        n: state.last + 1 + k,
        w: record.w,
        at: record.at ?? now,
        ...(record.actor ? { actor: record.actor } : {}),
        op: record.op,
      }))
      const data = Buffer.concat(written.map(frameRecord))
      writeAll(fd, data, state.end)
      fsyncSync(fd)
      closeSync(fd)
      open = undefined
      this.states.set(sessionId, {
        ...state,
        last: state.last + written.length,
        end: state.end + data.length,
        count: state.count + written.length,
        bytes: state.bytes + data.length,
      })
      this.stamped(sessionId)
      return ok(written)
    } catch (error) {
      if (typeof open === 'object') {
        // Best effort: cut a partial line off so this failure costs nothing on load.
        try {
          ftruncateSync(open.fd, open.state.end)
        } catch {
          /* the next append re-reads the journal */
        }
        try {
          closeSync(open.fd)
        } catch {
          /* already failing */
        }
      }
      this.states.delete(sessionId)
      return fail('SIDECAR_IO', `sidecar append failed: ${describe(error)}`, { sessionId })
    }
  }

  /**
   * Atomically write overlay.json with the fold, then atomically rewrite
   * journal.jsonl keeping only records with n > fold.n. A crash in between
   * leaves a sidecar that loads the same.
   */
  compact(sessionId: string, fold: SidecarFold): TreeResult<void> {
    const invalid =
      typeof sessionId !== 'string'
        ? 'session id must be a string'
        : !isRecord(fold) || !isCount(fold.n) || !isCount(fold.w)
          ? 'fold.n and fold.w must be non-negative integers'
          : !isRecord(fold.state)
            ? 'fold.state must be a JSON object'
            : unserializable(fold.state)
    if (invalid !== undefined) return fail('INVALID_ARGUMENT', invalid)
    try {
      const claimed = this.claim(sessionId)
      if (!claimed.ok) return claimed
      const found = this.inspect(sessionId)
      const { state } = found
      if (state.blocked !== undefined) return fail('SIDECAR_IO', state.blocked, { sessionId })
      if (fold.n > state.last) {
        return fail('INVALID_ARGUMENT', `fold.n ${fold.n} is past the last record ${state.last}`, { last: state.last })
      }
      // Records after the fold must follow it without a gap.
      if (fold.n < state.floor && state.count > 0) {
        return fail('INVALID_ARGUMENT', `fold.n ${fold.n} would leave records ${fold.n + 1}..${state.floor} missing`, {
          floor: state.floor,
          last: state.last,
        })
      }
      const dir = this.locator.ensure(sessionId)
      // Nothing is ever deleted: a damaged overlay's bytes stay next to it.
      if (found.overlaySalvage !== undefined) saveAside(path.join(dir, OVERLAY_FILE), found.overlaySalvage)
      replaceFile(
        path.join(dir, OVERLAY_FILE),
        encodeOverlay({
          version: FORMAT_VERSION,
          sessionId,
          n: fold.n,
          w: fold.w,
          writtenAt: new Date().toISOString(),
          state: fold.state,
        }),
      )
      this.rewriteJournal(
        sessionId,
        found,
        fold.n,
        found.load.records.filter((r) => r.n > fold.n),
      )
      this.stamped(sessionId)
      return ok(undefined)
    } catch (error) {
      this.states.delete(sessionId)
      return fail('SIDECAR_IO', `sidecar compaction failed: ${describe(error)}`, { sessionId })
    }
  }

  /** True when the journal since the last fold exceeds compactRecords or compactBytes. */
  needsCompaction(sessionId: string): boolean {
    const state = this.states.get(sessionId) ?? this.inspect(sessionId).state
    return (
      state.blocked === undefined &&
      (state.overlayDamaged === true || state.count > this.compactRecords || state.bytes > this.compactBytes)
    )
  }

  /** Drop what is remembered about a session (its files stay) and its writer claim. */
  forget(sessionId: string): void {
    this.release(sessionId)
  }

  /** Open the journal positioned for an append, repairing it first when needed; a string says why not. */
  private openForAppend(sessionId: string): { readonly fd: number; readonly state: SessionState } | string {
    const file = path.join(this.dirFor(sessionId), JOURNAL_FILE)
    const known = this.states.get(sessionId)
    if (known !== undefined && known.repair === 'none' && known.blocked === undefined) {
      let fd: number | undefined
      try {
        fd = openFile(file, 'write')
      } catch {
        /* replaced by something else: look again below */
      }
      if (fd !== undefined) {
        if (fstatSync(fd).size === known.end) return { fd, state: known }
        closeSync(fd) // changed behind our back, or an earlier write failed half-way
      }
    }
    const found = this.inspect(sessionId)
    let state = found.state
    if (state.blocked !== undefined) return state.blocked
    if (state.repair === 'rewrite') state = this.rewriteJournal(sessionId, found, state.floor, found.load.records)
    const fd = openFile(file, 'write')
    if (fd === undefined) return 'the journal vanished while it was opened'
    if (state.repair === 'truncate') {
      // Drop the torn last line; the fsync after the append covers the truncation too.
      ftruncateSync(fd, state.end)
      state = { ...state, repair: 'none' }
    }
    return { fd, state }
  }

  /** Replace the journal with a fresh header and `keep`, saving a damaged journal aside first. */
  private rewriteJournal(
    sessionId: string,
    found: Inspection,
    base: number,
    keep: readonly SidecarRecord[],
  ): SessionState {
    const dir = this.locator.ensure(sessionId)
    const file = path.join(dir, JOURNAL_FILE)
    // Nothing is ever deleted: lines past a bad one may still mean something to a human.
    if (found.salvage !== undefined) saveAside(file, found.salvage)
    const lines = keep.map(frameRecord)
    const data = Buffer.concat([frameHeader(sessionId, base), ...lines])
    replaceFile(file, data)
    const state: SessionState = {
      last: keep.at(-1)?.n ?? base,
      floor: base,
      end: data.length,
      count: keep.length,
      bytes: lines.reduce((sum, line) => sum + line.length, 0),
      repair: 'none',
    }
    this.states.set(sessionId, state)
    return state
  }

  /** Read and validate both files; remember the session's state. Never throws. */
  private inspect(sessionId: string): Inspection {
    const problems: SidecarProblem[] = []
    const reporter =
      (file: string): Report =>
      (code, message, offset) => {
        problems.push(offset === undefined ? { code, message, file } : { code, message, file, offset })
      }
    try {
      const dir = this.dirFor(sessionId)
      const journalFile = path.join(dir, JOURNAL_FILE)
      // Taken before reading: a write by another process after it shows as a change.
      const stamp = stampOf(dir)
      const present = directoryOf(dir)
      if (typeof present === 'string') {
        reporter(dir)('SIDECAR_IO', present)
        return { load: { exists: true, records: [], problems }, state: blockedState(present) }
      }
      const overlayFile = path.join(dir, OVERLAY_FILE)
      const overlay = readOverlay(overlayFile, sessionId, reporter(overlayFile))
      const journal = readJournal(journalFile, sessionId, reporter(journalFile))
      const { fold } = overlay
      const foldN = fold?.n ?? 0
      const first = journal.records.findIndex((r) => r.n > foldN)
      const loadable = first < 0 ? [] : journal.records.slice(first)
      if (journal.base > foldN) {
        const overlayProblem = problems.findIndex((problem) => problem.file === overlayFile)
        if (overlayProblem !== -1) {
          // One damage, one warning: the records are missing because the overlay that folded them is.
          const problem = problems[overlayProblem]!
          problems[overlayProblem] = {
            ...problem,
            message: `${problem.message}; the records 1..${journal.base} it folded are lost`,
          }
        } else {
          const folded = fold === undefined ? 'no valid overlay folds them' : `the overlay folds only up to ${foldN}`
          reporter(journalFile)(
            'INVALID_SNAPSHOT',
            `records ${foldN + 1}..${journal.base} are missing: the journal starts after ${journal.base} and ${folded}`,
          )
        }
      }
      const journalLast = journal.records.at(-1)?.n ?? journal.base
      const last = Math.max(foldN, journalLast)
      const blocked = overlay.blocked ?? journal.blocked
      const state: SessionState = {
        last,
        floor: loadable.length > 0 ? (loadable[0] as SidecarRecord).n - 1 : last,
        end: journal.end,
        count: loadable.length,
        bytes: first < 0 ? 0 : journal.lineBytes.slice(first).reduce((sum, size) => sum + size, 0),
        // An overlay ahead of the journal: appending at `end` would break the numbering.
        repair: journalLast < last ? 'rewrite' : journal.repair,
        ...(blocked === undefined ? {} : { blocked }),
        ...(overlay.salvage === undefined ? {} : { overlayDamaged: true }),
        stamp,
      }
      this.states.set(sessionId, state)
      return {
        load: {
          exists: overlay.present || journal.present,
          ...(fold === undefined ? {} : { fold }),
          records: loadable,
          problems,
        },
        state,
        ...(journal.salvage === undefined ? {} : { salvage: journal.salvage }),
        ...(overlay.salvage === undefined ? {} : { overlaySalvage: overlay.salvage }),
      }
    } catch (error) {
      // Only a bug gets here; still a report, never a throw.
      reporter(this.root)('SIDECAR_IO', `sidecar load failed: ${describe(error)}`)
      return { load: { exists: false, records: [], problems }, state: blockedState('sidecar load failed') }
    }
  }
}
