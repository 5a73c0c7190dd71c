/**
 * The deferred-move scheduler on its own, with a scripted agent: which
 * pre-steps it holds, how held messages go back (in order, to the list they
 * came from), replacement, cancellation, busy retries, and unloading.
 * (The real loop is exercised in tool-loop.test.ts.)
 */
import { describe, expect, it } from 'vitest'
import { markerMessage } from '../../../src/harness/marker.ts'
import { DeferredMoves, lastTurnEnd, openTurn } from '../../../src/tool/deferred.ts'
import type { TreeMove } from '../../../src/service/tree-move.ts'
import type { TreeResult } from '../../../src/tree/errors.ts'
import type { MoveResult } from '../../../src/service/wire.ts'

type Message = { id: string; source: { kind: string }; content: { type: 'text'; text: string }[] }
const message = (id: string, kind = 'user'): Message => ({
  id,
  source: { kind },
  content: [{ type: 'text', text: id }],
})

class ScriptedAgent {
  readonly id = 'agent-1'
  status: 'idle' | 'running' = 'running'
  readonly events: { type: string; data: Record<string, unknown> }[] = [{ type: 'turn/start', data: { turn: 1 } }]
  readonly delivered: string[] = []
  readonly session = { id: 'agent-1', events: this.events }
  readonly inbox = {
    nextTurn: [] as Message[],
    nextStep: [] as Message[],
    get hasPending() {
      return false
    },
    prepend() {},
    remove() {},
  }
  send(m: Message, target: string, wakeup: boolean) {
    this.delivered.push(`${target}${wakeup ? '+wake' : ''}:${m.id}`)
  }
  followup(m: Message) {
    this.delivered.push(`followup:${m.id}`)
  }
  whenIdle() {
    return Promise.resolve()
  }
  endTurn(turn: number, kind = 'completed') {
    this.events.push({ type: 'turn/end', data: { turn, reason: { kind } } })
    this.status = 'idle'
  }
  startTurn(turn: number, claimedPrompt: boolean) {
    this.status = 'running'
    this.events.push({ type: 'turn/start', data: { turn } })
    this.events.push({
      type: 'agent/inbox/spliced',
      data: { target: 'next-step', start: 0, removedCount: 1, inserted: [] },
    })
    if (claimedPrompt)
      this.events.push({
        type: 'agent/inbox/spliced',
        data: { target: 'next-turn', start: 0, removedCount: 1, inserted: [] },
      })
  }
}

function setup(results: TreeResult<MoveResult>[] = []) {
  const runs: TreeMove[] = []
  const moves = new DeferredMoves({
    run: async (_id, op) => {
      runs.push(op)
      return results.shift() ?? { ok: true, value: { cursor: 'e1', messages: [], mode: 'stock' } }
    },
  })
  return { moves, runs, agent: new ScriptedAgent() }
}
const payload = (agent: ScriptedAgent, turn: number, step: number, messages: unknown[]) => ({
  agent: agent as never,
  turn,
  step,
  messages,
})

describe('DeferredMoves', () => {
  it('applies a waiting move when the agent becomes idle, once', async () => {
    const { moves, runs, agent } = setup()
    expect(moves.schedule(agent as never, { kind: 'jump', nodeId: 'e3' }, 'model')).toMatchObject({
      ok: true,
      value: { move: { turn: 1, by: 'model' } },
    })
    moves.onStatus(agent as never, 'running')
    expect(runs).toEqual([])
    agent.endTurn(1)
    moves.onStatus(agent as never, 'idle')
    moves.onStatus(agent as never, 'idle')
    expect(await moves.settled(agent.id)).toMatchObject({ status: 'applied' })
    expect(runs).toEqual([{ kind: 'jump', nodeId: 'e3' }])
    expect(moves.pending(agent.id)).toBeUndefined()
  })

  it('a newer move replaces the waiting one; cancel drops it', async () => {
    const { moves, runs, agent } = setup()
    moves.schedule(agent as never, { kind: 'jump', nodeId: 'e3' }, 'model')
    const second = moves.schedule(agent as never, { kind: 'fork', nodeId: 'e5', branch: 'b' }, 'model')
    expect(second).toMatchObject({ ok: true, value: { replaced: { op: { kind: 'jump', nodeId: 'e3' } } } })
    expect(moves.cancel(agent.id)?.op).toEqual({ kind: 'fork', nodeId: 'e5', branch: 'b' })
    agent.endTurn(1)
    moves.onStatus(agent as never, 'idle')
    await Promise.resolve()
    expect(runs).toEqual([])
    expect(moves.lastOutcome(agent.id)?.status).toBe('cancelled')
  })

  it('holds the first step of a later turn (not the scheduling turn, not a switch turn), then re-delivers it in order', async () => {
    const { moves, runs, agent } = setup()
    moves.schedule(agent as never, { kind: 'jump', nodeId: 'e3' }, 'model')
    expect(moves.hold(payload(agent, 1, 2, [message('late-step')]))).toBe(false) // same turn
    agent.endTurn(1)
    agent.startTurn(2, true)
    expect(moves.hold(payload(agent, 2, 2, [message('x')]))).toBe(false) // not a first step
    expect(moves.hold(payload(agent, 2, 1, [markerMessage({ v: 1, op: 'switch', id: 'm', target: 'e3' })]))).toBe(false)
    expect(moves.hold(payload(agent, 2, 1, [message('context', 'plugin'), message('prompt')]))).toBe(true)
    agent.endTurn(2, 'blocked')
    moves.onStatus(agent as never, 'idle')
    await moves.settled(agent.id)
    expect(runs).toHaveLength(1)
    expect(agent.delivered).toEqual(['next-step:context', 'followup:prompt'])
  })

  it('a held steer-only batch is re-delivered to next-step with one wake-up', async () => {
    const { moves, agent } = setup()
    moves.schedule(agent as never, { kind: 'back' }, 'user')
    agent.endTurn(1)
    agent.startTurn(2, false)
    expect(moves.hold(payload(agent, 2, 1, [message('s1'), message('s2')]))).toBe(true)
    agent.endTurn(2, 'blocked')
    moves.onStatus(agent as never, 'idle')
    await moves.settled(agent.id)
    expect(agent.delivered).toEqual(['next-step:s1', 'next-step+wake:s2'])
  })

  it('retries after AGENT_BUSY, gives up with the error after a failure', async () => {
    const busy = { ok: false as const, error: { code: 'AGENT_BUSY' as const, message: 'busy' } }
    const gone = { ok: false as const, error: { code: 'NODE_NOT_FOUND' as const, message: 'gone' } }
    const { moves, runs, agent } = setup([busy, gone])
    moves.schedule(agent as never, { kind: 'jump', nodeId: 'e3' }, 'model')
    agent.endTurn(1)
    await moves.apply(agent as never)
    expect(moves.pending(agent.id)).toBeDefined()
    await moves.apply(agent as never)
    expect(runs).toHaveLength(2)
    expect(moves.lastOutcome(agent.id)).toMatchObject({ status: 'failed', error: { code: 'NODE_NOT_FOUND' } })
  })

  it('drops a model move whose turn was cancelled; keeps a user move', async () => {
    const { moves, runs, agent } = setup()
    moves.schedule(agent as never, { kind: 'jump', nodeId: 'e3' }, 'model')
    agent.endTurn(1, 'aborted')
    await moves.apply(agent as never)
    expect(moves.lastOutcome(agent.id)).toMatchObject({
      status: 'dropped',
      reason: 'the turn that asked for it was aborted',
    })
    agent.startTurn(2, true)
    moves.schedule(agent as never, { kind: 'jump', nodeId: 'e3' }, 'user')
    agent.endTurn(2, 'aborted')
    await moves.apply(agent as never)
    expect(runs).toHaveLength(1)
  })

  it('unloading settles every waiting move and gives held messages back', async () => {
    const { moves, agent } = setup()
    moves.schedule(agent as never, { kind: 'jump', nodeId: 'e3' }, 'model')
    agent.endTurn(1)
    agent.startTurn(2, true)
    moves.hold(payload(agent, 2, 1, [message('prompt')]))
    moves.dispose()
    expect(agent.delivered).toEqual(['followup:prompt'])
    expect(moves.lastOutcome(agent.id)?.status).toBe('dropped')
    expect(moves.schedule(agent as never, { kind: 'back' }, 'user')).toMatchObject({ ok: false })
  })

  it('reads turns from the log', () => {
    expect(
      openTurn([
        { type: 'turn/start', data: { turn: 4 } },
        { type: 'step/start', data: {} },
      ]),
    ).toBe(4)
    expect(
      openTurn([
        { type: 'turn/start', data: { turn: 4 } },
        { type: 'turn/end', data: { turn: 4 } },
      ]),
    ).toBeUndefined()
    expect(
      lastTurnEnd([
        { type: 'turn/end', data: { turn: 2, reason: { kind: 'aborted' } } },
        { type: 'x', data: {} },
      ]),
    ).toEqual({ turn: 2, reason: 'aborted' })
    expect(lastTurnEnd([])).toBeUndefined()
  })
})
