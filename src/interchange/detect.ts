/**
 * Which tool wrote a JSONL file, from its first records:
 * - Pi: line 1 is `{type:"session", id, …}` (the header);
 * - Codex: `{timestamp, type, payload}` envelopes (`session_meta`, `response_item`, …);
 * - Claude Code: records with `uuid`/`parentUuid` and a `type` of user, assistant,
 *   system, summary, … (a file may start with `summary` or `file-history-snapshot`).
 */
import { InterchangeError } from './errors.ts'
import type { LineRecord } from './lines.ts'
import type { SourceFormat } from './model.ts'
import { isJsonObject } from '../tree/validate.ts'

const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted'])
const CLAUDE_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'progress',
  'attachment',
  'file-history-snapshot',
  'queue-operation',
  'last-prompt',
  'custom-title',
  'agent-name',
  'ai-title',
  'permission-mode',
  'mode',
])
/** Records looked at before giving up. */
const LOOKAHEAD = 50

/** The format of one record, when it says. */
export function formatOf(value: unknown, first: boolean): SourceFormat | undefined {
  if (!isJsonObject(value) || typeof value.type !== 'string') return undefined
  if (first && value.type === 'session' && typeof value.id === 'string') return 'pi'
  if (CODEX_TYPES.has(value.type) && 'payload' in value) return 'codex'
  if (
    CLAUDE_TYPES.has(value.type) &&
    ('uuid' in value || 'leafUuid' in value || 'messageId' in value || 'sessionId' in value)
  )
    return 'claude-code'
  return undefined
}

/** Detect the format, then hand back the whole record stream (nothing consumed is lost). */
export async function detectFormat(
  records: AsyncIterable<LineRecord>,
): Promise<{ format: SourceFormat; records: AsyncIterable<LineRecord> }> {
  const iterator = records[Symbol.asyncIterator]()
  const seen: LineRecord[] = []
  let format: SourceFormat | undefined
  let firstRecord = true
  while (seen.length < LOOKAHEAD) {
    const next = await iterator.next()
    if (next.done) break
    seen.push(next.value)
    if (next.value.kind !== 'record') continue
    format = formatOf(next.value.value, firstRecord)
    firstRecord = false
    if (format !== undefined) break
  }
  if (format === undefined) {
    const lines =
      seen.length === 0
        ? 'the file is empty'
        : `none of its first ${seen.length} line(s) is a Pi, Claude Code or Codex record`
    throw new InterchangeError('NOT_A_SESSION', lines)
  }
  async function* replay(): AsyncGenerator<LineRecord> {
    yield* seen
    for (;;) {
      const next = await iterator.next()
      if (next.done) return
      yield next.value
    }
  }
  return { format, records: replay() }
}
