/**
 * Which of the Chat's rows to hide, reveal or show, and the stylesheet that
 * does it. Pure.
 *
 * Every host row is a node of the Chat's snapshot with a stable `key` (the
 * DOM's `data-chat-flow-key`) and an `anchorSeq`: the seq of the event it is
 * drawn from, or a fraction away from it (the host's synthetic offsets stay
 * within ±0.9 of an event of the same turn). Rounded, it names the event the
 * service classified. A row the service knows nothing of (newer than its
 * answer) is shown: the Chat fails closed to "show everything".
 */
import type { ChatFork, ChatPath, ChatSwitch, SeqRange } from '../../types.ts'
import { FORK_KIND, FORK_OFFSET, SWITCH_KIND } from './definitions.ts'

/** One node of the host Chat's snapshot, as far as the rules read it. */
export interface ChatRow {
  readonly key: string
  readonly kind: string
  readonly anchorSeq: number
}

export interface ChatRules {
  /** Host rows off the model's history. */
  readonly hide: readonly string[]
  /** Hidden rows shown on request ("Show"): dimmed. */
  readonly reveal: readonly string[]
  /** Our own rows (switch rows, fork controls) that show. */
  readonly show: readonly string[]
  /** Our rows by key: what each one stands for. */
  readonly switches: ReadonlyMap<string, ChatSwitch>
  readonly forks: ReadonlyMap<string, ChatFork>
}

export const NO_RULES: ChatRules = { hide: [], reveal: [], show: [], switches: new Map(), forks: new Map() }

/** Whether `seq` lies in sorted disjoint ranges (binary search). */
export function inRanges(ranges: readonly SeqRange[], seq: number): boolean {
  let lo = 0
  let hi = ranges.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const [first, last] = ranges[mid]!
    if (seq < first) hi = mid - 1
    else if (seq > last) lo = mid + 1
    else return true
  }
  return false
}

/** The seq a fork seat belongs to (its message row's first event). */
export const forkSeqOf = (row: ChatRow): number => Math.round(row.anchorSeq - FORK_OFFSET)

export function chatRules(path: ChatPath | undefined, rows: Iterable<ChatRow>, expanded: ReadonlySet<number>): ChatRules {
  if (!path) return NO_RULES
  const switchAt = new Map(path.switches.map((s) => [s.seq, s]))
  const forkAt = new Map(path.forks.map((f) => [f.seq, f]))
  const reveals = path.switches.filter((s) => s.lead && expanded.has(s.seq)).map((s) => s.reveal)
  const hide: string[] = []
  const reveal: string[] = []
  const show: string[] = []
  const switches = new Map<string, ChatSwitch>()
  const forks = new Map<string, ChatFork>()
  for (const row of rows) {
    if (row.kind === SWITCH_KIND) {
      const found = switchAt.get(Math.round(row.anchorSeq))
      if (!found) continue
      switches.set(row.key, found)
      if (found.lead || expanded.has(found.leadSeq)) show.push(row.key)
    } else if (row.kind === FORK_KIND) {
      const found = forkAt.get(forkSeqOf(row))
      if (!found) continue
      forks.set(row.key, found)
      show.push(row.key)
    } else {
      const seq = Math.round(row.anchorSeq)
      if (seq > path.watermark || !inRanges(path.hidden, seq)) continue
      if (reveals.some((ranges) => inRanges(ranges, seq))) reveal.push(row.key)
      else hide.push(row.key)
    }
  }
  return { hide, reveal, show, switches, forks }
}

/** A CSS string literal (quotes, backslashes and control characters escaped). */
export function cssString(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\u0000-\u001f\u007f]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}"`
}

/** Selectors per rule: a long list is split so no single rule grows without bound. */
const CHUNK = 200

/**
 * The stylesheet for one session's Chat: rows are addressed by their flow
 * key inside the column our nodes marked with `data-session-tree-chat`, so
 * another session's Chat (its keys may repeat, e.g. `assistant-step1:1`) is
 * never touched.
 */
export function chatCss(sessionId: string, rules: ChatRules): string {
  const scope = `[data-chat-flow][data-session-tree-chat=${cssString(sessionId)}] > [data-chat-flow-key=`
  const block = (keys: readonly string[], body: string): string => {
    const out: string[] = []
    for (let i = 0; i < keys.length; i += CHUNK) out.push(`${keys.slice(i, i + CHUNK).map((key) => `${scope}${cssString(key)}]`).join(',\n')} { ${body} }`)
    return out.join('\n')
  }
  return [
    block(rules.hide, 'display: none;'),
    block(rules.reveal, 'opacity: 0.5;'),
    block(rules.show, 'display: block;'),
  ].filter(Boolean).join('\n')
}
