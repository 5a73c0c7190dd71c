/**
 * `/tree import` and `/tree export`: the service's `importSession` and
 * `exportAs`, with paths relative to the session's working directory and the
 * outcome told in a few lines.
 */
import path from 'node:path'
import type { SessionTreeService } from '../service/service.ts'
import type { ExportFormat, ImportReport, SourceFormat } from '../interchange/model.ts'
import type { ImportPreview } from '../interchange/preview.ts'
import type { LiveAgent } from '../harness/live.ts'
import { errorMessage } from '../tree/errors.ts'

type Result = { readonly kind: 'success'; readonly text?: string } | { readonly kind: 'error'; readonly text: string }

function cwdOf(agent: LiveAgent): string | undefined {
  const header = agent.session.header as { cwd?: unknown } | undefined
  return typeof header?.cwd === 'string' ? header.cwd : undefined
}

function resolveFrom(agent: LiveAgent, file: string): string {
  return path.resolve(cwdOf(agent) ?? process.cwd(), file)
}

function errorText(error: unknown): string {
  const failure = (error as { failure?: { code?: string; message?: string } }).failure
  if (failure) return `${failure.code ?? 'INTERNAL'}: ${failure.message ?? ''}`
  return `INTERNAL: ${errorMessage(error)}`
}

/** The import report in a few lines (also what the CLI prints without --json). */
export function describeReport(report: ImportReport): string[] {
  const lines = [
    `${report.format} ${report.version}: ${report.lines} line(s) read, ${report.nodes} node(s), ${report.branches} branch(es), ${report.labels} label(s), ${report.compactions} compaction(s)`,
  ]
  if (report.recovered > 0) lines.push(`recovered from torn lines: ${report.recovered} record(s)`)
  if (report.skipped.length > 0)
    lines.push(`skipped: ${report.skipped.map((s) => `line ${s.line} (${s.reason})`).join('; ')}`)
  const opaque = Object.entries(report.opaque)
  if (opaque.length > 0) lines.push(`kept as opaque entries: ${opaque.map(([type, n]) => `${type} ×${n}`).join(', ')}`)
  const ignored = Object.entries(report.ignored)
  if (ignored.length > 0)
    lines.push(`not conversation (left out): ${ignored.map(([type, n]) => `${type} ×${n}`).join(', ')}`)
  for (const note of report.notes) lines.push(`note: ${note}`)
  return lines
}

/** The branches an import creates, one line each (a dry run's preview). */
export function describePreview(preview: ImportPreview): string[] {
  const lines = preview.shown.map(
    (b) =>
      `${b.active ? '* ' : '  '}${b.entries} entr${b.entries === 1 ? 'y' : 'ies'} ${b.forkAt === null ? 'from the start' : `after ${b.forkAt}`}${b.firstPrompt ? `: “${b.firstPrompt}”` : ''} … “${b.last}”`,
  )
  if (preview.branches > preview.shown.length)
    lines.push(`  … and ${preview.branches - preview.shown.length} more branch(es)`)
  return [`branches (* continues):`, ...lines]
}

export async function runImportCommand(
  service: SessionTreeService,
  agent: LiveAgent,
  command: { path: string; format: 'auto' | SourceFormat; dryRun: boolean },
): Promise<Result> {
  const file = resolveFrom(agent, command.path)
  try {
    const result = await service.importSession({
      path: file,
      content: null,
      format: command.format,
      dryRun: command.dryRun,
      cwd: null,
    })
    const head = result.dryRun
      ? `Dry run: ${file} would become a new session (nothing was written).`
      : `Imported ${file} as session ${result.sessionId}${result.cwd ? ` (workspace ${result.cwd})` : ''}. Open it to continue from ${result.cursor ?? 'the start'}.`
    return {
      kind: 'success',
      text: [head, ...describeReport(result.report), ...(result.dryRun ? describePreview(result.preview) : [])].join(
        '\n',
      ),
    }
  } catch (error) {
    return { kind: 'error', text: errorText(error) }
  }
}

/** What an export of each format holds (a table, so a new format cannot fall into another's words). */
const EXPORTED: Readonly<Record<ExportFormat, string>> = {
  pi: 'every branch',
  'claude-code': 'the active path',
  markdown: 'the active path and a digest of the other branches',
}

export async function runExportCommand(
  service: SessionTreeService,
  agent: LiveAgent,
  command: { format: ExportFormat; path?: string },
): Promise<Result> {
  try {
    const result = await service.exportAs({
      agentId: agent.id,
      format: command.format,
      path: command.path === undefined ? null : resolveFrom(agent, command.path),
      inline: false,
    })
    return {
      kind: 'success',
      text: `Exported ${EXPORTED[command.format]} as ${command.format} to ${result.path} (${result.lines} line(s), ${result.bytes} bytes).`,
    }
  } catch (error) {
    return { kind: 'error', text: errorText(error) }
  }
}
