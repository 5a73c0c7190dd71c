/** compare(tree, a, b) on hand-built trees: what a person would check by eye. */
import { describe, expect, it } from 'vitest'
import { compare, diffWords, SessionTree, tokenize, type Comparison } from '../../../src/tree/index.ts'

function tree(): SessionTree {
  const t = new SessionTree('compare-unit', undefined, { now: () => new Date('2026-01-01T00:00:00Z') })
  const add = (
    id: string,
    parentId: string | null,
    role: 'user' | 'assistant' | 'tool',
    text: string,
    extra: object = {},
  ) => {
    const r = t.append(
      { role, content: text, ...(role === 'tool' ? { toolCallId: `call-${id}`, name: 'read' } : {}) },
      { nodeId: id, parentId, ...extra },
    )
    if (!r.ok) throw new Error(r.error.message)
  }
  add('u1', null, 'user', 'Write a haiku about the sea.')
  add('a1', 'u1', 'assistant', 'Waves fold into foam, the grey sea breathes slowly out.', {
    usage: { inputTokens: 100, outputTokens: 20 },
    cost: 0.01,
  })
  add('u2', 'a1', 'user', 'Now read notes.md first.')
  add('t1', 'u2', 'assistant', '', {
    type: 'tool_call',
    content: [
      { type: 'tool_call', id: 'c1', name: 'read', arguments: { path: 'notes.md', limit: 10 } },
      { type: 'tool_result', toolCallId: 'c1', content: 'sea notes v1' },
    ],
    usage: { inputTokens: 130, outputTokens: 5 },
  })
  add('a2', 't1', 'assistant', 'Done: the notes say calm.')
  // A second branch from a1: same shape, other words and arguments.
  add('u2b', 'a1', 'user', 'Now read notes.md first.')
  add('t1b', 'u2b', 'assistant', '', {
    type: 'tool_call',
    content: [
      { type: 'tool_call', id: 'c2', name: 'read', arguments: { limit: 20, path: 'notes.md', offset: 3 } },
      { type: 'tool_result', toolCallId: 'c2', content: 'sea notes v2' },
    ],
  })
  add('a2b', 't1b', 'assistant', 'Done: the notes say stormy.', {
    usage: { inputTokens: 150, outputTokens: 9 },
    cost: 0.02,
  })
  add('x', 'a2b', 'user', 'thanks')
  return t
}

function ok(result: ReturnType<typeof compare>): Comparison {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
  return result.value
}

describe('compare', () => {
  it('finds where two branches part and diffs them pair by pair', () => {
    const c = ok(compare(tree(), 'a2', 'x'))
    expect(c.ancestor).toBe('a1')
    expect(c.commonLength).toBe(2)
    expect(c.a.path).toEqual(['u2', 't1', 'a2'])
    expect(c.b.path).toEqual(['u2b', 't1b', 'a2b', 'x'])
    expect(c.rows.map((row) => row.kind)).toEqual(['pair', 'pair', 'pair', 'only_b'])
    const [prompt, call, answer] = c.rows
    expect(prompt!.kind === 'pair' && prompt!.diff.same).toBe(true)
    expect(answer!.kind === 'pair' && answer!.diff.text).toEqual({
      kind: 'words',
      parts: [
        { kind: 'same', text: 'Done: the notes say ' },
        { kind: 'removed', text: 'calm' },
        { kind: 'added', text: 'stormy' },
        { kind: 'same', text: '.' },
      ],
      removed: 1,
      added: 1,
    })
    // Arguments compared by key, not by their order: `path` is the same, `limit` changed, `offset` added.
    expect(call!.kind === 'pair' && call!.diff.toolCalls).toEqual([
      {
        kind: 'changed',
        nameA: 'read',
        nameB: 'read',
        arguments: [
          { kind: 'changed', path: '/limit', a: 10, b: 20 },
          { kind: 'added', path: '/offset', b: 3 },
        ],
      },
    ])
    expect(call!.kind === 'pair' && call!.diff.toolResults[0]).toMatchObject({
      kind: 'changed',
      errorA: false,
      errorB: false,
    })
    expect(c.changedRows).toBe(3)
  })

  it('totals tokens and cost per side, and says when they are unknown', () => {
    const c = ok(compare(tree(), 'a2', 'x'))
    expect(c.a.totals).toMatchObject({ nodes: 3, tokens: 135, cost: null, nodesWithUsage: 1, assistantMessages: 1 })
    expect(c.b.totals).toMatchObject({ nodes: 4, tokens: 159, cost: 0.02, nodesWithUsage: 1 })
    const none = ok(compare(tree(), 'u2', 'u2b'))
    expect(none.a.totals.tokens).toBeNull()
    expect(none.a.totals.cost).toBeNull()
  })

  it('an ancestor against its descendant, a node against itself, and separate roots', () => {
    const t = tree()
    const down = ok(compare(t, 'u1', 'a2'))
    expect(down.ancestor).toBe('u1')
    expect(down.a.path).toEqual([])
    expect(down.rows.every((row) => row.kind === 'only_b')).toBe(true)
    const same = ok(compare(t, 'a2', 'a2'))
    expect(same.rows).toEqual([])
    expect(same.changedRows).toBe(0)
    t.append({ role: 'user', content: 'another root' }, { nodeId: 'r2', parentId: null })
    const apart = ok(compare(t, 'r2', 'a1'))
    expect(apart.ancestor).toBeNull()
    expect(apart.commonLength).toBe(0)
    expect(apart.b.path).toEqual(['u1', 'a1'])
  })

  it('refuses bad ids with the tree codes', () => {
    const t = tree()
    expect(compare(t, 'nope', 'a1')).toMatchObject({ ok: false, error: { code: 'NODE_NOT_FOUND' } })
    expect(compare(t, 'a1', '')).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } })
    expect(compare(t, 42, 'a1')).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } })
    const long = compare(t, 'x'.repeat(1_000_000), 'a1')
    expect(long.ok === false && long.error.message.length).toBeLessThan(200)
  })

  it('shows huge texts whole, with the reason, and stays within its budget', () => {
    const a = Array.from({ length: 30_000 }, (_, i) => `w${i}`).join(' ')
    const b = Array.from({ length: 30_000 }, (_, i) => `v${i}`).join(' ')
    expect(diffWords(a, b)).toEqual({ kind: 'whole', reason: 'size', a, b })
    const edits = diffWords(a.slice(0, 20_000), b.slice(0, 20_000))
    expect(edits.kind === 'whole' && edits.reason).toBe('edits')
    expect(diffWords('a b c d', 'a x c y', { budget: { left: 2 } })).toMatchObject({ kind: 'whole', reason: 'budget' })
    // A long common text with one change is cheap: the common start and end are cut first.
    const tail = diffWords(`${a} end`, `${a} fin`)
    expect(tail).toMatchObject({ kind: 'words', removed: 1, added: 1 })
  })

  it('reads as whole replacements: shared spaces between edits join them, the counts stay minimal', () => {
    expect(diffWords('Check notes.txt for my budget', 'Actually, plan Porto instead')).toEqual({
      kind: 'words',
      parts: [
        { kind: 'removed', text: 'Check notes.txt for my budget' },
        { kind: 'added', text: 'Actually, plan Porto instead' },
      ],
      // Tokens: 11 on A, 8 on B, three spaces shared.
      removed: 8,
      added: 5,
    })
    expect(diffWords('keep a b keep', 'keep c d keep')).toMatchObject({
      parts: [
        { kind: 'same', text: 'keep ' },
        { kind: 'removed', text: 'a b' },
        { kind: 'added', text: 'c d' },
        { kind: 'same', text: ' keep' },
      ],
    })
  })

  it('tokenizes words, spaces and punctuation runs, and CJK characters one by one', () => {
    expect(tokenize('Hello, world!! 你好 x_1')).toEqual(['Hello', ',', ' ', 'world', '!!', ' ', '你', '好', ' ', 'x_1'])
    expect(diffWords('我喜欢猫', '我喜欢狗')).toMatchObject({ kind: 'words', removed: 1, added: 1 })
  })
})

describe('tokenize', () => {
  it('joins a character to a following space exactly when it is `\\s` (one whitespace rule for the tree)', () => {
    const spaces: number[] = []
    const joined: number[] = []
    for (let c = 0; c <= 0xffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue
      const ch = String.fromCharCode(c)
      if (/\s/u.test(ch)) spaces.push(c)
      if (tokenize(`${ch} `).length === 1) joined.push(c)
    }
    expect(spaces).toContain(0x1680)
    expect(joined).toEqual(spaces)
  })
})
