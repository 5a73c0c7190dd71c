/**
 * The service's push channel (`watch`), on a real in-process agent loop: it
 * answers at once for a revision the caller does not hold, holds while
 * nothing changes (a prompt's streamed chunks included, until its nodes
 * land), answers when a move, a label or a turn changes the tree, and ends
 * empty when cancelled.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { loopRig, type LoopRig } from '../../support/tool-rig.ts'

const rigs: LoopRig[] = []
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.dispose()
})

/** Whether `promise` has settled after the event loop turned a few times (no timer decides it). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false
  void promise.then(() => (done = true))
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
  return done
}

describe('watch', () => {
  it('answers at once, holds while idle, answers on a label, a move and a turn, and ends empty when cancelled', async () => {
    const r = await loopRig([{ text: 'A1' }, { text: 'A2' }, { text: 'A3' }])
    rigs.push(r)
    await r.say('Q1')
    await r.say('Q2')
    const id = r.sessionId
    const watch = (revision: string, signal = new AbortController().signal) =>
      r.service.watch(
        {
          sessions: [
            { agentId: id, revision },
            { agentId: 'not-loaded', revision: '' },
          ],
        },
        signal,
      )

    const held = (await r.service.session(id)).revision!
    // A revision the caller does not hold: at once.
    expect(await watch('')).toEqual({ changed: [{ agentId: id, revision: held }] })

    // Idle: no answer at all.
    const idle = new AbortController()
    const waiting = watch(held, idle.signal)
    expect(await settled(waiting)).toBe(false)
    // Reads change nothing.
    await r.service.list(id)
    await r.service.session(id)
    expect(await settled(waiting)).toBe(false)
    // A label made elsewhere (the model's tools share the service): answered with the new revision.
    const a1 = (await r.service.list(id)).nodes.find((n) => n.message?.content === 'A1')!.nodeId
    await r.service.actingAs({ kind: 'model' }).label(id, a1, 'first')
    const labeled = await waiting
    const afterLabel = (await r.service.session(id)).revision!
    expect(labeled).toEqual({ changed: [{ agentId: id, revision: afterLabel }] })
    expect(afterLabel).not.toBe(held)

    // A move.
    const moving = watch(afterLabel)
    expect(await settled(moving)).toBe(false)
    await r.service.jump(id, a1)
    const afterJump = (await r.service.session(id)).revision!
    expect(await moving).toEqual({ changed: [{ agentId: id, revision: afterJump }] })

    // A turn: answered once its nodes are in the tree.
    const turning = watch(afterJump)
    await r.say('Q3')
    expect((await turning).changed.map((c) => c.agentId)).toEqual([id])

    // Cancelled: empty, and nothing is left listening.
    const cancel = new AbortController()
    const cancelled = watch((await r.service.session(id)).revision!, cancel.signal)
    expect(await settled(cancelled)).toBe(false)
    cancel.abort()
    expect(await cancelled).toEqual({ changed: [] })
    expect((r.service.sync as unknown as { listeners: Set<unknown> }).listeners.size).toBe(0)
  })

  it('refuses a request that names no session, too many, or a malformed one', async () => {
    const r = await loopRig([])
    rigs.push(r)
    const signal = new AbortController().signal
    for (const sessions of [[], Array.from({ length: 65 }, (_, i) => ({ agentId: `s${i}`, revision: '' }))])
      await expect(r.service.watch({ sessions }, signal)).rejects.toMatchObject({
        failure: { code: 'INVALID_ARGUMENT' },
      })
    await expect(r.service.watch({ sessions: [{ agentId: '', revision: '' }] }, signal)).rejects.toMatchObject({
      failure: { code: 'INVALID_ARGUMENT' },
    })
  })
})
