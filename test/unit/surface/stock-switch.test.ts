/**
 * Stock-mode switching against a REAL `Session` of the published harness:
 * every planned event goes through the harness's own surface validation, and
 * what the model would receive is read from `session.deriveMessages()`.
 */
import type { LogEvent } from '../../../src/harness/log-event.ts'
import { CallId, createAssistantMessage } from '@deepseek-ai/dsh-llm'
import { Session } from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import { SessionTree } from '../../../src/tree/index.ts'
import { SessionProjector } from '../../../src/harness/projector.ts'
import { StockSwitcher, type TranscriptReader } from '../../../src/surface/stock.ts'
import { drawnAsMessage, erasedAnswers } from '../../../src/tui/switch-rows.ts'
import { FakeAgent } from '../../support/fake-agent.ts'
import { callPairing, LogBuilder, MODEL, PROVIDER } from '../../support/log-builder.ts'
import { rebuiltFrom, stockRig, threeTurns, type StockRig } from '../../support/stock-rig.ts'

function setup() {
  const flushed: string[] = []
  const rig = stockRig(threeTurns({ context: 'runtime context' }), {
    flush: async (s) => {
      flushed.push(s.id)
    },
  })
  return { ...rig, flushed }
}

/** Back to a1 and one more turn there (q4, a4), synced: a branch beside q2…a3. Returns a1. */
async function q4OnA1({ log, projector, switcher, agent, byText, sync }: StockRig): Promise<string> {
  const a1 = byText('a1')
  projector.tree.jump(a1)
  await switcher.switch(agent, a1)
  log.userTurn('q4', 'a4')
  sync()
  return a1
}

/** The tree's nodes as a rebuild must reproduce them. */
const shape = (p: SessionProjector) => p.tree.list().map((n) => [n.nodeId, n.parentId, n.type, n.summary, n.branch])

/** The texts the model would receive, as the harness derives them. */
const modelTexts = (log: LogBuilder) => log.modelTexts()
/** The texts of a tree path, flattened like `modelTexts`. */
function pathTexts(projector: SessionProjector, nodeId: string | null) {
  return projector.tree.historyPath(nodeId).ok
    ? (
        projector.tree.historyPath(nodeId) as {
          value: {
            type?: string
            content?: readonly { type: string; text?: string; name?: string; content?: string }[]
            message?: { content: string }
          }[]
        }
      ).value.map((e) => {
        if (e.type === 'tool_call') return `result:${e.content!.find((p) => p.type === 'tool_result')!.content}`
        const parts = e.content ?? []
        const call = parts.find((p) => p.type === 'tool_call')
        return call ? `call:${call.name}` : e.message!.content
      })
    : []
}

describe('stock switch on a real Session', () => {
  it('rewinds to the first answer: the model history is exactly that path, with no duplicate nodes', async () => {
    const { log, projector, switcher, agent, byText, sync } = setup()
    const nodesBefore = projector.tree.nodeCount
    const originalHistory = modelTexts(log)
    const a1 = byText('a1')
    projector.tree.jump(a1)
    const seqBefore = log.session.seq
    const report = await switcher.switch(agent, a1)
    sync()
    // A rewind restates the last message it keeps (a1) as the stand-in: no empty "tombstone" answer.
    expect(report.ok && report.value).toMatchObject({ noop: false, copies: 1, shadowed: 7, sharedPrefix: 2 })
    expect(modelTexts(log)).toEqual(['q1', 'runtime context', 'a1'])
    expect(modelTexts(log)).toEqual(pathTexts(projector, a1))
    expect(originalHistory.slice(0, 3)).toEqual(modelTexts(log))
    expect(projector.tip).toBe(a1)
    expect(projector.tree.nodeCount).toBe(nodesBefore)
    expect(projector.quarantine).toEqual([])
    // marker insert, turn/start, claim, step/start, stand-in, step/end, turn/end
    expect(report.ok && report.value.appendedEvents).toBe(7)
    expect(log.session.seq - seqBefore).toBe(7)
    // A quiet enter: the turn ends completed, never blocked (dsh-TUI shows blocked as a failure).
    expect(agent.decisions).toEqual([{ kind: 'enter', messages: [] }])
    const events = log.session.events as unknown as {
      seq: number
      type: string
      surfaceOp?: unknown
      sourceEventSeqs?: number[]
      data: { message?: { content: unknown[] } }
    }[]
    const standIn = events.filter((e) => e.seq >= seqBefore && typeof e.surfaceOp === 'object')
    const a1Seq = projector.sourceOf(a1)
    expect(standIn).toHaveLength(1)
    expect(standIn[0]!.type).toBe('assistant/message')
    expect(standIn[0]!.data.message!.content).toEqual(
      events.find((e) => a1Seq?.kind === 'message' && e.seq === a1Seq.seq)!.data.message!.content,
    )
    // It cites exactly what it shadows, the restated a1 first (DSH refuses a repeated citation).
    expect(standIn[0]!.sourceEventSeqs![0]).toBe(a1Seq?.kind === 'message' ? a1Seq.seq : -1)
    expect(standIn[0]!.surfaceOp).toMatchObject({
      op: 'replace',
      start: standIn[0]!.sourceEventSeqs![0],
      end: standIn[0]!.sourceEventSeqs!.at(-1),
    })
    expect(new Set(standIn[0]!.sourceEventSeqs).size).toBe(7)
    // No empty assistant message anywhere in the log.
    expect(events.filter((e) => e.type === 'assistant/message' && e.data.message!.content.length === 0)).toEqual([])
  })

  it('switches back to the original tip with the tool call and result intact', async () => {
    const rig = setup()
    const { log, projector, switcher, agent, byText, sync } = rig
    const original = modelTexts(log)
    const a3 = byText('a3')
    const a1 = await q4OnA1(rig)
    expect(modelTexts(log)).toEqual(['q1', 'runtime context', 'a1', 'q4', 'a4'])
    expect(projector.tree.get(byText('q4'))?.parentId).toBe(a1)
    projector.tree.jump(a3)
    const report = await switcher.switch(agent, a3)
    sync()
    expect(report.ok && report.value.copies).toBe(6)
    expect(modelTexts(log)).toEqual(original)
    expect(modelTexts(log)).toContain('result:file text')
    expect(projector.tip).toBe(a3)
    expect(projector.tree.nodeCount).toBe(11) // 9 originals + q4, a4; copies add none
    // The shared prefix of the model history is the same message objects (byte-identical for the provider).
    const derived = log.session.deriveMessages()
    const events = log.session.events
    expect(derived[0]).toBe((events.find((e) => e.type === 'user/message') as { data: unknown }).data)
  })

  it('a no-op switch appends nothing', async () => {
    const { log, switcher, agent, byText } = setup()
    const seq = log.session.seq
    const report = await switcher.switch(agent, byText('a3'))
    expect(report.ok && report.value.noop).toBe(true)
    expect(log.session.seq).toBe(seq)
  })

  it('switches to the empty history (before the first node)', async () => {
    const { log, projector, switcher, agent, sync } = setup()
    projector.tree.jump(null)
    const report = await switcher.switch(agent, null)
    sync()
    expect(report.ok).toBe(true)
    expect(modelTexts(log)).toEqual([])
    expect(projector.tip).toBeNull()
    log.userTurn('fresh', 'fresh answer')
    sync()
    const fresh = projector.tree.list().find((n) => n.message?.content === 'fresh')!
    expect(fresh.parentId).toBeNull()
  })

  it('refuses while the agent is running, changing nothing', async () => {
    const { log, switcher, agent, byText } = setup()
    agent.status = 'running'
    const seq = log.session.seq
    const report = await switcher.switch(agent, byText('a1'))
    expect(!report.ok && report.error.code).toBe('AGENT_BUSY')
    expect(log.session.seq).toBe(seq)
  })

  it('re-queues a prompt that arrived during the maintenance turn', async () => {
    const { switcher, agent, byText, projector } = setup()
    projector.tree.jump(byText('a1'))
    agent.raceFollowup = {
      id: 'late-prompt',
      role: 'user',
      content: [{ type: 'text', text: 'late' }],
      source: { kind: 'user' },
    }
    const report = await switcher.switch(agent, byText('a1'))
    expect(report.ok && report.value.requeued).toBe(1)
    expect(agent.inbox.nextTurn.map((m) => m.id)).toEqual(['late-prompt'])
  })

  it('the log alone rebuilds the same tree: cursor, branches and no duplicates', async () => {
    const rig = setup()
    const { log, projector, switcher, agent, byText, sync } = rig
    await q4OnA1(rig)
    const a3 = byText('a3')
    projector.tree.jump(a3)
    await switcher.switch(agent, a3)
    sync()
    const rebuilt = rebuiltFrom(log.events)
    expect(shape(rebuilt)).toEqual(shape(projector))
    expect(rebuilt.tree.cursor).toBe(a3)
    expect(rebuilt.tree.activeBranch).toBe(projector.tree.activeBranch)
    expect(rebuilt.tip).toBe(a3)
    expect(rebuilt.quarantine).toEqual([])
  })

  it('every switched log reloads through the harness (seed validation) with the same history', async () => {
    const { log, projector, switcher, agent, byText, sync } = setup()
    for (const text of ['a1', 'a2', null, 'a3', 'q2']) {
      const target = text === null ? null : byText(text)
      const cut = projector.tree.completeCutPoint(target)
      const at = cut.ok ? cut.value : target
      projector.tree.jump(at)
      const report = await switcher.switch(agent, at)
      expect(report.ok, JSON.stringify(report)).toBe(true)
      sync()
      expect(modelTexts(log)).toEqual(pathTexts(projector, at))
    }
    const reloaded = Session.create(log.session.id, [...log.session.events] as never, log.session.header)
    expect(reloaded.deriveMessages().map((m) => m.id)).toEqual(log.session.deriveMessages().map((m) => m.id))
  })

  it('a fork marker names the branch when the tree is rebuilt from the log alone', async () => {
    const { log, projector, switcher, agent, byText, sync } = setup()
    const a1 = byText('a1')
    projector.tree.fork(a1, 'experiment')
    await switcher.switch(agent, a1, 'experiment')
    log.userTurn('q5', 'a5')
    sync()
    expect(projector.tree.activeBranch).toBe('experiment')
    const rebuilt = rebuiltFrom(log.events)
    expect(rebuilt.tree.activeBranch).toBe('experiment')
    expect(rebuilt.tree.info().branchHeads).toEqual(projector.tree.info().branchHeads)
  })
})

describe('a crash in the middle of a switch', () => {
  it('at every event of the maintenance turn: the log resumes, and repeating the switch converges', async () => {
    const rig = setup()
    const { log, projector, switcher, agent, byText } = rig
    await q4OnA1(rig)
    const a3 = byText('a3')
    const target = projector.tree.messages(a3).map((m) => m.content)
    const start = log.session.seq
    projector.tree.jump(a3)
    const report = await switcher.switch(agent, a3)
    // marker insert, turn/start, claim, then 3 steps (one per copied assistant message: the call, a2, a3)
    // holding the stand-in q2, 5 copies and the tool/call copy, then turn/end
    expect(report.ok && report.value.appendedEvents).toBe(17)
    const full = [...log.session.events]
    const { interruptedTurnClosers } = await import('@deepseek-ai/dsh-session')
    for (let cut = start + 1; cut < full.length; cut++) {
      // What a crash leaves: a prefix; what a resume adds: the harness's own repair of the open turn.
      const prefix = full.slice(0, cut)
      const seed = [...prefix, ...interruptedTurnClosers(prefix as never)]
      const resumed = Session.create(log.session.id, seed as never, log.session.header)
      const replay = new LogBuilder(resumed)
      const rebuilt = new SessionProjector(new SessionTree('s1'))
      const resync = () => {
        for (const e of replay.events) rebuilt.project(e)
      }
      resync()
      expect(
        rebuilt.quarantine,
        `cut at ${cut}: ${JSON.stringify(rebuilt.quarantine)} ${JSON.stringify(seed.slice(-4))}`,
      ).toEqual([])
      expect(rebuilt.tree.cursor, `cut at ${cut}`).toBe(rebuilt.tip)
      // Repeat the switch on the resumed session.
      const again = new StockSwitcher({ trees: { get: () => ({ projector: rebuilt }) }, flush: async () => {} })
      const agent2 = new FakeAgent(replay, (p, n) => again.preStep(p, n), resync)
      rebuilt.tree.jump(a3)
      const repeated = await again.switch(agent2, a3)
      expect(repeated.ok, `cut at ${cut}: ${JSON.stringify(repeated)}`).toBe(true)
      resync()
      expect(
        replay.modelTexts().map((t) => t.replace(/^result:/, '').replace(/^call:read$/, '')),
        `cut at ${cut}`,
      ).toEqual(target)
      // Every call the model reads is answered by its own result (copied exchanges carry fresh ids).
      for (const { calls, results, sources } of callPairing(resumed))
        expect([results, sources], `cut at ${cut}`).toEqual([calls, calls])
      expect(rebuilt.tip).toBe(a3)
      // And that repaired, re-switched log reloads too.
      expect(() => Session.create(log.session.id, [...resumed.events] as never, log.session.header)).not.toThrow()
    }
  })
})

describe('a switch inside a running step (a move the model makes with a tool)', () => {
  function midTurn() {
    const ctx = setup()
    const { log, sync } = ctx
    const { turn } = log.openJump('go back to the first answer', 'a1')
    sync()
    return { ...ctx, turn }
  }
  /** What the loop does after the tool returns, then the next step's request. */
  function finishStep(log: LogBuilder, turn: number) {
    const s = log.session
    log.toolResult(turn, 'jump_1', 'Jumped.')
    s.append('step/end', { turn, step: 1 })
    s.append('step/start', { turn, step: 2 })
  }

  it('the next request of the same turn holds the selected path, then the call and its result', async () => {
    const { log, projector, switcher, byText, sync, turn } = midTurn()
    const a1 = byText('a1')
    projector.tree.jump(a1)
    const report = switcher.switchWithinStep(log.session as never, a1, 'jump_1')
    expect(report.ok, JSON.stringify(report)).toBe(true)
    finishStep(log, turn)
    sync()
    expect(modelTexts(log)).toEqual(['q1', 'runtime context', 'a1', 'call:tree', 'result:Jumped.'])
    expect(projector.quarantine).toEqual([])
    // The tree says the same: the re-stated message and its call continue from a1.
    const path = projector.tree.currentPath().map((n) => n.summary)
    expect(path.slice(0, 3)).toEqual(['q1', 'runtime context', 'a1'])
    expect(projector.tree.get(projector.tip!)).toMatchObject({ type: 'tool_call', message: { content: 'Jumped.' } })
    const { checkAgreement } = await import('../../../src/invariant.ts')
    expect(checkAgreement(projector, log.session.surface.nodes, true)).toBeUndefined()
    // The old branch keeps the call that was cut off, without a result.
    const orphan = projector.tree
      .list()
      .filter((n) => n.type === 'tool_call' && n.content?.some((p) => p.type === 'tool_call' && p.id === 'jump_1'))
    expect(orphan).toHaveLength(2)
    // The log alone rebuilds the same tree, and it reloads through the harness.
    const rebuilt = rebuiltFrom(log.events)
    expect(rebuilt.tree.list().map((n) => [n.nodeId, n.parentId])).toEqual(
      projector.tree.list().map((n) => [n.nodeId, n.parentId]),
    )
    expect(() => Session.create(log.session.id, [...log.session.events] as never, log.session.header)).not.toThrow()
  })

  it('a crash before, after, or (unreachably) inside the in-step switch: the log resumes; tree and history agree where a crash can land', async () => {
    const { log, projector, switcher, byText, turn } = midTurn()
    const a1 = byText('a1')
    projector.tree.jump(a1)
    const start = log.session.seq
    expect(switcher.switchWithinStep(log.session as never, a1, 'jump_1').ok).toBe(true)
    const switched = log.session.seq
    finishStep(log, turn)
    const full = [...log.session.events]
    const { interruptedTurnClosers } = await import('@deepseek-ai/dsh-session')
    const { checkAgreement } = await import('../../../src/invariant.ts')
    // The switch appends its events in one synchronous batch, so a persistence writer (which
    // flushes between ticks) stores all of them or none: a crash lands before or after it.
    const reachable = new Set([start, switched, switched + 1, full.length])
    for (let cut = start; cut <= full.length; cut++) {
      const prefix = full.slice(0, cut)
      const resumed = Session.create(
        log.session.id,
        [...prefix, ...interruptedTurnClosers(prefix as never)] as never,
        log.session.header,
      )
      const rebuilt = rebuiltFrom(resumed.events)
      expect(rebuilt.quarantine, `cut at ${cut}`).toEqual([])
      if (reachable.has(cut))
        expect(checkAgreement(rebuilt, resumed.surface.nodes, true), `cut at ${cut}`).toBeUndefined()
    }
  })

  it('refuses when the call shares its message with other calls', () => {
    const ctx = setup()
    const { log, switcher, byText } = ctx
    const turn = log.openTurn()
    log.session.append(
      'assistant/message',
      {
        turn,
        step: 1,
        message: createAssistantMessage({
          content: [
            { type: 'tool-call', id: CallId('jump_1'), name: 'tree', arguments: '{"action":"jump"}' },
            { type: 'tool-call', id: CallId('read_9'), name: 'read', arguments: '{}' },
          ],
          source: { provider: PROVIDER, model: MODEL },
        }),
      },
      { surfaceOp: 'append' },
    )
    ctx.sync()
    const seq = log.session.seq
    const report = switcher.switchWithinStep(log.session as never, byText('a1'), 'jump_1')
    expect(!report.ok && report.error.code).toBe('AGENT_BUSY')
    // Callers route on the reason in details (the tool words its wait from it), never on the message.
    expect(!report.ok && report.error.details).toEqual({ callId: 'jump_1', reason: 'shared-message' })
    expect(log.session.seq).toBe(seq)
  })
})

/**
 * A switch to another branch (back to a3 after q4 a4 on a1) with the copies shaped for a reader:
 * what dsh-TUI draws of the switch (`drawnAsMessage`, with the answers a later empty answer erases).
 */
async function siblingSwitch(drawnBy: TranscriptReader) {
  const rig = setup()
  const { log, projector, switcher, agent, byText, sync } = rig
  switcher.drawnBy = drawnBy
  await q4OnA1(rig)
  const switchedAt = log.session.seq
  const a3 = byText('a3')
  projector.tree.jump(a3)
  const report = await switcher.switch(agent, a3)
  expect(report.ok, JSON.stringify(report)).toBe(true)
  sync()
  const events = log.session.events as unknown as readonly LogEvent[]
  const erased = erasedAnswers(events)
  const drawn = events.filter((e) => e.seq > switchedAt && drawnAsMessage(e, erased)).map((e) => e.type)
  return { log, projector, drawn, a3 }
}

describe('copies shaped for dsh-TUI (drawnBy: dsh-tui)', () => {
  it('a switch to another branch draws no prompt or answer a second time; the model reads the same history', async () => {
    const plain = await siblingSwitch('any')
    const shaped = await siblingSwitch('dsh-tui')
    // As they are, dsh-TUI draws the restated q2, the read's card, a2, q3 and a3 again.
    expect(plain.drawn).toEqual(['user/message', 'tool/call', 'assistant/message', 'user/message', 'assistant/message'])
    // Shaped, only the copied exchange's card (dsh-TUI draws one for every tool/call).
    expect(shaped.drawn).toEqual(['tool/call'])
    expect(modelTexts(shaped.log)).toEqual(modelTexts(plain.log))
    // The same messages on the wire, but for the fresh call ids of the copies.
    const wire = (log: LogBuilder) =>
      JSON.stringify(log.session.deriveMessages().map((m) => ({ role: m.role, content: m.content }))).replace(
        /call_dst_\w+/g,
        'ID',
      )
    expect(wire(shaped.log)).toBe(wire(plain.log))
    expect(shaped.projector.tip).toBe(shaped.a3)
    expect(shaped.projector.tree.nodeCount).toBe(plain.projector.tree.nodeCount)
    expect(shaped.projector.quarantine).toEqual([])
  })

  it('the log alone rebuilds the same tree, and the harness reloads it with the same history', async () => {
    const { log, projector } = await siblingSwitch('dsh-tui')
    const rebuilt = rebuiltFrom(log.events)
    expect(shape(rebuilt)).toEqual(shape(projector))
    expect(rebuilt.tip).toBe(projector.tip)
    expect(rebuilt.quarantine).toEqual([])
    const reloaded = Session.create(log.session.id, [...log.session.events] as never, log.session.header)
    expect(reloaded.deriveMessages().map((m) => m.id)).toEqual(log.session.deriveMessages().map((m) => m.id))
  })
})
