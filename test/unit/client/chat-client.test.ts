// @vitest-environment jsdom
/**
 * The Chat decorations' browser half in jsdom: the Definitions never throw
 * and key every context by seq; the rules map the host Chat's rows (key,
 * kind, anchorSeq) onto a REAL `chatPath` answer (a real stock switch over a
 * real harness `Session`); the generated stylesheet hides exactly those rows,
 * inside the one session's column, for any key (quotes, backslashes, line
 * breaks); the store fails closed (no rules at all) when the service fails,
 * and a ‹ k / n › press jumps and refreshes.
 */
import type { LogEvent } from '../../../src/harness/log-event.ts'
import { describe, expect, it } from 'vitest'
import { buildChatPath, type ChatPath } from '../../../src/service/chat-path.ts'
import {
  FORK_KIND,
  FORK_OFFSET,
  forkDefinition,
  seatData,
  SWITCH_KIND,
  switchDefinition,
} from '../../../src/client/chat/definitions.ts'
import { chatCss, chatRules, cssString, inRanges } from '../../../src/client/chat/rules.ts'
import { type ChatRow } from '../../../src/client/chat/live.ts'
import { ChatStore, type ChatRemote } from '../../../src/client/chat/store.ts'
import type { Result } from '../../../src/client/controller.ts'
import type { SessionStatus, WatchAnswer, WatchRequest } from '../../../src/types.ts'
import { ChangeFeed, type WatchRemote } from '../../../src/client/changes.ts'
import { LogBuilder } from '../../support/log-builder.ts'
import { stockRig } from '../../support/stock-rig.ts'

/** A real switched session: 3 turns (one with a tool call), a jump to a1, a prompt. */
async function switched() {
  const log = new LogBuilder('s1')
    .userTurn('q1', 'a1')
    .userTurn('q2', 'a2', { tools: [{ name: 'read', args: { f: 1 }, result: 'r' }] })
    .userTurn('q3', 'a3')
  const { projector, switcher, agent, sync, byText } = stockRig(log)
  const a1 = byText('a1')
  projector.tree.jump(a1)
  await switcher.switch(agent, a1)
  log.userTurn('q4', 'a4')
  sync()
  const events = log.events as unknown as LogEvent[]
  const path = buildChatPath({ sessionId: 's1', revision: 'r1', mode: 'stock', events: log.events, projector })
  return { log, events, path, projector }
}

/**
 * The rows the host Chat would hold for these events, keyed like it (each
 * prompt by its id, each step's answer by turn:step, each call by call id),
 * anchored like it (the event's seq; a turn tail 0.1 after its last answer),
 * plus the nodes our Definitions add.
 */
function hostRows(events: readonly LogEvent[]): ChatRow[] {
  const rows: ChatRow[] = []
  const add = (definition: ReturnType<typeof switchDefinition>, e: LogEvent) => {
    const match = definition.match(e)
    if (!match) return
    const key = `${definition.kind.length}:${definition.kind}${match.id}`
    const context = { key, id: match.id, start: { event: e, role: 'start' as const }, state: undefined }
    const state = definition.start(context, { event: e, role: 'start' })
    const node = definition.buildViewNode({ ...context, state })
    rows.push({ key: node.key, kind: node.kind, anchorSeq: node.anchorSeq })
  }
  const sw = switchDefinition()
  const fork = forkDefinition()
  for (const e of events) {
    const data = e.data as any
    add(sw, e)
    add(fork, e)
    if (e.type === 'user/message' && e.surfaceOp === 'append')
      rows.push({
        key: `13:input-message${data.id}`,
        kind: data.source.kind === 'user' ? 'user' : 'context',
        anchorSeq: e.seq,
      })
    if (
      e.type === 'assistant/message' &&
      e.surfaceOp === 'append' &&
      data.message.content.some((b: any) => b.type === 'text')
    ) {
      rows.push({ key: `14:assistant-step${data.turn}:${data.step}`, kind: 'assistant-step', anchorSeq: e.seq })
      rows.push({ key: `9:turn-tail${data.turn}`, kind: 'turn-tail', anchorSeq: e.seq + 0.1 })
    }
    if (e.type === 'tool/call') rows.push({ key: `9:tool-call${data.callId}`, kind: 'tool-call', anchorSeq: e.seq })
  }
  // One node per key: a later row of the same key (a step's second answer) replaces the first.
  return [...new Map(rows.map((r) => [r.key, r])).values()]
}

const textOfKey = (events: readonly LogEvent[], row: ChatRow): string => {
  const e = events.find((x) => x.seq === Math.round(row.anchorSeq))!
  const data = e.data as any
  const message = e.type === 'user/message' ? data : data.message
  return e.type === 'tool/call' ? `call:${data.name}` : message.content.map((b: any) => b.text ?? '').join('')
}

describe('the Definitions', () => {
  it('start one context per anchor event, keyed by seq, and never throw on malformed events', () => {
    const sw = switchDefinition()
    const fork = forkDefinition()
    const malformed: unknown[] = [
      null,
      {},
      { type: 5 },
      { type: 'agent/inbox/spliced', seq: 1, time: 0, data: { inserted: 'x' } },
      { type: 'agent/inbox/spliced', seq: 2, time: 0, data: { inserted: [null, 3] } },
      { type: 'user/message', seq: 'x' },
      Object.defineProperty({ seq: 3 }, 'type', {
        get: () => {
          throw new Error('boom')
        },
      }),
    ]
    for (const event of malformed) {
      expect(() => sw.match(event as LogEvent)).not.toThrow()
      expect(() => fork.match(event as LogEvent)).not.toThrow()
      expect(sw.match(event as LogEvent)).toBeNull()
    }
    const marker = {
      type: 'agent/inbox/spliced',
      seq: 63,
      time: 0,
      data: { target: 'next-turn', start: 0, inserted: [{ id: 'dsh-session-tree:switch:abc', role: 'user' }] },
    }
    expect(sw.match(marker)).toEqual({ id: '63', role: 'start' })
    expect(sw.match({ type: 'session-tree/selection', seq: 9, time: 0, data: { seqs: [] } })).toEqual({
      id: '9',
      role: 'start',
    })
    // A model's move call may anchor an in-step switch; any other call does not.
    expect(
      sw.match({
        type: 'tool/call',
        seq: 10,
        time: 0,
        data: { name: 'tree', arguments: '{"action":"jump"}', callId: 'c' },
      }),
    ).toEqual({
      id: '10',
      role: 'start',
    })
    expect(sw.match({ type: 'tool/call', seq: 11, time: 0, data: { name: 'read', callId: 'd' } })).toBeNull()
    expect(fork.match({ type: 'user/message', seq: 7, time: 0, surfaceOp: 'append', data: {} })).toEqual({
      id: '7',
      role: 'start',
    })
    // A replacement (the Chat draws none but compactions) and a tool call get a seat too: the live reading needs what they say.
    expect(
      fork.match({ type: 'user/message', seq: 8, time: 0, surfaceOp: { op: 'replace', start: 1, end: 2 } }),
    ).toEqual({
      id: '8',
      role: 'start',
    })
    expect(fork.match({ type: 'assistant/message', seq: 12, time: 0, surfaceOp: 'append', data: {} })).toEqual({
      id: '12',
      role: 'start',
    })
    expect(fork.match({ type: 'assistant/message', seq: 13, time: 0, surfaceOp: 'replace' } as never)).toBeNull()
    expect(fork.match({ type: 'tool/call', seq: 9, time: 0, data: {} })).toEqual({ id: '9', role: 'start' })
    // Nodes are built the same way every time, even without a start.
    const node = fork.buildViewNode({ key: '17:session-tree-fork7', id: '7', start: undefined, state: undefined })
    expect(node).toMatchObject({
      key: '17:session-tree-fork7',
      kind: FORK_KIND,
      anchorSeq: 7 + FORK_OFFSET,
      target: 'chat',
      visibility: 'visible',
      location: { kind: 'session' },
    })
  })

  it('pokes (outside the engine) at switch anchors and turn ends', async () => {
    const heard: number[] = []
    const sw = switchDefinition((e) => {
      heard.push(e.seq)
      throw new Error('a failing listener is contained')
    })
    sw.match({ type: 'turn/end', seq: 4, time: 0, data: { turn: 1 } })
    sw.match({ type: 'user/message', seq: 5, time: 0 })
    expect(heard).toEqual([])
    await Promise.resolve()
    expect(heard).toEqual([4])
  })
})

describe('the rules over a real stock switch', () => {
  it('keep exactly the model history, plus one switch row and a ‹ 2 / 2 › at the new prompt', async () => {
    const { log, events, path } = await switched()
    const rows = hostRows(events)
    const rules = chatRules(path, rows, new Set())
    const hidden = new Set(rules.hide)
    const kept = rows
      .filter((r) => !hidden.has(r.key) && r.kind !== 'turn-tail' && r.kind !== SWITCH_KIND && r.kind !== FORK_KIND)
      .sort((a, b) => a.anchorSeq - b.anchorSeq)
      .map((r) => textOfKey(events, r))
    expect(kept).toEqual(log.modelTexts())
    expect(rules.show.map((key) => rows.find((r) => r.key === key)!.kind).sort()).toEqual([FORK_KIND, SWITCH_KIND])
    const fork = [...rules.forks.values()]
    expect(fork).toEqual([expect.objectContaining({ index: 2, count: 2 })])
    // The abandoned turns' tails go with them; the kept turns keep theirs.
    expect(hidden.has('9:turn-tail2')).toBe(true)
    expect(hidden.has('9:turn-tail1')).toBe(false)
    // Expanding the run reveals the abandoned rows, never the maintenance turn.
    const lead = path.switches.find((s) => s.lead)!
    const open = chatRules(path, rows, new Set([lead.seq]))
    // (each answer twice: its step and its turn's tail)
    expect(
      open.reveal.map((key) =>
        textOfKey(
          events,
          rows.find((r) => r.key === key)!,
        ),
      ),
    ).toEqual(['q2', 'call:read', 'a2', 'a2', 'q3', 'a3', 'a3'])
    expect(open.hide.every((key) => !open.reveal.includes(key))).toBe(true)
  })

  it("read a rewind's stand-in (it restates a1, the first entry it shadows, citing just what it shadows) as a copy of a1", async () => {
    const { events, projector } = await switched()
    const replacements = events.filter((e) => e.type === 'assistant/message' && typeof e.surfaceOp === 'object')
    expect(replacements).toHaveLength(1)
    const a1 = projector.sourceOf(projector.tree.list().find((n) => n.message?.content === 'a1')!.nodeId)
    const cited = replacements[0]!.sourceEventSeqs as number[]
    expect(seatData(replacements[0]!)).toEqual({
      seq: replacements[0]!.seq,
      event: 'replace',
      shadowed: cited,
      standIn: a1?.kind === 'message' ? a1.seq : -1,
    })
    // The planner's other layout: the shadowed seqs, then the stand-in's own original (outside them).
    expect(
      seatData({
        type: 'user/message',
        seq: 40,
        time: 0,
        surfaceOp: { op: 'replace', start: 30, end: 33 },
        sourceEventSeqs: [30, 33, 7],
        data: { content: [{ type: 'text', text: 'q' }] },
      }),
    ).toEqual({ seq: 40, event: 'replace', shadowed: [30, 33], standIn: 7 })
    // A tombstone (empty) stands in for nothing.
    expect(
      seatData({
        type: 'assistant/message',
        seq: 41,
        time: 0,
        surfaceOp: { op: 'replace', start: 30, end: 33 },
        sourceEventSeqs: [30, 33],
        data: { message: { content: [] } },
      }),
    ).toEqual({ seq: 41, event: 'replace', shadowed: [30, 33] })
  })

  it('show a row the answer does not know yet (newer than its watermark): the Chat fails closed', async () => {
    const { path } = await switched()
    const rules = chatRules(
      { ...path, hidden: [[0, path.watermark + 100]] },
      [
        { key: 'new', kind: 'user', anchorSeq: path.watermark + 1 },
        { key: 'old', kind: 'user', anchorSeq: path.watermark },
      ],
      new Set(),
    )
    expect(rules.hide).toEqual(['old'])
    expect(chatRules(undefined, [{ key: 'k', kind: 'user', anchorSeq: 1 }], new Set()).hide).toEqual([])
  })

  it('inRanges is a binary search over sorted ranges', () => {
    const ranges = [
      [1, 3],
      [7, 7],
      [10, 20],
    ] as const
    expect([0, 1, 3, 4, 7, 8, 10, 20, 21].map((s) => inRanges(ranges, s))).toEqual([
      false,
      true,
      true,
      false,
      true,
      false,
      true,
      true,
      false,
    ])
  })
})

describe('the stylesheet', () => {
  it("hides exactly the keyed rows inside this session's column, for any key", () => {
    const keys = ['13:input-messageabc', 'a"quote', 'back\\slash', 'line\nbreak', ']) , * {', '14:assistant-step1:1']
    document.body.innerHTML = ''
    const mine = document.createElement('div')
    mine.setAttribute('data-chat-flow', '')
    mine.setAttribute('data-session-tree-chat', 'S "1"')
    const other = document.createElement('div')
    other.setAttribute('data-chat-flow', '')
    other.setAttribute('data-session-tree-chat', 'S2')
    for (const column of [mine, other]) {
      for (const key of [...keys, 'kept']) {
        const row = document.createElement('div')
        row.setAttribute('data-chat-flow-key', key)
        column.append(row)
      }
      document.body.append(column)
    }
    const css = chatCss('S "1"', { hide: keys, reveal: [], show: [], switches: new Map(), forks: new Map() })
    const style = document.createElement('style')
    style.textContent = css
    document.head.append(style)
    const sheet = style.sheet!
    expect(sheet.cssRules.length).toBe(1)
    const selector = (sheet.cssRules[0] as CSSStyleRule).selectorText
    const matched = [...document.querySelectorAll(selector)]
    expect(matched.map((el) => el.getAttribute('data-chat-flow-key'))).toEqual(keys)
    expect(matched.every((el) => el.parentElement === mine)).toBe(true)
    style.remove()
    expect(cssString('a"b\\c\nd')).toBe('"a\\"b\\\\c\\a d"')
  })
})

describe('the store', () => {
  const status = (revision: string): Result<SessionStatus> => ({
    ok: true,
    value: {
      sessionId: 's1',
      nodeCount: 1,
      messageCount: 1,
      branchCount: 1,
      cursor: null,
      activeBranch: 'main',
      currentPathLength: 0,
      snapshotVersion: 1,
      revision,
    },
  })

  it('writes the rules for its column, refetches only when the revision moves, and fails closed', async () => {
    const { path, events } = await switched()
    const rows = hostRows(events)
    const calls: string[] = []
    let answer: Result<ChatPath> = { ok: true, value: path }
    let revision = 'r1'
    const remote: ChatRemote = {
      session: async () => (calls.push('session'), status(revision)),
      chatPath: async () => (calls.push('chatPath'), answer),
      moveBrief: async () => ({ ok: false, error: { code: 'AGENT_BUSY', message: 'busy' } }),
    }
    document.body.innerHTML = '<div data-chat-flow><div id="seat"></div></div>'
    const store = new ChatStore(async () => remote, 's1', { intervalMs: 60_000 })
    // Fake remote, no I/O: one macrotask lets every pending answer land.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
    store.attach(document.querySelector('[data-chat-flow]'))
    store.observe(
      rows.map((r) => r.key),
      { get: (key) => rows.find((r) => r.key === key) },
    )
    const stop = store.start()
    await settle()
    const css = () => document.querySelector('style[data-plugin-css="dsh-session-tree/chat:s1"]')?.textContent ?? ''
    expect(css()).toContain('display: none')
    const column = document.querySelector('[data-chat-flow]')!
    expect(column.getAttribute('data-session-tree-chat')).toBe('s1')
    expect(column.getAttribute('data-session-tree-revision')).toBe('r1')
    await store.refresh()
    expect(calls).toEqual(['session', 'chatPath', 'session'])
    // A request while one is in flight runs once more afterwards (the first may predate the change).
    calls.length = 0
    void store.refresh()
    void store.refresh()
    await settle()
    expect(calls).toEqual(['session', 'chatPath'])
    // A failure leaves no rule at all: the host's Chat shows every row.
    revision = 'r2'
    answer = { ok: false, error: { code: 'SESSION_NOT_FOUND', message: 'not loaded' } }
    await store.refresh()
    expect(css()).toBe('')
    expect(store.getSnapshot().error?.code).toBe('SESSION_NOT_FOUND')
    expect(column.getAttribute('data-session-tree-state')).toBe('error')
    // A failed move keeps its code by the fork it came from.
    answer = { ok: true, value: path }
    expect(await store.move(42, 'e1')).toBe(false)
    expect(store.getSnapshot().moveError).toEqual({ code: 'AGENT_BUSY', message: 'busy', seq: 42 })
    expect(css()).toContain('display: none')
    // Expanding a run reveals its rows; the last user leaving removes every rule.
    const lead = path.switches.find((s) => s.lead)!
    store.toggle(lead.seq)
    expect(css()).toContain('opacity: 0.5')
    stop()
    expect(css()).toBe('')
    store.dispose()
  })

  it('a poke for an event its answer already classified (the host replaying its window) asks nothing; a later one refreshes', async () => {
    const { path } = await switched()
    const calls: string[] = []
    const remote: ChatRemote = {
      session: async () => (calls.push('session'), status('r1')),
      chatPath: async () => (calls.push('chatPath'), { ok: true, value: path }),
      moveBrief: async () => ({ ok: false, error: { code: 'AGENT_BUSY', message: 'busy' } }),
    }
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
    const store = new ChatStore(async () => remote, 's1', { intervalMs: 60_000 })
    // Not mounted: a poke asks nothing.
    await store.refreshIfLive(path.watermark + 1)
    expect(calls).toEqual([])
    const stop = store.start()
    await settle()
    expect(calls).toEqual(['session', 'chatPath'])
    calls.length = 0
    for (const seq of [0, path.watermark - 1, path.watermark]) await store.refreshIfLive(seq)
    expect(calls).toEqual([])
    await store.refreshIfLive(path.watermark + 1)
    expect(calls).toEqual(['session'])
    stop()
    store.dispose()
  })

  it('follows the push channel from the revision it read: its first watch waits (no second read of what it holds), and a poke asks nothing', async () => {
    const { path } = await switched()
    const calls: string[] = []
    const held: WatchRequest[] = []
    const remote: ChatRemote = {
      session: async () => (calls.push('session'), status(path.revision)),
      chatPath: async () => (calls.push('chatPath'), { ok: true, value: path }),
      moveBrief: async () => ({ ok: false, error: { code: 'AGENT_BUSY', message: 'busy' } }),
    }
    const watching: WatchRemote = {
      watch: (request) => (held.push(request), new Promise<Result<WatchAnswer>>(() => {})),
    }
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
    const changes = new ChangeFeed(async () => watching)
    const store = new ChatStore(async () => remote, 's1', { intervalMs: 60_000, changes })
    const stop = store.start()
    for (let i = 0; i < 5; i++) await settle()
    expect(calls).toEqual(['session', 'chatPath'])
    expect(held.map((r) => r.sessions)).toEqual([[{ agentId: 's1', revision: path.revision }]])
    // A poke for a new event asks nothing while the channel carries the session's changes.
    expect(store.pushed).toBe(true)
    await store.refreshIfLive(path.watermark + 1)
    for (let i = 0; i < 5; i++) await settle()
    expect(calls).toEqual(['session', 'chatPath'])
    stop()
    store.dispose()
    changes.dispose()
  })

  it('a pushed change is read in one round trip: chatPath, no session first', async () => {
    const { path } = await switched()
    const calls: string[] = []
    const remote: ChatRemote = {
      session: async () => (calls.push('session'), status(path.revision)),
      chatPath: async () => (calls.push('chatPath'), { ok: true, value: path }),
      moveBrief: async () => ({ ok: false, error: { code: 'AGENT_BUSY', message: 'busy' } }),
    }
    // The channel answers once that the session moved, then holds.
    let answered = false
    const watching: WatchRemote = {
      watch: (request) => {
        if (answered) return new Promise<Result<WatchAnswer>>(() => {})
        answered = true
        return Promise.resolve({
          ok: true,
          value: { changed: [{ agentId: 's1', revision: `${request.sessions[0]!.revision}+` }] },
        })
      },
    }
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
    const changes = new ChangeFeed(async () => watching)
    const store = new ChatStore(async () => remote, 's1', { intervalMs: 60_000, changes })
    const stop = store.start()
    for (let i = 0; i < 10; i++) await settle()
    expect(answered).toBe(true)
    expect(calls).toEqual(['session', 'chatPath', 'chatPath'])
    stop()
    store.dispose()
    changes.dispose()
  })

  it('"Show" loads older history pages until the first row it reveals is in; without a pager the row says it is partial', async () => {
    const { path, events } = await switched()
    const rows = hostRows(events)
    const lead = path.switches.find((s) => s.lead)!
    expect(lead.firstRow).toBeDefined()
    const remote: ChatRemote = {
      session: async () => status('r1'),
      chatPath: async () => ({ ok: true, value: path }),
      moveBrief: async () => ({ ok: false, error: { code: 'AGENT_BUSY', message: 'busy' } }),
    }
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
    const nodes = { get: (key: string) => rows.find((r) => r.key === key) }
    // The host holds the tail from the switch row on; each page brings 3 older rows, as its pager would (then re-renders).
    let from = rows.findIndex((r) => r.kind === SWITCH_KIND && r.anchorSeq === lead.seq)
    const window = () => rows.slice(from).map((r) => r.key)
    for (const pagerOn of [true, false]) {
      let pages = 0
      from = rows.findIndex((r) => r.kind === SWITCH_KIND && r.anchorSeq === lead.seq)
      const pager = {
        loadOlder: async () => {
          pages++
          from = Math.max(0, from - 3)
          setTimeout(() => store.observe(window(), nodes, from > 0), 0)
        },
      }
      const store = new ChatStore(async () => remote, 's1', {
        intervalMs: 60_000,
        ...(pagerOn ? { pager: () => pager } : {}),
      })
      store.observe(window(), nodes, true)
      const stop = store.start()
      await settle()
      store.toggle(lead.seq)
      for (let i = 0; i < 50 && (store.getSnapshot().filling !== undefined || (pagerOn && pages === 0)); i++)
        await settle()
      const loaded = window().some((key) => {
        const r = nodes.get(key)!
        return r.kind === FORK_KIND && Math.round(r.anchorSeq - FORK_OFFSET) === lead.firstRow
      })
      if (pagerOn) {
        expect(loaded, 'the first hidden row was loaded').toBe(true)
        expect(pages).toBeGreaterThan(0)
        expect(store.getSnapshot().partial).toBeUndefined()
        // No more than needed: one page less would not hold it.
        from += 3
        expect(
          window().some((key) => {
            const r = nodes.get(key)!
            return r.kind === FORK_KIND && Math.round(r.anchorSeq - FORK_OFFSET) === lead.firstRow
          }),
        ).toBe(false)
      } else {
        expect(loaded).toBe(false)
        expect(store.getSnapshot().partial?.has(lead.seq)).toBe(true)
        store.toggle(lead.seq)
        expect(store.getSnapshot().partial).toBeUndefined()
      }
      stop()
      store.dispose()
    }
  })
})
