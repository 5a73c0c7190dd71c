/**
 * dsh-TUI's transcript at a history switch: it reads no `surfaceOp`, so the
 * rows a switch left stay on screen, and a plugin can only add its own. After
 * each turn that switched, one log-only `session-tree/switch` event, drawn by
 * the renderer below, counts the rows above the model no longer reads and the
 * copies just above, from `chatPath` as dsh-TUI draws them. docs/tui.md, "The
 * transcript after a move".
 */
import { SWITCH_ROW_EVENT } from '../harness/plugin-events.ts'
import type { ChatPath, SeqRange } from '../service/chat-path.ts'
import type { LogEvent } from '../harness/log-event.ts'
import { callIdOf } from '../service/chat-switches.ts'
import { isRecord } from '../tree/validate.ts'
import { word, type TuiLang } from './i18n.ts'

/** The payload of one row (kept small: it is replayed with the log). */
export interface SwitchRow {
  readonly target: string | null
  readonly branch: string
  /** Message rows above the row (from the start of the log) that the model no longer reads. */
  readonly hidden: number
  /** Message rows between the previous row (or the switch) and this one that restate the path. */
  readonly restated: number
}

/**
 * The (turn, step) keys whose answer row a later answer erases, by seq of the eraser: dsh-TUI removes
 * the row of its step when an answer with a known-empty `stream` and no text arrives
 * (`channel/projection.js`, `canonical && !text`), as the copies of a switch end their steps.
 */
export function erasedAnswers(events: readonly LogEvent[]): Map<string, number> {
  const at = new Map<string, number>()
  for (const event of events) {
    const data = isRecord(event.data) ? event.data : undefined
    if (event.type !== 'assistant/message' || !data || !Array.isArray(data.stream)) continue
    const message = isRecord(data.message) ? data.message : undefined
    if (!hasText(message?.content)) at.set(`${String(data.turn)}:${String(data.step)}`, event.seq)
  }
  return at
}

/** Whether dsh-TUI draws the event as a message row (its `channel/projection.js` rules). */
export function drawnAsMessage(event: LogEvent, erased: ReadonlyMap<string, number> = new Map()): boolean {
  const data = isRecord(event.data) ? event.data : undefined
  if (!data) return false
  if (event.type === 'user/message') {
    const source = isRecord(data.source) ? data.source : undefined
    return source?.kind === 'user' && hasText(data.content)
  }
  if (event.type === 'assistant/message') {
    const message = isRecord(data.message) ? data.message : undefined
    const eraser = erased.get(`${String(data.turn)}:${String(data.step)}`)
    return hasText(message?.content) && !(eraser !== undefined && eraser > event.seq)
  }
  if (event.type === 'tool/call') return data.name !== 'ask_user_question'
  return false
}

function hasText(content: unknown): boolean {
  if (typeof content === 'string') return content.trim() !== ''
  if (!Array.isArray(content)) return false
  return content.some(
    (block) => isRecord(block) && block.type === 'text' && typeof block.text === 'string' && block.text !== '',
  )
}

const inRanges = (seq: number, ranges: readonly SeqRange[]): boolean =>
  ranges.some(([first, last]) => seq >= first && seq <= last)

/**
 * The rows a log still owes: one per switch of `path` after the last row
 * already written, with its numbers as of now. Pure.
 */
export function pendingSwitchRows(events: readonly LogEvent[], path: ChatPath): SwitchRow[] {
  const written = events.filter((e) => e.type === SWITCH_ROW_EVENT)
  const lastRow = written.at(-1)?.seq ?? -1
  const fresh = path.switches.filter((s) => s.seq > lastRow)
  if (fresh.length === 0) return []
  const abandoned = path.switches.flatMap((s) => s.reveal)
  let hidden = 0
  let restated = 0
  const erased = erasedAnswers(events)
  const original = restatedOriginals(events)
  const compactions = compactionsOnPath(events, path)
  for (const event of events) {
    if (!drawnAsMessage(event, erased) || !inRanges(event.seq, path.hidden)) continue
    // A copy an earlier switch left restates its original: off the path when that original is (hidden),
    // or when a compaction on the path, drawn above the copy, holds the original in its summary.
    const of = original.get(event.seq)
    const gone =
      of !== undefined &&
      (inRanges(of, path.hidden) || compactions.some((c) => c.seq < event.seq && of >= c.start && of <= c.end))
    if (inRanges(event.seq, abandoned) || gone) hidden += 1
    else if (event.seq > lastRow) restated += 1
  }
  // One row for the turn, even when it switched twice: it names where the history is now.
  const last = fresh.at(-1)!
  return [{ target: last.target, branch: last.branch, hidden, restated }]
}

/**
 * The original each copy restates, by the copy's seq: a copy cites exactly one event of its own type
 * (`sourceEventSeqs`); a copied call cites nothing and takes its result's original.
 */
function restatedOriginals(events: readonly LogEvent[]): Map<number, number> {
  const at = new Map<number, number>()
  const calls = new Map<string, number>()
  const typeAt = new Map(events.map((e) => [e.seq, e.type]))
  for (const event of events) {
    const data = isRecord(event.data) ? event.data : undefined
    if (event.type === 'tool/call' && typeof data?.callId === 'string') calls.set(data.callId, event.seq)
    const cited = Array.isArray(event.sourceEventSeqs) ? event.sourceEventSeqs : []
    const first = cited[0]
    if (event.surfaceOp !== 'append' || cited.length !== 1 || typeof first !== 'number') continue
    if (typeAt.get(first) !== event.type) continue
    at.set(event.seq, first)
    const callId = event.type === 'tool/result' ? callIdOf(event) : undefined
    const call = callId === undefined ? undefined : calls.get(callId)
    if (call !== undefined && !at.has(call)) at.set(call, first)
  }
  return at
}

/** DSH's compaction checkpoints the path holds: the seq range each replaced (it cites its `compaction/summary`). */
function compactionsOnPath(events: readonly LogEvent[], path: ChatPath): { seq: number; start: number; end: number }[] {
  const summaries = new Set(events.filter((e) => e.type === 'compaction/summary').map((e) => e.seq))
  return events.flatMap((e) => {
    const op = isRecord(e.surfaceOp) ? e.surfaceOp : undefined
    const cited = Array.isArray(e.sourceEventSeqs) ? e.sourceEventSeqs : []
    if (op?.op !== 'replace' || typeof op.start !== 'number' || typeof op.end !== 'number') return []
    if (!cited.some((seq) => summaries.has(seq)) || inRanges(e.seq, path.hidden)) return []
    return [{ seq: e.seq, start: op.start, end: op.end }]
  })
}

/** The row as dsh-TUI draws it (`ctx.tuiRenderers`: a title and plain lines). */
export function renderSwitchRow(payload: unknown, lang: TuiLang): { title: string; lines: string[] } | undefined {
  if (!isRecord(payload)) return undefined
  const target = typeof payload.target === 'string' ? payload.target : '—'
  const branch = typeof payload.branch === 'string' && payload.branch !== '' ? payload.branch : '—'
  const hidden = typeof payload.hidden === 'number' ? payload.hidden : 0
  const restated = typeof payload.restated === 'number' ? payload.restated : 0
  const title = `⎇ ${word(lang, 'switch.row', { branch, node: target })} · ${word(lang, 'switch.hidden', { n: hidden })}`
  const lines = restated > 0 ? [word(lang, 'switch.restated', { n: restated })] : []
  return { title, lines }
}
