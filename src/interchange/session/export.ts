/**
 * Export a DSH session's tree: Pi JSONL v3 (every branch), Claude Code JSONL
 * (the active path) or Markdown (the active path + a digest of every other
 * branch). Files are created, never overwritten, never through a symlink,
 * and appear whole (written aside, then linked into place).
 */
import { randomUUID } from 'node:crypto'
import { closeSync, constants, fsyncSync, linkSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import type { SessionTree } from '../../tree/session-tree.ts'
import { writeClaude } from '../claude/write.ts'
import { InterchangeError } from '../errors.ts'
import { writeMarkdown } from '../markdown.ts'
import type { ExportFormat } from '../model.ts'
import { writePi } from '../pi/write.ts'
import { treeToInterchange } from './from-tree.ts'
import { readProvenance } from './provenance.ts'

export const EXPORT_FORMATS: readonly ExportFormat[] = ['pi', 'claude-code', 'markdown']

export interface ExportOptions {
  readonly format: ExportFormat
  /** The session's sidecar directory (provenance of an imported session lives there). */
  readonly sidecarDir?: string
  readonly cwd?: string
  readonly now?: number
}

export interface Exported {
  readonly format: ExportFormat
  /** Lines of the file (without newlines). */
  readonly lines: readonly string[]
  /** Session id written into the file (Pi header id, Claude session id). */
  readonly fileSessionId: string
  readonly fromImport: boolean
}

export async function exportTree(tree: SessionTree, options: ExportOptions): Promise<Exported> {
  const provenance = options.sidecarDir === undefined ? undefined : await readProvenance(options.sidecarDir)
  // Pi gives calls left without a result its own synthetic result when it sends them: a Pi file
  // holds none (so Pi → DSH → Pi gives the same file). Claude Code's transcript keeps them answered.
  const source = treeToInterchange(tree, provenance, {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    syntheticResults: options.format === 'pi' ? 'leave out' : 'keep',
  })
  const labels = new Map<string, string>()
  const neutralOf = new Map([...source.dshIds].map(([neutral, dsh]) => [dsh, neutral]))
  for (const [dsh, label] of source.labels) {
    const neutral = neutralOf.get(dsh)
    if (neutral !== undefined) labels.set(neutral, label)
  }
  const now = options.now ?? Date.now()
  const fromImport = provenance !== undefined
  switch (options.format) {
    case 'pi': {
      const sameFormat = source.tree.meta.format === 'pi'
      const fileSessionId = sameFormat && source.tree.meta.sessionId ? source.tree.meta.sessionId : randomUUID()
      const tree = sameFormat
        ? source.tree
        : {
            ...source.tree,
            meta: { ...source.tree.meta, sessionId: fileSessionId, ...(options.cwd ? { cwd: options.cwd } : {}) },
          }
      return { format: 'pi', lines: [...writePi({ tree, labels, now })], fileSessionId, fromImport }
    }
    case 'claude-code': {
      const fileSessionId = randomUUID()
      return {
        format: 'claude-code',
        lines: [
          ...writeClaude({
            tree: source.tree,
            sessionId: fileSessionId,
            ...(options.cwd ? { cwd: options.cwd } : {}),
            now,
          }),
        ],
        fileSessionId,
        fromImport,
      }
    }
    case 'markdown':
      return {
        format: 'markdown',
        lines: [...writeMarkdown({ tree: source.tree, labels })],
        fileSessionId: tree.sessionId,
        fromImport,
      }
  }
}

/** Where a tool looks for its sessions, so the export can be resumed there directly. */
export function defaultExportPath(
  format: ExportFormat,
  exported: Exported,
  options: { cwd?: string; exportsDir: string; sessionId: string; env?: NodeJS.ProcessEnv },
): string {
  const env = options.env ?? process.env
  const cwd = options.cwd ?? process.cwd()
  switch (format) {
    case 'pi': {
      const agentDir = env.PI_CODING_AGENT_DIR || path.join(homedir(), '.pi', 'agent')
      const dir = `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`
      return path.join(
        agentDir,
        'sessions',
        dir,
        `${new Date().toISOString().replace(/[:.]/g, '-')}_${exported.fileSessionId}.jsonl`,
      )
    }
    case 'claude-code': {
      const config = env.CLAUDE_CONFIG_DIR || path.join(homedir(), '.claude')
      return path.join(config, 'projects', cwd.replace(/[/\\:.]/g, '-'), `${exported.fileSessionId}.jsonl`)
    }
    case 'markdown':
      return path.join(options.exportsDir, `${options.sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}.md`)
  }
}

/** Create `file` with these lines; refuses an existing file or a symlink. Returns the bytes written. */
export function writeNewFile(file: string, lines: readonly string[]): number {
  if (typeof file !== 'string' || file === '' || file.includes('\0'))
    throw new InterchangeError('INVALID_PATH', 'the export path must be a non-empty string')
  const target = path.resolve(file)
  mkdirSync(path.dirname(target), { recursive: true })
  const temp = `${target}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`
  const data = Buffer.from(lines.map((line) => `${line}\n`).join(''))
  const fd = openSync(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    0o644,
  )
  try {
    let offset = 0
    while (offset < data.length) offset += writeSync(fd, data, offset)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  try {
    // A hard link publishes without overwriting: an existing file (or symlink) at the target makes it fail.
    linkSync(temp, target)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new InterchangeError(
      code === 'EEXIST' ? 'INVALID_PATH' : 'WRITE_FAILED',
      code === 'EEXIST' ? `${target} exists; exports never overwrite` : `${target}: ${(error as Error).message}`,
      { path: target },
    )
  } finally {
    rmSync(temp, { force: true })
  }
  return data.length
}
