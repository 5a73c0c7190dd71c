/**
 * The re-keying of DSH's own tool Definitions (src/client/chat/host-tools.ts,
 * call-keys.ts) against a stand-in of the host's transcript engine that
 * throws exactly as `dsh-client-runtime`'s `acceptMatch` does on a second
 * start of one key. The real engine in the real `dsh web` is exercised by
 * test/e2e/chat-views.test.ts (a log rewritten as earlier versions wrote it).
 */
import { describe, expect, it } from 'vitest'
import { CallKeys, REPEAT_SEPARATOR } from '../../../src/client/chat/call-keys.ts'
import { chatToolsRekeyed, rekeyHostTools } from '../../../src/client/chat/host-tools.ts'

interface Event {
  readonly type: string
  readonly seq: number
  readonly data: Record<string, unknown>
}
type Answer = { id: string; role: 'start' | 'update' } | null

/** The host's `tool-call` match, as rc.8 has it (bare call ids). */
const hostMatch = (event: Event): Answer => {
  if (event.type === 'tool/call') return { id: String(event.data.callId), role: 'start' }
  if (event.type === 'tool/result')
    return { id: String((event.data.message as { source: { callId: string } }).source.callId), role: 'update' }
  if (event.type === 'tool/code-dispatch') return { id: String(event.data.rootCallId), role: 'update' }
  return null
}

/** A stand-in registry holding the host's Definitions as plain objects. */
function registry(kinds: string[]) {
  const listeners = new Set<() => void>()
  const entries: Array<{ kind: string; target: string; match: (event: Event) => Answer }> = kinds.map((kind) => ({
    kind,
    target: 'chat',
    match: hostMatch,
  }))
  return {
    entries: () => entries,
    subscribe(listener: () => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    add(kind: string) {
      entries.push({ kind, target: 'chat', match: hostMatch })
      for (const listener of listeners) listener()
    },
    listeners,
  }
}

/** Feed events to a definition the way the engine does; throws on a second start of one key, as the host. */
function assemble(definition: { kind: string; match: (event: Event) => Answer }, events: readonly Event[]) {
  const contexts = new Map<string, number[]>()
  for (const event of events) {
    const answer = definition.match(event)
    if (answer === null) continue
    const key = `${definition.kind.length}:${definition.kind}${answer.id}`
    const seqs = contexts.get(key)
    if (answer.role === 'start' && seqs?.length)
      throw new Error(`conversation Context ${key} received more than one start Match`)
    contexts.set(key, [...(seqs ?? []), event.seq])
  }
  return contexts
}

const call = (seq: number, callId: string): Event => ({ type: 'tool/call', seq, data: { callId } })
const result = (seq: number, callId: string): Event => ({
  type: 'tool/result',
  seq,
  data: { message: { source: { callId } } },
})
const dispatch = (seq: number, rootCallId: string): Event => ({ type: 'tool/code-dispatch', seq, data: { rootCallId } })

/** An original exchange, then two copies of it with the same id (what earlier versions wrote). */
const LEGACY: Event[] = [
  call(5, 'call_a'),
  dispatch(6, 'call_a'),
  result(7, 'call_a'),
  call(20, 'call_b'),
  result(21, 'call_b'),
  call(30, 'call_a'),
  result(31, 'call_a'),
  call(40, 'call_a'),
  result(41, 'call_a'),
]

describe('CallKeys', () => {
  it('keeps bare ids for a log that repeats none, and gives every repeat its own key, its results and dispatches following it', () => {
    const keys = new CallKeys()
    expect([keys.call('call_a', 5), keys.follower('call_a', 6), keys.follower('call_a', 7)]).toEqual([
      'call_a',
      'call_a',
      'call_a',
    ])
    expect(keys.call('call_a', 30)).toBe(`call_a${REPEAT_SEPARATOR}30`)
    expect(keys.follower('call_a', 31)).toBe(`call_a${REPEAT_SEPARATOR}30`)
    expect(keys.call('call_a', 40)).toBe(`call_a${REPEAT_SEPARATOR}40`)
    expect(keys.follower('call_a', 41)).toBe(`call_a${REPEAT_SEPARATOR}40`)
    // The original's late events still go to it, and a re-dispatch gets the same keys.
    expect(keys.follower('call_a', 7)).toBe('call_a')
    expect([keys.call('call_a', 5), keys.call('call_a', 30)]).toEqual(['call_a', `call_a${REPEAT_SEPARATOR}30`])
  })

  it('an older page seen after a newer one (the Chat prepends history): the first seen keeps the bare id, every pair stays together', () => {
    const keys = new CallKeys()
    const newer = [keys.call('call_a', 40), keys.follower('call_a', 41)]
    const older = [
      keys.call('call_a', 5),
      keys.follower('call_a', 7),
      keys.call('call_a', 30),
      keys.follower('call_a', 31),
    ]
    expect(newer).toEqual(['call_a', 'call_a'])
    expect(older).toEqual([
      `call_a${REPEAT_SEPARATOR}5`,
      `call_a${REPEAT_SEPARATOR}5`,
      `call_a${REPEAT_SEPARATOR}30`,
      `call_a${REPEAT_SEPARATOR}30`,
    ])
  })

  it("a result with no call seen, or before every call of its id, keeps the host's bare id", () => {
    const keys = new CallKeys()
    expect(keys.follower('call_x', 3)).toBe('call_x')
    keys.call('call_x', 10)
    keys.call('call_x', 20)
    expect(keys.follower('call_x', 9)).toBe('call_x')
  })
})

describe('rekeyHostTools', () => {
  it("the host's engine throws on a legacy log without it, and assembles it with it: one context per exchange, each with its own result", () => {
    const host = registry(['tool-call'])
    expect(() => assemble(host.entries()[0]!, LEGACY)).toThrow(/received more than one start Match/)
    const dispose = rekeyHostTools(host)
    const contexts = assemble(host.entries()[0]!, LEGACY)
    expect([...contexts.values()]).toEqual([
      [5, 6, 7],
      [20, 21],
      [30, 31],
      [40, 41],
    ])
    dispose()
  })

  it('changes nothing for a log without repeats, and ignores other Definitions', () => {
    const host = registry(['tool-call', 'workflow-run'])
    const dispose = rekeyHostTools(host)
    const plain = LEGACY.slice(0, 5)
    const other = host.entries()[1]!
    expect(other.match).toBe(hostMatch)
    expect(plain.map((event) => host.entries()[0]!.match(event))).toEqual(plain.map(hostMatch))
    dispose()
  })

  it("wraps a Definition the host registers later (the Trajectory's), and disposing puts the host's match back", () => {
    const host = registry(['tool-call'])
    const dispose = rekeyHostTools(host)
    expect(chatToolsRekeyed()).toBe(true)
    host.add('trajectory-tool-call')
    expect(() => assemble(host.entries()[1]!, LEGACY)).not.toThrow()
    dispose()
    expect(host.entries().map((entry) => entry.match)).toEqual([hostMatch, hostMatch])
    expect(host.listeners.size).toBe(0)
    expect(chatToolsRekeyed()).toBe(false)
  })

  it("fails closed: a frozen Definition stays the host's own, a throwing registry is survived, and the host's own answer passes through when it is not an id", () => {
    const frozen = Object.freeze({ kind: 'tool-call', target: 'chat', match: hostMatch })
    const dispose = rekeyHostTools({ entries: () => [frozen] })
    expect(frozen.match).toBe(hostMatch)
    expect(chatToolsRekeyed()).toBe(false)
    dispose()
    expect(() =>
      rekeyHostTools({
        entries: () => {
          throw new Error('gone')
        },
      })(),
    ).not.toThrow()
    const odd = {
      kind: 'tool-call',
      target: 'chat',
      match: (_event: Event) => ({ id: 7, role: 'start' }) as unknown as Answer,
    }
    const off = rekeyHostTools({ entries: () => [odd] })
    expect(odd.match(call(1, 'x'))).toEqual({ id: 7, role: 'start' })
    expect(odd.match({ type: 'tool/call', seq: 'x' as unknown as number, data: {} })).toEqual({ id: 7, role: 'start' })
    off()
  })
})
