/**
 * One writer per session directory across processes: a claim file
 * (`writer.json`: pid, host, what, since) appears whole (temp file, fsync,
 * `link`); a second process is refused with `SIDECAR_CLAIMED`; a claim whose
 * process is gone (same machine: signal 0 plus the start time from /proc, so a
 * reused pid does not count) is taken over. Why each step is safe:
 * docs/service.md#two-processes-one-session.
 */
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  renameSync,
  unlinkSync,
} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import { ForeignEntry, syncDir, writeAll } from './durable.ts'

export const CLAIM_FILE = 'writer.json'
const CLAIM_FORMAT = 'dsh-session-tree/writer@1'
const MAX_CLAIM_BYTES = 4096
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants

/** The process that writes a session's sidecar, as its claim names it. */
export interface WriterHolder {
  readonly pid: number
  readonly host: string
  /** What the process is, in words a person recognises: `dsh web`, `dsh-TUI`, `dsh --profile headless`. */
  readonly kind: string
  /** ISO time the claim was taken. */
  readonly since: string
}

/** A claim as stored: the holder plus what tells a live process from a dead one with the same pid. */
interface StoredClaim extends WriterHolder {
  readonly format: typeof CLAIM_FORMAT
  readonly boot?: string
  readonly pidns?: string
  /** The process's start time (clock ticks after boot, /proc/<pid>/stat field 22). */
  readonly start?: string
}

/** What the claim of a directory says, judged from this process. */
export type ClaimLook =
  | { readonly kind: 'free' }
  | { readonly kind: 'mine' }
  /** Another process that is alive, or that cannot be checked from here (`why`). */
  | { readonly kind: 'other'; readonly holder: WriterHolder; readonly why?: string }
  /** A process that is gone: its claim may be taken over. */
  | { readonly kind: 'stale'; readonly holder?: WriterHolder; readonly why: string }
  /** `writer.json` is a link or not a plain file: never followed or replaced. */
  | { readonly kind: 'foreign'; readonly message: string }

function readOr<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}

/** Start time of a process (field 22 of /proc/<pid>/stat), where /proc exists. */
function startOf(pid: number | 'self'): string | undefined {
  const stat = readOr(() => readFileSync(`/proc/${pid}/stat`, 'utf8'))
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
}

/** This process as a claim names it (kind aside); computed once. */
const SELF = {
  pid: process.pid,
  host: os.hostname(),
  boot: readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
  pidns: readOr(() => readlinkSync('/proc/self/ns/pid')),
  start: startOf('self'),
}

function parseClaim(bytes: Buffer): StoredClaim | undefined {
  const value = readOr(() => JSON.parse(bytes.toString('utf8')) as unknown)
  if (typeof value !== 'object' || value === null) return undefined
  const claim = value as Record<string, unknown>
  const text = (key: string): boolean => claim[key] === undefined || typeof claim[key] === 'string'
  return claim.format === CLAIM_FORMAT &&
    Number.isSafeInteger(claim.pid) &&
    (claim.pid as number) > 0 &&
    typeof claim.host === 'string' &&
    typeof claim.kind === 'string' &&
    typeof claim.since === 'string' &&
    text('boot') &&
    text('pidns') &&
    text('start')
    ? (claim as unknown as StoredClaim)
    : undefined
}

function holderOf(claim: StoredClaim): WriterHolder {
  return { pid: claim.pid, host: claim.host, kind: claim.kind, since: claim.since }
}

/** Whether the claim's process is this one, alive elsewhere, gone, or out of sight. */
function judge(claim: StoredClaim): ClaimLook {
  const holder = holderOf(claim)
  if (claim.host !== SELF.host) return { kind: 'other', holder, why: `on another host (${claim.host})` }
  if (claim.boot !== undefined && SELF.boot !== undefined && claim.boot !== SELF.boot)
    return { kind: 'stale', holder, why: 'the machine restarted since' }
  if (claim.pidns !== undefined && SELF.pidns !== undefined && claim.pidns !== SELF.pidns)
    return { kind: 'other', holder, why: 'in another pid namespace' }
  if (claim.pid === SELF.pid && claim.start === SELF.start) return { kind: 'mine' }
  try {
    process.kill(claim.pid, 0)
  } catch (error) {
    // EPERM: alive, just not ours to signal.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return { kind: 'stale', holder, why: 'its process is gone' }
  }
  const start = startOf(claim.pid)
  if (claim.start !== undefined && start !== undefined && start !== claim.start)
    return { kind: 'stale', holder, why: 'its pid belongs to another process now' }
  return { kind: 'other', holder }
}

type Read = { readonly kind: 'none' } | { readonly kind: 'bytes'; readonly bytes: Buffer } | ClaimLook

/** The claim file's bytes, never through a link (any number of hard links: the claim is only ever read, never written through). */
function readClaim(file: string): Read {
  let fd: number
  try {
    fd = openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException).code
    if (errno === 'ENOENT') return { kind: 'none' }
    if (errno === 'ELOOP') return { kind: 'foreign', message: new ForeignEntry(file, 'is a symbolic link').message }
    throw error
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) return { kind: 'foreign', message: new ForeignEntry(file, 'is not a regular file').message }
    const bytes = Buffer.alloc(Math.min(st.size, MAX_CLAIM_BYTES))
    const read = readSync(fd, bytes, 0, bytes.length, 0)
    return { kind: 'bytes', bytes: bytes.subarray(0, read) }
  } finally {
    closeSync(fd)
  }
}

function look(file: string): { readonly look: ClaimLook; readonly bytes?: Buffer } {
  const read = readClaim(file)
  if (read.kind === 'none') return { look: { kind: 'free' } }
  if (read.kind !== 'bytes') return { look: read }
  const claim = parseClaim(read.bytes)
  // Claims appear whole (`link`), so one that does not parse is damage, not a claim being written.
  if (claim === undefined) return { look: { kind: 'stale', why: 'its claim file is unreadable' }, bytes: read.bytes }
  return { look: judge(claim), bytes: read.bytes }
}

const unique = (): string => `${process.pid}-${randomBytes(6).toString('hex')}`

/** Claim files this process holds, released on exit. */
const held = new Set<string>()
let exitHook = false

function releaseFile(file: string): void {
  held.delete(file)
  try {
    if (look(file).look.kind === 'mine') unlinkSync(file)
  } catch {
    /* a claim left behind is stale once this process is gone */
  }
}

/** Every claim this process holds goes (on exit, or when the plugin stops). */
export function releaseAllClaims(): void {
  for (const file of [...held]) releaseFile(file)
}

function remember(file: string): void {
  held.add(file)
  if (exitHook) return
  exitHook = true
  process.once('exit', releaseAllClaims)
}

/** Put a new claim in place, whole, unless one is there (false). */
function create(dir: string, file: string, kind: string): boolean {
  const tmp = path.join(dir, `${CLAIM_FILE}.${unique()}.tmp`)
  const claim: StoredClaim = {
    format: CLAIM_FORMAT,
    pid: SELF.pid,
    host: SELF.host,
    kind,
    since: new Date().toISOString(),
    ...(SELF.boot === undefined ? {} : { boot: SELF.boot }),
    ...(SELF.pidns === undefined ? {} : { pidns: SELF.pidns }),
    ...(SELF.start === undefined ? {} : { start: SELF.start }),
  }
  const fd = openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
  try {
    writeAll(fd, Buffer.from(`${JSON.stringify(claim)}\n`))
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  try {
    linkSync(tmp, file)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    unlinkSync(tmp)
    syncDir(dir)
  }
}

/** Move a claim judged dead out of the way; whatever else was moved by a race goes back. */
function clearStale(dir: string, file: string, judged: Buffer): void {
  const aside = path.join(dir, `${CLAIM_FILE}.${unique()}.stale`)
  try {
    renameSync(file, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return // someone else cleared it
    throw error
  }
  const moved = readClaim(aside)
  if (moved.kind !== 'bytes' || !moved.bytes.equals(judged)) {
    // Another process claimed in between: its claim goes back (if a third got there first, the second learns it at its next write).
    try {
      linkSync(aside, file)
    } catch {
      /* someone holds it now */
    }
  }
  unlinkSync(aside)
  syncDir(dir)
}

export interface ClaimRefusal {
  readonly holder: WriterHolder
  readonly message: string
}

/** The refusal a change gets while another process writes the session (`SIDECAR_CLAIMED`). */
export function claimRefusal(found: Extract<ClaimLook, { kind: 'other' }>): ClaimRefusal {
  const { holder, why } = found
  return {
    holder,
    message:
      `another process writes this session's tree: ${holder.kind} (pid ${holder.pid} on ${holder.host}, since ${holder.since}` +
      `${why === undefined ? '' : `; ${why}, so it cannot be checked from here`}); ` +
      'it is read-only here until that process closes the session or exits',
  }
}

/** A process's claims on sidecar directories: `kind` names it to the others. */
export class WriterClaims {
  /** Set by the plugin once it knows what it runs in (`dsh web`, `dsh-TUI`, ...). */
  kind: string

  constructor(kind: string) {
    this.kind = kind
  }

  /** What the claim of `dir` says now (never writes). */
  look(dir: string): ClaimLook {
    try {
      return look(path.join(dir, CLAIM_FILE)).look
    } catch (error) {
      return { kind: 'foreign', message: `the writer claim was not read: ${(error as Error).message}` }
    }
  }

  /**
   * Be the one writer of `dir` (an existing directory): `held` when this
   * process already was, `taken` when it became it now. `SIDECAR_CLAIMED`
   * naming the holder while another live process is; `SIDECAR_IO` for a
   * claim file that is not ours to touch.
   */
  hold(dir: string): TreeResult<'held' | 'taken'> {
    const file = path.join(dir, CLAIM_FILE)
    try {
      for (let attempt = 0; attempt < 8; attempt++) {
        const found = look(file)
        switch (found.look.kind) {
          case 'mine':
            remember(file)
            return ok('held')
          case 'other': {
            held.delete(file)
            const refusal = claimRefusal(found.look)
            return fail('SIDECAR_CLAIMED', refusal.message, { holder: refusal.holder, file })
          }
          case 'foreign':
            return fail('SIDECAR_IO', found.look.message, { file })
          case 'stale':
            clearStale(dir, file, found.bytes!)
            break
          case 'free':
            if (create(dir, file, this.kind)) {
              remember(file)
              return ok('taken')
            }
        }
      }
      return fail('SIDECAR_CLAIMED', 'the writer claim kept changing under this process; try again', { file })
    } catch (error) {
      return fail('SIDECAR_IO', `the writer claim failed: ${(error as Error).message}`, { file })
    }
  }

  /** Stop writing `dir`: its claim goes when it is still this process's. */
  release(dir: string): void {
    releaseFile(path.join(dir, CLAIM_FILE))
  }
}

/** This process's claims (one identity per process; every `TreeSidecar` uses it unless told otherwise). */
export const processClaims = new WriterClaims(path.basename(process.argv[1] ?? process.argv0))
