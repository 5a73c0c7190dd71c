/**
 * Sidecars whose session is gone. DSH 0.1.0-rc.8 has no "delete session" and
 * tells a plugin nothing, so every sidecar is compared with the sessions the
 * harness knows. An orphan is reported, then removed after a grace period or
 * on command (renamed to `.gc-<name>` first, never through a link), never
 * silently. docs/lineage.md, "Orphans (the old layout)".
 */
import { lstatSync, readdirSync, renameSync, rmSync } from 'node:fs'
import path from 'node:path'
import { isRecord } from '../tree/validate.ts'
import { ForeignEntry, isDir, readFile, replaceFile, syncDir } from './durable.ts'
import { describe } from './files.ts'
import { encodeSessionId } from './session-dir.ts'
import { JOURNAL_FILE, OVERLAY_FILE } from './sidecar.ts'
import { LINEAGE_FILE } from './lineage.ts'

export const ORPHANS_FILE = 'orphans.json'
const TRASH_PREFIX = '.gc-'
const LEDGER_VERSION = 1

/** One sidecar directory whose session the harness does not know. */
export interface OrphanSidecar {
  readonly sessionId: string
  /** Absolute path of its directory. */
  readonly dir: string
  /** ISO-8601: the first scan that found it without a session. */
  readonly since: string
}

/** What one scan found and did. */
export interface GcReport {
  /** ISO-8601 time of the scan. */
  readonly scannedAt: string
  /** Orphans still on disk. */
  readonly orphans: readonly OrphanSidecar[]
  /** Orphans this scan removed. */
  readonly removed: readonly OrphanSidecar[]
  /** Entries that could not be judged or removed (a link, an unreadable directory, a failed delete). */
  readonly problems: readonly { readonly dir: string; readonly message: string }[]
}

export interface GcOptions {
  /** Ids of every session the harness knows (stored and live). */
  readonly known: ReadonlySet<string>
  /** Remove orphans first seen at least this long ago (ms); `0` with `now` removes every orphan seen before. */
  readonly graceMs: number
  /** Remove every orphan now, whatever its age (the command). */
  readonly force?: boolean
  /** Report only: remove nothing, record nothing. */
  readonly dryRun?: boolean
  readonly now?: number
}

/** Decode a short session directory name (`encodeSessionId`); undefined for hashed names. */
export function decodeSessionDir(name: string): string | undefined {
  if (!name.startsWith('s') || name.includes('~')) return undefined
  let out = ''
  for (let i = 1; i < name.length;) {
    const ch = name[i]!
    if (ch !== '%') {
      out += ch
      i++
      continue
    }
    const wide = name[i + 1] === 'u'
    const hex = wide ? name.slice(i + 2, i + 6) : name.slice(i + 1, i + 3)
    if (!/^[0-9A-F]+$/.test(hex) || hex.length !== (wide ? 4 : 2)) return undefined
    out += String.fromCharCode(parseInt(hex, 16))
    i += wide ? 6 : 3
  }
  return encodeSessionId(out) === name ? out : undefined
}

/** The session id a sidecar directory belongs to: its name, or (long ids) what its files say. */
export function sessionOfDir(dir: string, name: string): string | undefined {
  const decoded = decodeSessionDir(name)
  if (decoded !== undefined) return decoded
  for (const file of [OVERLAY_FILE, LINEAGE_FILE, JOURNAL_FILE]) {
    try {
      const data = readFile(path.join(dir, file))
      if (data === undefined) continue
      // overlay.json and lineage.json are one JSON object; a journal line is `<crc> <json>`.
      const first = data.toString('utf8').split('\n', 1)[0]!
      const parsed = JSON.parse(first.startsWith('{') ? first : first.slice(first.indexOf(' ') + 1)) as unknown
      const id = isRecord(parsed) ? parsed.sessionId : undefined
      if (typeof id === 'string' && encodeSessionId(id) === name) return id
    } catch {
      /* try the next file */
    }
  }
  return undefined
}

function readLedger(root: string): Map<string, string> {
  try {
    const data = readFile(path.join(root, ORPHANS_FILE))
    const body = data === undefined ? undefined : (JSON.parse(data.toString('utf8')) as unknown)
    if (!isRecord(body) || body.v !== LEDGER_VERSION || !isRecord(body.orphans)) return new Map()
    return new Map(
      Object.entries(body.orphans).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    )
  } catch {
    // A damaged ledger only restarts the grace periods: nothing is removed earlier because of it.
    return new Map()
  }
}

function writeLedger(root: string, ledger: ReadonlyMap<string, string>): void {
  replaceFile(
    path.join(root, ORPHANS_FILE),
    Buffer.from(`${JSON.stringify({ v: LEDGER_VERSION, orphans: Object.fromEntries(ledger) })}\n`),
  )
}

/** Remove one directory: rename aside (atomic), then delete; links inside are unlinked, not followed. */
function removeDir(root: string, dir: string): void {
  const trash = path.join(root, `${TRASH_PREFIX}${path.basename(dir)}-${process.pid}-${Date.now()}`)
  renameSync(dir, trash)
  syncDir(root, true)
  rmSync(trash, { recursive: true, force: true })
}

/** Scan the root once (see the module comment). Never throws for what it finds on disk. */
export function collectOrphans(root: string, options: GcOptions): GcReport {
  const now = options.now ?? Date.now()
  const scannedAt = new Date(now).toISOString()
  const base = path.resolve(root)
  const problems: { dir: string; message: string }[] = []
  let names: string[]
  try {
    names = readdirSync(base)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { scannedAt, orphans: [], removed: [], problems: [] }
    return {
      scannedAt,
      orphans: [],
      removed: [],
      problems: [{ dir: base, message: `sidecar root not read: ${describe(error)}` }],
    }
  }
  const ledger = readLedger(base)
  const next = new Map<string, string>()
  const orphans: OrphanSidecar[] = []
  const removed: OrphanSidecar[] = []
  for (const name of names) {
    const dir = path.join(base, name)
    if (name.startsWith(TRASH_PREFIX)) {
      // A removal a crash interrupted: it was reported when it began.
      if (!options.dryRun) {
        try {
          if (lstatSync(dir).isDirectory()) rmSync(dir, { recursive: true, force: true })
        } catch (error) {
          problems.push({ dir, message: `interrupted removal not finished: ${describe(error)}` })
        }
      }
      continue
    }
    if (!name.startsWith('s')) continue // exports/, .import-*, the ledger: not session sidecars
    try {
      if (!isDir(dir)) continue
    } catch (error) {
      problems.push({ dir, message: error instanceof ForeignEntry ? error.message : describe(error) })
      continue
    }
    const sessionId = sessionOfDir(dir, name)
    if (sessionId === undefined) {
      problems.push({ dir, message: 'the session this directory belongs to cannot be told; it is left alone' })
      continue
    }
    if (options.known.has(sessionId)) continue
    const since = ledger.get(sessionId) ?? scannedAt
    const orphan: OrphanSidecar = { sessionId, dir, since }
    const due = options.force === true || (ledger.has(sessionId) && now - Date.parse(since) >= options.graceMs)
    if (due && !options.dryRun) {
      try {
        removeDir(base, dir)
        removed.push(orphan)
        continue
      } catch (error) {
        problems.push({ dir, message: `not removed: ${describe(error)}` })
      }
    }
    next.set(sessionId, since)
    orphans.push(orphan)
  }
  if (!options.dryRun) {
    const changed = next.size !== ledger.size || [...next].some(([id, since]) => ledger.get(id) !== since)
    if (changed) {
      try {
        writeLedger(base, next)
      } catch (error) {
        problems.push({ dir: path.join(base, ORPHANS_FILE), message: `orphan ledger not saved: ${describe(error)}` })
      }
    }
  }
  return { scannedAt, orphans, removed, problems }
}
