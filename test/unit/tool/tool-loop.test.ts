/**
 * The model tools and `/tree` through the REAL published DSH runtime, in
 * process: `dsh-agent-loop` drives turns, `dsh-tools` registers and executes
 * the tools, `dsh-commands` dispatches `/tree`, `dsh-session` keeps the log,
 * and this package's service switches the model history. Only the model is
 * scripted (`test/support/tool-rig.ts`), and every request it receives is recorded — so
 * "the next request holds exactly the selected path" is checked on what the
 * loop really sends.
 */
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { describe, expect, it } from 'vitest'
import { markerOf } from '../../../src/harness/marker.ts'
import { SYSTEM_PROMPT, TREE_TOOL } from '../../../src/tool/index.ts'
import { checkedRigs, transcript, type LoopRig } from '../../support/tool-rig.ts'

const rig = checkedRigs()

/** The `tree` action of a logged call (its arguments are JSON text or an object). */
function actionOf(data: { name?: unknown; arguments?: unknown }): string | undefined {
  if (data.name !== TREE_TOOL) return undefined
  const args = typeof data.arguments === 'string' ? JSON.parse(data.arguments) : data.arguments
  return args?.action
}
/** Full tool-result text of the newest call of a `tree` action. */
function toolResultText(rig: LoopRig, action: string): string {
  const events = rig.agent.session.events as ReadonlyArray<{ type: string; data: any }>
  const call = [...events].reverse().find((e) => e.type === 'tool/call' && actionOf(e.data) === action)
  const result = events.find(
    (e) => e.type === 'tool/result' && e.data.message.content[0].toolCallId === call?.data.callId,
  )
  const content = result?.data.message.content[0].content
  return Array.isArray(content)
    ? content.map((part: { text?: string }) => part.text ?? '').join('')
    : String(content ?? '')
}
/** Node id of the node whose message text is exactly `text`. */
async function nodeOf(rig: LoopRig, text: string): Promise<string> {
  const node = (await rig.service.list(rig.sessionId)).nodes.find((n) => n.message?.content === text)
  if (!node) throw new Error(`no node ${JSON.stringify(text)}`)
  return node.nodeId
}
/** Each message of a request as `role:block types`, with the call id on tool calls and results. */
function shape(request: LoopRig['model']['requests'][number]): string[] {
  return (
    request.messages as unknown as ReadonlyArray<{ role: string; content: ReadonlyArray<Record<string, unknown>> }>
  ).map(
    (message) =>
      `${message.role}:${message.content.map((block) => (block.type === 'tool-call' ? `tool-call#${String(block.id)}` : block.type === 'tool-result' ? `tool-result#${String(block.toolCallId)}` : String(block.type))).join(',')}`,
  )
}
/** Node ids from the root to `nodeId`. */
function pathTo(view: { nodes: ReadonlyArray<{ nodeId: string; parentId: string | null }> }, nodeId: string): string[] {
  const byId = new Map(view.nodes.map((n) => [n.nodeId, n]))
  const path: string[] = []
  for (let id: string | null = nodeId; id !== null; id = byId.get(id)?.parentId ?? null) path.unshift(id)
  return path
}
const command = (r: LoopRig, line: string) =>
  (r.ctx as any).commands.execute(r.agent, line, [], new AbortController().signal)
/** A model step that makes one `tree` call. */
const treeCall = (args: Record<string, unknown>) => ({ calls: [{ name: 'tree', args }] })
/**
 * A model step that jumps to `node` in the same message as another `tree` call (`other`, a list by default): a move
 * that cannot switch the history within its step, so it waits for the end of the turn.
 */
const deferredJump = (node: string, other: Record<string, unknown> = { action: 'list' }) => ({
  calls: [
    { name: 'tree', args: { action: 'jump', node } },
    { name: 'tree', args: other },
  ],
})
const types = (rig: LoopRig) => (rig.agent.session.events as ReadonlyArray<{ type: string }>).map((e) => e.type)

describe('tool companion in a real agent loop', () => {
  it('registers the tools, the /tree command and the system-prompt section', async () => {
    const r = await rig([])
    const ctx = r.ctx as any
    const schemas = ctx.tools.schemas() as { name: string; parameters: { additionalProperties?: boolean } }[]
    expect(schemas.map((s) => s.name).filter((n) => n.startsWith('tree'))).toEqual([TREE_TOOL])
    expect(schemas.find((s) => s.name === TREE_TOOL)!.parameters.additionalProperties).toBe(false)
    expect(ctx.commands.list(r.agent).map((c: { name: string }) => c.name)).toContain('tree')
    const assembly = await ctx.systemPrompt.assemble()
    expect(assembly.sections.map((s: { text: string }) => s.text)).toContain(SYSTEM_PROMPT)
  })

  it('runs under the invariant companions: a tree that falls out of step with the model history is caught', async () => {
    const r = await rig([{ text: 'A1' }, { text: 'A2' }])
    expect([...(r.ctx as any).invariants.registrations]).toEqual(
      expect.arrayContaining([
        'dsh-session-tree',
        '@deepseek-ai/dsh-session',
        '@deepseek-ai/dsh-agent-loop',
        '@deepseek-ai/dsh-tools',
      ]),
    )
    await r.say('Q1')
    expect(r.invariantFailures).toEqual([])
    const mirror = r.service.sync.get(r.sessionId)!.projector.surfaceEntries as unknown as unknown[]
    const popped = mirror.pop()
    // The next committed event (the queued prompt) is vetoed.
    expect(() =>
      r.agent.followup(createUserMessage({ content: [{ type: 'text', text: 'Q2' }], source: { kind: 'user' } })),
    ).toThrow(/invariant violated by "dsh-session-tree"/)
    expect(r.invariantFailures).toEqual([
      expect.stringMatching(
        /^dsh-session-tree: .*surface mirror \(1 entries\) disagrees with the harness surface \(2\)/,
      ),
    ])
    mirror.push(popped)
    r.invariantFailures.length = 0
    await r.say('Q2 again')
    expect(transcript(r.model.requests.at(-1)!)).toEqual(['user: Q1', 'assistant: A1', 'user: Q2 again'])
  })

  it('the model lists the tree and jumps to its first answer: the very next request of the same turn is exactly that path, the call and its result', async () => {
    let listing = ''
    const r = await rig([
      { text: 'A1' },
      treeCall({ action: 'list' }),
      (request) => {
        listing = transcript(request).at(-1)!
        return { calls: [{ name: 'tree', args: { action: 'jump', node: 'e12' }, id: 'jump_1' }] }
      },
      { text: 'Continuing from my first answer.' },
      { text: 'A3' },
    ])
    await r.say('Q1')
    expect(await nodeOf(r, 'A1')).toBe('e12')
    await r.say('Q2')
    expect(listing).toMatch(
      /^tool: Conversation tree: \d+ nodes, 1 branch \(main\)\. The history ends at e\d+ \(← cursor\) on branch "main"\. Surface mode: stock\.$/,
    )
    const listed = toolResultText(r, 'list')
    expect(listed).toContain('e12 assistant: A1')
    expect(listed).toContain('e4 user: Q1')
    const moved = toolResultText(r, 'jump')
    expect(moved).toMatch(
      /^Moved now: jump to e12\. Your history is exactly the 2 messages from the start to e12, followed by this call and this result; continue from there\.\n/,
    )
    expect(moved).toContain('Surface mode: stock.')
    // The request right after the call, in the same turn: the path to e12, then the call and its result — nothing else.
    expect(r.model.requests).toHaveLength(4)
    const next = r.model.requests[3]!
    expect(transcript(next)).toEqual([
      'user: Q1',
      'assistant: A1',
      'assistant: call tree({"action":"jump","node":"e12"})',
      'tool: Moved now: jump to e12. Your history is exactly the 2 messages from the start to e12, followed by this call and this result; continue from there.',
    ])
    expect(shape(next)).toEqual([
      'user:text',
      'assistant:text',
      'assistant:tool-call#jump_1',
      'user:tool-result#jump_1',
    ])
    // No maintenance turn, no marker, nothing deferred: the switch happened inside the step that made the call.
    const events = r.agent.session.events as ReadonlyArray<{ type: string; seq: number; data: any; surfaceOp?: any }>
    expect(events.filter((e) => e.type === 'turn/start')).toHaveLength(2)
    expect(
      events.some((e) => e.type === 'agent/inbox/spliced' && (e.data.inserted ?? []).some((m: unknown) => markerOf(m))),
    ).toBe(false)
    expect(r.tool.moves.pending(r.sessionId)).toBeUndefined()
    expect(r.tool.moves.lastOutcome(r.sessionId)).toBeUndefined()
    const call = events.find((e) => e.type === 'tool/call' && e.data.callId === 'jump_1')!
    const result = events.find((e) => e.type === 'tool/result' && e.data.message.content[0].toolCallId === 'jump_1')!
    const replaced = events.filter((e) => e.surfaceOp?.op === 'replace')
    expect(replaced).toHaveLength(1)
    expect(replaced[0]!.seq).toBeGreaterThan(call.seq)
    expect(replaced[0]!.seq).toBeLessThan(result.seq)
    expect(replaced[0]!.data).toMatchObject({ turn: 2, step: call.data.step })

    // The next prompt lands after the jump exchange and the answer that followed it.
    await r.say('Q3')
    expect(transcript(r.model.requests.at(-1)!)).toEqual([
      'user: Q1',
      'assistant: A1',
      'assistant: call tree({"action":"jump","node":"e12"})',
      expect.stringMatching(/^tool: Moved now: jump to e12\./),
      'assistant: Continuing from my first answer.',
      'user: Q3',
    ])
    // The tree agrees: the answer hangs under the re-stated call, which continues from e12; the old line is intact.
    const view = await r.service.list(r.sessionId)
    const byId = new Map(view.nodes.map((n) => [n.nodeId, n]))
    const continued = view.nodes.find((n) => n.message?.content === 'Continuing from my first answer.')!
    const restated = byId.get(continued.parentId!)!
    expect(restated).toMatchObject({
      type: 'tool_call',
      message: { content: expect.stringMatching(/^Moved now: jump to e12\./) },
    })
    expect(restated.content).toEqual([
      expect.objectContaining({
        type: 'tool_call',
        id: 'jump_1',
        name: 'tree',
        arguments: { action: 'jump', node: 'e12' },
      }),
      expect.objectContaining({ type: 'tool_result', toolCallId: 'jump_1' }),
    ])
    expect(byId.get(restated.parentId!)?.parentId).toBe('e12')
    expect(view.nodes.find((n) => n.message?.content === 'Q3')?.parentId).toBe(continued.nodeId)
    expect(view.cursor).toBe(await nodeOf(r, 'A3'))
    expect(byId.get(await nodeOf(r, 'Q2'))?.parentId).toBe('e12')
    const oldCalls = view.nodes.filter(
      (n) =>
        n.type === 'tool_call' &&
        n.content?.some((p) => p.type === 'tool_call' && p.name === 'tree' && (p.arguments as any)?.action === 'list'),
    )
    expect(oldCalls).toHaveLength(1)
    expect(pathTo(view, oldCalls[0]!.nodeId)).toEqual([
      'e4',
      'e12',
      await nodeOf(r, 'Q2'),
      expect.any(String),
      oldCalls[0]!.nodeId,
    ])
    // The path the tree shows is the history the model read.
    expect(pathTo(view, view.cursor!).map((id) => byId.get(id)!.type)).toEqual([
      'message',
      'message',
      'message',
      'tool_call',
      'message',
      'message',
      'message',
    ])
  })

  it('fork by label, within the step: the next request follows the new branch, and list shows both heads', async () => {
    const r = await rig([
      { text: 'A1' },
      treeCall({ action: 'label', node: 'e12', text: 'first answer' }),
      treeCall({ action: 'fork', node: 'first answer', branch: 'retry' }),
      treeCall({ action: 'list' }),
      { text: 'ok' },
      { text: 'A3' },
    ])
    await r.say('Q1')
    await r.say('Q2')
    expect(toolResultText(r, 'label')).toBe('Labeled e12 "first answer": e12 assistant: A1 [label: first answer]')
    expect(toolResultText(r, 'fork')).toMatch(
      /^Moved now: fork branch "retry" at e12\. Your history is exactly the 2 messages from the start to e12 on the new branch "retry", followed by this call and this result; continue from there\.\n/,
    )
    expect(transcript(r.model.requests[3]!)).toEqual([
      'user: Q1',
      'assistant: A1',
      'assistant: call tree({"action":"fork","node":"first answer","branch":"retry"})',
      expect.stringMatching(/^tool: Moved now: fork branch "retry" at e12\./),
    ])
    expect(shape(r.model.requests[3]!)).toHaveLength(4)
    // Within the same turn, the listing already shows the new branch (cursor on it) and the old head.
    const listed = toolResultText(r, 'list')
    expect(listed).toContain('[label: first answer]')
    expect(listed).toMatch(/on branch "retry"/)
    expect(listed).toContain('[head: main]')
    expect(listed).toContain('↳')
    const view = await r.service.list(r.sessionId)
    expect(view.activeBranch).toBe('retry')
    expect(view.branches.map((b) => b.name).sort()).toEqual(['main', 'retry'])
    // The old branch keeps Q2 and the label call; its head is the fork call that was cut off there.
    const main = view.branches.find((b) => b.name === 'main')!
    expect(pathTo(view, main.headId)).toContain(await nodeOf(r, 'Q2'))
    expect(r.model.requests).toHaveLength(5)
    await r.say('Q3')
    expect(transcript(r.model.requests.at(-1)!)).toEqual([
      'user: Q1',
      'assistant: A1',
      'assistant: call tree({"action":"fork","node":"first answer","branch":"retry"})',
      expect.stringMatching(/^tool: Moved now: fork/),
      'assistant: call tree({"action":"list"})',
      expect.stringMatching(/^tool: Conversation tree/),
      'assistant: ok',
      'user: Q3',
    ])
    expect((await r.service.list(r.sessionId)).branches.find((b) => b.name === 'retry')?.headId).toBe(
      await nodeOf(r, 'A3'),
    )
  })

  it('the result quotes the user prompt that fell out of the history, and only then', async () => {
    const r = await rig([
      { text: 'A1' },
      { calls: [{ name: 'read_nothing', args: {} }] },
      // Back to the end of that (failed) exchange: the prompt of this turn stays on the path.
      treeCall({ action: 'jump', node: 'e26' }),
      treeCall({ action: 'jump', node: 'e12' }),
      { text: 'ok' },
    ])
    await r.say('Q1')
    await r.say('Please go back to "the first answer"\nand start over')
    const results = (r.agent.session.events as ReadonlyArray<{ type: string; data: any }>)
      .filter((e) => e.type === 'tool/result')
      .map((e) => e.data.message.content[0].content.map((p: { text: string }) => p.text).join(''))
    expect(results[1]).toMatch(
      /^Moved now: jump to e26\. Your history is exactly the 5 messages from the start to e26,/,
    )
    expect(results[1]).not.toContain("The user's latest message")
    expect(results[2]).toMatch(
      /^Moved now: jump to e12\. Your history is exactly the 2 messages from the start to e12,/,
    )
    expect(results[2]).toContain(
      `The user's latest message, which is no longer in your history, was: ${JSON.stringify('Please go back to "the first answer"\nand start over')}`,
    )
    expect(transcript(r.model.requests.at(-1)!)).toEqual([
      'user: Q1',
      'assistant: A1',
      'assistant: call tree({"action":"jump","node":"e12"})',
      expect.stringMatching(/^tool: Moved now: jump to e12\./),
    ])
  })

  it('back and forward switch within the step too', async () => {
    const r = await rig([
      { text: 'A1' },
      { text: 'A2' },
      treeCall({ action: 'back' }),
      { text: 'back at A2' },
      treeCall({ action: 'forward' }),
      { text: 'forward at A1' },
    ])
    await r.say('Q1')
    await r.say('Q2')
    const a2 = await nodeOf(r, 'A2')
    // A person moved (idle: at once), so there is a move to undo, then a move to redo.
    expect((await command(r, '/tree jump e12')).result.text).toContain('Moved: jump to e12.')
    await r.say('Q3: undo that jump')
    expect(toolResultText(r, 'back')).toMatch(
      new RegExp(
        `^Moved now: back\\. Your history is exactly the 4 messages from the start to ${a2}, followed by this call and this result`,
      ),
    )
    expect(toolResultText(r, 'back')).toContain(
      `The user's latest message, which is no longer in your history, was: "Q3: undo that jump"`,
    )
    expect(transcript(r.model.requests[3]!)).toEqual([
      'user: Q1',
      'assistant: A1',
      'user: Q2',
      'assistant: A2',
      'assistant: call tree({"action":"back"})',
      expect.stringMatching(/^tool: Moved now: back\./),
    ])
    // A person jumps to e12 and undoes it (idle: at once), so e12 is a position to redo; the model redoes it.
    await command(r, '/tree jump e12')
    expect((await command(r, '/tree back')).result.text).toMatch(/^Moved: back\./)
    await r.say('Q4: redo it')
    expect(toolResultText(r, 'forward')).toMatch(
      /^Moved now: forward\. Your history is exactly the 2 messages from the start to e12, followed by this call and this result/,
    )
    expect(transcript(r.model.requests.at(-1)!)).toEqual([
      'user: Q1',
      'assistant: A1',
      'assistant: call tree({"action":"forward"})',
      expect.stringMatching(/^tool: Moved now: forward\./),
    ])
    expect(r.tool.moves.lastOutcome(r.sessionId)).toBeUndefined()
    expect(r.model.requests).toHaveLength(6)
  })

  // A move made within a step records the in-flight call (inside an unfinished exchange) as the position to
  // go back to; back lands at the nearest complete point before it.
  it("back undoes the model's own in-step jump", async () => {
    const r = await rig([
      { text: 'A1' },
      treeCall({ action: 'jump', node: 'e12' }),
      treeCall({ action: 'back' }),
      { text: 'done' },
    ])
    await r.say('Q1')
    await r.say('Q2')
    expect(toolResultText(r, 'back')).toMatch(/^Moved now: back\./)
    // Back to where the jump was made: Q2 still unanswered, then the back call and its result.
    expect(transcript(r.model.requests[3]!)).toEqual([
      'user: Q1',
      'assistant: A1',
      'user: Q2',
      'assistant: call tree({"action":"back"})',
      expect.stringMatching(/^tool: Moved now: back\./),
    ])
  })

  it('parallel calls: a move sharing its message with another call is deferred to the end of the turn; the next prompt lands on the path', async () => {
    const r = await rig([
      { text: 'A1' },
      deferredJump('e12', { action: 'find', text: 'A1' }),
      { text: 'Done: I will continue from my first answer.' },
      { text: 'A3' },
    ])
    await r.say('Q1')
    await r.say('Q2')
    const scheduled = toolResultText(r, 'jump')
    expect(scheduled).toContain('Scheduled: jump to e12.')
    expect(scheduled).toContain('It cannot switch your history at once: the call shares its message with other calls.')
    expect(scheduled).toContain('It takes effect when this turn ends')
    expect(scheduled).toContain('exactly the 2 messages from the start to e12')
    // The rest of the jump's turn still saw the whole conversation.
    expect(transcript(r.model.requests[2]!)).toEqual([
      'user: Q1',
      'assistant: A1',
      'user: Q2',
      'assistant: call tree({"action":"jump","node":"e12"})',
      'assistant: call tree({"action":"find","text":"A1"})',
      'tool: Scheduled: jump to e12.',
      expect.stringMatching(/^tool: 1 node matches "A1"/),
    ])
    await r.say('Q3')
    expect(transcript(r.model.requests.at(-1)!)).toEqual(['user: Q1', 'assistant: A1', 'user: Q3'])
    // The switch ran after the tool's turn ended, never inside it.
    const events = r.agent.session.events as ReadonlyArray<{ type: string; seq: number; data: any }>
    const jumpTurnEnd = events.find((e) => e.type === 'turn/end' && e.data.turn === 2)!
    const marker = events.find(
      (e) => e.type === 'agent/inbox/spliced' && (e.data.inserted ?? []).some((m: unknown) => markerOf(m)),
    )!
    expect(marker.seq).toBeGreaterThan(jumpTurnEnd.seq)
    const view = await r.service.list(r.sessionId)
    expect(view.nodes.find((n) => n.message?.content === 'Q3')!.parentId).toBe('e12')
    expect(view.nodes.some((n) => n.message?.content === 'Done: I will continue from my first answer.')).toBe(true)
    expect(view.cursor).toBe(await nodeOf(r, 'A3'))
    expect(r.tool.moves.lastOutcome(r.sessionId)).toMatchObject({
      status: 'applied',
      move: { by: 'model', op: { kind: 'jump', nodeId: 'e12' } },
    })
  })

  it('a prompt queued while a deferred move waits is held, then lands on the selected path (once)', async () => {
    const r = await rig([{ text: 'A1' }, deferredJump('e12'), { text: 'jump scheduled' }, { text: 'A-raced' }])
    await r.say('Q1')
    r.model.onRequest = (_request, n) => {
      // While the model writes its last answer of the jump turn, the user queues a prompt.
      if (n === 3)
        r.agent.followup(createUserMessage({ content: [{ type: 'text', text: 'Q-raced' }], source: { kind: 'user' } }))
    }
    await r.say('Q2')
    await r.settle()
    expect(toolResultText(r, 'jump')).toMatch(/^Scheduled: jump to e12\./)
    const last = r.model.requests.at(-1)!
    expect(transcript(last)).toEqual(['user: Q1', 'assistant: A1', 'user: Q-raced'])
    expect(r.model.requests).toHaveLength(4)
    const events = r.agent.session.events as ReadonlyArray<{ type: string; data: any }>
    // The raced prompt's first turn was held without a model call, then re-delivered exactly once; no turn ends blocked.
    expect(events.filter((e) => e.type === 'turn/end' && e.data.reason.kind === 'blocked')).toEqual([])
    expect(
      events.filter((e) => e.type === 'turn/end' && e.data.reason.kind === 'completed').length,
    ).toBeGreaterThanOrEqual(4)
    expect(events.filter((e) => e.type === 'user/message' && e.data.content[0].text === 'Q-raced')).toHaveLength(1)
    expect(r.tool.moves.lastOutcome(r.sessionId)?.status).toBe('applied')
  })

  it('back cancels a waiting move: nothing changes', async () => {
    const r = await rig([
      { text: 'A1' },
      deferredJump('e12'),
      treeCall({ action: 'back' }),
      { text: 'never mind' },
      { text: 'A3' },
    ])
    await r.say('Q1')
    await r.say('Q2')
    expect(toolResultText(r, 'jump')).toMatch(/^Scheduled: jump to e12\./)
    expect(toolResultText(r, 'back')).toBe(
      'Cancelled the waiting jump to e12; it had not been applied, so nothing changed.',
    )
    await r.say('Q3')
    expect(transcript(r.model.requests.at(-1)!).slice(-3)).toEqual([
      'tool: Cancelled the waiting jump to e12; it had not been applied, so nothing changed.',
      'assistant: never mind',
      'user: Q3',
    ])
    expect(transcript(r.model.requests.at(-1)!).slice(0, 3)).toEqual(['user: Q1', 'assistant: A1', 'user: Q2'])
    expect(types(r).filter((t) => t === 'turn/end')).toHaveLength(3)
    expect(r.tool.moves.lastOutcome(r.sessionId)?.status).toBe('cancelled')
  })

  it('a later move replaces a waiting one (even when made alone); back then undoes the applied move within its step', async () => {
    const r = await rig([
      { text: 'A1' },
      deferredJump('e4'),
      treeCall({ action: 'jump', node: 'e12' }),
      { text: 'ok' },
      treeCall({ action: 'back' }),
      { text: 'went back' },
      { text: 'A-after-back' },
    ])
    await r.say('Q1')
    await r.say('Q2')
    const replacing = toolResultText(r, 'jump')
    expect(replacing).toMatch(/^Scheduled: jump to e12\. \(This replaces the waiting jump to e4\.\)\n/)
    expect(replacing).toContain(
      'It cannot switch your history at once: another move already waits for the end of the turn.',
    )
    expect(r.tool.moves.lastOutcome(r.sessionId)).toMatchObject({
      status: 'applied',
      move: { op: { kind: 'jump', nodeId: 'e12' } },
    })
    const ok = await nodeOf(r, 'ok')
    await r.say('go back please')
    // Back returns to where the history ended before the jump: the end of the Q2 turn; the request right after shows it.
    expect(toolResultText(r, 'back')).toMatch(
      new RegExp(`^Moved now: back\\. Your history is exactly the 9 messages from the start to ${ok}, `),
    )
    const pathToOk = [
      'user: Q1',
      'assistant: A1',
      'user: Q2',
      'assistant: call tree({"action":"jump","node":"e4"})',
      'assistant: call tree({"action":"list"})',
      'tool: Scheduled: jump to e4.',
      expect.stringMatching(/^tool: Conversation tree/),
      'assistant: call tree({"action":"jump","node":"e12"})',
      'tool: Scheduled: jump to e12. (This replaces the waiting jump to e4.)',
      'assistant: ok',
    ]
    expect(transcript(r.model.requests[5]!)).toEqual([
      ...pathToOk,
      'assistant: call tree({"action":"back"})',
      expect.stringMatching(/^tool: Moved now: back\./),
    ])
    await r.say('Q4')
    expect(transcript(r.model.requests.at(-1)!)).toEqual([
      ...pathToOk,
      'assistant: call tree({"action":"back"})',
      expect.stringMatching(/^tool: Moved now: back\./),
      'assistant: went back',
      'user: Q4',
    ])
  })

  it('a deferred move the model asked for is dropped when the user cancels that turn', async () => {
    const r = await rig([{ text: 'A1' }, deferredJump('e12'), { text: 'cut off' }, { text: 'A3' }])
    await r.say('Q1')
    r.model.onRequest = async (_request, n) => {
      if (n === 3) {
        r.agent.cancel({ kind: 'user' })
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }
    await r.say('Q2')
    r.model.onRequest = undefined
    expect(r.tool.moves.lastOutcome(r.sessionId)).toMatchObject({ status: 'dropped' })
    const shown = await command(r, '/tree')
    expect(shown.result.text).toContain(
      'Last deferred move: jump to e12: dropped (the turn that asked for it was aborted).',
    )
    await r.say('Q3')
    expect(transcript(r.model.requests.at(-1)!).slice(0, 4)).toEqual([
      'user: Q1',
      'assistant: A1',
      'user: Q2',
      'assistant: call tree({"action":"jump","node":"e12"})',
    ])
  })

  it('errors reach the model as tool errors and schedule nothing', async () => {
    const r = await rig([
      { text: 'A1' },
      treeCall({ action: 'jump', node: 'no-such-node' }),
      treeCall({ action: 'jump', node: 'e12', agentId: 'someone-else' }),
      treeCall({ action: 'fork', node: 'e12', branch: 'main' }),
      treeCall({ action: 'forward' }),
      { text: 'gave up' },
    ])
    await r.say('Q1')
    await r.say('Q2')
    const results = transcript(r.model.requests.at(-1)!).filter((line) => line.startsWith('tool: '))
    expect(results).toEqual([
      'tool: Error: NODE_NOT_FOUND: no node or label "no-such-node"; list the tree to see node ids (like e12) and labels',
      'tool: Error: INVALID_ARGUMENT: unknown argument "agentId"; action "jump" needs "node"; may have "files", "summary", "text"',
      'tool: Error: BRANCH_EXISTS: branch "main" already exists; pick another name',
      'tool: Error: HISTORY_EMPTY: there is no undone move to go forward to',
    ])
    expect(r.tool.moves.pending(r.sessionId)).toBeUndefined()
    expect(r.tool.moves.lastOutcome(r.sessionId)).toBeUndefined()
  })

  it('find, label and summarize act at once and are visible through the service (one store with the panel)', async () => {
    const r = await rig([
      { text: 'Rome is lovely' },
      treeCall({ action: 'find', text: 'rome' }),
      treeCall({ action: 'label', node: 'e12', text: 'rome' }),
      treeCall({ action: 'summarize', branch: 'main', text: 'Planning a trip to Rome.' }),
      treeCall({ action: 'summarize', branch: 'nope' }),
      treeCall({ action: 'label', node: 'rome', text: '' }),
      { text: 'done' },
    ])
    await r.say('Plan Rome')
    await r.say('Q2')
    const found = toolResultText(r, 'find')
    expect(found.split('\n')).toEqual([
      '2 nodes match "rome":',
      'e12 assistant: Rome is lovely (on your current path)',
      'e4 user: Plan Rome (on your current path)',
    ])
    expect(toolResultText(r, 'summarize')).toMatch(/^Error: BRANCH_NOT_FOUND/)
    const summarized = transcript(r.model.requests.at(-1)!).filter((line) => line.startsWith('tool: Recorded'))
    expect(summarized).toEqual([
      expect.stringMatching(/^tool: Recorded the summary of branch "main" \(head e\d+, by mock-1\):$/),
    ])
    const view = await r.service.list(r.sessionId)
    expect(view.branches.find((b) => b.name === 'main')?.summary).toMatchObject({
      summary: 'Planning a trip to Rome.',
      model: 'mock-1',
    })
    expect(view.nodes.find((n) => n.nodeId === 'e12')?.label).toBeUndefined()
    expect(toolResultText(r, 'label')).toBe('Removed the label "rome" from e12.')
  })

  it('projection mode: the tool says the history will not change, and it does not', async () => {
    const r = await rig([{ text: 'A1' }, treeCall({ action: 'jump', node: 'e12' }), { text: 'ok' }, { text: 'A3' }], {
      surfaceMode: 'projection',
    })
    await r.say('Q1')
    await r.say('Q2')
    expect(toolResultText(r, 'jump')).toContain('the model history does NOT change')
    await r.say('Q3')
    expect(transcript(r.model.requests.at(-1)!)).toEqual([
      'user: Q1',
      'assistant: A1',
      'user: Q2',
      'assistant: call tree({"action":"jump","node":"e12"})',
      expect.stringMatching(/^tool: Scheduled: jump to e12\./),
      'assistant: ok',
      'user: Q3',
    ])
  })
})

describe('/tree command', () => {
  const run = (r: LoopRig, line: string) =>
    (r.ctx as any).commands.execute(r.agent, line, [], new AbortController().signal)

  it('prints the tree with the cursor and the surface mode; malformed input prints the usage and never throws', async () => {
    const r = await rig([{ text: 'A1' }])
    await r.say('Q1')
    const shown = await run(r, '/tree')
    expect(shown.result.kind).toBe('success')
    expect(shown.result.text).toContain('The history ends at e12 (← cursor) on branch "main". Surface mode: stock.')
    expect(shown.result.text).toContain('official harness events')
    expect(shown.result.text).toContain('e12 assistant: A1 [head: main] ← cursor')
    for (const bad of [
      '/tree frobnicate',
      '/tree jump',
      '/tree fork e4',
      '/tree label e4',
      '/tree back please',
      '/tree jump "open',
    ]) {
      const result = await run(r, bad)
      expect(result.result, bad).toEqual({ kind: 'error', text: expect.stringMatching(/^Usage:/) })
    }
    expect((await run(r, '/tree jump nowhere')).result).toEqual({
      kind: 'error',
      text: expect.stringMatching(/^NODE_NOT_FOUND/),
    })
    expect((await run(r, '/tree help')).result.text).toMatch(/^Usage:/)
    // Commands are log-only: the model never saw any of this.
    expect(r.model.requests).toHaveLength(1)
  })

  it('on an idle agent /tree jump applies at once: the next request holds exactly the path; back undoes it', async () => {
    const r = await rig([{ text: 'A1' }, { text: 'A2' }, { text: 'A3' }, { text: 'A4' }])
    await r.say('Q1')
    await r.say('Q2')
    const jumped = await run(r, '/tree jump e12')
    expect(jumped.result.kind).toBe('success')
    expect(jumped.result.text).toContain('Moved: jump to e12. The history now ends at e12 on branch "main".')
    expect(jumped.result.text).toContain('The next request holds exactly these 2 messages. Surface mode: stock.')
    await r.say('Q3')
    expect(transcript(r.model.requests.at(-1)!)).toEqual(['user: Q1', 'assistant: A1', 'user: Q3'])
    await run(r, '/tree label e12 "the first answer"')
    expect((await run(r, '/tree fork "the first answer" other')).result.text).toContain(
      'Moved: fork branch "other" at e12.',
    )
    expect((await run(r, '/tree back')).result.text).toMatch(/^Moved: back\./)
    await r.say('Q4')
    expect(transcript(r.model.requests.at(-1)!)).toEqual([
      'user: Q1',
      'assistant: A1',
      'user: Q3',
      'assistant: A3',
      'user: Q4',
    ])
  })

  it('on a running agent /tree jump is scheduled for the end of the turn', async () => {
    const r = await rig([{ text: 'A1' }, { text: 'A2' }, { text: 'A3' }])
    await r.say('Q1')
    let during: any
    r.model.onRequest = async (_request, n) => {
      if (n === 2) during = await run(r, '/tree jump e12')
    }
    await r.say('Q2')
    r.model.onRequest = undefined
    expect(during.result.text).toContain('The agent is running: the move applies when its current turn ends')
    await r.say('Q3')
    expect(transcript(r.model.requests.at(-1)!)).toEqual(['user: Q1', 'assistant: A1', 'user: Q3'])
    expect(r.tool.moves.lastOutcome(r.sessionId)).toMatchObject({ status: 'applied', move: { by: 'user' } })
  })

  it('typed as a plain message (a front end without a command adapter): answered without a model call, never sent to the model', async () => {
    const r = await rig([{ text: 'A1' }, { text: 'A2' }])
    await r.say('Q1')
    await r.say('/tree')
    await r.say('/tree jump')
    expect(r.model.requests).toHaveLength(1)
    await r.say('Q2')
    expect(transcript(r.model.requests.at(-1)!)).toEqual(['user: Q1', 'assistant: A1', 'user: Q2'])
    const ends = (r.agent.session.events as ReadonlyArray<{ type: string; data: any }>)
      .filter((e) => e.type === 'turn/end')
      .map((e) => e.data.reason.kind)
    expect(ends).toEqual(['completed', 'completed', 'completed', 'completed'])
  })
})

describe('scope and lifecycle', () => {
  it('tools act on the calling agent only: another agent sees its own tree', async () => {
    const r = await rig([
      treeCall({ action: 'label', node: 'e4', text: 'secret plan' }),
      { text: 'labeled' },
      treeCall({ action: 'find', text: 'secret' }),
      { text: 'searched' },
    ])
    await r.say('Q1 of agent A')
    const { SessionId } = await import('@deepseek-ai/dsh-session')
    const { agent: other } = await (r.ctx as any).agents.create({
      sessionId: SessionId(`${r.sessionId}-b`),
      agentOptions: { provider: 'mock', model: 'mock-1' },
    })
    other.followup(createUserMessage({ content: [{ type: 'text', text: 'Q1 of agent B' }], source: { kind: 'user' } }))
    await other.whenIdle()
    const results = transcript(r.model.requests.at(-1)!).filter((line) => line.startsWith('tool: '))
    expect(results).toEqual(['tool: No node matches "secret".'])
    expect((await r.service.list(r.sessionId)).nodes.find((n) => n.nodeId === 'e4')?.label).toBe('secret plan')
    expect((await r.service.list(`${r.sessionId}-b`)).nodes.every((n) => n.label === undefined)).toBe(true)
  })

  it('unloading the plugin removes the tools, the command and the prompt section', async () => {
    const r = await rig([])
    const ctx = r.ctx as any
    expect(ctx.tools.schemas().some((s: { name: string }) => s.name === TREE_TOOL)).toBe(true)
    await r.unloadTool()
    expect(ctx.tools.schemas().some((s: { name: string }) => s.name === TREE_TOOL)).toBe(false)
    expect(ctx.commands.list(r.agent).some((c: { name: string }) => c.name === 'tree')).toBe(false)
    const assembly = await ctx.systemPrompt.assemble()
    expect(assembly.sections.map((s: { text: string }) => s.text)).not.toContain(SYSTEM_PROMPT)
  })
})

describe('one-shot (headless) runs', () => {
  it("the model's own move still applies within its step: the same turn's next request holds the path", async () => {
    const r = await rig([{ text: 'A1' }, treeCall({ action: 'jump', node: 'e12' }), { text: 'ok' }])
    ;(r.ctx as any).provide('headlessStartup', { task: 'x' })
    await r.say('Q1')
    await r.say('Q2')
    expect(toolResultText(r, 'jump')).toMatch(/^Moved now: jump to e12\./)
    expect(transcript(r.model.requests.at(-1)!)).toEqual([
      'user: Q1',
      'assistant: A1',
      'assistant: call tree({"action":"jump","node":"e12"})',
      expect.stringMatching(/^tool: Moved now: jump to e12\./),
    ])
    expect(types(r).filter((t) => t === 'turn/end')).toHaveLength(2)
  })

  it('a move that cannot switch within its step is answered but not applied: the run ends with the turn', async () => {
    const r = await rig([{ text: 'A1' }, deferredJump('e12'), { text: 'ok' }])
    ;(r.ctx as any).provide('headlessStartup', { task: 'x' })
    await r.say('Q1')
    await r.say('Q2')
    expect(toolResultText(r, 'jump')).toBe(
      'Not applied: jump to e12. It cannot switch your history at once (the call shares its message with other calls), and this one-shot headless run ends with this turn, so there is no later request to change; the tree and your history stay as they are.',
    )
    expect(r.tool.moves.pending(r.sessionId)).toBeUndefined()
    expect(transcript(r.model.requests.at(-1)!).slice(0, 5)).toEqual([
      'user: Q1',
      'assistant: A1',
      'user: Q2',
      'assistant: call tree({"action":"jump","node":"e12"})',
      'assistant: call tree({"action":"list"})',
    ])
    expect((await r.service.list(r.sessionId)).cursor).toBe(await nodeOf(r, 'ok'))
    expect(types(r).filter((t) => t === 'turn/end')).toHaveLength(2)
  })

  it('a /tree task prints to stdout and makes no model call', async () => {
    const r = await rig([{ text: 'never' }])
    ;(r.ctx as any).provide('headlessStartup', { task: '/tree' })
    const written: string[] = []
    const write = process.stdout.write
    process.stdout.write = ((chunk: string) => {
      written.push(String(chunk))
      return true
    }) as typeof process.stdout.write
    try {
      await r.say('/tree')
      await r.say('/tree nonsense')
    } finally {
      process.stdout.write = write
    }
    expect(r.model.requests).toHaveLength(0)
    expect(written[0]).toMatch(
      /^Conversation tree: 0 nodes, 0 branches\. The history is empty\. Surface mode: stock\.\n/,
    )
    expect(written[0]).toContain('(empty: no messages yet)')
    expect(written[1]).toMatch(/^Usage:/)
  })
})
