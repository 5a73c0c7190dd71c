/**
 * Import a session file (or its text) into DSH: read → build → publish.
 * All or nothing: a failure at any step leaves no session and no sidecar.
 * A dry run reads and builds (so the preview is exactly what would be
 * written) and writes nothing.
 */
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmdirSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { InterchangeError } from '../errors.ts'
import type { ImportReport, SessionMeta, SourceFormat } from '../model.ts'
import { previewTree, type ImportPreview } from '../preview.ts'
import { readSession, type ReadOptions } from '../read.ts'
import {
  codexFamily as codexFamily_,
  DEFAULT_MAX_FILE_BYTES,
  openSource,
  stringChunks,
  subagentFiles,
} from '../source.ts'
import { readJsonl } from '../lines.ts'
import type { SubagentSource } from '../claude/subagents.ts'
import type { CodexSource } from '../codex/read.ts'
import { buildSession } from './build.ts'
import { type BuildOptions, type BuiltSession } from './built.ts'
import { PROVENANCE_VERSION, RawSpool } from './provenance.ts'
import type { SessionTitleData } from './title.ts'
import { publishSession } from './publish.ts'
import { type PersistenceTarget } from './write-log.ts'

export interface ImportInput {
  /** A session file on this machine. */
  readonly path?: string
  /** Or the file's text (an upload); exactly one of `path` and `content`. */
  readonly content?: string
  readonly format?: SourceFormat | 'auto'
  /** More files of the same session: Codex rollouts of `path`'s family (its forks, the thread it forked from); found beside `path` too. */
  readonly related?: readonly string[]
  /** Largest source accepted, in bytes (default 512 MiB), all files together. */
  readonly maxBytes?: number
  /** Longest line accepted, in characters (default 64 Mi). */
  readonly maxLineBytes?: number
}

export interface ImportTarget {
  readonly persistence: PersistenceTarget
  readonly sidecarRoot?: string
  /** Working directory of the new session (default: the source's, when it is absolute). */
  readonly cwd?: string
  /**
   * Working directory when `cwd` is not given and the source's is not a
   * directory on this machine (a session from another computer). Without
   * one, the source's is taken as it is.
   */
  readonly fallbackCwd?: string
  /** Id of the new session (default: a fresh UUID). */
  readonly sessionId?: string
  /** Read and build only; write nothing. */
  readonly dryRun?: boolean
  /**
   * Leave the title event out of the log: the caller appends `titleEvent` to
   * the session once it is live. A running host folds a loaded session's
   * projections once and pushes only later changes, so only a title appended
   * live reaches the pages open on it (`dsh web`'s sidebar).
   */
  readonly liveTitle?: boolean
}

/** What an import made (or, for a dry run, would make): the service's reply. */
export interface ImportResult {
  /** The new session, or null for a dry run. */
  readonly sessionId: string | null
  readonly dryRun: boolean
  readonly report: ImportReport
  readonly cwd: string | null
  /** DSH node id of the cursor: where the next prompt continues. */
  readonly cursor: string | null
  /** The new session's title (what `dsh web` lists it as): the source's name, else its first prompt's words. */
  readonly title: string | null
  /** Harness events written (or that would be). */
  readonly events: number
  /** Whether labels, branch names and provenance went to a sidecar. */
  readonly sidecar: boolean
  /** Every branch the tree holds, one line each (what a dry run previews). */
  readonly preview: ImportPreview
}

export interface ImportOutcome extends ImportResult {
  /** The `session/title` event (`title.ts`): the log ends with it, unless `liveTitle` asked to leave it to the caller. */
  readonly titleEvent: SessionTitleData | null
}

export async function importSession(input: ImportInput, target: ImportTarget): Promise<ImportOutcome> {
  if ((input.path === undefined) === (input.content === undefined)) {
    throw new InterchangeError('INVALID_PATH', 'give exactly one of a path and the file content')
  }
  // Every file opened is closed at the end, read or not (a subagent file beside a session of another format is never read).
  const streams: { destroy(): void }[] = []
  try {
    return await importOpened(input, target, streams)
  } finally {
    for (const stream of streams) stream.destroy()
  }
}

async function importOpened(
  input: ImportInput,
  target: ImportTarget,
  streams: { destroy(): void }[],
): Promise<ImportOutcome> {
  const maxBytes = input.maxBytes ?? DEFAULT_MAX_FILE_BYTES
  const open = (file: string, limit: number) => {
    const opened = openSource(file, limit)
    streams.push(opened.stream)
    return opened
  }
  let chunks: AsyncIterable<Buffer | string>
  let subagents: SubagentSource[] = []
  let codexFamily: (CodexSource | 'main')[] | undefined
  /** Files found beside the source that were not read, with why (reported). */
  const leftOut: string[] = []
  const maxLineBytes = input.maxLineBytes
  if (input.path !== undefined) {
    const opened = open(input.path, maxBytes)
    chunks = opened.stream
    let budget = maxBytes - opened.bytes
    const family = codexFamily_(opened.path, input.related ?? [])
    for (const given of input.related ?? []) {
      if (!family.includes(path.resolve(given)))
        throw new InterchangeError(
          'FORMAT_MISMATCH',
          `${path.resolve(given)} is not a Codex rollout of the same thread or its forks; only those import together`,
          { path: path.resolve(given) },
        )
    }
    if (family.length > 1) {
      codexFamily = family.map((file): CodexSource | 'main' => {
        if (file === opened.path) return 'main'
        const other = open(file, Math.max(0, budget))
        budget -= other.bytes
        return { name: path.basename(file), records: readJsonl(other.stream, maxLineBytes) }
      })
    }
    subagents = subagentFiles(opened.path).flatMap((file) => {
      try {
        const sub = open(file, Math.max(0, budget))
        budget -= sub.bytes
        return [{ name: path.basename(file, '.jsonl'), records: readJsonl(sub.stream, maxLineBytes) }]
      } catch (error) {
        leftOut.push(
          `subagent transcript ${path.basename(file)} left out: ${error instanceof InterchangeError ? error.message : String(error)}`,
        )
        return []
      }
    })
  } else {
    if ((input.related ?? []).length > 0)
      throw new InterchangeError('INVALID_PATH', 'related files need a path, not content')
    if (typeof input.content !== 'string') throw new InterchangeError('INVALID_PATH', 'content must be a string')
    if (Buffer.byteLength(input.content) > maxBytes)
      throw new InterchangeError('TOO_LARGE', `the content is larger than ${maxBytes} bytes`, { limit: maxBytes })
    chunks = stringChunks(input.content)
  }
  // The sidecar is staged in a private directory of its root; the source records go there as they are read.
  const staging = !target.dryRun && target.sidecarRoot !== undefined ? makeStaging(target.sidecarRoot) : undefined
  let spool: RawSpool | undefined
  let done = false
  try {
    spool = staging !== undefined ? new RawSpool(path.join(staging.dir, 'records.gz')) : undefined
    const sessionId = target.sessionId ?? randomUUID()
    const now = Date.now()
    const { built, meta, sourceCursor, report, preview } = await readAndBuild(
      chunks,
      {
        format: input.format ?? 'auto',
        subagents,
        ...(codexFamily ? { codexFamily } : {}),
        ...(maxLineBytes !== undefined ? { maxLineBytes } : {}),
        sink: spool?.sink ?? dropRecords,
      },
      { sessionId, now, titleInLog: target.liveTitle !== true },
    )
    const cwd = target.cwd ?? sourceCwd(meta.cwd, target.fallbackCwd)
    const base = {
      report: { ...report, notes: [...report.notes, ...leftOut, ...built.notes] },
      cwd: cwd ?? null,
      cursor: built.tree.cursor,
      title: built.title?.title ?? null,
      titleEvent: built.title ?? null,
      events: built.events.length,
      preview,
    }
    if (target.dryRun) return { ...base, sessionId: null, dryRun: true, sidecar: target.sidecarRoot !== undefined }
    const createdAt =
      meta.createdAt !== undefined && !Number.isNaN(Date.parse(meta.createdAt)) ? Date.parse(meta.createdAt) : now
    const published = await publishSession(built, {
      persistence: target.persistence,
      ...(staging !== undefined
        ? {
            sidecar: {
              root: staging.root,
              staging: staging.dir,
              header: {
                v: PROVENANCE_VERSION,
                kind: 'header',
                meta,
                importedAt: new Date(now).toISOString(),
                cursor: sourceCursor,
              },
              ...(spool ? { spool } : {}),
            },
          }
        : {}),
      ...(cwd !== undefined ? { cwd } : {}),
      createdAt,
    })
    done = true
    return { ...base, sessionId: published.sessionId, dryRun: false, sidecar: published.sidecar }
  } finally {
    spool?.close()
    if (staging !== undefined) {
      rmSync(staging.dir, { recursive: true, force: true })
      // A failed import leaves no trace, not even the sidecar root it had to create.
      if (!done && staging.createdRoot) {
        try {
          rmdirSync(staging.root)
        } catch {
          // not empty: something else writes there too
        }
      }
    }
  }
}

/** The source's working directory when it is absolute (and, when there is a fallback, a directory here), else the fallback. */
function sourceCwd(cwd: string | undefined, fallback: string | undefined): string | undefined {
  if (cwd === undefined || !path.isAbsolute(cwd)) return fallback
  if (fallback === undefined) return cwd
  try {
    return statSync(cwd).isDirectory() ? cwd : fallback
  } catch {
    return fallback
  }
}

/** A dry run keeps no source records. */
const dropRecords = () => {}

function makeStaging(sidecarRoot: string): { root: string; dir: string; createdRoot: boolean } {
  const root = path.resolve(sidecarRoot)
  try {
    const createdRoot = !existsSync(root)
    mkdirSync(root, { recursive: true })
    return { root, dir: mkdtempSync(path.join(root, '.import-')), createdRoot }
  } catch (error) {
    throw new InterchangeError(
      'WRITE_FAILED',
      `the sidecar root ${root} cannot be written: ${(error as Error).message}`,
    )
  }
}

/**
 * Read, then build; only what publication needs comes back. The neutral tree
 * (one object per source node) is unreachable once this returns, so the
 * log's batches (and the rebuild check's second tree, when asked for) do not sit on top of it.
 */
async function readAndBuild(
  chunks: AsyncIterable<Buffer | string>,
  read: ReadOptions,
  build: BuildOptions,
): Promise<{
  built: BuiltSession
  meta: SessionMeta
  sourceCursor: string | null
  report: ImportReport
  preview: ImportPreview
}> {
  const { tree, report } = await readSession(chunks, read)
  return {
    preview: previewTree(tree),
    built: buildSession(tree, build),
    meta: tree.meta,
    sourceCursor: tree.cursor,
    report,
  }
}
