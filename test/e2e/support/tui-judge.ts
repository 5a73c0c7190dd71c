/**
 * The one rule every dsh-TUI test judges a screen by: read against the request the model was sent
 * (and the answer it gave), the transcript shows the model's history or says it does not.
 * - No row reports a failed turn ("Turn error", "turn blocked").
 * - No prompt or answer row is drawn twice (a tool card may be, as many times as a switch row says
 *   the rows just above restate the path: dsh-TUI draws a card for every call).
 * - Every message row (prompt, answer, tool card) below the last switch row is on the path.
 * - The last switch row's "N message(s) above hidden from the model" is exactly the number of
 *   message rows above it that are not on the path.
 * A row above dsh-TUI's compaction row (`∴ Summary folded · …`) that the compaction summarized (it is
 * in the fake LLM's compaction request) is marked by that row while the path holds the summary: it
 * is neither on the path verbatim nor hidden.
 */
import { expect } from 'vitest'
import { transcriptRows, type TranscriptRow } from './dsh-tui.ts'
import { messageText, type RecordedRequest } from './fake-llm.ts'

/** What a screen says, against a request. */
export interface ScreenReading {
  /** Lines that report a failed turn. */
  readonly errors: readonly string[]
  /** Prompt and answer rows drawn more than once, and tool cards drawn more often than restated. */
  readonly twice: readonly string[]
  /** Message rows below the last switch row that the request does not hold. */
  readonly offPathBelow: readonly string[]
  /** Message rows above the last switch row that the request does not hold. */
  readonly offPathAbove: readonly string[]
  /** Message rows a compaction on the path summarized (above its row, in its request). */
  readonly compacted: readonly string[]
  /** What the last switch row says is hidden above it (null: no switch row). */
  readonly hiddenSaid: number | null
  /** Each switch row's numbers, top to bottom: hidden above it, restated just above it. */
  readonly switches: readonly { readonly text: string; readonly hidden: number; readonly restated: number }[]
  /** The message rows, in order (for the evidence). */
  readonly rows: readonly string[]
}

const flat = (text: string): string => text.replace(/\s+/g, ' ').trim().replace(/…$/, '')

const isMessage = (row: TranscriptRow): boolean =>
  row.kind === 'user' || row.kind === 'assistant' || row.kind === 'tool'

/** The messages of a request as rows show them: prompts, answers, tool names. */
function shown(request: RecordedRequest, withReply: boolean) {
  const messages = request.body.messages
  const reply =
    withReply && 'text' in request.reply && typeof request.reply.text === 'string' ? [flat(request.reply.text)] : []
  return {
    prompts: messages.filter((m) => m.role === 'user').map((m) => flat(messageText(m))),
    answers: [...messages.filter((m) => m.role === 'assistant').map((m) => flat(messageText(m))), ...reply],
    calls: [
      ...messages.flatMap((m) => m.tool_calls?.map((c) => c.function.name) ?? []),
      ...(withReply && 'toolCalls' in request.reply ? request.reply.toolCalls.map((c) => c.name) : []),
    ],
  }
}

/** Whether a row shows one of these messages (a row is the first line of a message, cut to the width). */
function shows(row: TranscriptRow, of: ReturnType<typeof shown>): boolean {
  const text = flat(row.text)
  if (row.kind === 'user') return of.prompts.some((p) => p.startsWith(text))
  if (row.kind === 'assistant') return of.answers.some((a) => a.startsWith(text))
  return of.calls.some((name) => text.toLowerCase().startsWith(name))
}

/**
 * Read `screen` (a capture with its scrollback) against `request`: what the model read, and its answer.
 * `compactions` are DSH's compaction requests so far (the fake LLM's), in order, as dsh-TUI draws a row for each.
 */
export function readScreen(
  screen: string,
  request: RecordedRequest,
  compactions: readonly RecordedRequest[] = [],
): ScreenReading {
  const rows = transcriptRows(screen)
  const lines = screen.split('\n')
  const path = shown(request, true)
  const sent = request.body.messages.map(messageText)
  // The compactions whose summary the path holds, with the line of the row dsh-TUI drew for each.
  const markers = lines.flatMap((text, line) => (/^\s{2,}∴ /.test(text) ? [line] : []))
  const onTheirPath = compactions.flatMap((compaction, i) => {
    const summary = 'text' in compaction.reply ? compaction.reply.text : undefined
    const line = markers[i]
    return summary && line !== undefined && sent.some((text) => text.includes(summary))
      ? [{ line, summarized: shown(compaction, false) }]
      : []
  })
  const compacted = (row: TranscriptRow): boolean =>
    onTheirPath.some(({ line, summarized }) => row.line < line && shows(row, summarized))
  const onPath = (row: TranscriptRow): boolean => shows(row, path) || compacted(row)
  const switches = rows.filter((row) => row.kind === 'plugin' && /Switched to/.test(row.text))
  const last = switches.at(-1)
  // A switch row that restated part of the path says so on its second line.
  const numbers = switches.map((row) => ({
    text: row.text,
    hidden: Number(/(\d+) message\(s\) above hidden/.exec(row.text)?.[1] ?? NaN),
    restated: Number(/the (\d+) message\(s\) just above/.exec(`${row.text}\n${lines[row.line + 1] ?? ''}`)?.[1] ?? 0),
  }))
  const restated = numbers.reduce((sum, row) => sum + row.restated, 0)
  const counts = new Map<string, number>()
  for (const row of rows.filter(isMessage)) {
    const key = `${row.kind} ${flat(row.text)}`
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  const cardsTwice = [...counts]
    .filter(([key, n]) => key.startsWith('tool ') && n > 1)
    .reduce((s, [, n]) => s + n - 1, 0)
  const twice = [...counts]
    .filter(([key, n]) => n > 1 && (!key.startsWith('tool ') || cardsTwice > restated))
    .map(([key]) => key)
  const described = (row: TranscriptRow): string => `${row.kind} ${row.text}`
  const line = last?.line ?? -1
  return {
    errors: lines.filter((text) => /Turn error|turn blocked/i.test(text)),
    twice,
    offPathBelow: rows.filter((row) => isMessage(row) && row.line > line && !onPath(row)).map(described),
    offPathAbove: rows.filter((row) => isMessage(row) && row.line < line && !onPath(row)).map(described),
    compacted: rows.filter((row) => isMessage(row) && !shows(row, path) && compacted(row)).map(described),
    hiddenSaid: numbers.at(-1)?.hidden ?? null,
    switches: numbers,
    rows: rows.filter(isMessage).map(described),
  }
}

/** The rule, asserted: nothing reported as an error, nothing twice, every row on the path or counted hidden. */
export function expectReadsAsModel(reading: ScreenReading): void {
  expect(reading.errors, 'rows reporting a failed turn').toEqual([])
  expect(reading.twice, 'rows drawn twice').toEqual([])
  expect(reading.offPathBelow, 'rows below the last switch row that the model does not read').toEqual([])
  expect(reading.hiddenSaid ?? 0, 'the hidden count of the last switch row').toBe(reading.offPathAbove.length)
}
