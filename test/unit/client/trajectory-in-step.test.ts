/**
 * The Trajectory's view of a move the MODEL makes inside its step: which
 * events are the plugin's restatement (`client/chat/in-step-copies.ts`), and
 * the wrapper that makes DSH's Trajectory Definitions ignore them
 * (`client/chat/host-trajectory.ts`). The events have the shapes the real
 * `dsh web` log holds for the e2e session of test/e2e/trajectory-model-move
 * (seqs and fields as recorded there); the registry is a stand-in for
 * `ctx.conversationEvents` (its `entries()` / `subscribe()`), the real one
 * runs in that e2e.
 */
import { describe, expect, it } from 'vitest'
import { InStepCopies, type UncheckedEvent } from '../../../src/client/chat/in-step-copies.ts'
import { RESTATED_ID_PREFIX } from '../../../src/harness/marker.ts'
import { hideInStepCopies, TRAJECTORY_KINDS } from '../../../src/client/chat/host-trajectory.ts'
import { rekeyHostTools } from '../../../src/client/chat/host-tools.ts'
import { REPEAT_SEPARATOR } from '../../../src/client/chat/call-keys.ts'

type Ev = UncheckedEvent & { seq: number; type: string }

const text = (t: string) => [{ type: 'text', text: t }]
/** A `tree` call is a jump; any other tool takes no arguments. */
const argumentsOf = (name: string) => (name === 'tree' ? '{"action":"jump"}' : '{}')
const call = (id: string, name: string) => [{ type: 'tool-call', id, name, arguments: argumentsOf(name) }]
const user = (seq: number, t: string, extra: Partial<Ev> = {}): Ev => ({
  seq,
  type: 'user/message',
  data: { id: `u${seq}`, role: 'user', content: text(t), source: { kind: 'user' } },
  surfaceOp: 'append',
  ...extra,
})
const answer = (seq: number, turn: number, step: number, content: unknown[], extra: Partial<Ev> = {}): Ev => ({
  seq,
  type: 'assistant/message',
  data: {
    turn,
    step,
    message: { id: `a${seq}`, role: 'assistant', content, source: { kind: 'model', provider: 'p', model: 'm' } },
  },
  surfaceOp: 'append',
  ...extra,
})
const toolCall = (seq: number, turn: number, step: number, callId: string, name: string): Ev => ({
  seq,
  type: 'tool/call',
  data: { turn, step, callId, name, arguments: argumentsOf(name) },
})
const toolResult = (seq: number, turn: number, step: number, callId: string, extra: Partial<Ev> = {}): Ev => ({
  seq,
  type: 'tool/result',
  data: { turn, step, message: { id: `r${seq}`, role: 'tool', content: [], source: { kind: 'tool', callId } } },
  surfaceOp: 'append',
  ...extra,
})
const boundary = (seq: number, type: string, turn: number, step?: number): Ev => ({
  seq,
  type,
  data: step === undefined ? { turn } : { turn, step },
})
const cites = (...seqs: number[]) => ({ sourceEventSeqs: seqs })

/** Turn 6 of the e2e session, unmarked: a prompt, the model's tree jump back across the read exchange, its copies, the next answer. */
function unmarkedTurn(copyCall = 'call_dst_86f33af5f1384b808c0b'): { events: Ev[]; copies: number[] } {
  const events: Ev[] = [
    boundary(86, 'turn/start', 6),
    boundary(88, 'step/start', 6, 1),
    user(89, 'Take us back to the food tour'),
    answer(96, 6, 1, call('call_model_jump', 'tree'), cites(90, 91, 92, 93, 94, 95)),
    toolCall(97, 6, 1, 'call_model_jump', 'tree'),
    { seq: 98, type: 'compaction/prune', data: { shadowedSeqs: [75, 82, 89, 96] } },
    user(99, 'Check notes.txt for my budget', {
      surfaceOp: { op: 'replace', start: 75, end: 96 },
      ...cites(75, 82, 89, 96, 27),
    }),
    answer(100, 6, 1, call(copyCall, 'read'), cites(35)),
    toolCall(101, 6, 1, copyCall, 'read'),
    toolResult(102, 6, 1, copyCall, cites(37)),
    answer(103, 6, 1, text('Your notes say'), cites(46)),
    user(104, 'Make it a food tour', cites(53)),
    answer(105, 6, 1, text('Food tour:'), cites(60)),
    // The in-flight answer restated last (a new message id, no citation), then the loop's result and step end.
    answer(106, 6, 1, call('call_model_jump', 'tree')),
    toolResult(107, 6, 1, 'call_model_jump', cites(97)),
    boundary(108, 'step/end', 6, 1),
    boundary(109, 'step/start', 6, 2),
    answer(116, 6, 2, text('MODEL-MOVED: back on the food tour.'), cites(110, 111, 112, 113, 114, 115)),
    boundary(117, 'step/end', 6, 2),
    boundary(118, 'turn/end', 6),
  ]
  return { events, copies: [99, 100, 101, 102, 103, 104, 105, 106] }
}

/** Turn 4 of the e2e session: a user's jump, a maintenance turn of its own (stand-in restating the answer it keeps). */
function userMoveTurn(base = 63): Ev[] {
  return [
    { seq: base, type: 'agent/inbox/spliced', data: { target: 'next-turn', inserted: [] } },
    boundary(base + 1, 'turn/start', 4),
    boundary(base + 3, 'step/start', 4, 1),
    { seq: base + 4, type: 'compaction/prune', data: {} },
    answer(base + 5, 4, 1, text('Day 1:'), {
      surfaceOp: { op: 'replace', start: 19, end: 60 },
      ...cites(19, 27, 35, 37, 46, 53, 60),
    }),
    boundary(base + 6, 'step/end', 4, 1),
    boundary(base + 7, 'step/start', 4, 2),
    // A copied tool exchange in its own step (fresh id), and a copied earlier move call (fresh id: it moves nothing).
    answer(
      base + 8,
      4,
      2,
      [...call('call_dst_aaaaaaaaaaaaaaaaaaaa', 'read'), ...call('call_dst_bbbbbbbbbbbbbbbbbbbb', 'tree')],
      cites(35),
    ),
    toolCall(base + 9, 4, 2, 'call_dst_aaaaaaaaaaaaaaaaaaaa', 'read'),
    toolResult(base + 10, 4, 2, 'call_dst_aaaaaaaaaaaaaaaaaaaa', cites(37)),
    toolCall(base + 11, 4, 2, 'call_dst_bbbbbbbbbbbbbbbbbbbb', 'tree'),
    toolResult(base + 12, 4, 2, 'call_dst_bbbbbbbbbbbbbbbbbbbb', cites(40)),
    user(base + 13, 'Make it a food tour', cites(53)),
    boundary(base + 14, 'step/end', 4, 2),
    boundary(base + 15, 'turn/end', 4),
  ]
}

/** The same turn as this plugin writes it: what the move restates carries RESTATED_ID_PREFIX in its message id. */
function modelMoveTurn(): { events: Ev[]; copies: number[] } {
  const { events, copies } = unmarkedTurn()
  const mark = (e: Ev): Ev => {
    if (!copies.includes(e.seq)) return e
    const data = e.data as Record<string, unknown>
    if (e.type === 'user/message') return { ...e, data: { ...data, id: `${RESTATED_ID_PREFIX}${e.seq}` } }
    if (e.type === 'tool/call') return e
    return { ...e, data: { ...data, message: { ...(data.message as object), id: `${RESTATED_ID_PREFIX}${e.seq}` } } }
  }
  return { events: events.map(mark), copies }
}

const named = (copies: InStepCopies, events: readonly Ev[]) => events.filter((e) => copies.isCopy(e)).map((e) => e.seq)

describe('InStepCopies', () => {
  it("names the restatement of a model's in-step move, and nothing of what the model did", () => {
    const { events, copies } = modelMoveTurn()
    expect(named(new InStepCopies(), events)).toEqual(copies)
    // Unmarked, the same events are the model's own: nothing is named by its place.
    expect(named(new InStepCopies(), unmarkedTurn().events)).toEqual([])
  })

  it('each copy is named by what it says, on any page, in any order, with no move call loaded', () => {
    const { events, copies } = modelMoveTurn()
    // A page that starts right after the move call, then the older page.
    const newer = events.filter((e) => e.seq > 97)
    const classifier = new InStepCopies()
    expect(named(classifier, newer)).toEqual(copies)
    expect(
      named(
        classifier,
        events.filter((e) => e.seq <= 97),
      ),
    ).toEqual([])
    // Events dispatched backwards: every marked message still is; a copied call only after its copied answer.
    expect(named(new InStepCopies(), [...events].reverse()).sort((a, b) => a - b)).toEqual(
      copies.filter((seq) => seq !== 101),
    )
  })

  it('a marked answer names the tool/call copies of its fresh calls, never the live move call it restates', () => {
    const classifier = new InStepCopies()
    const restated = answer(10, 6, 1, [...call('call_live', 'tree')], {})
    ;(restated.data as { message: { id: string } }).message.id = `${RESTATED_ID_PREFIX}x`
    expect(classifier.isCopy(restated)).toBe(true)
    // The same id issued again later (a provider reusing it) is not a copy.
    expect(classifier.isCopy(toolCall(500, 9, 1, 'call_live', 'read'))).toBe(false)
  })

  it("names no copy of a user's move (a maintenance turn of its own), even one that restates a move call", () => {
    expect(named(new InStepCopies(), userMoveTurn())).toEqual([])
  })

  it("a whole session: only the model move's copies, whatever comes before and after", () => {
    const { events, copies } = modelMoveTurn()
    const later = userMoveTurn(200).map((e) => ({
      ...e,
      data: { ...(e.data as object), ...('turn' in (e.data as object) ? { turn: 7 } : {}) },
    }))
    expect(named(new InStepCopies(), [...userMoveTurn(), ...events, ...later])).toEqual(copies)
  })

  it('keeps a verdict once given: the host re-dispatches the same event objects (a registry change), in any state', () => {
    const { events, copies } = modelMoveTurn()
    const classifier = new InStepCopies()
    expect(named(classifier, events)).toEqual(copies)
    expect(named(classifier, events)).toEqual(copies)
    expect(named(classifier, [...events].reverse()).reverse()).toEqual(copies)
    // A fresh object of the same event is read on its own: its mark names it again.
    expect(classifier.isCopy({ ...events.find((e) => e.seq === 104)! })).toBe(true)
  })

  it('is total: malformed events are not named and never throw', () => {
    const classifier = new InStepCopies()
    for (const bad of [
      null,
      undefined,
      3,
      'x',
      {},
      { seq: 'x', type: 'user/message' },
      { seq: 1 },
      { seq: 2, type: 'tool/call', data: null },
      { seq: 3, type: 'tool/call', data: { name: 'tree', arguments: '{"action":"jump"}', callId: 7 } },
    ]) {
      expect(classifier.isCopy(bad)).toBe(false)
    }
    expect(
      classifier.isCopy({
        seq: 4,
        type: 'tool/call',
        data: { name: 'tree', arguments: '{"action":"jump"}', callId: 'c' },
      }),
    ).toBe(false)
  })
})

/** A stand-in for `ctx.conversationEvents`: Definitions in, `entries()` and `subscribe()` out. */
function registry(definitions: Array<Record<string, unknown>>) {
  const listeners = new Set<() => void>()
  return {
    entries: () => definitions,
    subscribe: (listener: () => void) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    add(definition: Record<string, unknown>) {
      definitions.push(definition)
      for (const listener of listeners) listener()
    },
  }
}

/** The host Definitions as far as their match goes (the real ones answer the same way for these events). */
const hostMatch: Record<string, (e: Ev) => unknown> = {
  'trajectory-input-message': (e) => (e.type === 'user/message' ? { id: String(e.seq), role: 'start' } : null),
  'trajectory-assistant-step': (e) =>
    ['step/start', 'assistant/message', 'step/end'].includes(e.type)
      ? {
          id: `${(e.data as { turn: number }).turn}:${(e.data as { step: number }).step}`,
          role: e.type === 'step/start' ? 'start' : 'update',
        }
      : null,
  'trajectory-tool-call': (e) => {
    const data = e.data as { callId?: string; message?: { source?: { callId?: string } } }
    if (e.type === 'tool/call') return { id: data.callId, role: 'start' }
    if (e.type === 'tool/result') return { id: data.message?.source?.callId, role: 'update' }
    return null
  },
  'trajectory-compaction': () => null,
  // Not wrapped: the Chat's own, and a Trajectory Definition that lists no message.
  'tool-call': (e) => (e.type === 'tool/call' ? { id: (e.data as { callId: string }).callId, role: 'start' } : null),
  'trajectory-turn-end': (e) => (e.type === 'turn/end' ? { id: String(e.seq), role: 'start' } : null),
}
const definitionOf = (kind: string) => ({
  kind,
  target: kind.startsWith('trajectory') ? 'trajectory' : 'chat',
  match: hostMatch[kind] as (e: unknown) => unknown,
})

/** What each Definition sees of the events: the seqs it got an answer for. */
const seen = (definitions: ReadonlyArray<{ kind: string; match: (e: unknown) => unknown }>, events: readonly Ev[]) =>
  Object.fromEntries(definitions.map((d) => [d.kind, events.filter((e) => d.match(e) !== null).map((e) => e.seq)]))

describe('hideInStepCopies', () => {
  it("the Trajectory's message, answer and tool Definitions ignore the copies; the Chat's and the rest see every event", () => {
    const definitions = Object.keys(hostMatch).map(definitionOf)
    const dispose = hideInStepCopies(registry(definitions))
    const { events } = modelMoveTurn()
    const got = seen(definitions, events)
    expect(got['trajectory-input-message']).toEqual([89])
    expect(got['trajectory-assistant-step']).toEqual([88, 96, 108, 109, 116, 117])
    expect(got['trajectory-tool-call']).toEqual([97, 107])
    expect(got['tool-call']).toEqual([97, 101])
    expect(got['trajectory-turn-end']).toEqual([118])
    dispose()
    expect(definitions.map((d) => d.match)).toEqual(Object.keys(hostMatch).map((kind) => hostMatch[kind]))
  })

  it("a user's move lists as before: the wrapped Definitions answer exactly as the host's", () => {
    const definitions = [...TRAJECTORY_KINDS].map(definitionOf)
    hideInStepCopies(registry(definitions))
    const events = userMoveTurn()
    expect(seen(definitions, events)).toEqual(seen([...TRAJECTORY_KINDS].map(definitionOf), events))
  })

  it('wraps Definitions registered later, once; leaves other shapes and frozen ones alone; disposing restores', () => {
    const reg = registry([])
    const dispose = hideInStepCopies(reg)
    const late = definitionOf('trajectory-input-message')
    reg.add(late)
    reg.add(late)
    const frozen = Object.freeze(definitionOf('trajectory-tool-call'))
    reg.add(frozen)
    const chatShaped = {
      kind: 'trajectory-input-message',
      target: 'chat',
      match: hostMatch['trajectory-input-message'],
    }
    reg.add(chatShaped)
    const { events } = modelMoveTurn()
    expect(events.filter((e) => late.match(e) !== null).map((e) => e.seq)).toEqual([89])
    expect(frozen.match).toBe(hostMatch['trajectory-tool-call'])
    expect(chatShaped.match).toBe(hostMatch['trajectory-input-message'])
    dispose()
    expect(late.match).toBe(hostMatch['trajectory-input-message'])
  })

  it('stacks on the tool re-keying (host-tools.ts) in either order: the copies are ignored, repeated ids keep their keys', () => {
    const { events } = modelMoveTurn()
    // An earlier read exchange whose id the copy's repeats (a provider that reuses ids), so the page has seen it.
    const reused = 'call_dst_86f33af5f1384b808c0b'
    const before: Ev[] = [
      answer(35, 2, 1, call(reused, 'read')),
      toolCall(36, 2, 1, reused, 'read'),
      toolResult(37, 2, 1, reused, cites(36)),
    ]
    for (const order of ['keys first', 'trajectory first']) {
      const tool = definitionOf('trajectory-tool-call')
      const chat = definitionOf('tool-call')
      const reg = registry([tool, chat])
      const undo =
        order === 'keys first'
          ? [rekeyHostTools(reg), hideInStepCopies(reg)]
          : [hideInStepCopies(reg), rekeyHostTools(reg)]
      const answers = [...before, ...events].map((e) => [e.seq, tool.match(e), chat.match(e)] as const)
      expect(
        answers.filter(([seq, t]) => t !== null || seq === 101 || seq === 102).map(([seq, t]) => [seq, t]),
        order,
      ).toEqual([
        [36, { id: reused, role: 'start' }],
        [37, { id: reused, role: 'update' }],
        [97, { id: 'call_model_jump', role: 'start' }],
        [101, null],
        [102, null],
        [107, { id: 'call_model_jump', role: 'update' }],
      ])
      // The Chat's card of the copy keeps its repeat-proof key.
      expect(answers.find(([seq]) => seq === 101)![2], order).toEqual({
        id: `${reused}${REPEAT_SEPARATOR}101`,
        role: 'start',
      })
      for (const dispose of undo.reverse()) dispose()
      expect(tool.match).toBe(hostMatch['trajectory-tool-call'])
    }
  })
})
