/**
 * `contextFit`: the selected path against DSH's limits, asked as `dsh-compaction-basic` asks before a
 * step (the meter's `totalTokens` against `floor(window × thresholdRatio)`, an exact provider/model
 * policy over the default). The real meter and preset are judged in test/e2e/compaction-auto.test.ts;
 * here the rule itself.
 */
import { describe, expect, it } from 'vitest'
import { contextFit } from '../../../src/service/context-fit.ts'
import type { HostContext } from '../../../src/harness/host.ts'
import type { CompactionSettings } from '../../../src/harness/preset-compaction.ts'
import type { LiveSession } from '../../../src/harness/live.ts'

const host = (services: Record<string, unknown>): HostContext => ({
  get: (name: never) => services[name as string],
})

const session = (route: unknown): LiveSession =>
  ({ id: 's1', events: [], requestContext: () => route }) as unknown as LiveSession

const meter = (tokens: number) => ({ measure: () => ({ totalTokens: tokens }) })
const route = { provider: 'fake', model: 'm', contextWindow: 10_000 }
const settings = (over: Partial<CompactionSettings> = {}): CompactionSettings => ({
  thresholdRatio: 0.8,
  auto: true,
  modelPolicies: [],
  ...over,
})

describe('contextFit', () => {
  it('compacts at the threshold and over it, fits below it', () => {
    for (const [tokens, verdict] of [
      [7_999, 'fits'],
      [8_000, 'compacts'],
      [12_000, 'compacts'],
    ] as const)
      expect(contextFit(host({ tokenMeter: meter(tokens) }), session(route), settings())).toEqual({
        tokens,
        contextWindow: 10_000,
        threshold: 8_000,
        verdict,
      })
  })

  it("an exact provider/model policy wins over the default ratio; another model's does not", () => {
    const policies = settings({
      modelPolicies: [
        { provider: 'fake', model: 'other', thresholdRatio: 0.1 },
        { provider: 'fake', model: 'm', thresholdRatio: 0.5 },
      ],
    })
    const ctx = host({ tokenMeter: meter(6_000) })
    expect(contextFit(ctx, session(route), policies)).toMatchObject({ threshold: 5_000, verdict: 'compacts' })
    expect(contextFit(ctx, session({ ...route, model: 'third' }), policies)).toMatchObject({
      threshold: 8_000,
      verdict: 'fits',
    })
  })

  it('no automatic compaction (none loaded, or manual only): over the window the next request overflows', () => {
    for (const none of [null, settings({ auto: false })]) {
      expect(contextFit(host({ tokenMeter: meter(10_000) }), session(route), none)).toEqual({
        tokens: 10_000,
        contextWindow: 10_000,
        verdict: 'overflows',
      })
      expect(contextFit(host({ tokenMeter: meter(9_999) }), session(route), none)).toMatchObject({ verdict: 'fits' })
    }
  })

  it('what cannot be told is not said: an unknown compaction, no window, no meter or a failing one', () => {
    // Unknown: DSH may still compact it first, so no overflow is promised.
    expect(contextFit(host({ tokenMeter: meter(20_000) }), session(route), undefined)).toEqual({
      tokens: 20_000,
      contextWindow: 10_000,
      verdict: 'fits',
    })
    expect(contextFit(host({ tokenMeter: meter(50) }), session({ provider: 'p', model: 'm' }), settings())).toEqual({
      tokens: 50,
      verdict: 'fits',
    })
    expect(contextFit(host({}), session(route), settings())).toBeUndefined()
    const failing = {
      measure: () => {
        throw new Error('fold failed')
      },
    }
    expect(contextFit(host({ tokenMeter: failing }), session(route), settings())).toBeUndefined()
  })
})
