/**
 * The context meter stays right after a stock switch (issue 10, part 3), with
 * the REAL token meter of the pinned harness: DSH web's context meter shows the
 * meter's O(1) projections (`contextBreakdown`, `contextPressure`), which price
 * a surface `replace` only through a shadow-price event right before it. A
 * switch now emits that price (`compaction/prune`, as DSH's tool-result pruner
 * does), so after a jump, a back and a fork the projections equal the
 * harness's positional `measure()` — the tokens of the history the model
 * receives next.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { meterEstimator } from '../../../src/surface/price.ts'
import { LogBuilder } from '../../support/log-builder.ts'
import { stockRig } from '../../support/stock-rig.ts'
import { meteredTurns, realTokenMeter, type RealTokenMeter } from '../../support/token-meter.ts'

let meter: RealTokenMeter
beforeAll(async () => {
  meter = await realTokenMeter()
}, 600_000)

function setup(priced: boolean) {
  const log = meteredTurns(new LogBuilder('s1'))
  // Priced: the switcher finds the estimator on the meter service as the plugin does (`ctx.tokenMeter`).
  const { projector, switcher, agent, sync, byText } = stockRig(
    log,
    priced ? { estimator: () => meterEstimator(meter.service) } : {},
  )
  const move = async (nodeId: string, branch?: string) => {
    if (branch) projector.tree.fork(nodeId, branch)
    else projector.tree.jump(nodeId)
    const report = await switcher.switch(agent, nodeId, branch)
    if (!report.ok) throw new Error(JSON.stringify(report))
    sync()
    return report.value
  }
  /** What the meter says now: the browser's figures and the harness's own measurement. */
  const read = () => {
    const events = log.session.events
    const { contextBreakdown, contextPressure } = meter.projections(events)
    const measured = meter.measure(events)
    const model = log.session.deriveMessages().reduce((sum, m) => sum + meter.estimateMessage(m), 0)
    return {
      breakdown: contextBreakdown.messageTokens,
      projected: contextPressure.projectedTokens!,
      surface: measured.surfaceTokens,
      model,
    }
  }
  return { log, projector, switcher, byText, move, read, sync }
}

describe('the context meter after a stock switch (real dsh-token-meter)', () => {
  it("jump, back and fork: the browser's message figure is the harness measurement of the next history, and the pressure moves with it", async () => {
    const { log, byText, move, read } = setup(true)
    const steps: Record<string, ReturnType<typeof read>> = { start: read() }
    expect(steps.start!.breakdown).toBe(steps.start!.surface)
    await move(byText('a first answer that is a little longer than the question'))
    steps.jump = read()
    await move(byText('a third answer'))
    steps.back = read()
    await move(byText('please read x.txt'), 'experiment') // a fork at a prompt: the history ends at that prompt
    steps.fork = read()
    for (const [name, step] of Object.entries(steps)) {
      // The harness's positional fold and the tokens of the messages the model receives agree by construction…
      expect(step.surface, name).toBe(step.model)
      // …and the browser's O(1) projection now agrees with both.
      expect(step.breakdown, name).toBe(step.surface)
    }
    // The occupancy figure moves by exactly what the history moved.
    expect(steps.jump!.projected - steps.start!.projected).toBe(steps.jump!.surface - steps.start!.surface)
    expect(steps.back!.projected - steps.jump!.projected).toBe(steps.back!.surface - steps.jump!.surface)
    expect(steps.fork!.projected - steps.back!.projected).toBe(steps.fork!.surface - steps.back!.surface)
    expect(steps.jump!.surface).toBeLessThan(steps.start!.surface)
    expect(steps.back!.surface).toBe(steps.start!.surface)
    // Each replacement (the jump's and the fork's stand-in; the back only appends after the jump's) is
    // priced by the event right before it.
    const events = log.session.events
    const replaces = events.filter(
      (e) =>
        (e as { surfaceOp?: unknown }).surfaceOp !== undefined && (e as { surfaceOp?: unknown }).surfaceOp !== 'append',
    )
    expect(replaces).toHaveLength(2)
    for (const replace of replaces) expect(events[replace.seq - 1]!.type).toBe('compaction/prune')
  })

  it("a model's in-step move across the tool exchange is priced too", async () => {
    const { log, projector, switcher, byText, move, read, sync } = setup(true)
    await move(byText('a first answer that is a little longer than the question'))
    const s = log.session
    const { turn } = log.openJump('go to the third answer')
    sync()
    const a3 = byText('a third answer')
    projector.tree.jump(a3)
    const report = switcher.switchWithinStep(s as never, a3, 'jump_1')
    expect(report.ok, JSON.stringify(report)).toBe(true)
    log.toolResult(turn, 'jump_1', 'Moved.')
    sync()
    const after = read()
    expect(after.breakdown).toBe(after.surface)
    expect(after.surface).toBe(after.model)
  })

  it('meterEstimator reads the service instance; no meter, no estimator', () => {
    const estimate = meterEstimator(meter.service)!
    const message = { role: 'user', content: [{ type: 'text', text: 'x'.repeat(40) }] }
    expect(estimate(message)).toBe(meter.estimateMessage(message))
    expect(meterEstimator(undefined)).toBeUndefined()
    expect(meterEstimator({})).toBeUndefined()
  })

  it("without the price (the control: what the price is for), the browser's figure drifts from the history the model receives", async () => {
    const { byText, move, read } = setup(false)
    await move(byText('a first answer that is a little longer than the question'))
    const jump = read()
    await move(byText('a third answer'))
    const back = read()
    // The shadowed messages still count: the browser overstates what the model receives.
    expect(jump.breakdown).toBeGreaterThan(jump.surface)
    expect(back.breakdown).toBeGreaterThan(back.surface)
  })
})
