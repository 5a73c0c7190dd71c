/**
 * Copies never repeat a call id (issue 10, part 1), on a REAL `Session` of the
 * published harness: every stock switch gives each copied tool exchange fresh
 * call ids, the same fresh id in the message copy, the `tool/call` copy and the
 * result copy; the model still reads every call paired with its result; and the
 * tree maps the copies back to their originals, also when it is rebuilt from
 * the log alone.
 */
import { Session } from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import { SessionTree } from '../../../src/tree/index.ts'
import { SessionProjector } from '../../../src/harness/projector.ts'
import { freshCallId } from '../../../src/surface/stock.ts'
import { checkAgreement } from '../../../src/invariant.ts'
import { callPairing as pairing, LogBuilder } from '../../support/log-builder.ts'
import { rebuiltFrom, stockRig } from '../../support/stock-rig.ts'
import { RESTATED_ID_PREFIX } from '../../../src/harness/marker.ts'

function setup() {
  const log = new LogBuilder('s1')
    .userTurn('q1', 'a1', { context: 'runtime context' })
    .userTurn('q2', 'a2', { tools: [{ name: 'read', args: { file_path: 'x.txt' }, result: 'file text' }] })
    .userTurn('q3', 'a3', {
      tools: [
        { name: 'grep', args: { q: 'a' }, result: 'A' },
        { name: 'grep', args: { q: 'b' }, result: 'B' },
      ],
    })
  const { projector, switcher, agent, sync, byText } = stockRig(log)
  const move = async (nodeId: string) => {
    projector.tree.jump(nodeId)
    const report = await switcher.switch(agent, nodeId)
    if (!report.ok) throw new Error(JSON.stringify(report))
    sync()
    return report.value
  }
  return { log, projector, switcher, agent, byText, sync, move }
}

/** Every `tool/call` id in the log, in order. */
const callIds = (log: LogBuilder) =>
  log.events.flatMap((e) => (e.type === 'tool/call' ? [e.data.callId as string] : []))

/** Node summaries, one per node: a message shown twice would show as a repeat. */
const summaries = (projector: SessionProjector) => projector.tree.list().map((n) => `${n.type}:${n.summary}`)

describe('copies never repeat a call id', () => {
  it('a jump back across tool exchanges: fresh ids, each paired with its result, none repeated in the log', async () => {
    const { log, projector, byText, move } = setup()
    const before = pairing(log.session)
    expect(before).toEqual([
      { calls: ['call_1'], results: ['call_1'], sources: ['call_1'] },
      { calls: ['call_2', 'call_3'], results: ['call_2', 'call_3'], sources: ['call_2', 'call_3'] },
    ])
    await move(byText('a1'))
    const report = await move(byText('a3'))
    expect(report.copies).toBe(9) // q2, call msg, read, a2, q3, call msg, grep, grep, a3
    const after = pairing(log.session)
    expect(after).toHaveLength(2)
    for (const { calls, results, sources } of after) expect([results, sources]).toEqual([calls, calls])
    // The ids the model reads now are not the originals, and they are well-formed for any provider.
    const fresh = after.flatMap((p) => p.calls)
    expect(fresh.filter((id) => ['call_1', 'call_2', 'call_3'].includes(id))).toEqual([])
    for (const id of fresh) expect(id).toMatch(/^[A-Za-z0-9_-]{1,40}$/)
    // No call id appears twice among the log's tool/call events (the web chat's tool-card key).
    const ids = callIds(log)
    expect(ids).toHaveLength(6)
    expect(new Set(ids).size).toBe(ids.length)
    // The tree still shows each message once, and the path is the model history.
    expect(projector.quarantine).toEqual([])
    expect(new Set(summaries(projector)).size).toBe(summaries(projector).length)
    expect(checkAgreement(projector, log.session.surface.nodes, true)).toBeUndefined()
  })

  it('several switches across tool exchanges, rebuilt from the log alone: the same tree, no message twice, ids never repeated', async () => {
    const { log, projector, byText, move, sync } = setup()
    const nodes = projector.tree.nodeCount
    await move(byText('a1'))
    log.userTurn('q4', 'a4', { tools: [{ name: 'read', args: { file_path: 'y.txt' }, result: 'y text' }] })
    sync()
    await move(byText('a3'))
    await move(byText('a2'))
    await move(byText('a4'))
    await move(byText('a3'))
    const expected = nodes + 4 // q4, its call message, its read call, a4
    expect(projector.tree.nodeCount).toBe(expected)
    const ids = callIds(log)
    expect(new Set(ids).size).toBe(ids.length)
    for (const { calls, results, sources } of pairing(log.session)) expect([results, sources]).toEqual([calls, calls])
    const rebuilt = rebuiltFrom(log.events)
    const shape = (p: SessionProjector) => p.tree.list().map((n) => [n.nodeId, n.parentId, n.type, n.summary])
    expect(shape(rebuilt)).toEqual(shape(projector))
    expect(rebuilt.tree.nodeCount).toBe(expected)
    expect(new Set(summaries(rebuilt)).size).toBe(expected)
    expect(rebuilt.tree.cursor).toBe(byText('a3'))
    expect(rebuilt.quarantine).toEqual([])
    expect(checkAgreement(rebuilt, log.session.surface.nodes, true)).toBeUndefined()
    // …and the harness reloads it with the same history.
    const reloaded = Session.create(log.session.id, [...log.session.events] as never, log.session.header)
    expect(reloaded.deriveMessages().map((m) => m.id)).toEqual(log.session.deriveMessages().map((m) => m.id))
  })

  it('fresh ids are consistent within a switch and differ between switches', async () => {
    const { log, byText, move } = setup()
    await move(byText('a1'))
    await move(byText('a3'))
    const first = pairing(log.session).flatMap((p) => p.calls)
    await move(byText('a1'))
    await move(byText('a3'))
    const second = pairing(log.session).flatMap((p) => p.calls)
    expect(second).toHaveLength(first.length)
    expect(second.filter((id) => first.includes(id))).toEqual([])
  })

  it("a maintenance turn holds one step per copied assistant message, each copied exchange in its issuer's step", async () => {
    const { log, byText, move } = setup()
    await move(byText('a1'))
    const from = log.session.seq
    await move(byText('a3'))
    const turn = log.events
      .slice(from)
      .filter((e) => 'data' in e && typeof (e.data as { step?: unknown }).step === 'number')
    const steps = new Map<number, string[]>()
    for (const e of turn) {
      const step = (e.data as { step: number }).step
      steps.set(step, [...(steps.get(step) ?? []), e.type])
    }
    // Copies: q2 (the stand-in), the read call + its exchange, a2, q3, the two-grep call + its exchanges, a3:
    // four assistant messages, four steps.
    expect([...steps.values()].map((types) => types.filter((t) => t === 'assistant/message').length)).toEqual([
      1, 1, 1, 1,
    ])
    expect([...steps.keys()]).toEqual([1, 2, 3, 4])
    for (const e of turn.filter((x) => x.type === 'tool/result')) {
      const id = (e.data as { message: { source: { callId: string } } }).message.source.callId
      const issuer = turn.find((x) => x.type === 'assistant/message' && JSON.stringify(x.data).includes(id))!
      expect((e.data as { step: number }).step).toBe((issuer.data as { step: number }).step)
    }
  })

  it('freshCallId: provider-safe and unique', () => {
    const ids = Array.from({ length: 1000 }, freshCallId)
    expect(new Set(ids).size).toBe(1000)
    for (const id of ids) expect(id).toMatch(/^call_dst_[0-9a-f]{20}$/)
  })
})

describe('an in-step switch (a model move) across a tool exchange', () => {
  /** After a rewind to a1, the model calls a tree jump alone in a new turn. */
  async function midTurn() {
    const ctx = setup()
    await ctx.move(ctx.byText('a1'))
    const { turn } = ctx.log.openJump('go to a3', 'a3')
    ctx.sync()
    return { ...ctx, turn }
  }

  it('the live call keeps its id, the copies get fresh ones; the tree gains no copy of a call', async () => {
    const { log, projector, switcher, byText, sync, turn } = await midTurn()
    const nodes = projector.tree.nodeCount
    const a3 = byText('a3')
    projector.tree.jump(a3)
    const before = log.session.seq
    const report = switcher.switchWithinStep(log.session as never, a3, 'jump_1')
    expect(report.ok, JSON.stringify(report)).toBe(true)
    // Every message the move restated carries the restated mark in its id (a log reader tells it from the model's).
    const restated = (
      log.session.events as unknown as { seq: number; type: string; data: { id?: string; message?: { id?: string } } }[]
    ).filter((e) => e.seq >= before && /message|result/.test(e.type))
    expect(restated.length).toBeGreaterThan(3)
    for (const e of restated)
      expect(e.type === 'user/message' ? e.data.id : e.data.message?.id, e.type).toMatch(
        new RegExp(`^${RESTATED_ID_PREFIX}`),
      )
    log.toolResult(turn, 'jump_1', 'Jumped.')
    sync()
    const seen = pairing(log.session)
    expect(seen.at(-1)).toEqual({ calls: ['jump_1'], results: ['jump_1'], sources: ['jump_1'] })
    for (const { calls, results, sources } of seen) expect([results, sources]).toEqual([calls, calls])
    expect(
      seen
        .slice(0, -1)
        .flatMap((p) => p.calls)
        .filter((id) => id.startsWith('call_dst_')),
    ).toHaveLength(3)
    const ids = callIds(log)
    expect(new Set(ids).size).toBe(ids.length)
    // Only the re-stated message and its re-homed call are new nodes: no copied call became a node.
    expect(projector.tree.nodeCount).toBe(nodes + 2)
    expect(projector.tree.list().filter((n) => n.type === 'tool_call' && n.summary.startsWith('read('))).toHaveLength(1)
    expect(projector.quarantine).toEqual([])
    expect(checkAgreement(projector, log.session.surface.nodes, true)).toBeUndefined()
    const rebuilt = rebuiltFrom(log.events)
    expect(rebuilt.tree.list().map((n) => [n.nodeId, n.parentId])).toEqual(
      projector.tree.list().map((n) => [n.nodeId, n.parentId]),
    )
    expect(() => Session.create(log.session.id, [...log.session.events] as never, log.session.header)).not.toThrow()
  })
})

describe('logs with repeated call ids are reported (issue 10, part 4)', () => {
  it('a provider that reuses a call id: REPEATED_CALL_IDS (not blamed on a switch)', () => {
    const log = new LogBuilder('s1').userTurn('q1', 'a1', { tools: [{ name: 'read', args: {}, result: 'r1' }] })
    const s = log.session
    const { turn, event: repeat } = log.openCall('q2', { id: 'call_1', name: 'read', arguments: '{}' })
    log.toolResult(turn, 'call_1', 'r2')
    s.append('step/end', { turn, step: 1 })
    s.append('turn/end', { turn, reason: { kind: 'completed' } })
    const projector = new SessionProjector(new SessionTree('s1'))
    for (const e of log.events) projector.project(e)
    expect(projector.logWarnings.map((w) => [w.code, w.count, w.firstSeq, w.callId])).toEqual([
      ['REPEATED_CALL_IDS', 1, repeat.seq, 'call_1'],
    ])
    expect(projector.logWarnings[0]!.message).toContain('the provider reused it')
  })
})
