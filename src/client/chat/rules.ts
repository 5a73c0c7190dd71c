/**
 * Which of the Chat's rows to hide, reveal or show, and the stylesheet (pure).
 * A host row's `anchorSeq`, rounded, names the event the service classified
 * (host offsets stay within ±0.9); rows newer than the answer come from
 * `live.ts`. Without an answer there is no rule: the Chat shows everything.
 */
import type { ChatFork, ChatPath, ChatSwitch, SeqRange } from '../../types.ts'
import { FORK_KIND, FORK_OFFSET, SWITCH_KIND } from './definitions.ts'
import { applyLive, type ChatRow, type RowState } from './live.ts'

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

/** What the rules read of a `chatPath` answer. */
export type ChatAnswer = Pick<ChatPath, 'watermark' | 'hidden' | 'switches' | 'forks'>

/** Before the first answer: nothing classified, every event read live. */
export const NOTHING_KNOWN: ChatAnswer = { watermark: -1, hidden: [], switches: [], forks: [] }

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

export function chatRules(
  path: ChatAnswer | undefined,
  input: Iterable<ChatRow>,
  expanded: ReadonlySet<number>,
): ChatRules {
  if (!path) return NO_RULES
  const rows = [...input]
  const switchAt = new Map(path.switches.map((s) => [s.seq, s]))
  const forkAt = new Map(path.forks.map((f) => [f.seq, f]))
  const reveals = path.switches.filter((s) => s.lead && expanded.has(s.seq)).map((s) => s.reveal)
  const switches = new Map<string, ChatSwitch>()
  const forks = new Map<string, ChatFork>()
  // The answer's reading: our rows show where it placed one, host rows hide where it hid their event.
  const states: RowState[] = rows.map((row) => {
    if (row.kind === SWITCH_KIND) {
      const found = switchAt.get(Math.round(row.anchorSeq))
      if (!found) return 'hidden'
      switches.set(row.key, found)
      return found.lead || expanded.has(found.leadSeq) ? 'shown' : 'hidden'
    }
    if (row.kind === FORK_KIND) {
      const found = forkAt.get(forkSeqOf(row))
      if (!found) return 'hidden'
      forks.set(row.key, found)
      return 'shown'
    }
    const seq = Math.round(row.anchorSeq)
    if (seq > path.watermark || !inRanges(path.hidden, seq)) return 'shown'
    return reveals.some((ranges) => inRanges(ranges, seq)) ? 'dimmed' : 'hidden'
  })
  // What the events after the answer already say.
  applyLive(rows, states, path.watermark, path !== NOTHING_KNOWN)
  const hide: string[] = []
  const reveal: string[] = []
  const show: string[] = []
  rows.forEach((row, i) => {
    const state = states[i]!
    if (row.kind === SWITCH_KIND || row.kind === FORK_KIND) {
      if (state === 'shown' && (switches.has(row.key) || forks.has(row.key))) show.push(row.key)
    } else if (state === 'hidden') hide.push(row.key)
    else if (state === 'dimmed') reveal.push(row.key)
  })
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
    for (let i = 0; i < keys.length; i += CHUNK)
      out.push(
        `${keys
          .slice(i, i + CHUNK)
          .map((key) => `${scope}${cssString(key)}]`)
          .join(',\n')} { ${body} }`,
      )
    return out.join('\n')
  }
  return [
    block(rules.hide, 'display: none;'),
    block(rules.reveal, 'opacity: 0.5;'),
    block(rules.show, 'display: block;'),
  ]
    .filter(Boolean)
    .join('\n')
}
