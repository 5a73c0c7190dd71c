/**
 * What the Chat knows before the service answers: rows after the answer's
 * watermark are read from the switch's own events (our nodes' data), so no
 * painted frame shows a row the next `chatPath` hides. A copy is hidden and
 * its original shown; a cut hides the history it leaves; a turn tail shows
 * with its turn. It errs one way only: a row it cannot place stays hidden
 * until the answer shows it. Pure; O(rows).
 */
import { FORK_KIND, FORK_OFFSET, SWITCH_KIND, type SeatData, type SwitchData } from './definitions.ts'
import { isRecord } from '../../tree/validate.ts'

/** One node of the host Chat's snapshot, as the live reading and the rules read it. */
export interface ChatRow {
  readonly key: string
  readonly kind: string
  readonly anchorSeq: number
  /** Our nodes: what their event said. */
  readonly data?: unknown
  /** Host rows: the turn they belong to. */
  readonly turn?: number
}

/** A row's state: on screen, dimmed (revealed on request), or hidden. */
export type RowState = 'shown' | 'dimmed' | 'hidden'

/** Host rows that stand for a message of the history (and so decide what stays). */
const MESSAGE_KINDS = new Set(['user', 'context', 'assistant-step', 'tool-call'])

const isOurs = (kind: string): boolean => kind === SWITCH_KIND || kind === FORK_KIND

function seatOf(row: ChatRow): SeatData | undefined {
  return row.kind === FORK_KIND && isRecord(row.data) && typeof row.data.seq === 'number'
    ? (row.data as unknown as SeatData)
    : undefined
}

function switchOf(row: ChatRow): SwitchData | undefined {
  return row.kind === SWITCH_KIND && isRecord(row.data) && typeof row.data.seq === 'number'
    ? (row.data as unknown as SwitchData)
    : undefined
}

/** One step of the live reading: a copy or a cut, at its event's seq. */
type Step =
  | { readonly kind: 'copy'; readonly seq: number; readonly original: number }
  | { readonly kind: 'leave'; readonly seq: number; readonly from: number }
  | { readonly kind: 'replace'; readonly seq: number; readonly shadowed: readonly number[] }
  | { readonly kind: 'selection'; readonly seq: number; readonly selected: ReadonlySet<number> }

/**
 * Apply the events after `watermark` to `states` (one per row, the answer's
 * reading; rows after the watermark start `shown`). Rows are in Chat order.
 */
export function applyLive(rows: readonly ChatRow[], states: RowState[], watermark: number, markers = true): void {
  const seats = new Map<number, SeatData>()
  /** Call seqs by call id, ascending. */
  const calls = new Map<string, number[]>()
  /** Host rows by the seq they are drawn from. */
  const hostAt = new Map<number, number[]>()
  const moveAnchors = new Set<number>()
  const steps: Step[] = []
  rows.forEach((row, i) => {
    const seat = seatOf(row)
    if (seat) {
      seats.set(seat.seq, seat)
      if (seat.event === 'call' && seat.callId !== undefined) {
        const list = calls.get(seat.callId) ?? []
        list.push(seat.seq)
        calls.set(seat.callId, list)
      }
      if (seat.seq > watermark) {
        if (seat.copy && seat.copyOf !== undefined) steps.push({ kind: 'copy', seq: seat.seq, original: seat.copyOf })
        if (seat.event === 'replace' && seat.shadowed && seat.shadowed.length > 0) {
          steps.push({ kind: 'replace', seq: seat.seq, shadowed: seat.shadowed })
          if (seat.standIn !== undefined) steps.push({ kind: 'copy', seq: seat.seq, original: seat.standIn })
        }
      }
      return
    }
    const sw = switchOf(row)
    if (sw) {
      if (sw.anchor === 'move') moveAnchors.add(sw.seq)
      if (sw.seq > watermark && sw.anchor === 'selection' && sw.selected)
        steps.push({ kind: 'selection', seq: sw.seq, selected: new Set(sw.selected) })
      // A queued marker says where its switch leaves the history: those rows go before the maintenance turn runs.
      // Only on top of an answer: a marker in a log the service has not read yet may never run (a Branch
      // seed copies a queued one into the child, where nothing claims it).
      if (markers && sw.seq > watermark && sw.anchor === 'marker' && sw.leaves !== undefined)
        steps.push({ kind: 'leave', seq: sw.seq, from: sw.leaves })
      return
    }
    if (isOurs(row.kind)) return
    const seq = Math.round(row.anchorSeq)
    const list = hostAt.get(seq) ?? []
    list.push(i)
    hostAt.set(seq, list)
  })
  const touched = new Set<number>()
  const set = (index: number, state: RowState): void => {
    if (states[index] === state) return
    states[index] = state
    const turn = rows[index]!.turn
    if (turn !== undefined) touched.add(turn)
  }
  // The rows drawn from copies (a result's card is drawn from its call, a copy too).
  for (const [seq, seat] of seats) {
    if (seq > watermark && seat.copy && seat.event !== 'result') forEachHostAt(hostAt, seq, (j) => set(j, 'hidden'))
  }

  /** The call seq of the card a result folds into: the last call with its id before it. */
  const cardOf = (seq: number): number => {
    const seat = seats.get(seq)
    if (seat?.event !== 'result' || seat.callId === undefined) return seq
    const list = calls.get(seat.callId)
    let card = seq
    if (list) for (const call of list) if (call < seq) card = call
    return card
  }
  /** A result's seq for a card: the first result with the call's id after it. */
  const resultOf = new Map<number, number>()
  for (const seat of seats.values()) {
    if (seat.event !== 'result' || seat.callId === undefined) continue
    const card = cardOf(seat.seq)
    if (card !== seat.seq && !resultOf.has(card)) resultOf.set(card, seat.seq)
  }
  const show = (seq: number): void => forEachHostAt(hostAt, seq, (j) => set(j, 'shown'))

  steps.sort((a, b) => a.seq - b.seq)
  for (const step of steps) {
    if (step.kind === 'copy') {
      const original = seats.get(step.original)?.copyOf ?? step.original
      show(cardOf(original))
      continue
    }
    let from = Number.POSITIVE_INFINITY
    if (step.kind === 'leave') from = step.from
    else if (step.kind === 'replace') {
      // A shadowed copy (or a stand-in) leaves its original's row.
      for (const seq of step.shadowed) {
        const seat = seats.get(seq)
        from = Math.min(from, cardOf(seat?.copyOf ?? seat?.standIn ?? seq))
      }
    } else {
      rows.forEach((row, i) => {
        if (states[i] !== 'shown' || !MESSAGE_KINDS.has(row.kind) || row.anchorSeq >= step.seq) return
        const seq = Math.round(row.anchorSeq)
        const surface = row.kind === 'tool-call' ? resultOf.get(seq) : seq
        if (surface === undefined || !step.selected.has(surface)) from = Math.min(from, seq)
      })
      for (const seq of step.selected) show(cardOf(seq))
    }
    if (from !== Number.POSITIVE_INFINITY) hideLeft(rows, states, from, step.seq, moveAnchors, set)
  }
  tails(rows, states, watermark, touched)
}

function forEachHostAt(hostAt: ReadonlyMap<number, number[]>, seq: number, fn: (index: number) => void): void {
  for (const index of hostAt.get(seq) ?? []) fn(index)
}

/**
 * The history a cut leaves: host rows from `from` up to the cut, and our own
 * rows back to the last host row that stays (a switch row of an earlier run
 * that now ends at this cut, a ‹ k / n › of a row that goes). A model's move
 * call stays: its card is on the new path, right after the point it moved to.
 */
function hideLeft(
  rows: readonly ChatRow[],
  states: RowState[],
  from: number,
  cut: number,
  keep: ReadonlySet<number>,
  set: (index: number, state: RowState) => void,
): void {
  let stays = Number.NEGATIVE_INFINITY
  rows.forEach((row, i) => {
    if (!isOurs(row.kind) && row.anchorSeq < from && states[i] === 'shown') stays = Math.max(stays, row.anchorSeq)
  })
  rows.forEach((row, i) => {
    if (row.anchorSeq <= stays || row.anchorSeq >= cut) return
    const ours = isOurs(row.kind)
    if (!ours && row.anchorSeq < from) return
    const seq = ours
      ? Math.round(row.anchorSeq - (row.kind === FORK_KIND ? FORK_OFFSET : 0))
      : Math.round(row.anchorSeq)
    if (!keep.has(seq)) set(i, 'hidden')
  })
}

/**
 * A turn tail goes with its turn (shown while a message row of the turn
 * shows): the tails after the watermark, and those of turns whose rows the
 * live reading moved. The answer's reading of every other tail stands.
 */
function tails(rows: readonly ChatRow[], states: RowState[], watermark: number, touched: ReadonlySet<number>): void {
  const live = new Set<number>()
  rows.forEach((row, i) => {
    if (row.turn !== undefined && MESSAGE_KINDS.has(row.kind) && states[i] !== 'hidden') live.add(row.turn)
  })
  rows.forEach((row, i) => {
    if (row.kind !== 'turn-tail') return
    if (row.turn === undefined) {
      if (row.anchorSeq > watermark) states[i] = 'hidden'
    } else if (row.anchorSeq > watermark || touched.has(row.turn)) {
      if (!live.has(row.turn)) states[i] = 'hidden'
      else if (states[i] === 'hidden') states[i] = 'shown'
    }
  })
}
