/**
 * JSONL, streamed: one record per line, read in chunks with memory bounded by
 * the longest line (itself bounded by `maxLineBytes`). Real session files
 * contain torn lines — two records written onto one line by concurrent
 * writers, a record cut off by a crash and followed by the next one — so a
 * line that does not parse is split into the complete JSON objects it holds;
 * what cannot be recovered is reported with its line number, never dropped
 * silently.
 */
import { StringDecoder } from 'node:string_decoder'
import { InterchangeError } from './errors.ts'

/** One record of a JSONL source. */
export type LineRecord =
  | { readonly kind: 'record'; readonly line: number; readonly value: unknown; readonly recovered?: boolean }
  | { readonly kind: 'bad'; readonly line: number; readonly reason: string }
  /** A line that held several complete records, all recovered. */
  | { readonly kind: 'torn'; readonly line: number; readonly reason: string }

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024

/** Split a chunk stream into lines (without the newline; a trailing `\r` is dropped). */
export async function* splitLines(
  chunks: AsyncIterable<Buffer | string>,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): AsyncGenerator<{ line: number; text: string }> {
  const decoder = new StringDecoder('utf8')
  let pending: string[] = []
  let pendingLength = 0
  let line = 0
  const take = (tail: string): string => {
    const text = pending.length === 0 ? tail : pending.join('') + tail
    pending = []
    pendingLength = 0
    return text.endsWith('\r') ? text.slice(0, -1) : text
  }
  for await (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk)
    let start = 0
    for (;;) {
      const nl = text.indexOf('\n', start)
      if (nl === -1) break
      line++
      if (pendingLength + (nl - start) > maxLineBytes) throw tooLong(line, maxLineBytes)
      yield { line, text: take(text.slice(start, nl)) }
      start = nl + 1
    }
    if (start < text.length) {
      pending.push(text.slice(start))
      pendingLength += text.length - start
      if (pendingLength > maxLineBytes) throw tooLong(line + 1, maxLineBytes)
    }
  }
  const rest = decoder.end()
  if (rest) {
    pending.push(rest)
    pendingLength += rest.length
  }
  if (pendingLength > 0) yield { line: line + 1, text: take('') }
}

function tooLong(line: number, max: number): InterchangeError {
  return new InterchangeError('TOO_LARGE', `line ${line} is longer than ${max} characters`, { line, limit: max })
}

/** Parse every line; torn lines are split into the objects they hold. Blank lines are skipped. */
export async function* readJsonl(
  chunks: AsyncIterable<Buffer | string>,
  maxLineBytes?: number,
): AsyncGenerator<LineRecord> {
  for await (const { line, text } of splitLines(chunks, maxLineBytes)) {
    if (text.trim() === '') continue
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      yield* recoverLine(line, text)
      continue
    }
    yield { kind: 'record', line, value }
  }
}

/** Most restarts tried on one torn line (each costs one scan of the rest of the line). */
const MAX_RESTARTS = 64

/**
 * A line that is not one JSON value: yield every complete object in it, in
 * order, and one `bad` record describing what was lost.
 */
export function* recoverLine(line: number, text: string): Generator<LineRecord> {
  let position = 0
  let found = 0
  let lost = 0
  let restarts = 0
  while (position < text.length) {
    const start = text.indexOf('{', position)
    if (start === -1) {
      lost += text.slice(position).trim().length
      break
    }
    lost += text.slice(position, start).trim().length
    const end = objectEnd(text, start)
    if (end !== -1) {
      try {
        const value = JSON.parse(text.slice(start, end))
        found++
        yield { kind: 'record', line, value, recovered: true }
        position = end
        continue
      } catch {
        // Balanced but not JSON: fall through and look for the next record start.
      }
    }
    // Incomplete from `start`: a later `{"` may begin a complete record (a truncated record followed by the next).
    if (++restarts > MAX_RESTARTS) {
      lost += text.length - start
      break
    }
    const next = text.indexOf('{"', start + 1)
    if (next === -1) {
      lost += text.length - start
      break
    }
    lost += next - start
    position = next
  }
  if (found === 0) yield { kind: 'bad', line, reason: `not JSON (${text.length} characters, nothing recoverable)` }
  else if (lost > 0)
    yield {
      kind: 'bad',
      line,
      reason: `torn line: ${found} record(s) recovered, ${lost} character(s) of a truncated record dropped`,
    }
  else if (found > 1)
    yield { kind: 'torn', line, reason: `torn line: ${found} records written on one line, all recovered` }
}

/** Index just past the object that starts at `start`, or -1 when it does not close on this line. */
function objectEnd(text: string, start: number): number {
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92 /* \ */) i++
      else if (c === 34 /* " */) inString = false
      continue
    }
    if (c === 34) inString = true
    else if (c === 123 /* { */ || c === 91 /* [ */) depth++
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--
      if (depth === 0) return i + 1
    }
  }
  return -1
}
