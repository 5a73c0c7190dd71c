/**
 * What the import dialog and the export menu call, and their file work in the
 * browser: the upload limit checked before anything is read or sent, a file's
 * text, the name a downloaded export gets, and the service error's own code.
 */
import type { ExportFormat, ExportRequest, ExportResult, ImportRequest, ImportResult } from '../../types.ts'
import type { Result } from '../controller.ts'

/**
 * The service's `MAX_UPLOAD_BYTES` (src/service/interchange.ts): the browser
 * bundle may not import the service, so the figure is repeated here and a
 * unit test holds the two equal. The service refuses larger uploads anyway.
 */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024

/** The generated client's two interchange methods, and the host's way to open a session. */
export interface InterchangeActions {
  /** Sent through `attempt` like every method, so a failure keeps its code (`remote.ts`). */
  importSession(request: ImportRequest): Promise<Result<ImportResult>>
  exportAs(request: ExportRequest): Promise<Result<ExportResult>>
  /** Select a session in the host (its sidebar and conversation); false when the host offers no way. */
  openSession(sessionId: string): Promise<boolean>
}

/** A failure as the dialog shows it: the service's code (an import/export code where the import or export failed). */
export interface InterchangeFailure {
  readonly code: string
  readonly message: string
}

/** `1.4 MB`, `64 MiB` style sizes (binary units, as the limit is). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value >= 10 || Number.isInteger(value) ? Math.round(value) : value.toFixed(1)} ${units[unit]}`
}

/** The file's text, or `too-large` before a byte of it is read. */
export async function readSessionFile(file: File): Promise<{ readonly text: string } | { readonly tooLarge: true }> {
  if (file.size > MAX_UPLOAD_BYTES) return { tooLarge: true }
  return { text: await file.text() }
}

/** A file's text as the dialog imports it: the format detected, no path, no working directory (`dryRun`: the preview). */
export function uploadRequest(content: string, dryRun: boolean): ImportRequest {
  return { path: null, content, format: 'auto', dryRun, cwd: null }
}

/** The name a downloaded export gets: where the target tool would name it (Pi: `<time>_<id>.jsonl`, Claude Code: `<id>.jsonl`). */
export function exportFileName(format: ExportFormat, fileSessionId: string, now: Date = new Date()): string {
  const safeId = fileSessionId.replace(/[^A-Za-z0-9_-]/g, '_')
  if (format === 'pi') return `${now.toISOString().replace(/[:.]/g, '-')}_${safeId}.jsonl`
  if (format === 'claude-code') return `${safeId}.jsonl`
  return `session-${safeId}.md`
}
