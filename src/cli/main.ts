#!/usr/bin/env node
/**
 * `dsh-session-tree`: import and export without a running `dsh web` (`USAGE`
 * below; docs/interchange.md). Sessions go through the harness's own JSONL
 * persistence (`$DSH_HOME/sessions`) and the plugin's sidecar
 * (`$DSH_HOME/session-tree`); DSH_HOME is `--home`, else `$DSH_HOME`, else
 * `~/.dsh`, the harness's own precedence.
 */
import { homedir } from 'node:os'
import path from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { SessionTreeStore } from '../tree/store.ts'
import { TreeSync } from '../harness/sync.ts'
import { SidecarLocator, TreeSidecar } from '../sidecar/index.ts'
import { contextService } from '../harness/host.ts'
import { InterchangeError } from '../interchange/errors.ts'
import { errorMessage } from '../tree/errors.ts'
import type { ExportFormat, SourceFormat } from '../interchange/model.ts'
import { importSession } from '../interchange/session/import.ts'
import { defaultExportPath, EXPORT_FORMATS, exportTree, writeNewFile } from '../interchange/session/export.ts'
import { describePreview, describeReport } from '../tool/interchange-command.ts'

const USAGE = `Usage:
  dsh-session-tree import <file> [<rollout>…] [--home DIR] [--format auto|pi|claude-code|codex] [--cwd DIR] [--dry-run] [--json]
      Create a DSH session from a Pi, Claude Code or Codex session file, with its whole tree
      (Codex: forks and the thread they forked from join as branches; found beside the file too).
  dsh-session-tree export <pi|claude-code|markdown> <session-id> [file] [--home DIR] [--json]
      Write a DSH session's tree out (Pi: every branch; Claude Code, Markdown: the active path).
DIR defaults to $DSH_HOME, else ~/.dsh.`

interface Parsed {
  readonly positional: string[]
  readonly flags: Map<string, string | true>
}

function parse(argv: readonly string[]): Parsed | string {
  const positional: string[] = []
  const flags = new Map<string, string | true>()
  const valued = new Set(['--home', '--format', '--cwd'])
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (valued.has(arg)) {
      const value = argv[++i]
      if (value === undefined) return `${arg} needs a value`
      flags.set(arg, value)
    } else if (arg === '--json' || arg === '--dry-run' || arg === '--help' || arg === '-h') flags.set(arg, true)
    else if (arg.startsWith('--')) return `unknown option ${arg}`
    else positional.push(arg)
  }
  return { positional, flags }
}

function dshHome(flags: Parsed['flags']): string {
  const explicit = flags.get('--home')
  const env = process.env.DSH_HOME
  const home =
    typeof explicit === 'string'
      ? explicit
      : env !== undefined && env.trim() !== ''
        ? env
        : path.join(homedir(), '.dsh')
  return path.resolve(home.startsWith('~/') ? path.join(homedir(), home.slice(2)) : home)
}

async function persistenceAt(home: string): Promise<{ ctx: Context; persistence: JsonlSessionPersistence }> {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(JsonlSessionPersistence, { root: path.join(home, 'sessions') })
  for (let i = 0; i < 200; i++) {
    const found = contextService<JsonlSessionPersistence>(ctx, 'sessionPersistence')
    if (found) return { ctx, persistence: found }
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new InterchangeError('WRITE_FAILED', 'the session persistence did not start')
}

async function runImport(args: Parsed): Promise<Record<string, unknown>> {
  const [file, ...related] = args.positional
  if (file === undefined) throw new UsageError('import takes a file (and, for Codex, more rollouts of the same thread)')
  const format = (args.flags.get('--format') ?? 'auto') as 'auto' | SourceFormat
  if (!['auto', 'pi', 'claude-code', 'codex'].includes(format)) throw new UsageError(`unknown format ${format}`)
  const cwd = args.flags.get('--cwd')
  const home = dshHome(args.flags)
  const dryRun = args.flags.has('--dry-run')
  const { persistence } = await persistenceAt(home)
  {
    const outcome = await importSession(
      { path: file, format, related },
      {
        persistence,
        sidecarRoot: path.join(home, 'session-tree'),
        ...(typeof cwd === 'string' ? { cwd: path.resolve(cwd) } : {}),
        dryRun,
      },
    )
    return { ...outcome, home }
  }
}

async function runExport(args: Parsed): Promise<Record<string, unknown>> {
  const [format, sessionId, file, ...extra] = args.positional
  if (format === undefined || sessionId === undefined || extra.length > 0)
    throw new UsageError('export takes a format, a session id and optionally a file')
  if (!EXPORT_FORMATS.includes(format as ExportFormat))
    throw new UsageError(`unknown format ${format} (pi, claude-code, markdown)`)
  const home = dshHome(args.flags)
  const { persistence } = await persistenceAt(home)
  let stored: Awaited<ReturnType<JsonlSessionPersistence['readFrom']>>
  try {
    stored = await persistence.readFrom(SessionId(sessionId), 0)
  } catch (error) {
    throw new InterchangeError(
      'INVALID_PATH',
      `no session ${sessionId} in ${path.join(home, 'sessions')}: ${(error as Error).message}`,
    )
  }
  const sidecarRoot = path.join(home, 'session-tree')
  // The sidecar sits in the session's directory, as DSH's persistence locates it (an old-layout one moves there).
  const location = persistence.locate(stored.meta)
  const sidecars = new SidecarLocator({
    root: sidecarRoot,
    sessionDirOf: (id) => (id === sessionId && location ? path.dirname(location.path) : undefined),
  })
  const state = new TreeSync(new SessionTreeStore(), new TreeSidecar(sidecars)).attach({
    id: sessionId,
    events: stored.events,
  })
  const cwd = typeof stored.meta.cwd === 'string' ? stored.meta.cwd : undefined
  const exported = await exportTree(state.projector.tree, {
    format: format as ExportFormat,
    sidecarDir: sidecars.dirFor(sessionId),
    ...(cwd ? { cwd } : {}),
  })
  const target =
    file !== undefined
      ? path.resolve(file)
      : defaultExportPath(format as ExportFormat, exported, {
          ...(cwd ? { cwd } : {}),
          exportsDir: path.join(sidecarRoot, 'exports'),
          sessionId,
        })
  const bytes = writeNewFile(target, exported.lines)
  return {
    format,
    sessionId,
    path: target,
    bytes,
    lines: exported.lines.length,
    fileSessionId: exported.fileSessionId,
    fromImport: exported.fromImport,
    warnings: state.warnings,
  }
}

class UsageError extends Error {}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv
  const parsed = parse(rest)
  const json = typeof parsed !== 'string' && parsed.flags.has('--json')
  if (
    command === undefined ||
    command === '--help' ||
    command === '-h' ||
    (typeof parsed !== 'string' && (parsed.flags.has('--help') || parsed.flags.has('-h')))
  ) {
    process.stdout.write(`${USAGE}\n`)
    return command === undefined ? 2 : 0
  }
  try {
    if (typeof parsed === 'string') throw new UsageError(parsed)
    let result: Record<string, unknown>
    if (command === 'import') result = await runImport(parsed)
    else if (command === 'export') result = await runExport(parsed)
    else throw new UsageError(`unknown command ${command}`)
    if (json) process.stdout.write(`${JSON.stringify({ ok: true, ...result })}\n`)
    else if (command === 'import') {
      const report = result.report as Parameters<typeof describeReport>[0]
      const head = result.dryRun
        ? `Dry run: nothing written to ${String(result.home)}.`
        : `Imported as session ${String(result.sessionId)} in ${String(result.home)}${result.cwd ? ` (workspace ${String(result.cwd)})` : ''}; it continues from ${String(result.cursor ?? 'the start')}.`
      process.stdout.write(
        `${[head, ...describeReport(report), ...(result.dryRun ? describePreview(result.preview as Parameters<typeof describePreview>[0]) : [])].join('\n')}\n`,
      )
    } else
      process.stdout.write(
        `Exported ${String(result.format)} to ${String(result.path)} (${String(result.lines)} lines, ${String(result.bytes)} bytes).\n`,
      )
    return 0
  } catch (error) {
    if (error instanceof UsageError) {
      if (json)
        process.stdout.write(`${JSON.stringify({ ok: false, error: { code: 'USAGE', message: error.message } })}\n`)
      else process.stderr.write(`dsh-session-tree: ${error.message}\n${USAGE}\n`)
      return 2
    }
    const code = error instanceof InterchangeError ? error.code : 'INTERNAL'
    const message = error instanceof InterchangeError ? error.message.replace(/^[A-Z_]+: /, '') : errorMessage(error)
    const details = error instanceof InterchangeError ? error.details : {}
    if (json) process.stdout.write(`${JSON.stringify({ ok: false, error: { code, message, details } })}\n`)
    else process.stderr.write(`dsh-session-tree: ${code}: ${message}\n`)
    return 1
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`dsh-session-tree: INTERNAL: ${String(error)}\n`)
    process.exit(1)
  },
)
