/**
 * The context meter after a native switch (issue 26, item 3), with the REAL token meter: DSH web's
 * context meter shows the meter's O(1) projections (`contextBreakdown`, `contextPressure`), which
 * hold no per-event prices, so they cannot price the earlier events a `session-tree/selection`
 * names. The selection now states its surface's price (`surfaceTokens`, priced with
 * `ctx.tokenMeter.estimateMessage`), and `dev/token-meter-selection.patch` makes the projections
 * take it: after a jump, a fork and a jump back they equal the harness's `measure()`, the tokens
 * of the history the model receives next.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { deriveEventMessage } from '@deepseek-ai/dsh-session'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import SessionTreeService from '../../../src/index.ts'
import { LogBuilder } from '../../support/log-builder.ts'
import { meteredTurns, realTokenMeter, type RealTokenMeter } from '../../support/token-meter.ts'

let stock: RealTokenMeter
let native: RealTokenMeter
beforeAll(async () => {
  stock = await realTokenMeter('stock')
  native = await realTokenMeter('native')
}, 600_000)

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

type Ev = { type: string; seq: number; data: Record<string, unknown> }

/** The price of the model history these surface events make, message by message. */
const priced = (events: readonly unknown[], seqs: readonly number[]) =>
  seqs.reduce((sum, seq) => {
    const message = deriveEventMessage(events[seq] as never)
    return sum + (message === null ? 0 : stock.estimateMessage(message))
  }, 0)

/**
 * The plugin in native mode over a real `Session` of the published harness: the two methods of
 * `dev/session-branch-surface.patch` record each selection; the event a patched session would
 * append is built from it (the published `Session` does not know the event type).
 */
async function nativeSession() {
  const root = mkdtempSync(join(tmpdir(), 'tree-native-meter-'))
  roots.push(root)
  const ctx = new Context()
  ctx.plugin(SessionStore)
  // What `ctx.tokenMeter` is in the harness: the meter service (its estimator prices a selection).
  ;(ctx as unknown as { provide(name: string, value: unknown): void }).provide('tokenMeter', stock.service)
  await ctx.plugin(SessionTreeService, { sidecarRoot: root, surfaceMode: 'native' })
  await new Promise((r) => setTimeout(r, 0))
  const service = (ctx as unknown as { sessionTree: SessionTreeService }).sessionTree
  const live = ctx.sessions.create()
  const selections: Record<string, unknown>[] = []
  let surface: readonly number[] | undefined
  Object.assign(live, {
    selectMessageSurface: (seqs: readonly number[] | null, meta?: Record<string, unknown>) => {
      selections.push({ ...meta, seqs: seqs === null ? [] : [...seqs] })
      surface = seqs ?? []
    },
    messageSurfaceNodes: () => [...(surface ?? live.surface.nodes)],
  })
  const log = meteredTurns(new LogBuilder(live))
  const nodeId = async (summary: string) =>
    (await service.list(live.id)).nodes.find((n) => n.summary === summary)!.nodeId
  /** The log a patched session holds after the last selection: the events so far, then that selection. */
  const withLastSelection = (): unknown[] => {
    const events = [...log.events] as unknown as Ev[]
    const last = events.at(-1)!
    return [...events, { ...last, type: 'session-tree/selection', seq: last.seq + 1, data: selections.at(-1)! }]
  }
  return { service, live, log, selections, nodeId, withLastSelection }
}

describe('the context meter after a native switch (real dsh-token-meter)', () => {
  it('a selection states the price of the surface it selects, priced as the meter prices each message', async () => {
    const { service, live, log, selections, nodeId } = await nativeSession()
    expect((await service.session(live.id)).surfaceMode).toBe('native')
    await service.jump(live.id, await nodeId('a first answer that is a little longer than the question'))
    await service.fork(live.id, await nodeId('it says: file text'), 'alt')
    await service.jump(live.id, await nodeId('a third answer'))
    expect(selections).toHaveLength(3)
    for (const selection of selections) {
      const seqs = selection.seqs as number[]
      expect(seqs.length).toBeGreaterThan(0)
      expect(selection.surfaceTokens).toBe(priced(log.events, seqs))
    }
    // The jump back selects the whole log's surface: its price is what the meter measured before any switch.
    expect(selections.at(-1)!.surfaceTokens).toBe(stock.measure(log.events).surfaceTokens)
  })

  it("the patched projections take the selection's price: the browser's figures are the next history's", async () => {
    const { service, live, log, nodeId, withLastSelection } = await nativeSession()
    const before = native.projections(log.events)
    await service.jump(live.id, await nodeId('a first answer that is a little longer than the question'))
    const events = withLastSelection()
    const measured = native.measure(events).surfaceTokens
    const { contextBreakdown, contextPressure } = native.projections(events)
    // measure() (what DSH's compaction plans against) prices the selected path from the seqs…
    expect(measured).toBeLessThan(stock.measure(log.events).surfaceTokens)
    // …and the projections now agree with it, the occupancy moving by exactly what the history moved.
    expect(contextBreakdown.messageTokens).toBe(measured)
    expect(contextPressure.projectedTokens! - before.contextPressure.projectedTokens!).toBe(
      measured - before.contextBreakdown.messageTokens,
    )
    // The published meter ignores the selection: its figure stays the whole log's (the drift this fixes).
    expect(stock.projections(events).contextBreakdown.messageTokens).toBe(before.contextBreakdown.messageTokens)
  })

  it("a jump names the branch it lands on: off the active branch's path, the destination's own", async () => {
    const { service, live, selections, nodeId } = await nativeSession()
    await service.fork(live.id, await nodeId('a first answer that is a little longer than the question'), 'alt')
    expect(selections.at(-1)).toMatchObject({ branch: 'alt', lane: 'alt' })
    // A jump along the active branch's own path keeps its name…
    await service.jump(live.id, await nodeId('first question, with some words in it'))
    expect(selections.at(-1)).toMatchObject({ lane: 'alt' })
    // …one to a node only main holds names main, though the tree keeps alt active (no head landed on).
    await service.jump(live.id, await nodeId('please read x.txt'))
    expect((await service.session(live.id)).activeBranch).toBe('alt')
    expect(selections.at(-1)).toMatchObject({ lane: 'main' })
  })
})
