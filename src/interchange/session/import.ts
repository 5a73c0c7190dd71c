/**
 * Import a session file (or its text) into DSH: read → build → publish.
 * All or nothing: a failure at any step leaves no session and no sidecar.
 * A dry run reads and builds (so the preview is exactly what would be
 * written) and writes nothing.
 */
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { InterchangeError } from '../errors.ts'
import type { ImportReport, SourceFormat } from '../model.ts'
import { readSession } from '../read.ts'
import { DEFAULT_MAX_FILE_BYTES, openSource, stringChunks, subagentFiles } from '../source.ts'
import { readJsonl } from '../lines.ts'
import type { SubagentSource } from '../claude/subagents.ts'
import { buildSession } from './build.ts'
import { publishSession, type PersistenceTarget } from './publish.ts'

export interface ImportInput {
  /** A session file on this machine. */
  readonly path?: string
  /** Or the file's text (an upload); exactly one of `path` and `content`. */
  readonly content?: string
  readonly format?: SourceFormat | 'auto'
  /** Largest source accepted, in bytes (default 512 MiB). */
  readonly maxBytes?: number
}

export interface ImportTarget {
  readonly persistence: PersistenceTarget
  readonly sidecarRoot?: string
  /** Working directory of the new session (default: the source's, when it is absolute). */
  readonly cwd?: string
  /** Id of the new session (default: a fresh UUID). */
  readonly sessionId?: string
  /** Read and build only; write nothing. */
  readonly dryRun?: boolean
}

export interface ImportOutcome {
  /** The new session, or null for a dry run. */
  readonly sessionId: string | null
  readonly dryRun: boolean
  readonly report: ImportReport
  readonly cwd: string | null
  /** DSH node id of the cursor: where the next prompt continues. */
  readonly cursor: string | null
  readonly title: string | null
  /** Harness events written (or that would be). */
  readonly events: number
  /** Whether labels, branch names and provenance went to a sidecar. */
  readonly sidecar: boolean
}

export async function importSession(input: ImportInput, target: ImportTarget): Promise<ImportOutcome> {
  const maxBytes = input.maxBytes ?? DEFAULT_MAX_FILE_BYTES
  if ((input.path === undefined) === (input.content === undefined)) {
    throw new InterchangeError('INVALID_PATH', 'give exactly one of a path and the file content')
  }
  let chunks: AsyncIterable<Buffer | string>
  let subagents: SubagentSource[] = []
  if (input.path !== undefined) {
    const opened = openSource(input.path, maxBytes)
    chunks = opened.stream
    let budget = maxBytes - opened.bytes
    subagents = subagentFiles(opened.path).flatMap((file) => {
      try {
        const sub = openSource(file, Math.max(0, budget))
        budget -= sub.bytes
        return [{ name: path.basename(file, '.jsonl'), records: readJsonl(sub.stream) }]
      } catch {
        return []
      }
    })
  } else {
    if (typeof input.content !== 'string') throw new InterchangeError('INVALID_PATH', 'content must be a string')
    if (Buffer.byteLength(input.content) > maxBytes) throw new InterchangeError('TOO_LARGE', `the content is larger than ${maxBytes} bytes`, { limit: maxBytes })
    chunks = stringChunks(input.content)
  }
  const { tree, report } = await readSession(chunks, { format: input.format ?? 'auto', subagents })
  const sessionId = target.sessionId ?? randomUUID()
  const now = Date.now()
  const built = buildSession(tree, { sessionId, now })
  const cwd = target.cwd ?? (tree.meta.cwd !== undefined && path.isAbsolute(tree.meta.cwd) ? tree.meta.cwd : undefined)
  const fullReport: ImportReport = { ...report, notes: [...report.notes, ...built.notes] }
  const cursor = built.tree.cursor
  const base = {
    report: fullReport,
    cwd: cwd ?? null,
    cursor,
    title: tree.meta.title ?? null,
    events: built.events.length,
  }
  if (target.dryRun) return { ...base, sessionId: null, dryRun: true, sidecar: target.sidecarRoot !== undefined }
  const createdAt = tree.meta.createdAt !== undefined && !Number.isNaN(Date.parse(tree.meta.createdAt)) ? Date.parse(tree.meta.createdAt) : now
  const published = await publishSession(built, tree, {
    persistence: target.persistence,
    ...(target.sidecarRoot !== undefined ? { sidecarRoot: target.sidecarRoot } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    createdAt,
  })
  return { ...base, sessionId: published.sessionId, dryRun: false, sidecar: published.sidecar }
}
