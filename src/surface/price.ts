/**
 * What a surface costs, as the harness token meter prices it: one place for stock and native
 * mode. A stock switch states the price of the range it replaces (its shadow-price event); a
 * native selection states the price of the whole surface it selects (`surfaceTokens`). DSH's
 * context projections (the browser's meter) fold both without repricing earlier events.
 */
import { deriveEventMessage } from '@deepseek-ai/dsh-session'
import type { LiveSession } from '../harness/live.ts'

/** `ctx.tokenMeter.estimateMessage`: the meter's price of one model-visible message. */
export type Estimator = (message: unknown) => number

/** The estimator of the harness token meter (`ctx.tokenMeter`), when one is loaded. */
export function meterEstimator(meter: unknown): Estimator | undefined {
  // A service instance, not a plain record.
  const estimate =
    typeof meter === 'object' && meter !== null ? (meter as { estimateMessage?: unknown }).estimateMessage : undefined
  return typeof estimate === 'function' ? (message) => estimate.call(meter, message) as number : undefined
}

/** Events by seq: a session's events carry consecutive seqs, so the lookup is an index. */
export function eventLookup(session: Pick<LiveSession, 'events'>): (seq: number) => unknown {
  const events = session.events
  const first = events.length > 0 ? ((events[0] as { seq?: number }).seq ?? 0) : 0
  return (seq) => events[seq - first]
}

/** The meter's price of a session's surface event, by seq: its model-visible message (none for a tombstone). */
export function surfacePricer(session: Pick<LiveSession, 'events'>, estimate: Estimator): (seq: number) => number {
  const eventAt = eventLookup(session)
  return (seq) => {
    const message = deriveEventMessage(eventAt(seq) as never)
    return message === null ? 0 : estimate(message)
  }
}

/** The price of a surface made of these events, in the meter's tokens. */
export function surfaceTokens(priceOf: (seq: number) => number, seqs: readonly number[]): number {
  return seqs.reduce((sum, seq) => sum + priceOf(seq), 0)
}
