/**
 * The one rule every dsh-TUI test judges a screen by: read against the request the model was sent
 * (and the answer it gave), the transcript shows the model's history or says it does not.
 * - No row reports a failed turn ("Turn error", "turn blocked").
 * - No prompt or answer row is drawn twice, and no tool card more often than the model made calls it
 *   shows, except the rows just above a switch row that it says restate the path (as many as it says:
 *   dsh-TUI draws a card for every call, the copies' too). Each of those must copy a row above it.
 * - Every message row (prompt, answer, tool card) below the last switch row is on the path.
 * - The last switch row's "N message(s) above hidden from the model" is exactly the number of
 *   message rows above it that are not on the path.
 * A row above dsh-TUI's compaction row (`∴ Summary folded · …`) that the compaction summarized (it is
 * in the fake LLM's compaction request) is marked by that row while the path holds the summary: it
 * is neither on the path verbatim nor hidden.
 */
import path from 'node:path'
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

/** A row as the twice count keys it: its kind and text, a card's running time left out. */
const cardKey = (row: TranscriptRow): string =>
  `${row.kind} ${row.kind === 'tool' ? flat(row.text).replace(/\s*·\s*[\d.]+m?s$/, '') : flat(row.text)}`

/** A tool call as a card shows it: the tool's name and the file it names, if any. */
function callShape(call: { readonly name: string; readonly arguments?: unknown }): {
  name: string
  file?: string
} {
  let args: unknown = call.arguments
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args)
    } catch {
      args = undefined
    }
  }
  const file =
    typeof args === 'object' && args !== null && 'file_path' in args && typeof args.file_path === 'string'
      ? args.file_path
      : undefined
  return { name: call.name.toLowerCase(), ...(file === undefined ? {} : { file: path.basename(file) }) }
}

/** Whether a card's text shows this call (its tool, and the file it names). */
const cardShowsCall = (text: string, call: { name: string; file?: string }): boolean =>
  flat(text).toLowerCase().startsWith(call.name) && (call.file === undefined || text.includes(call.file))

/** The messages of a request as rows show them: prompts, answers, tool names. */
function shown(request: RecordedRequest, withReply: boolean) {
  const messages = request.body.messages
  const reply =
    withReply && 'text' in request.reply && typeof request.reply.text === 'string' ? [flat(request.reply.text)] : []
  return {
    prompts: messages.filter((m) => m.role === 'user').map((m) => flat(messageText(m))),
    answers: [...messages.filter((m) => m.role === 'assistant').map((m) => flat(messageText(m))), ...reply],
    calls: [
      ...messages.flatMap(
        (m) => m.tool_calls?.map((c) => callShape({ name: c.function.name, arguments: c.function.arguments })) ?? [],
      ),
      ...(withReply && 'toolCalls' in request.reply ? request.reply.toolCalls.map(callShape) : []),
    ],
  }
}

/** Whether a row shows one of these messages (a row is the first line of a message, cut to the width). */
function shows(row: TranscriptRow, of: ReturnType<typeof shown>): boolean {
  const text = flat(row.text)
  if (row.kind === 'user') return of.prompts.some((p) => p.startsWith(text))
  if (row.kind === 'assistant') return of.answers.some((a) => a.startsWith(text))
  return of.calls.some((call) => cardShowsCall(text, call))
}

/**
 * Read `screen` (a capture with its scrollback) against `request`: what the model read, and its answer.
 * `compactions` are DSH's compaction requests so far (the fake LLM's), in order, as dsh-TUI draws a row for each.
 */
export function readScreen(
  screen: string,
  request: RecordedRequest,
  compactions: readonly RecordedRequest[] = [],
  answered: readonly RecordedRequest[] = [],
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
  const switches = rows.filter((row) => row.kind === 'plugin' && /Switched to/.test(row.text))
  const last = switches.at(-1)
  // A switch row that restated part of the path says so on its second line.
  const numbers = switches.map((row) => ({
    text: row.text,
    hidden: Number(/(\d+) message\(s\) above hidden/.exec(row.text)?.[1] ?? NaN),
    restated: Number(/the (\d+) message\(s\) just above/.exec(`${row.text}\n${lines[row.line + 1] ?? ''}`)?.[1] ?? 0),
  }))
  // The rows a switch row says restate the path: that many message rows just above it, each the copy
  // of an original drawn above them (the latest run of rows, not copies, that they repeat in order).
  const copies = new Map<TranscriptRow, TranscriptRow | undefined>()
  const orphans: string[] = []
  numbers.forEach(({ restated }, i) => {
    if (restated === 0) return
    const at = rows.indexOf(switches[i]!)
    const above = rows.slice(0, at).filter(isMessage).slice(-restated)
    if (above.length < restated) orphans.push(`${switches[i]!.text}: fewer than ${restated} rows above it`)
    const originals = rows.filter((r) => isMessage(r) && r.line < above[0]!.line && !copies.has(r))
    const start = originals.findLastIndex((_, j) =>
      above.every((row, k) => originals[j + k] !== undefined && cardKey(originals[j + k]!) === cardKey(row)),
    )
    above.forEach((row, k) => copies.set(row, start < 0 ? undefined : originals[start + k]))
    // A "copy" of nothing drawn is a row the switch row mislabels.
    if (start < 0) orphans.push(`restated without originals: ${above.map(cardKey).join(', ')}`)
  })
  // A card is its turn's: on the path only with the prompt it follows (two calls can draw the same
  // card text, one on the path, one not).
  const owner = (row: TranscriptRow): TranscriptRow | undefined =>
    rows.slice(0, rows.indexOf(row)).findLast((r) => r.kind === 'user')
  const onPath = (row: TranscriptRow): boolean => {
    if (compacted(row)) return true
    if (!shows(row, path)) return false
    // A copy is on the path when what it restates is.
    if (copies.has(row)) return copies.get(row) === undefined || onPath(copies.get(row)!)
    const prompt = row.kind === 'tool' ? owner(row) : undefined
    return prompt === undefined || shows(prompt, path) || compacted(prompt)
  }
  const counts = new Map<string, number>()
  for (const row of rows.filter((r) => isMessage(r) && !copies.has(r))) {
    const key = cardKey(row)
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  // Each call the model made is drawn once as its own card (two calls may draw the same card text).
  const calls = answered.flatMap((r) =>
    'toolCalls' in r.reply ? r.reply.toolCalls.map((c, i) => ({ id: c.id ?? `${r.n}:${i}`, ...callShape(c) })) : [],
  )
  const made = (key: string): number =>
    Math.max(1, new Set(calls.filter((c) => cardShowsCall(key.slice('tool '.length), c)).map((c) => c.id)).size)
  const twice = [
    ...[...counts]
      .filter(([key, n]) => (key.startsWith('tool ') ? n > made(key) : n > 1))
      .map(([key, n]) => `${key} ×${n}`),
    ...orphans,
  ]
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
