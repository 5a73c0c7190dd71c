/**
 * Compare (src/tree/compare.ts, diff.ts) against independent references:
 * the common ancestor from a naive walk of parent ids, word diffs checked by
 * applying them and against the edit distance of an LCS dynamic program,
 * the row alignment against the LCS of the node kinds, argument changes by
 * applying them, and the totals by summing the entries.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  compare,
  diffWords,
  SessionTree,
  tokenize,
  type ArgumentChange,
  type JsonValue,
  type Role,
  type TextDiff,
} from '../../src/tree/index.ts'
import { argumentChanges, sameJson } from '../../src/tree/compare-node.ts'
import { lcs } from '../support/lcs.ts'

/** The naive tokenization: split at every change of character class (words, spaces, others), CJK one each. */
function referenceTokens(text: string): string[] {
  const cls = (c: string) =>
    /[\u4e00-\u9fff]/u.test(c) ? `cjk${c}` : /\s/u.test(c) ? 's' : /[\p{L}\p{N}\p{M}_]/u.test(c) ? 'w' : 'o'
  const out: string[] = []
  let last = ''
  for (const c of text) {
    const k = cls(c)
    if (out.length > 0 && k === last && !k.startsWith('cjk')) out[out.length - 1] += c
    else out.push(c)
    last = k
  }
  return out
}

function sides(diff: TextDiff): [string, string] {
  if (diff.kind === 'whole') return [diff.a, diff.b]
  let a = ''
  let b = ''
  for (const part of diff.parts) {
    if (part.kind !== 'added') a += part.text
    if (part.kind !== 'removed') b += part.text
  }
  return [a, b]
}

const WORDS = ['the', 'cat', 'sat', 'on', 'mat', ' ', ' ', '  ', '\n', ',', '.', '!?', '猫', '坐', 'é', 'x1']
const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 30 }).map((parts) => parts.join(''))

describe('word diffs', () => {
  it('tokens are the reference tokens, and join to the text', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('a', 'Z', '1', ' ', '\t', ',', '.', '猫', 'é', '_', '\u0301'),
          maxLength: 40,
        }),
        (t) => {
          expect(tokenize(t)).toEqual(referenceTokens(t))
          expect(tokenize(t).join('')).toBe(t)
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('applied to A the diff yields B, and it is a minimal edit (the LCS reference)', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const diff = diffWords(a, b)
        expect(diff.kind).toBe('words')
        expect(sides(diff)).toEqual([a, b])
        if (diff.kind !== 'words') return
        const ta = tokenize(a)
        const tb = tokenize(b)
        expect(diff.removed + diff.added).toBe(ta.length + tb.length - 2 * lcs(ta, tb))
        // Runs alternate (no two neighbours of one kind) and none is empty.
        for (let i = 0; i < diff.parts.length; i++) {
          expect(diff.parts[i]!.text).not.toBe('')
          if (i > 0) expect(diff.parts[i]!.kind === diff.parts[i - 1]!.kind).toBe(false)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('past the edit bound the texts are shown whole, and only then', () => {
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 12 }), (a, b, maxEdits) => {
        const diff = diffWords(a, b, { maxEdits })
        const ta = tokenize(a)
        const tb = tokenize(b)
        const distance = ta.length + tb.length - 2 * lcs(ta, tb)
        expect(sides(diff)).toEqual([a, b])
        if (distance <= maxEdits) expect(diff.kind).toBe('words')
        else expect(diff).toMatchObject({ kind: 'whole', reason: 'edits' })
      }),
      { numRuns: 2000 },
    )
  })
})

// ------------------------------------------------------------------ trees

type Step = {
  parent: number
  role: Role
  words: string
  call?: { name: string; args: JsonValue }
  tokens?: number
  cost?: number
}

const json = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom<JsonValue>(null, true, 1, 2, 'a', 'a b', 'b c'),
    fc.array(tie('value') as fc.Arbitrary<JsonValue>, { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('p', 'q', 'r', 'a/b'), tie('value') as fc.Arbitrary<JsonValue>, { maxKeys: 3 }),
  ),
})).value

const step: fc.Arbitrary<Step> = fc.record(
  {
    parent: fc.nat(),
    role: fc.constantFrom<Role>('user', 'assistant', 'assistant', 'tool'),
    words: text,
    call: fc.option(fc.record({ name: fc.constantFrom('read', 'write'), args: json }), { nil: undefined }),
    tokens: fc.option(fc.nat({ max: 500 }), { nil: undefined }),
    cost: fc.option(fc.constantFrom(0.5, 0.25, 1), { nil: undefined }),
  },
  { requiredKeys: ['parent', 'role', 'words'] },
)

/** A random tree (parents drawn among earlier nodes; a few roots), its node ids in creation order. */
function build(steps: readonly Step[]): { tree: SessionTree; ids: string[] } {
  const tree = new SessionTree('prop-compare', undefined, { now: () => new Date('2026-01-01T00:00:00Z') })
  const ids: string[] = []
  for (const [i, s] of steps.entries()) {
    const parentId = i === 0 || s.parent % 11 === 10 ? null : ids[s.parent % ids.length]!
    const content =
      s.call && s.role === 'assistant'
        ? [
            { type: 'text' as const, text: s.words },
            { type: 'tool_call' as const, id: `c${i}`, name: s.call.name, arguments: s.call.args },
          ]
        : s.role === 'tool'
          ? [{ type: 'tool_result' as const, toolCallId: `c${i}`, content: s.words }]
          : undefined
    const appended = tree.append(
      { role: s.role, content: s.words, ...(s.role === 'tool' ? { toolCallId: `c${i}`, name: 'read' } : {}) },
      {
        nodeId: `n${i}`,
        parentId,
        ...(content ? { content } : {}),
        ...(s.tokens === undefined ? {} : { usage: { inputTokens: s.tokens, outputTokens: 1 } }),
        ...(s.cost === undefined ? {} : { cost: s.cost }),
      },
    )
    if (!appended.ok) throw new Error(appended.error.message)
    ids.push(appended.value.nodeId)
  }
  return { tree, ids }
}

function ancestors(tree: SessionTree, id: string): string[] {
  const out: string[] = []
  for (let at: string | null = id; at !== null; at = tree.entry(at)!.parentId) out.push(at)
  return out.reverse()
}

/** Apply argument changes (JSON-pointer paths) to a copy of A. */
function applyChanges(a: JsonValue, changes: readonly ArgumentChange[]): JsonValue {
  const root = { v: structuredClone(a) } as { v: JsonValue }
  const removals: [JsonValue[], number][] = []
  for (const change of changes) {
    const keys =
      change.path === ''
        ? []
        : change.path
            .slice(1)
            .split('/')
            .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'))
    let holder: Record<string, JsonValue> | JsonValue[] = root as never
    let key: string | number = 'v'
    for (const k of keys) {
      holder = (holder as Record<string, JsonValue>)[key as string] as never
      key = Array.isArray(holder) ? Number(k) : k
    }
    if (change.kind === 'removed') {
      if (Array.isArray(holder)) removals.push([holder, key as number])
      else delete (holder as Record<string, JsonValue>)[key as string]
    } else
      (holder as Record<string, JsonValue>)[key as string] = structuredClone(
        change.kind === 'added' ? change.b : change.b,
      )
  }
  // Array tails removed last, highest index first.
  for (const [array, index] of removals.sort((x, y) => y[1] - x[1])) array.splice(index, 1)
  return root.v
}

describe('compare on random trees', () => {
  it('finds the last common ancestor, the paths after it, aligned minimally, with correct diffs and totals', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), fc.nat(), fc.nat(), (steps, i, j) => {
        const { tree, ids } = build(steps)
        const a = ids[i % ids.length]!
        const b = ids[j % ids.length]!
        const result = compare(tree, a, b)
        expect(result.ok).toBe(true)
        if (!result.ok) return
        const c = result.value
        const pa = ancestors(tree, a)
        const pb = ancestors(tree, b)
        const shared = new Set(pa)
        const lca = [...pb].reverse().find((id) => shared.has(id)) ?? null
        expect(c.ancestor).toBe(lca)
        const cut = lca === null ? 0 : pa.indexOf(lca) + 1
        expect(c.commonLength).toBe(cut)
        expect(c.a.path).toEqual(pa.slice(cut))
        expect(c.b.path).toEqual(pb.slice(lca === null ? 0 : pb.indexOf(lca) + 1))
        // Rows hold each side's path in order; pairs are of one kind, and as many as the kinds allow.
        const kind = (id: string) => `${tree.entry(id)!.type}:${tree.entry(id)!.message?.role ?? ''}`
        expect(c.rows.flatMap((row) => (row.kind === 'only_b' ? [] : [row.a.nodeId]))).toEqual(c.a.path)
        expect(c.rows.flatMap((row) => (row.kind === 'only_a' ? [] : [row.b.nodeId]))).toEqual(c.b.path)
        const pairs = c.rows.filter((row) => row.kind === 'pair')
        expect(pairs.length).toBe(lcs(c.a.path.map(kind), c.b.path.map(kind)))
        for (const row of pairs) {
          expect(kind(row.a.nodeId)).toBe(kind(row.b.nodeId))
          expect(sides(row.diff.text)).toEqual([row.a.text, row.b.text])
          for (const [k, call] of row.diff.toolCalls.entries()) {
            const ca = row.a.toolCalls?.[k]
            const cb = row.b.toolCalls?.[k]
            expect(call.kind === 'only_a' ? ca && !cb : call.kind === 'only_b' ? cb && !ca : ca && cb).toBeTruthy()
            if (!ca || !cb) continue
            if (call.kind === 'changed')
              expect(sameJson(applyChanges(ca.arguments, call.arguments), cb.arguments)).toBe(true)
            if (call.kind === 'same') expect(sameJson(ca.arguments, cb.arguments) && ca.name === cb.name).toBe(true)
          }
          expect(row.diff.same).toBe(
            row.a.text === row.b.text &&
              JSON.stringify(row.diff.toolCalls.filter((x) => x.kind !== 'same')) === '[]' &&
              row.diff.toolResults.every((x) => x.kind === 'same'),
          )
        }
        expect(c.changedRows).toBe(c.rows.filter((row) => row.kind !== 'pair' || !row.diff.same).length)
        // Totals: the side's nodes, summed naively.
        for (const [side, path] of [
          [c.a, c.a.path],
          [c.b, c.b.path],
        ] as const) {
          const entries = path.map((id) => tree.entry(id)!)
          const withUsage = entries.filter((e) => e.usage)
          expect(side.totals.nodes).toBe(path.length)
          expect(side.totals.nodesWithUsage).toBe(withUsage.length)
          expect(side.totals.tokens).toBe(
            withUsage.length === 0 ? null : withUsage.reduce((sum, e) => sum + (e.usage!.inputTokens as number) + 1, 0),
          )
          const costs = entries.filter((e) => e.cost !== undefined)
          expect(side.totals.cost).toBe(costs.length === 0 ? null : costs.reduce((sum, e) => sum + e.cost!, 0))
        }
      }),
      { numRuns: 500 },
    )
  })

  it('maxRows keeps the first rows, counts the rest, and the changed count is the whole one', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 30 }),
        fc.nat(),
        fc.nat(),
        fc.nat({ max: 12 }),
        (steps, i, j, maxRows) => {
          const { tree, ids } = build(steps)
          const a = ids[i % ids.length]!
          const b = ids[j % ids.length]!
          const full = compare(tree, a, b)
          const cut = compare(tree, a, b, { maxRows })
          if (!full.ok || !cut.ok) throw new Error('compare failed')
          expect(cut.value.rows).toEqual(full.value.rows.slice(0, maxRows))
          expect(cut.value.omittedRows).toBe(Math.max(0, full.value.rows.length - maxRows))
          expect(full.value.omittedRows).toBe(0)
          expect(cut.value.changedRows).toBe(full.value.changedRows)
        },
      ),
      { numRuns: 500 },
    )
  })

  it('argument changes applied to A yield B, whatever the key order', () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        const changes = argumentChanges(a, b, { left: Number.POSITIVE_INFINITY })
        expect(changes.length === 0).toBe(sameJson(a, b))
        expect(sameJson(applyChanges(a, changes), b)).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })
})
