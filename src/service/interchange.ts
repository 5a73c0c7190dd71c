/**
 * Import and export behind `ctx.sessionTree` (`importSession`, `exportAs`):
 * wire types and the work, kept apart from the service class. An import or
 * export fails with its own code (`interchange/errors.ts`, in the service's vocabulary).
 */
import path from 'node:path'
import { fail, ok, type TreeResult, errorMessage } from '../tree/errors.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import { InterchangeError } from '../interchange/errors.ts'
import type { ExportFormat, SourceFormat } from '../interchange/model.ts'
import { importSession, type ImportOutcome, type ImportResult } from '../interchange/session/import.ts'

import { defaultExportPath, EXPORT_FORMATS, exportTree, writeNewFile } from '../interchange/session/export.ts'
import type { PersistenceTarget } from '../interchange/session/write-log.ts'
import type { SessionTitleData } from '../interchange/session/title.ts'
import type { SidecarLocator } from '../sidecar/index.ts'
import type { SessionResolver } from './resolve.ts'
import { hostService } from '../harness/host.ts'

/** Largest file text accepted over the wire (an upload); a path on the host may be larger. */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024

/** `importSession` request: a file on the host (`path`, absolute) or its text (`content`). */
export interface ImportRequest {
  readonly path: string | null
  readonly content: string | null
  /** `auto` detects Pi, Claude Code or Codex. */
  readonly format: 'auto' | SourceFormat
  /** Read and build only: the preview of what would be created. Nothing is written. */
  readonly dryRun: boolean
  /** Working directory of the new session (null: the source's). */
  readonly cwd: string | null
}

/** `exportAs` request. `inline` returns the file's text instead of writing it (a download). */
export interface ExportRequest {
  readonly agentId: string
  readonly format: ExportFormat
  /** Absolute path of a new file; null: where the target tool looks (Pi, Claude Code) or the exports folder. */
  readonly path: string | null
  readonly inline: boolean
}

export interface ExportResult {
  readonly format: ExportFormat
  /** File written, or null when `inline`. */
  readonly path: string | null
  readonly bytes: number
  readonly lines: number
  /** The text, when `inline`. */
  readonly content: string | null
  /** Session id inside the file (Pi header id, Claude Code session id). */
  readonly fileSessionId: string
  /** Whether the session came from an import (its source records were reused). */
  readonly fromImport: boolean
}

function failure(error: unknown): TreeResult<never> {
  if (error instanceof InterchangeError) return fail(error.code, error.message, { ...error.details })
  return fail('INTERNAL', errorMessage(error))
}

/** The part of the host's `ctx.workspaceRegistry` (`@deepseek-ai/dsh-workspace`) an import uses. */
export interface WorkspaceRegistryLike {
  /** The workspace that owns a directory (any spelling of its path), if one does. */
  resolveByPath(path: string): Promise<{ attachSession(sessionId: never): Promise<void> } | undefined>
}

/**
 * Where `runImport` writes; `load` resumes a new session in the running
 * harness (the web host's way), so its Tree tab opens at once; `workspaces`
 * takes it into the workspace of its directory when there is one, as
 * `session.create` does, so `dsh web`'s sidebar lists it there at once; `fallbackCwd` is the directory
 * of a session whose source directory is not on this machine (the host's, as
 * for a session created without a project).
 */
export interface ImportTargetOptions {
  readonly persistence: PersistenceTarget | undefined
  readonly sidecarRoot: string | undefined
  /** The new session, live (undefined: it stays stored, to load on its first message). */
  readonly load?: (sessionId: string) => Promise<{ append(type: string, data: unknown): unknown } | undefined>
  readonly workspaces?: WorkspaceRegistryLike | undefined
  readonly fallbackCwd?: string
}

/** The import target of a running host: its persistence and workspace registry (when loaded), the plugin's sidecar root. */
export function hostImportTarget(
  ctx: { get(name: never): unknown },
  sidecarRoot: string | undefined,
  resolver: Pick<SessionResolver, 'live'>,
): ImportTargetOptions {
  return {
    persistence: hostService<PersistenceTarget>(ctx, 'sessionPersistence'),
    sidecarRoot,
    load: async (sessionId) => {
      const live = await resolver.live(sessionId)
      return live.ok ? live.value.session : undefined
    },
    workspaces: hostService<WorkspaceRegistryLike>(ctx, 'workspaceRegistry'),
    fallbackCwd: process.cwd(),
  }
}

export async function runImport(
  request: ImportRequest,
  target: ImportTargetOptions,
): Promise<TreeResult<ImportResult>> {
  if (typeof request !== 'object' || request === null) return fail('INVALID_ARGUMENT', 'request must be an object')
  const { path: file, content } = request
  if ((file === null) === (content === null)) return fail('INVALID_ARGUMENT', 'give exactly one of path and content')
  if (file !== null && (typeof file !== 'string' || !path.isAbsolute(file)))
    return fail('INVALID_PATH', 'path must be an absolute path on the host')
  if (request.cwd !== null && (typeof request.cwd !== 'string' || !path.isAbsolute(request.cwd)))
    return fail('INVALID_ARGUMENT', 'cwd must be an absolute path or null')
  if (!target.persistence && !request.dryRun)
    return fail('INTERNAL', 'this harness has no session persistence (ctx.sessionPersistence)')
  try {
    const outcome: ImportOutcome = await importSession(
      {
        ...(file !== null ? { path: file } : { content: content!, maxBytes: MAX_UPLOAD_BYTES }),
        format: request.format,
      },
      {
        persistence: target.persistence ?? { create: async () => {}, append: async () => {} },
        ...(target.sidecarRoot !== undefined ? { sidecarRoot: target.sidecarRoot } : {}),
        ...(request.cwd !== null ? { cwd: request.cwd } : {}),
        ...(target.fallbackCwd !== undefined ? { fallbackCwd: target.fallbackCwd } : {}),
        dryRun: request.dryRun,
        liveTitle: target.load !== undefined,
      },
    )
    const { titleEvent, ...result } = outcome
    if (result.sessionId === null) return ok(result)
    // The session is stored (durable) at this point; a failed load leaves it to load on its first message, as any stored session.
    const live = target.load ? await target.load(result.sessionId).catch(() => undefined) : undefined
    const notes: string[] = []
    if (titleEvent && target.load) {
      await nameSession(live, target.persistence!, result.sessionId, result.events, titleEvent).catch(
        (error: unknown) =>
          notes.push(`the session has no title yet (it gets one with its first prompt): ${errorMessage(error)}`),
      )
    }
    const unattached =
      target.workspaces && result.cwd !== null
        ? await attachWorkspace(target.workspaces, result.sessionId, result.cwd)
        : undefined
    if (unattached !== undefined) notes.push(unattached)
    return ok(
      notes.length === 0
        ? result
        : { ...result, report: { ...result.report, notes: [...result.report.notes, ...notes] } },
    )
  } catch (error) {
    return failure(error)
  }
}

/**
 * The title event the import left out of the log, appended to the live session: a host folds a loaded
 * session's projections once and pushes only what changes after that, so a title that was in the log
 * already would reach no open page (the sidebar) until it lists the session again. A session that did
 * not load gets it in its stored log, as the next event.
 */
async function nameSession(
  live: { append(type: string, data: unknown): unknown } | undefined,
  persistence: PersistenceTarget,
  sessionId: string,
  seq: number,
  title: SessionTitleData,
): Promise<void> {
  if (live) return void live.append('session/title', title)
  await persistence.append(sessionId as never, [{ type: 'session/title', seq, time: Date.now(), data: title }] as never)
}

/**
 * Take a new session into the workspace that owns `cwd`, as the host's `session.create` does after
 * publishing one in a workspace. None is made: with no workspace there, the session is listed like one
 * created with just that directory (Ungrouped). The session is stored either way: a failure is a note.
 */
async function attachWorkspace(
  workspaces: WorkspaceRegistryLike,
  sessionId: string,
  cwd: string,
): Promise<string | undefined> {
  try {
    const workspace = await workspaces.resolveByPath(cwd)
    await workspace?.attachSession(sessionId as never)
    return undefined
  } catch (error) {
    return `the session is in no workspace of dsh web (${cwd}): ${errorMessage(error)}`
  }
}

/** `exportAs` of a loaded session (its working directory names the default file). */
export async function exportLoaded(
  request: ExportRequest,
  resolver: SessionResolver,
  sidecars: SidecarLocator | undefined,
): Promise<TreeResult<ExportResult>> {
  if (typeof request !== 'object' || request === null) return fail('INVALID_ARGUMENT', 'request must be an object')
  const found = resolver.loaded(request.agentId)
  if (!found.ok) return found
  const header = found.value.session.header as { cwd?: unknown } | undefined
  return runExport(request, found.value.state.projector.tree, {
    sidecars,
    cwd: typeof header?.cwd === 'string' ? header.cwd : undefined,
  })
}

export async function runExport(
  request: ExportRequest,
  tree: SessionTree,
  options: { sidecars: SidecarLocator | undefined; cwd: string | undefined },
): Promise<TreeResult<ExportResult>> {
  if (!EXPORT_FORMATS.includes(request.format))
    return fail('INVALID_ARGUMENT', `format must be one of ${EXPORT_FORMATS.join(', ')}`)
  if (request.path !== null && (typeof request.path !== 'string' || !path.isAbsolute(request.path)))
    return fail('INVALID_PATH', 'path must be an absolute path or null')
  try {
    const sidecarDir = options.sidecars?.dirFor(tree.sessionId)
    const exported = await exportTree(tree, {
      format: request.format,
      ...(sidecarDir ? { sidecarDir } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
    })
    const text = exported.lines.map((line) => `${line}\n`).join('')
    const base = {
      format: exported.format,
      lines: exported.lines.length,
      fileSessionId: exported.fileSessionId,
      fromImport: exported.fromImport,
    }
    if (request.inline) return ok({ ...base, path: null, bytes: Buffer.byteLength(text), content: text })
    const exportsDir =
      options.sidecars !== undefined
        ? path.join(options.sidecars.root, 'exports')
        : path.join(process.cwd(), 'session-tree-exports')
    const file =
      request.path ??
      defaultExportPath(request.format, exported, {
        ...(options.cwd ? { cwd: options.cwd } : {}),
        exportsDir,
        sessionId: tree.sessionId,
      })
    const bytes = writeNewFile(file, exported.lines)
    return ok({ ...base, path: path.resolve(file), bytes, content: null })
  } catch (error) {
    return failure(error)
  }
}
