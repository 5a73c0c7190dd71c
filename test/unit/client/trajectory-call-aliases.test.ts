/**
 * Tool rows of DSH web's Trajectory keyed apart when a log repeats a call id
 * (`client/chat/call-aliases.ts`), and the view nodes the wrapped Trajectory
 * Definitions build with them (`client/chat/host-trajectory.ts`). Events and
 * node shapes as `dsh-client-ui-trajectory` 0.1.0-rc.8 has them (answer nodes
 * carry `blocks` with `{ kind: 'tool-call', callId }`, tool nodes a `root`
 * with its `callId`); the real Trajectory runs in
 * test/e2e/trajectory-model-move.test.ts (the legacy log).
 */
import { describe, expect, it } from 'vitest'
import { ALIAS_SEPARATOR, CallAliases } from '../../../src/client/chat/call-aliases.ts'
import { hideInStepCopies } from '../../../src/client/chat/host-trajectory.ts'

type Ev = { seq: number; type: string; data: Record<string, unknown> }
const answer = (seq: number, ...ids: string[]): Ev => ({
  seq,
  type: 'assistant/message',
  data: { turn: 1, step: 1, message: { content: ids.map((id) => ({ type: 'tool-call', id, name: 'read' })) } },
})
const call = (seq: number, callId: string): Ev => ({
  seq,
  type: 'tool/call',
  data: { turn: 1, step: 1, callId, name: 'read' },
})
const alias = (id: string, seq: number) => `${id}${ALIAS_SEPARATOR}${seq}`

describe('CallAliases', () => {
  it('a log that repeats no id keeps every bare id', () => {
    const aliases = new CallAliases()
    const events = [answer(1, 'a', 'b'), call(2, 'a'), call(3, 'b'), answer(5, 'c'), call(6, 'c')]
    for (const e of events) aliases.observe(e)
    expect(events.map((e) => [...aliases.answerAliases(e)])).toEqual([[], [], [], [], []])
    expect(events.map((e) => aliases.callAlias(e))).toEqual([undefined, undefined, undefined, undefined, undefined])
  })

  it('the first answer of an id keeps it; a later one aliases its call by its seq, in its block and its call', () => {
    const aliases = new CallAliases()
    const events = [
      answer(35, 'call_notes_2'),
      call(36, 'call_notes_2'),
      answer(131, 'call_notes_2', 'other'),
      call(132, 'call_notes_2'),
      call(133, 'other'),
    ]
    for (const e of events) aliases.observe(e)
    expect([...aliases.answerAliases(events[0])]).toEqual([])
    expect(aliases.callAlias(events[1])).toBeUndefined()
    expect([...aliases.answerAliases(events[2])]).toEqual([['call_notes_2', alias('call_notes_2', 131)]])
    expect(aliases.callAlias(events[3])).toBe(alias('call_notes_2', 131))
    expect(aliases.callAlias(events[4])).toBeUndefined()
  })

  it("an older page seen later: the first answer seen keeps the bare id, each call takes its own answer's", () => {
    const aliases = new CallAliases()
    const newer = [answer(131, 'x'), call(132, 'x')]
    const older = [answer(35, 'x'), call(36, 'x')]
    for (const e of [...newer, ...older]) aliases.observe(e)
    expect(aliases.callAlias(newer[1])).toBeUndefined()
    expect([...aliases.answerAliases(older[0])]).toEqual([['x', alias('x', 35)]])
    expect(aliases.callAlias(older[1])).toBe(alias('x', 35))
  })

  it('a restated answer (its call came before it) names that call, bare or aliased', () => {
    const aliases = new CallAliases()
    const events = [answer(96, 'call_model_jump'), call(97, 'call_model_jump'), answer(106, 'call_model_jump')]
    for (const e of events) aliases.observe(e)
    expect([...aliases.answerAliases(events[2])]).toEqual([])
    // After an aliased call: the restatement names the alias.
    const more = [answer(200, 'call_model_jump'), call(201, 'call_model_jump'), answer(205, 'call_model_jump')]
    for (const e of more) aliases.observe(e)
    expect(aliases.callAlias(more[1])).toBe(alias('call_model_jump', 200))
    expect([...aliases.answerAliases(more[2])]).toEqual([['call_model_jump', alias('call_model_jump', 200)]])
  })

  it('an answer read before its call arrives (live) names its own call once that is seen', () => {
    const aliases = new CallAliases()
    for (const e of [answer(35, 'x'), call(36, 'x')]) aliases.observe(e)
    const copy = answer(131, 'x')
    aliases.observe(copy)
    // Until its call comes, the block names the latest call of its id (the host's own pairing).
    expect([...aliases.answerAliases(copy)]).toEqual([])
    aliases.observe(call(132, 'x'))
    expect([...aliases.answerAliases(copy)]).toEqual([['x', alias('x', 131)]])
  })

  it('keeps a verdict for an event object; a re-dispatch changes nothing', () => {
    const aliases = new CallAliases()
    const events = [answer(1, 'x'), call(2, 'x'), answer(3, 'x'), call(4, 'x')]
    for (const e of events) aliases.observe(e)
    for (const e of [...events].reverse()) aliases.observe(e)
    expect(aliases.callAlias(events[1])).toBeUndefined()
    expect(aliases.callAlias(events[3])).toBe(alias('x', 3))
  })

  it('is total', () => {
    const aliases = new CallAliases()
    for (const bad of [
      null,
      1,
      'x',
      {},
      { seq: 1, type: 'tool/call' },
      { seq: 'x', type: 'assistant/message', data: {} },
      { seq: 2, type: 'assistant/message', data: { message: { content: 'x' } } },
    ]) {
      expect(() => aliases.observe(bad)).not.toThrow()
      expect(aliases.callAlias(bad)).toBeUndefined()
      expect([...aliases.answerAliases(bad)]).toEqual([])
    }
  })
})

/** The host's two Definitions, as far as the wrapper reads them: match, and a view node built from the context. */
function trajectoryDefinitions() {
  const answerDefinition = {
    kind: 'trajectory-assistant-step',
    target: 'trajectory',
    match: (e: Ev) => (e.type === 'assistant/message' ? { id: `1:${e.seq}`, role: 'update' } : null),
    buildViewNode: (context: { matches: { event: Ev }[] }) => {
      const final = context.matches.at(-1)!.event
      const content = (final.data.message as { content: { id: string }[] }).content
      return {
        key: 'k',
        data: {
          kind: 'assistant',
          node: {
            kind: 'assistant',
            seq: final.seq,
            blocks: [
              { kind: 'text', text: 'hi' },
              ...content.map((b) => ({ kind: 'tool-call', callId: b.id, name: 'read' })),
            ],
          },
          partial: null,
        },
      }
    },
  }
  const toolDefinition = {
    kind: 'trajectory-tool-call',
    target: 'trajectory',
    match: (e: Ev) => (e.type === 'tool/call' ? { id: e.data.callId, role: 'start' } : null),
    buildViewNode: (context: { start: { event: Ev } }) => ({
      key: 't',
      data: {
        kind: 'tool',
        root: { kind: 'tool-result', callId: String(context.start.event.data.callId), subCalls: [] },
      },
    }),
  }
  return { answerDefinition, toolDefinition }
}

describe('hideInStepCopies: view nodes of a repeated call id', () => {
  it("the repeating answer and its call's row get the same alias; the first keeps the bare id; nothing else changes", () => {
    const { answerDefinition, toolDefinition } = trajectoryDefinitions()
    const hostAnswerBuild = answerDefinition.buildViewNode
    const hostToolBuild = toolDefinition.buildViewNode
    const dispose = hideInStepCopies({ entries: () => [answerDefinition, toolDefinition] })
    const events = [
      answer(35, 'call_notes_2'),
      call(36, 'call_notes_2'),
      answer(131, 'call_notes_2'),
      call(132, 'call_notes_2'),
    ]
    for (const e of events) for (const d of [answerDefinition, toolDefinition]) (d.match as (e: unknown) => unknown)(e)
    const answerNode = (e: Ev) =>
      (answerDefinition.buildViewNode as (c: unknown) => { data: { node: { blocks: { callId?: string }[] } } })({
        matches: [{ event: e }],
      })
    const toolNode = (e: Ev) =>
      (toolDefinition.buildViewNode as (c: unknown) => { data: { root: { callId: string } } })({
        start: { event: e },
        matches: [{ event: e }],
      })
    expect(answerNode(events[0]!)).toEqual(hostAnswerBuild({ matches: [{ event: events[0]! }] }))
    expect(toolNode(events[1]!)).toEqual(hostToolBuild({ start: { event: events[1]! } }))
    expect(answerNode(events[2]!).data.node.blocks.map((b) => b.callId)).toEqual([
      undefined,
      alias('call_notes_2', 131),
    ])
    expect(toolNode(events[3]!).data.root.callId).toBe(alias('call_notes_2', 131))
    dispose()
    expect(answerDefinition.buildViewNode).toBe(hostAnswerBuild)
    expect(toolDefinition.buildViewNode).toBe(hostToolBuild)
  })

  it("a node of another shape is the host's own", () => {
    const { toolDefinition } = trajectoryDefinitions()
    const odd = { ...toolDefinition, buildViewNode: () => null }
    hideInStepCopies({ entries: () => [odd] })
    for (const e of [answer(1, 'x'), call(2, 'x'), answer(3, 'x'), call(4, 'x')])
      (odd.match as (e: unknown) => unknown)(e)
    expect((odd.buildViewNode as (c: unknown) => unknown)({ start: { event: call(4, 'x') } })).toBeNull()
  })
})
