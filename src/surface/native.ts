/**
 * Native mode: a harness carrying `dev/session-branch-surface.patch` can set
 * its model-visible surface to any earlier surface events. A switch is then
 * one durable `session-tree/selection` event — no copies, no maintenance turn.
 */
import { fail, ok, type TreeResult, errorMessage } from '../tree/errors.ts'
import type { SessionProjector } from '../harness/projector.ts'
import type { NativeSurfaceSession } from './mode.ts'
import { surfaceTokens } from './price.ts'

/** What a native switch did. */
export interface NativeSwitchReport {
  readonly noop: boolean
  readonly appendedEvents: number
}

/** Seqs of the surface events that show the model the history of `target`. */
export function selectionFor(projector: SessionProjector, target: string | null): TreeResult<number[]> {
  const history = projector.tree.historyPath(target)
  if (!history.ok) return history
  const seqs: number[] = []
  for (const entry of history.value) {
    const source = projector.sourceOf(entry.nodeId)
    if (!source)
      return fail('INVALID_CUT_POINT', `node ${entry.nodeId} did not come from this session's log`, {
        nodeId: entry.nodeId,
      })
    if (source.kind === 'message') seqs.push(source.seq)
    else if (source.resultSeq === undefined)
      return fail('INVALID_CUT_POINT', `tool call ${entry.nodeId} has no result yet`, { nodeId: entry.nodeId })
    else seqs.push(source.resultSeq)
  }
  return ok(seqs)
}

/** How a selection is recorded: the names people read in the log, and the meter's price of a surface event. */
export interface NativeSwitchOptions {
  readonly branch?: string
  readonly lane?: string
  /**
   * The token meter's price of a surface event (`price.ts`). The selection then carries its
   * surface's price (`surfaceTokens`): DSH's context projections hold no per-event prices, so
   * they take the selected surface's total from the event (`dev/token-meter-selection.patch`).
   */
  readonly priceOf?: (seq: number) => number
}

export function nativeSwitch(
  session: NativeSurfaceSession & { readonly seq: number },
  projector: SessionProjector,
  target: string | null,
  { branch, lane, priceOf }: NativeSwitchOptions = {},
): TreeResult<NativeSwitchReport> {
  const seqs = selectionFor(projector, target)
  if (!seqs.ok) return seqs
  const current = session.messageSurfaceNodes()
  // Tombstones and the like show nothing; compare what the model reads.
  const hidden = new Set(projector.surfaceEntries.filter((entry) => entry.node === null).map((entry) => entry.seq))
  const shown = current.filter((seq) => !hidden.has(seq))
  if (shown.length === seqs.value.length && shown.every((seq, i) => seq === seqs.value[i])) {
    return ok({ noop: true, appendedEvents: 0 })
  }
  const before = session.seq
  try {
    ;(session.selectMessageSurface as (seqs: readonly number[] | null, meta?: unknown) => void)(seqs.value, {
      target,
      ...(branch === undefined ? {} : { branch }),
      ...(lane === undefined ? {} : { lane }),
      ...(priceOf === undefined ? {} : { surfaceTokens: surfaceTokens(priceOf, seqs.value) }),
    })
  } catch (error) {
    return fail('INTERNAL', `the harness refused the selection: ${errorMessage(error)}`)
  }
  return ok({ noop: false, appendedEvents: session.seq - before })
}
