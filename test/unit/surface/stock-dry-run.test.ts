/**
 * The stock switch's dry run (`dryRun` in src/surface/stock.ts): before a plan
 * is appended, the log with the plan after it is read by the harness's own
 * `Session` as a reload would read it. It reads it through `fromRestore`
 * (no deep copy of the log the live session already holds: ~1.3 s of each
 * jump at 100,000 events) and must refuse exactly what `create` refuses.
 */
import { Session } from '@deepseek-ai/dsh-session'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { describe, expect, it, vi } from 'vitest'
import { dryRun } from '../../../src/surface/stock.ts'
import type { PlannedEvent } from '../../../src/surface/copy.ts'
import type { LiveSession } from '../../../src/harness/live.ts'
import { threeTurns } from '../../support/stock-rig.ts'

const prompt = (text: string): PlannedEvent => ({
  type: 'user/message',
  data: createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }) as never,
  intent: { surfaceOp: 'append' },
})

/** The same live session, its class offering only `create` (a harness without `fromRestore`). */
function createOnly(session: Session): LiveSession {
  const constructor = {
    create: (id: string, seed: unknown[], header: unknown) =>
      Session.create(id as never, seed as never, header as never),
  }
  return new Proxy(session, {
    get: (target, key) => (key === 'constructor' ? constructor : Reflect.get(target, key, target)),
  }) as unknown as LiveSession
}

describe('the stock switch dry run', () => {
  const log = threeTurns()
  const live = log.session
  const turn = (live.events.at(-1)!.data as { turn: number }).turn
  const plans: Array<[string, PlannedEvent[], boolean]> = [
    ['nothing', [], true],
    [
      'a step with a prompt',
      [
        { type: 'step/start', data: { turn: turn + 1, step: 1 } },
        prompt('again'),
        { type: 'step/end', data: { turn: turn + 1, step: 1 } },
      ],
      true,
    ],
    [
      'a replacement of surface nodes the log does not have',
      [{ ...prompt('x'), intent: { surfaceOp: { op: 'replace', start: 40, end: 50 }, sourceEventSeqs: [] } }],
      false,
    ],
    ['data that is not losslessly JSON', [{ type: 'step/start', data: { turn: turn + 1, step: Number.NaN } }], false],
  ]

  for (const [name, plan, accepted] of plans)
    it(`${name}: ${accepted ? 'accepted' : 'refused'}, as create judges it; the live session is untouched`, () => {
      const seq = live.seq
      const fast = dryRun(live as unknown as LiveSession, plan)
      const slow = dryRun(createOnly(live), plan)
      expect(fast.ok).toBe(accepted)
      expect(slow.ok).toBe(accepted)
      if (!fast.ok) expect(fast.error).toMatchObject({ code: 'INTERNAL', message: /would not reload/ })
      expect(live.seq).toBe(seq)
    })

  it('reads the log through fromRestore, not a copy of it through create', () => {
    const restore = vi.spyOn(Session, 'fromRestore')
    const create = vi.spyOn(Session, 'create')
    try {
      const step: PlannedEvent = { type: 'step/start', data: { turn: turn + 1, step: 1 } }
      expect(dryRun(live as unknown as LiveSession, [step, prompt('again')]).ok).toBe(true)
      expect(restore).toHaveBeenCalledTimes(1)
      expect(create).not.toHaveBeenCalled()
      // The log's own events are passed as they are (frozen, already validated); the planned ones are copies.
      const seed = restore.mock.calls[0]![1] as unknown[]
      expect(seed.slice(0, live.seq)).toEqual([...live.events])
      expect(seed[0]).toBe(live.events[0])
      expect(seed[live.seq]).toMatchObject({ type: 'step/start', seq: live.seq, data: step.data })
      expect((seed[live.seq] as { data: unknown }).data).not.toBe(step.data)
      // The plan the switch then appends is not frozen by the check.
      expect(Object.isFrozen(step.data)).toBe(false)
    } finally {
      restore.mockRestore()
      create.mockRestore()
    }
  })
})
