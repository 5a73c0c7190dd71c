/**
 * The model tools and `/tree` through the REAL published DSH runtime, in
 * process: `dsh-agent-loop` drives turns, `dsh-tools` registers and executes
 * the tools, `dsh-commands` dispatches `/tree`, `dsh-session` keeps the log,
 * and this package's service switches the model history. Only the model is
 * scripted (`tool-rig.ts`), and every request it receives is recorded — so
 * "the next request holds exactly the selected path" is checked on what the
 * loop really sends.
 */
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { afterEach, describe, expect, it } from 'vitest'
import { markerOf } from '../../src/harness/marker.ts'
import { SYSTEM_PROMPT, TOOL_NAMES } from '../../src/tool/index.ts'
import { loopRig, transcript, type LoopRig, type ScriptEntry } from './tool-rig.ts'

const rigs: LoopRig[] = []
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.dispose()
})
async function rig(script: ScriptEntry[], options: Parameters<typeof loopRig>[1] = {}) {
  const made = await loopRig(script, options)
  rigs.push(made)
  return made
}

/** The text of the last tool result in a request. */
const lastToolResult = (rig: LoopRig) => transcript(rig.model.requests.at(-1)!).filter((line) => line.startsWith('tool: ')).at(-1) ?? ''
/** Full tool-result text of the newest tool/result event. */
function toolResultText(rig: LoopRig, callName: string): string {
  const events = rig.agent.session.events as ReadonlyArray<{ type: string; data: any }>
  const call = [...events].reverse().find((e) => e.type === 'tool/call' && e.data.name === callName)
  const result = events.find((e) => e.type === 'tool/result' && e.data.message.content[0].toolCallId === call?.data.callId)
  const content = result?.data.message.content[0].content
  return Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : String(content ?? '')
}
/** Node id of the node whose message text is exactly `text`. */
async function nodeOf(rig: LoopRig, text: string): Promise<string> {
  const node = (await rig.service.list(rig.sessionId)).nodes.find((n) => n.message?.content === text)
  if (!node) throw new Error(`no node ${JSON.stringify(text)}`)
  return node.nodeId
}
const types = (rig: LoopRig) => (rig.agent.session.events as ReadonlyArray<{ type: string }>).map((e) => e.type)

describe('tool companion in a real agent loop', () => {
  it('registers the tools, the /tree command and the system-prompt section', async () => {
    const r = await rig([])
    const ctx = r.ctx as any
    const schemas = ctx.tools.schemas() as { name: string; parameters: { additionalProperties?: boolean } }[]
    expect(schemas.map((s) => s.name).filter((n) => n.startsWith('tree_')).sort()).toEqual([...TOOL_NAMES].sort())
    for (const schema of schemas.filter((s) => s.name.startsWith('tree_'))) expect(schema.parameters.additionalProperties).toBe(false)
    expect(ctx.commands.list(r.agent).map((c: { name: string }) => c.name)).toContain('tree')
    const assembly = await ctx.systemPrompt.assemble()
    expect(assembly.sections.map((s: { text: string }) => s.text)).toContain(SYSTEM_PROMPT)
  })

  it('the model lists the tree, jumps to its first answer; the turn ends, then the next request holds exactly that path', async () => {
    let listing = ''
    const r = await rig([
      { text: 'A1' },
      { calls: [{ name: 'tree_list', args: {} }] },
      (request) => {
        listing = transcript(request).at(-1)!
        return { calls: [{ name: 'tree_jump', args: { node: 'e12' } }] }
      },
      { text: 'Done: I will continue from my first answer.' },
      { text: 'A3' },
    ])
    await r.say('Q1')
    expect(await nodeOf(r, 'A1')).toBe('e12')
    await r.say('Q2')
    expect(listing).toMatch(/^tool: Conversation tree: \d+ nodes, 1 branch \(main\)\. The history ends at e\d+ \(← cursor\) on branch "main"\. Surface mode: stock\.$/)
    const listed = toolResultText(r, 'tree_list')
    expect(listed).toContain('e12 assistant: A1')
    expect(listed).toContain('e4 user: Q1')
    const scheduled = toolResultText(r, 'tree_jump')
    expect(scheduled).toContain('Scheduled: jump to e12.')
    expect(scheduled).toContain('It takes effect when this turn ends')
    expect(scheduled).toContain('exactly the 2 messages from the start to e12')
    // The rest of the jump's turn still saw the whole conversation.
    expect(transcript(r.model.requests[3]!)).toEqual([
      'user: Q1', 'assistant: A1', 'user: Q2',
      'assistant: call tree_list({})', expect.stringMatching(/^tool: Conversation tree/),
      'assistant: call tree_jump({"node":"e12"})', 'tool: Scheduled: jump to e12.',
    ])
    await r.say('Q3')
    expect(transcript(r.model.requests.at(-1)!)).toEqual(['user: Q1', 'assistant: A1', 'user: Q3'])
    // The switch ran after the tool's turn ended, never inside it.
    const events = r.agent.session.events as ReadonlyArray<{ type: string; seq: number; data: any }>
    const jumpTurnEnd = events.find((e) => e.type === 'turn/end' && e.data.turn === 2)!
    const marker = events.find((e) => e.type === 'agent/inbox/spliced' && (e.data.inserted ?? []).some((m: unknown) => markerOf(m)))!
    expect(marker.seq).toBeGreaterThan(jumpTurnEnd.seq)
    // Nothing was deleted: the old line is still in the tree, the new prompt hangs under A1.
    const view = await r.service.list(r.sessionId)
    const q3 = view.nodes.find((n) => n.message?.content === 'Q3')!
    expect(q3.parentId).toBe('e12')
    expect(view.nodes.some((n) => n.message?.content === 'Done: I will continue from my first answer.')).toBe(true)
    expect(view.cursor).toBe(await nodeOf(r, 'A3'))
    expect(r.tool.moves.lastOutcome(r.sessionId)).toMatchObject({ status: 'applied', move: { by: 'model', op: { kind: 'jump', nodeId: 'e12' } } })
  })

  it('fork by label: the branch is named, the next request follows it, tree_list shows both heads', async () => {
    const r = await rig([
      { text: 'A1' },
      { calls: [{ name: 'tree_label', args: { node: 'e12', text: 'first answer' } }] },
      { calls: [{ name: 'tree_fork', args: { node: 'first answer', branch: 'retry' } }] },
      { text: 'ok' },
      { text: 'A3' },
      { calls: [{ name: 'tree_list', args: {} }] },
      { text: 'listed' },
    ])
    await r.say('Q1')
    await r.say('Q2')
    expect(toolResultText(r, 'tree_label')).toBe('Labeled e12 "first answer": e12 assistant: A1 [label: first answer]')
    expect(toolResultText(r, 'tree_fork')).toContain('Scheduled: fork branch "retry" at e12.')
    await r.say('Q3')
    expect(transcript(r.model.requests[4]!)).toEqual(['user: Q1', 'assistant: A1', 'user: Q3'])
    const view = await r.service.list(r.sessionId)
    expect(view.activeBranch).toBe('retry')
    expect(view.branches.map((b) => b.name)).toEqual(expect.arrayContaining(['main', 'retry']))
    await r.say('show me')
    const listed = toolResultText(r, 'tree_list')
    expect(listed).toContain('[label: first answer]')
    expect(listed).toContain('[head: main]')
    expect(listed).toContain('e65 assistant: A3')
    expect(listed).toMatch(/tree_list\(\{\}\) \[head: retry\] ← cursor/)
    expect(listed).toContain('↳')
  })

  it('a prompt queued while the jump turn still runs is held, then lands on the selected path (once)', async () => {
    const r = await rig([
      { text: 'A1' },
      { calls: [{ name: 'tree_jump', args: { node: 'e12' } }] },
      { text: 'jump scheduled' },
      { text: 'A-raced' },
    ])
    await r.say('Q1')
    r.model.onRequest = (_request, n) => {
      // While the model writes its last answer of the jump turn, the user queues a prompt.
      if (n === 3) r.agent.followup(createUserMessage({ content: [{ type: 'text', text: 'Q-raced' }], source: { kind: 'user' } }))
    }
    await r.say('Q2')
    await r.settle()
    const last = r.model.requests.at(-1)!
    expect(transcript(last)).toEqual(['user: Q1', 'assistant: A1', 'user: Q-raced'])
    expect(r.model.requests).toHaveLength(4)
    const events = r.agent.session.events as ReadonlyArray<{ type: string; data: any }>
    // The raced prompt's first turn was held without a model call (blocked), then re-delivered exactly once.
    expect(events.filter((e) => e.type === 'turn/end' && e.data.reason.kind === 'blocked').length).toBeGreaterThanOrEqual(2)
    expect(events.filter((e) => e.type === 'user/message' && e.data.content[0].text === 'Q-raced')).toHaveLength(1)
    expect(r.tool.moves.lastOutcome(r.sessionId)?.status).toBe('applied')
  })

  it('tree_back cancels a waiting move: nothing changes', async () => {
    const r = await rig([
      { text: 'A1' },
      { calls: [{ name: 'tree_jump', args: { node: 'e12' } }] },
      { calls: [{ name: 'tree_back', args: {} }] },
      { text: 'never mind' },
      { text: 'A3' },
    ])
    await r.say('Q1')
    await r.say('Q2')
    expect(toolResultText(r, 'tree_back')).toBe('Cancelled the waiting jump to e12; it had not been applied, so nothing changed.')
    await r.say('Q3')
    expect(transcript(r.model.requests.at(-1)!).slice(-3)).toEqual(['tool: Cancelled the waiting jump to e12; it had not been applied, so nothing changed.', 'assistant: never mind', 'user: Q3'])
    expect(types(r).filter((t) => t === 'turn/end')).toHaveLength(3)
  })

  it('a later move replaces a waiting one; back and forward go through the navigation history', async () => {
    const r = await rig([
      { text: 'A1' },
      { calls: [{ name: 'tree_jump', args: { node: 'e4' } }] },
      { calls: [{ name: 'tree_jump', args: { node: 'e12' } }] },
      { text: 'ok' },
      { calls: [{ name: 'tree_back', args: {} }] },
      { text: 'went back' },
      { text: 'A-after-back' },
    ])
    await r.say('Q1')
    await r.say('Q2')
    expect(toolResultText(r, 'tree_jump')).toContain('(This replaces the waiting jump to e4.)')
    await r.say('go back please')
    expect(toolResultText(r, 'tree_back')).toMatch(/^Scheduled: back\./)
    await r.say('Q4')
    // Back returns to where the history ended before the jump: the end of the Q2 turn.
    expect(transcript(r.model.requests.at(-1)!)).toEqual([
      'user: Q1', 'assistant: A1', 'user: Q2',
      'assistant: call tree_jump({"node":"e4"})', 'tool: Scheduled: jump to e4.',
      'assistant: call tree_jump({"node":"e12"})', 'tool: Scheduled: jump to e12. (This replaces the waiting jump to e4.)',
      'assistant: ok', 'user: Q4',
    ])
  })

  it('a move the model asked for is dropped when the user cancels that turn', async () => {
    const r = await rig([
      { text: 'A1' },
      { calls: [{ name: 'tree_jump', args: { node: 'e12' } }] },
      { text: 'cut off' },
      { text: 'A3' },
    ])
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
    const shown = await (r.ctx as any).commands.execute(r.agent, '/tree', [], new AbortController().signal)
    expect(shown.result.text).toContain('Last deferred move: jump to e12: dropped (the turn that asked for it was aborted).')
    await r.say('Q3')
    expect(transcript(r.model.requests.at(-1)!).slice(0, 4)).toEqual(['user: Q1', 'assistant: A1', 'user: Q2', 'assistant: call tree_jump({"node":"e12"})'])
  })

  it('errors reach the model as tool errors and schedule nothing', async () => {
    const r = await rig([
      { text: 'A1' },
      { calls: [{ name: 'tree_jump', args: { node: 'no-such-node' } }] },
      { calls: [{ name: 'tree_jump', args: { node: 'e12', agentId: 'someone-else' } }] },
      { calls: [{ name: 'tree_fork', args: { node: 'e12', branch: 'main' } }] },
      { calls: [{ name: 'tree_forward', args: {} }] },
      { text: 'gave up' },
    ])
    await r.say('Q1')
    await r.say('Q2')
    const results = transcript(r.model.requests.at(-1)!).filter((line) => line.startsWith('tool: '))
    expect(results).toEqual([
      'tool: Error: NODE_NOT_FOUND: no node or label "no-such-node"; list the tree to see node ids (like e12) and labels',
      'tool: Error: INVALID_ARGUMENT: unknown argument "agentId" (allowed: node)',
      'tool: Error: BRANCH_EXISTS: branch "main" already exists; pick another name',
      'tool: Error: HISTORY_EMPTY: there is no undone move to go forward to',
    ])
    expect(r.tool.moves.pending(r.sessionId)).toBeUndefined()
    expect(r.tool.moves.lastOutcome(r.sessionId)).toBeUndefined()
  })

  it('find, label and summarize act at once and are visible through the service (one store with the panel)', async () => {
    const r = await rig([
      { text: 'Rome is lovely' },
      { calls: [{ name: 'tree_find', args: { query: 'rome' } }] },
      { calls: [{ name: 'tree_label', args: { node: 'e12', text: 'rome' } }] },
      { calls: [{ name: 'tree_summarize_branch', args: { branch: 'main', summary: 'Planning a trip to Rome.' } }] },
      { calls: [{ name: 'tree_summarize_branch', args: { branch: 'nope' } }] },
      { calls: [{ name: 'tree_label', args: { node: 'rome', text: '' } }] },
      { text: 'done' },
    ])
    await r.say('Plan Rome')
    await r.say('Q2')
    const found = toolResultText(r, 'tree_find')
    expect(found.split('\n')).toEqual([
      '2 nodes match "rome":',
      'e12 assistant: Rome is lovely (on your current path)',
      'e4 user: Plan Rome (on your current path)',
    ])
    expect(toolResultText(r, 'tree_summarize_branch')).toMatch(/^Error: BRANCH_NOT_FOUND/)
    const summarized = transcript(r.model.requests.at(-1)!).filter((line) => line.startsWith('tool: Recorded'))
    expect(summarized).toEqual([expect.stringMatching(/^tool: Recorded the summary of branch "main" \(head e\d+, by mock-1\):$/)])
    const view = await r.service.list(r.sessionId)
    expect(view.branches.find((b) => b.name === 'main')?.summary).toMatchObject({ summary: 'Planning a trip to Rome.', model: 'mock-1' })
    expect(view.nodes.find((n) => n.nodeId === 'e12')?.label).toBeUndefined()
    expect(toolResultText(r, 'tree_label')).toBe('Removed the label "rome" from e12.')
  })

  it('projection mode: the tool says the history will not change, and it does not', async () => {
    const r = await rig([
      { text: 'A1' },
      { calls: [{ name: 'tree_jump', args: { node: 'e12' } }] },
      { text: 'ok' },
      { text: 'A3' },
    ], { surfaceMode: 'projection' })
    await r.say('Q1')
    await r.say('Q2')
    expect(toolResultText(r, 'tree_jump')).toContain('the model history does NOT change')
    await r.say('Q3')
    expect(transcript(r.model.requests.at(-1)!)).toEqual([
      'user: Q1', 'assistant: A1', 'user: Q2', 'assistant: call tree_jump({"node":"e12"})',
      expect.stringMatching(/^tool: Scheduled: jump to e12\./), 'assistant: ok', 'user: Q3',
    ])
  })
})

describe('/tree command', () => {
  const run = (r: LoopRig, line: string) => (r.ctx as any).commands.execute(r.agent, line, [], new AbortController().signal)

  it('prints the tree with the cursor and the surface mode; malformed input prints the usage and never throws', async () => {
    const r = await rig([{ text: 'A1' }])
    await r.say('Q1')
    const shown = await run(r, '/tree')
    expect(shown.result.kind).toBe('success')
    expect(shown.result.text).toContain('The history ends at e12 (← cursor) on branch "main". Surface mode: stock.')
    expect(shown.result.text).toContain('official harness events')
    expect(shown.result.text).toContain('e12 assistant: A1 [head: main] ← cursor')
    for (const bad of ['/tree frobnicate', '/tree jump', '/tree fork e4', '/tree label e4', '/tree back please', '/tree jump "open']) {
      const result = await run(r, bad)
      expect(result.result, bad).toEqual({ kind: 'error', text: expect.stringMatching(/^Usage:/) })
    }
    expect((await run(r, '/tree jump nowhere')).result).toEqual({ kind: 'error', text: expect.stringMatching(/^NODE_NOT_FOUND/) })
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
    expect((await run(r, '/tree fork "the first answer" other')).result.text).toContain('Moved: fork branch "other" at e12.')
    expect((await run(r, '/tree back')).result.text).toMatch(/^Moved: back\./)
    await r.say('Q4')
    expect(transcript(r.model.requests.at(-1)!)).toEqual(['user: Q1', 'assistant: A1', 'user: Q3', 'assistant: A3', 'user: Q4'])
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
    const ends = (r.agent.session.events as ReadonlyArray<{ type: string; data: any }>).filter((e) => e.type === 'turn/end').map((e) => e.data.reason.kind)
    expect(ends).toEqual(['completed', 'completed', 'completed', 'completed'])
  })
})

describe('scope and lifecycle', () => {
  it('tools act on the calling agent only: another agent sees its own tree', async () => {
    const r = await rig([
      { calls: [{ name: 'tree_label', args: { node: 'e4', text: 'secret plan' } }] },
      { text: 'labeled' },
      { calls: [{ name: 'tree_find', args: { query: 'secret' } }] },
      { text: 'searched' },
    ])
    await r.say('Q1 of agent A')
    const { SessionId } = await import('@deepseek-ai/dsh-session')
    const { agent: other } = await (r.ctx as any).agents.create({ sessionId: SessionId(`${r.sessionId}-b`), agentOptions: { provider: 'mock', model: 'mock-1' } })
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
    expect(ctx.tools.schemas().some((s: { name: string }) => s.name === 'tree_jump')).toBe(true)
    await r.unloadTool()
    expect(ctx.tools.schemas().some((s: { name: string }) => s.name.startsWith('tree_'))).toBe(false)
    expect(ctx.commands.list(r.agent).some((c: { name: string }) => c.name === 'tree')).toBe(false)
    const assembly = await ctx.systemPrompt.assemble()
    expect(assembly.sections.map((s: { text: string }) => s.text)).not.toContain(SYSTEM_PROMPT)
  })
})

describe('one-shot (headless) runs', () => {
  it('moves are answered but not applied: the run ends with the turn, so there is no next request', async () => {
    const r = await rig([
      { text: 'A1' },
      { calls: [{ name: 'tree_jump', args: { node: 'e12' } }] },
      { text: 'ok' },
    ])
    ;(r.ctx as any).provide('headlessStartup', { task: 'x' })
    await r.say('Q1')
    await r.say('Q2')
    expect(toolResultText(r, 'tree_jump')).toMatch(/^Not applied: jump to e12\. This is a one-shot headless run/)
    expect(r.tool.moves.pending(r.sessionId)).toBeUndefined()
    expect(lastToolResult(r)).toMatch(/^tool: Not applied/)
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
    expect(written[0]).toMatch(/^Conversation tree: 0 nodes, 0 branches\. The history is empty\. Surface mode: stock\.\n/)
    expect(written[0]).toContain('(empty: no messages yet)')
    expect(written[1]).toMatch(/^Usage:/)
  })
})
