/**
 * The checkpoint journal of one session (`<sidecar dir>/workspace/<session>/
 * journal.jsonl`): `CheckpointOp`s appended through the sidecar's own
 * checksummed, fsynced journal (`TreeSidecar`). Loading validates each
 * record's shape; one that does not parse is reported and skipped.
 */
import path from 'node:path'
import type { JsonObject } from '../tree/types.ts'
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import { TreeSidecar } from '../sidecar/index.ts'
import { hashOf } from './blobs.ts'
import { pathProblem } from './paths.ts'
import type { CheckpointOp, FileChange, FileState, SingleOp, SkipReason } from './types.ts'

/** A loaded op with its journal number (the order things happened in; the ops of one batch share it). */
export interface LoggedOp {
  readonly n: number
  readonly op: SingleOp
}

export interface LogLoad {
  readonly ops: readonly LoggedOp[]
  /** The contents the records carry (hash → bytes, each checked against its hash). */
  readonly contents: ReadonlyMap<string, Buffer>
  /** Problems found while loading (kept for the status, never thrown). */
  readonly problems: readonly string[]
}

const SKIP_REASONS: ReadonlySet<string> = new Set<SkipReason>([
  'too-large',
  'symlink',
  'symlink-on-path',
  'not-regular',
  'unreadable',
])
const HASH = /^[0-9a-f]{64}$/

type Obj = { readonly [key: string]: unknown }
const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value)
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0
const isText = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 1000

export function parseState(value: unknown): FileState | undefined {
  if (!isObj(value)) return undefined
  if (value.kind === 'absent') return { kind: 'absent' }
  if (value.kind === 'file' && typeof value.hash === 'string' && HASH.test(value.hash) && isCount(value.size)) {
    return {
      kind: 'file',
      hash: value.hash,
      size: value.size,
      ...(value.exec === true ? { exec: true } : {}),
      ...(value.binary === true ? { binary: true } : {}),
    }
  }
  if (value.kind === 'skipped' && typeof value.reason === 'string' && SKIP_REASONS.has(value.reason)) {
    const reason = value.reason as SkipReason
    return isCount(value.size) ? { kind: 'skipped', reason, size: value.size } : { kind: 'skipped', reason }
  }
  return undefined
}

function parseChanges(value: unknown): FileChange[] | undefined {
  if (!Array.isArray(value)) return undefined
  const files: FileChange[] = []
  for (const item of value) {
    if (!isObj(item) || pathProblem(item.path) !== undefined) return undefined
    const before = parseState(item.before)
    const after = parseState(item.after)
    if (!before || !after) return undefined
    files.push({ path: item.path as string, before, after })
  }
  return files
}

/** The ops a journal record holds (a batch flattened), or undefined when it is not a valid record. */
export function parseOps(value: unknown): SingleOp[] | undefined {
  if (isObj(value) && value.t === 'batch') {
    if (!Array.isArray(value.ops) || value.ops.length === 0) return undefined
    const ops = value.ops.map(parseOp)
    return ops.every((op) => op !== undefined) ? (ops as SingleOp[]) : undefined
  }
  const op = parseOp(value)
  return op === undefined ? undefined : [op]
}

/** One op, or undefined when it is not a valid one (a batch is not an op). */
export function parseOp(value: unknown): SingleOp | undefined {
  if (!isObj(value)) return undefined
  switch (value.t) {
    case 'before': {
      const state = parseState(value.state)
      if (
        !isCount(value.key) ||
        !isText(value.node) ||
        !isText(value.call) ||
        !isText(value.tool) ||
        pathProblem(value.path) !== undefined ||
        !state
      )
        return undefined
      return {
        t: 'before',
        key: value.key,
        node: value.node,
        call: value.call,
        tool: value.tool,
        path: value.path as string,
        state,
      }
    }
    case 'after': {
      const state = parseState(value.state)
      if (!isCount(value.key) || !isText(value.call) || pathProblem(value.path) !== undefined || !state)
        return undefined
      return { t: 'after', key: value.key, call: value.call, path: value.path as string, state }
    }
    case 'shell': {
      const files = parseChanges(value.files)
      if (!isCount(value.key) || !isText(value.node) || !isText(value.call) || !isText(value.tool) || !files)
        return undefined
      return { t: 'shell', key: value.key, node: value.node, call: value.call, tool: value.tool, files }
    }
    case 'restore': {
      const files = parseChanges(value.files)
      if (!isCount(value.key) || !isText(value.id) || !(value.target === null || isText(value.target)) || !files)
        return undefined
      const base = { t: 'restore', key: value.key, id: value.id, target: value.target as string | null, files } as const
      if (value.carry !== undefined && !isText(value.carry)) return undefined
      const op = value.carry === undefined ? base : { ...base, carry: value.carry as string }
      if (value.step === undefined) return op
      if (value.step !== 'back' && value.step !== 'forward') return undefined
      if (!Array.isArray(value.of) || !value.of.every(isText)) return undefined
      return { ...op, step: value.step, of: value.of as string[] }
    }
    case 'restored': {
      const kept =
        Array.isArray(value.kept) && value.kept.every((p) => pathProblem(p) === undefined)
          ? (value.kept as string[])
          : undefined
      if (!isText(value.id) || !kept) return undefined
      return { t: 'restored', id: value.id, kept }
    }
    case 'noted':
      return isText(value.id) ? { t: 'noted', id: value.id } : undefined
    case 'root':
      return typeof value.root === 'string' &&
        path.isAbsolute(value.root) &&
        (value.shell === 'git' || value.shell === 'folder' || value.shell === 'off')
        ? { t: 'root', root: value.root, shell: value.shell }
        : undefined
    default:
      return undefined
  }
}

export class CheckpointLog {
  private readonly journal: TreeSidecar
  private readonly sessionId: string

  /** `dir`: the session's `workspace` directory (absolute). */
  constructor(dir: string, sessionId: string) {
    this.journal = new TreeSidecar(dir)
    this.sessionId = sessionId
  }

  /**
   * Durably append one op, carrying `contents` (hash → bytes, base64 in the
   * line's `data`); `w` is the session's last event seq when it happened.
   */
  append(op: CheckpointOp, w: number, contents: ReadonlyMap<string, Buffer> = new Map()): TreeResult<number> {
    const record =
      contents.size === 0
        ? op
        : { ...op, data: Object.fromEntries([...contents].map(([hash, bytes]) => [hash, bytes.toString('base64')])) }
    const written = this.journal.append(this.sessionId, { w: Math.max(0, w), op: record as unknown as JsonObject })
    if (!written.ok) return fail('WORKSPACE_IO', `checkpoint journal: ${written.error.message}`, written.error.details)
    return ok(written.value.n)
  }

  /** Every valid op, in journal order. Never throws. */
  load(): LogLoad {
    const loaded = this.journal.load(this.sessionId)
    const problems = loaded.problems.map((p) => `${p.code}: ${p.message}`)
    const ops: LoggedOp[] = []
    const contents = new Map<string, Buffer>()
    for (const record of loaded.records) {
      const parsed = parseOps(record.op)
      if (!parsed) {
        problems.push(`checkpoint record ${record.n} has an unknown shape; skipped`)
        continue
      }
      for (const op of parsed) ops.push({ n: record.n, op })
      const data = (record.op as { data?: unknown }).data
      if (data === undefined) continue
      if (!isObj(data)) {
        problems.push(`checkpoint record ${record.n} carries contents of an unknown shape; skipped`)
        continue
      }
      for (const [hash, encoded] of Object.entries(data)) {
        const bytes = typeof encoded === 'string' ? Buffer.from(encoded, 'base64') : undefined
        if (bytes !== undefined && HASH.test(hash) && hashOf(bytes) === hash) contents.set(hash, bytes)
        else
          problems.push(
            `checkpoint record ${record.n} carries a content that does not match its hash ${hash.slice(0, 12)}; skipped`,
          )
      }
    }
    return { ops, contents, problems }
  }
}
