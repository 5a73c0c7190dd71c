/**
 * Writing an imported session's log, all or nothing, in bounded memory. With
 * the harness's JSONL backend: a second instance of it (same configuration, so
 * the bytes are its own) writes into a staging root beside the real one, then
 * the session's directory is renamed in. A crash leaves only the staging root,
 * which no `dsh` lists. Any other backend gets ONE append.
 */
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, fsyncSync, renameSync, rmSync } from 'node:fs'
import path from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@deepseek-ai/dsh-session'
import { contextService } from '../../harness/host.ts'
import { InterchangeError } from '../errors.ts'
import type { LogEvent } from '../../harness/log-event.ts'

/** The part of `ctx.sessionPersistence` an import uses. */
export interface PersistenceTarget {
  create(meta: unknown): Promise<void>
  append(id: never, events: readonly never[]): Promise<void>
  /** JSONL backend: the file a session's log is (or would be) in. */
  locate?(meta: never): { readonly kind: string; readonly path: string }
  /** JSONL backend: its configuration (`root`, compression, …). */
  readonly config?: unknown
}

export interface SessionHeader {
  readonly version: number
  readonly id: string
  readonly createdAt: number
  readonly cwd?: string
}

/** Events per append, and the text (in UTF-16 units) a batch may hold, roughly. */
export const LOG_BATCH = { events: 8192, chars: 16 << 20 } as const

export interface WrittenLog {
  /** `staged`: written aside and renamed into place; `append`: one append to an unknown backend. */
  readonly how: 'staged' | 'append'
  readonly batches: number
}

interface PersistenceLike {
  create(meta: unknown): Promise<void>
  append(id: unknown, events: readonly unknown[]): Promise<void>
  locate(meta: unknown): { kind: string; path: string }
  /** The backend's own durable write (its coordinator's seam): encode, write, fsync; the first batch creates the file. */
  appendBatch?(meta: unknown, events: readonly unknown[], isMaterialized: boolean): Promise<void>
}

export async function writeSessionLog(
  persistence: PersistenceTarget,
  header: SessionHeader,
  events: readonly LogEvent[],
  limit: { events: number; chars: number } = LOG_BATCH,
): Promise<WrittenLog> {
  const staging = stagingPlan(persistence, header)
  if (staging === undefined) {
    await persistence.create(header)
    await persistence.append(header.id as never, events as never)
    return { how: 'append', batches: 1 }
  }
  const stagingRoot = mkdtempSync(path.join(path.dirname(staging.root), '.session-tree-import-'))
  const ctx = new Context()
  const fibers: { dispose(): Promise<void> }[] = []
  try {
    fibers.push(ctx.plugin(SessionStore))
    fibers.push(await ctx.plugin(staging.backend as never, { ...staging.config, root: stagingRoot } as never))
    const staged = contextService<PersistenceLike>(ctx, 'sessionPersistence')
    if (staged === undefined || typeof staged.locate !== 'function')
      throw new Error('the staging persistence did not start')
    await staged.create(header)
    let batches = 0
    for (const batch of batchesOf(events, limit)) {
      if (typeof staged.appendBatch === 'function') {
        // Past the coordinator: its deep copy of every batch (a third of the import's time) guards a log
        // others may still change; this one is ours alone and frozen (`Session.fromRestore` in publish.ts).
        // What the copy also checked, that JSON keeps every value, is checked here.
        assertLosslessJson(batch)
        await staged.appendBatch(header, batch, batches > 0)
      } else await staged.append(header.id, batch)
      batches++
    }
    const from = path.dirname(staged.locate(header).path)
    const to = path.dirname(staging.finalLog)
    if (existsSync(to)) throw new Error(`${to} exists already`)
    mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 })
    renameSync(from, to)
    syncDir(path.dirname(to))
    return { how: 'staged', batches }
  } finally {
    for (const fiber of fibers.reverse()) await fiber.dispose().catch(() => {})
    rmSync(stagingRoot, { recursive: true, force: true })
  }
}

/** The JSONL backend's facts needed to stage, or undefined for a backend that cannot say. */
function stagingPlan(
  persistence: PersistenceTarget,
  header: SessionHeader,
): { root: string; config: Record<string, unknown>; backend: unknown; finalLog: string } | undefined {
  const config = persistence.config
  if (typeof persistence.locate !== 'function' || typeof config !== 'object' || config === null) return undefined
  const root = (config as { root?: unknown }).root
  if (typeof root !== 'string' || root === '') return undefined
  const located = persistence.locate(header as never)
  if (located?.kind !== 'jsonl' || typeof located.path !== 'string') return undefined
  return {
    root: path.resolve(root),
    config: config as Record<string, unknown>,
    backend: (persistence as object).constructor,
    finalLog: located.path,
  }
}

/** Consecutive slices of the log, each bounded in events and (roughly) in text. */
export function* batchesOf(
  events: readonly LogEvent[],
  limit: { events: number; chars: number } = LOG_BATCH,
): Generator<LogEvent[]> {
  let start = 0
  let chars = 0
  for (let i = 0; i < events.length; i++) {
    chars += approxChars(events[i]!.data, 0)
    if (i + 1 - start >= limit.events || chars >= limit.chars) {
      yield events.slice(start, i + 1) as LogEvent[]
      start = i + 1
      chars = 0
    }
  }
  if (start < events.length) yield events.slice(start) as LogEvent[]
}

/**
 * Throws unless JSON text holds `value` exactly: plain objects and arrays
 * (no holes, no cycles), strings, booleans, null and finite numbers other
 * than -0. `JSON.stringify` would drop or change anything else silently.
 */
export function assertLosslessJson(value: unknown): void {
  const onPath = new Set<object>()
  const visit = (item: unknown, at: string): void => {
    if (item === null || typeof item === 'string' || typeof item === 'boolean') return
    if (typeof item === 'number') {
      if (Number.isFinite(item) && !Object.is(item, -0)) return
      throw new Error(`${at} is ${Object.is(item, -0) ? '-0' : String(item)}, which JSON does not keep`)
    }
    if (typeof item !== 'object') throw new Error(`${at} is a ${typeof item}, which JSON does not keep`)
    if (onPath.has(item)) throw new Error(`${at} refers back to itself`)
    const proto = Object.getPrototypeOf(item)
    onPath.add(item)
    if (Array.isArray(item)) {
      if (proto !== Array.prototype) throw new Error(`${at} is not a plain array`)
      for (let i = 0; i < item.length; i++) {
        if (!(i in item)) throw new Error(`${at}[${i}] is a hole`)
        visit(item[i], `${at}[${i}]`)
      }
    } else {
      if (proto !== Object.prototype && proto !== null) throw new Error(`${at} is not a plain object`)
      for (const key of Reflect.ownKeys(item)) {
        if (typeof key !== 'string' || !Object.prototype.propertyIsEnumerable.call(item, key))
          throw new Error(`${at} has a property JSON does not keep`)
        visit((item as Record<string, unknown>)[key], `${at}.${key}`)
      }
    }
    onPath.delete(item)
  }
  visit(value, 'event')
}

/** Text held by a JSON value, roughly (strings by length, everything else a few units). */
function approxChars(value: unknown, depth: number): number {
  if (typeof value === 'string') return value.length + 2
  if (typeof value !== 'object' || value === null || depth > 8) return 8
  let n = 2
  if (Array.isArray(value)) for (const item of value) n += approxChars(item, depth + 1) + 1
  else for (const key in value) n += key.length + 3 + approxChars((value as Record<string, unknown>)[key], depth + 1)
  return n
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // Directory fsync is best effort where the platform refuses it.
  }
}

export function failedWrite(error: unknown): InterchangeError {
  return error instanceof InterchangeError
    ? error
    : new InterchangeError('WRITE_FAILED', `the session log could not be written: ${(error as Error).message}`)
}
