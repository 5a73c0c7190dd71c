/**
 * One entry point for every format: detect (or check) the format from the
 * first records, then read the whole stream into the neutral tree.
 */
import type { RawSink } from './builder.ts'
import { readClaude } from './claude/read.ts'
import type { SubagentSource } from './claude/subagents.ts'
import { readCodexFamily, type CodexSource } from './codex/read.ts'
import { detectFormat } from './detect.ts'
import { InterchangeError } from './errors.ts'
import { readJsonl } from './lines.ts'
import type { ImportReport, InterchangeTree, SourceFormat } from './model.ts'
import { readPi } from './pi/read.ts'

export interface ReadOptions {
  /** `auto` (default) detects the format; a named format must match what is detected. */
  readonly format?: SourceFormat | 'auto'
  readonly maxLineBytes?: number
  /** Claude Code subagent transcripts found beside the session. */
  readonly subagents?: readonly SubagentSource[]
  /** Codex: the rollouts of the stream's family, parents first, `'main'` where the stream itself goes (its forks and the threads it forked from). */
  readonly codexFamily?: readonly (CodexSource | 'main')[]
  /** Where source records go (default: they stay on the nodes, as `raw`). */
  readonly sink?: RawSink
}

export async function readSession(
  chunks: AsyncIterable<Buffer | string>,
  options: ReadOptions = {},
): Promise<{ tree: InterchangeTree; report: ImportReport }> {
  const detected = await detectFormat(readJsonl(chunks, options.maxLineBytes))
  if (options.format !== undefined && options.format !== 'auto' && options.format !== detected.format) {
    throw new InterchangeError(
      'FORMAT_MISMATCH',
      `the file looks like a ${detected.format} session, not ${options.format}`,
      { detected: detected.format },
    )
  }
  switch (detected.format) {
    case 'pi':
      return readPi(detected.records, options.sink)
    case 'claude-code':
      return readClaude(detected.records, {
        subagents: options.subagents ?? [],
        ...(options.sink ? { sink: options.sink } : {}),
      })
    case 'codex': {
      const family = options.codexFamily ?? ['main']
      const sources = family.map((source) => (source === 'main' ? { name: 'main', records: detected.records } : source))
      return readCodexFamily(sources, options.sink, Math.max(0, family.indexOf('main')))
    }
  }
}
