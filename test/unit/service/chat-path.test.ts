/**
 * `buildChatPath` (what DSH's Chat shows of the raw log) against REAL
 * harness logs: a real `Session` of the published `@deepseek-ai/dsh-session`,
 * real stock switches (the switcher through a fake agent loop, see
 * test/support/fake-agent.ts), the model's history read from the harness's
 * own `deriveMessages()`.
 *
 * The property that matters: the rows the Chat keeps (append-origin surface
 * events, as the host Chat draws them, minus the hidden seqs) read, in log
 * order, exactly as the model's history.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildChatPath, type ChatPath, type SeqRange } from '../../../src/service/chat-path.ts'
import { isMoveCall, MOVE_ACTIONS, TREE_TOOL } from '../../../src/service/chat-switches.ts'
import { markerOf } from '../../../src/harness/marker.ts'
import { ACTIONS } from '../../../src/tool/prompt.ts'
import { SessionTree } from '../../../src/tree/index.ts'
import { SessionProjector } from '../../../src/harness/projector.ts'
import { FakeAgent } from '../../support/fake-agent.ts'
import { blockText, LogBuilder, type ContentBlock } from '../../support/log-builder.ts'
import { stockRig, threeTurns } from '../../support/stock-rig.ts'

function setup() {
  const { log, projector, switcher, agent, sync, byText } = stockRig(threeTurns({ context: 'runtime context' }))
  const chat = () => buildChatPath({ sessionId: 's1', revision: 'r', mode: 'stock', events: log.events, projector })
  /** Move the tree and the model history (what the service's `move` does in stock mode). */
  const move = async (operation: (tree: SessionTree) => unknown, branch?: string, lane?: string) => {
    operation(projector.tree)
    const cut = projector.tree.completeCutPoint(projector.tree.cursor)
    const target = cut.ok ? cut.value : projector.tree.cursor
    if (target !== projector.tree.cursor) projector.tree.jump(target, { record: false })
    const report = await switcher.switch(agent, target, branch, lane)
    if (!report.ok) throw new Error(report.error.message)
    sync()
  }
  return { log, projector, switcher, byText, chat, move, sync }
}

const inRanges = (ranges: readonly SeqRange[], seq: number) => ranges.some(([a, b]) => seq >= a && seq <= b)

type Ev = { type: string; seq: number; surfaceOp?: unknown; data?: any }

/** What a surface event reads as, the way LogBuilder.modelTexts() flattens the model's messages. */
function textOf(e: Ev): string {
  const message = e.type === 'user/message' ? e.data : e.data.message
  return (message.content as ContentBlock[]).map(blockText).join('')
}

/** The rows the Chat keeps: append-origin surface events (what the host Chat draws) that are not hidden. */
function chatTexts(log: LogBuilder, path: ChatPath): string[] {
  return (log.events as unknown as Ev[])
    .filter(
      (e) =>
        ['user/message', 'assistant/message', 'tool/result'].includes(e.type) &&
        e.surfaceOp === 'append' &&
        !inRanges(path.hidden, e.seq),
    )
    .map(textOf)
}

describe('buildChatPath on real stock switches', () => {
  it('hides nothing in a session that never switched', () => {
    const { log, chat } = setup()
    const path = chat()
    expect(path.hidden).toEqual([])
    expect(path.switches).toEqual([])
    expect(path.forks).toEqual([])
    expect(chatTexts(log, path)).toEqual(log.modelTexts())
    expect(path.watermark).toBe(log.session.seq - 1)
  })

  it('a jump across the tool exchange hides the abandoned turns; one summary row counts them', async () => {
    const { log, byText, chat, move } = setup()
    await move((tree) => tree.jump(byText('a1')))
    const path = chat()
    expect(chatTexts(log, path)).toEqual(log.modelTexts())
    expect(log.modelTexts()).toEqual(['q1', 'runtime context', 'a1'])
    expect(path.switches).toHaveLength(1)
    const [sw] = path.switches
    // q2, the read call, a2, q3, a3: the call-only assistant message is no message of its own.
    expect(sw).toMatchObject({ kind: 'switch', target: byText('a1'), branch: 'main', lead: true, hiddenMessages: 5 })
    // "Show" reveals exactly the abandoned rows, never the switch's own bookkeeping.
    const revealed = (log.events as unknown as Ev[])
      .filter((e) => e.surfaceOp === 'append' && inRanges(sw!.reveal, e.seq))
      .map(textOf)
    expect(revealed).toEqual(['q2', 'call:read', 'result:file text', 'a2', 'q3', 'a3'])
    const marker = (log.events as unknown as Ev[]).find((e) => e.seq === sw!.seq)!
    expect(marker.type).toBe('agent/inbox/spliced')
    expect(inRanges(sw!.reveal, sw!.seq)).toBe(false)
  })

  it('back to the tip: copies stay hidden, the originals show again, the detour is one run', async () => {
    const { log, byText, chat, move, sync } = setup()
    await move((tree) => tree.jump(byText('a1')))
    log.userTurn('q4', 'a4')
    sync()
    await move((tree) => tree.back())
    const path = chat()
    expect(log.modelTexts()).toEqual([
      'q1',
      'runtime context',
      'a1',
      'q2',
      'call:read',
      'result:file text',
      'a2',
      'q3',
      'a3',
    ])
    expect(chatTexts(log, path)).toEqual(log.modelTexts())
    // Both switches sit in one run of hidden rows (q4, a4, then the copies); the later one leads.
    expect(path.switches.map((s) => s.lead)).toEqual([false, true])
    expect(path.switches[0]!.leadSeq).toBe(path.switches[1]!.seq)
    expect(path.switches[1]!.hiddenMessages).toBe(2)
    const revealed = (log.events as unknown as Ev[])
      .filter((e) => e.surfaceOp === 'append' && inRanges(path.switches[1]!.reveal, e.seq))
      .map(textOf)
    expect(revealed).toEqual(['q4', 'a4'])
    // q4's prompt and a1's other child make a1 a fork point on the path: q2 is 1 of 2.
    expect(path.forks).toEqual([
      expect.objectContaining({
        nodeId: byText('q2'),
        row: 'user',
        index: 1,
        count: 2,
        targets: [byText('a3'), byText('a4')],
      }),
    ])
  })

  it('a fork at an earlier node names its branch; ‹ k / n › targets each sibling lane', async () => {
    const { log, byText, chat, move, sync } = setup()
    await move((tree) => tree.fork(byText('a1'), 'alt'), 'alt')
    log.userTurn('q5', 'a5')
    sync()
    const path = chat()
    expect(chatTexts(log, path)).toEqual(log.modelTexts())
    expect(path.switches).toEqual([
      expect.objectContaining({ kind: 'fork', branch: 'alt', lead: true, hiddenMessages: 5 }),
    ])
    expect(path.forks).toEqual([
      expect.objectContaining({ nodeId: byText('q5'), index: 2, count: 2, targets: [byText('a3'), byText('a5')] }),
    ])
    const q5 = (log.events as unknown as Ev[]).find(
      (e) => e.type === 'user/message' && e.data.content?.[0]?.text === 'q5',
    )!
    expect(path.forks[0]!.seq).toBe(q5.seq)
  })

  it('a switch row names the branch recorded as active after the move (its lane), the marker says where the left history starts, "Show" where its first row is', async () => {
    const { log, projector, byText, chat, move, sync } = setup()
    await move((tree) => tree.fork(byText('a1'), 'alt'), 'alt', 'alt')
    log.userTurn('q5', 'a5')
    sync()
    await move((tree) => tree.jump(byText('a1')), undefined, 'alt')
    const events = log.events as unknown as Ev[]
    const q5 = events.find((e) => e.type === 'user/message' && e.data.content?.[0]?.text === 'q5')!
    const splices = events.filter((e) => e.type === 'agent/inbox/spliced' && e.data?.inserted?.length > 0)
    const marker = markerOf(splices.at(-1)!.data.inserted[0])
    expect(marker).toMatchObject({ op: 'switch', target: byText('a1'), lane: 'alt', leaves: q5.seq })
    const path = chat()
    expect(chatTexts(log, path)).toEqual(log.modelTexts())
    const last = path.switches.at(-1)!
    // Today a1 lies on main's lane: the row still says where the person was, as recorded.
    expect(projector.tree.get(byText('a1'))!.branch).toBe('main')
    // One run holds both switches' hidden rows (q2 … a3 from the fork, then q5, a5): "Show" starts at q2.
    const q2 = events.find((e) => e.type === 'user/message' && e.data.content?.[0]?.text === 'q2')!
    expect(last).toMatchObject({ kind: 'switch', branch: 'alt', lead: true, firstRow: q2.seq })
  })

  it("a model's own move inside its step: the row anchors at the move's call, the prompt it left is counted", () => {
    const { log, projector, switcher, byText, chat, sync } = setup()
    const s = log.session
    const { turn } = log.openJump('go back to the first answer', 'a1')
    sync()
    const call = s.seq - 1
    const a1 = byText('a1')
    projector.tree.jump(a1)
    expect(switcher.switchWithinStep(s as never, a1, 'jump_1').ok).toBe(true)
    log.toolResult(turn, 'jump_1', 'Jumped.')
    s.append('step/end', { turn, step: 1 })
    sync()
    const path = chat()
    expect(chatTexts(log, path)).toEqual(log.modelTexts())
    expect(path.switches).toEqual([expect.objectContaining({ seq: call, kind: 'switch', target: a1, lead: true })])
    // q2, the read call, a2, q3, a3 and the prompt that asked for the move: all off the path now.
    expect(path.switches[0]!.hiddenMessages).toBe(6)
    // The moving actions are the tool's own.
    for (const action of MOVE_ACTIONS) expect(ACTIONS).toContain(action)
    expect(isMoveCall(TREE_TOOL, { action: 'fork', node: 'e1', branch: 'b' })).toBe(true)
    expect(isMoveCall(TREE_TOOL, '{"action":"list"}')).toBe(false)
    expect(isMoveCall(TREE_TOOL, 'not json')).toBe(false)
    expect(isMoveCall('read', '{"action":"jump"}')).toBe(false)
  })

  it('a cancelled marker switched nothing and gets no row', async () => {
    const { log, chat } = setup()
    const agent = new FakeAgent(
      log,
      async (_p, n) => n(),
      () => {},
    )
    agent.send(
      {
        id: 'dsh-session-tree:switch:x',
        role: 'user',
        content: [
          { type: 'text', text: JSON.stringify({ 'dsh-session-tree': { v: 1, op: 'switch', id: 'x', target: null } }) },
        ],
        source: { kind: 'plugin', plugin: 'dsh-session-tree' },
      },
      'next-turn',
      false,
    )
    agent.inbox.remove('dsh-session-tree:switch:x')
    expect(chat().switches).toEqual([])
  })

  it('property: after any sequence of moves and prompts, the kept rows read as the model history', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant('jump' as const), pick: fc.nat() }),
            fc.record({ kind: fc.constant('prompt' as const), tool: fc.boolean() }),
            fc.record({ kind: fc.constantFrom('back' as const, 'forward' as const) }),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        async (steps) => {
          const { log, projector, chat, move } = setup()
          let n = 0
          for (const step of steps) {
            if (step.kind === 'prompt') {
              n++
              log.userTurn(
                `p${n}`,
                `r${n}`,
                step.tool ? { tools: [{ name: 'read', args: { n }, result: `t${n}` }] } : {},
              )
              for (const e of log.events) projector.project(e)
            } else if (step.kind === 'jump') {
              const nodes = projector.tree.list()
              await move((tree) => tree.jump(nodes[step.pick % nodes.length]!.nodeId))
            } else {
              await move((tree) => (step.kind === 'back' ? tree.back() : tree.forward()))
            }
            const path = chat()
            expect(chatTexts(log, path)).toEqual(log.modelTexts())
            // Every run of hidden rows that a switch made has exactly one lead.
            const leads = new Set(path.switches.map((s) => s.leadSeq))
            expect(path.switches.filter((s) => s.lead).map((s) => s.seq)).toEqual([...leads])
          }
        },
      ),
      { numRuns: 40 },
    )
  }, 600_000)
})

describe('buildChatPath in native mode (selection events)', () => {
  it('a selection hides the abandoned rows and leads their run; no copies exist', () => {
    const log = new LogBuilder('n1').userTurn('q1', 'a1').userTurn('q2', 'a2')
    const events: unknown[] = [...log.events]
    const projector = new SessionProjector(new SessionTree('n1'))
    for (const e of events) projector.project(e)
    const seqOf = (text: string) =>
      (events as Ev[]).find((e) => ['user/message', 'assistant/message'].includes(e.type) && textOf(e) === text)!.seq
    const a1 = projector.tree.list().find((n) => n.message?.content === 'a1')!.nodeId
    // What the patched harness logs for `selectMessageSurface([q1, a1], { target })`.
    const selection = {
      type: 'session-tree/selection',
      seq: events.length,
      time: 0,
      data: { target: a1, seqs: [seqOf('q1'), seqOf('a1')] },
    }
    events.push(selection)
    projector.project(selection)
    const path = buildChatPath({ sessionId: 'n1', revision: 'r', mode: 'native', events, projector })
    const kept = (events as Ev[])
      .filter((e) => ['user/message', 'assistant/message'].includes(e.type) && !inRanges(path.hidden, e.seq))
      .map(textOf)
    expect(kept).toEqual(['q1', 'a1'])
    expect(path.switches).toEqual([
      expect.objectContaining({ seq: selection.seq, target: a1, lead: true, hiddenMessages: 2 }),
    ])
    expect(path.tip).toBe(a1)
  })
})
