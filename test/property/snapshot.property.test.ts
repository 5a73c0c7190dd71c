/**
 * Snapshot validation: every corruption of a valid snapshot (rows, what
 * `snapshot()` writes; `tree-arbitraries.ts` lists the kinds) is refused with
 * `INVALID_SNAPSHOT`, from the constructor and from `SessionTreeStore.load`,
 * and the store keeps what it had.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SessionTree, SessionTreeError, SessionTreeStore } from '../../src/tree/index.ts'
import {
  BAD_EXTRA_FIELDS,
  BAD_FIELDS,
  BAD_ROW_CELLS,
  corruptionArb,
  MISSING,
  opArb,
  rowCorruptionArb,
  SESSION,
  type Corruption,
  type Op,
  type RowCorruption,
} from './tree-arbitraries.ts'
import { headsField, headsOf, safeJson } from './tree-invariants.ts'
import { emptyModel, type Model } from './tree-model.ts'
import { Runner } from './tree-runner.ts'

type Raw = Record<string, unknown> & { nodes: unknown[] }

/** Apply a top-level corruption to a snapshot; undefined when it happens to produce a valid snapshot (skipped). */
function corrupt(source: unknown, c: Corruption): { value: unknown; sessionForLoad: boolean } | undefined {
  const s = JSON.parse(JSON.stringify(source)) as Raw
  const nodes = s.nodes
  // The first node's id (a row starts with it).
  const firstId = (nodes[0] as unknown[] | undefined)?.[0] as string
  switch (c.k) {
    case 'version':
      // The other format's number is a corruption too (its nodes are the wrong shape); its own is not.
      if (c.value === s.version) return undefined
      if (c.value === undefined) delete s.version
      else s.version = c.value
      break
    case 'foreignSession':
      s.sessionId = 'someone-else'
      return { value: s, sessionForLoad: false }
    case 'nonObject':
      return { value: c.value === 'WRAP_IN_ARRAY' ? [s] : c.value, sessionForLoad: true }
    case 'cursor':
      s.cursor = 'ghost-cursor'
      break
    case 'branchHead': {
      const field = headsField(s)
      const heads = headsOf(s)
      if (heads.length === 0) return undefined
      const [name] = heads[c.i % heads.length]!
      if (field === 'branches') (s.branches as [string, string][])[c.i % heads.length] = [name, 'ghost-head']
      else (s.branchHeads as Record<string, unknown>)[name] = 'ghost-head'
      break
    }
    case 'selection':
      s.selectedNodeId = 'ghost-selection'
      break
    case 'history': {
      const history = s.history as { back: unknown[]; forward: unknown[] }
      ;(c.forward ? history.forward : history.back).push({ cursor: 'ghost-history', branch: 'main' })
      break
    }
    case 'summaryNode': {
      const name = headsOf(s)[0]?.[0] ?? 'main'
      ;(s.summaries as unknown[]).push({
        branch: name,
        nodeId: 'ghost-summary',
        summary: 'x',
        createdAt: '2025-01-01T00:00:00.000Z',
      })
      break
    }
    case 'summaryBranch':
      ;(s.summaries as unknown[]).push({
        branch: 'no-such-branch',
        nodeId: firstId,
        summary: 'x',
        createdAt: '2025-01-01T00:00:00.000Z',
      })
      break
    case 'badField': {
      const values: readonly unknown[] = BAD_FIELDS[c.field]
      let value = values[c.v % values.length]
      const top = s as Record<string, unknown>
      let field: string = c.field
      if (field === 'heads') {
        field = headsField(top)
        const first = firstId
        // Malformed entries of either format: a non-id head, an untrimmed name, and (lists only) a bad pair or a repeated name.
        const specific: Record<string, unknown> =
          field === 'branches'
            ? {
                FORMAT_SPECIFIC_1: [['main', 5]],
                FORMAT_SPECIFIC_2: [[' main', first]],
                FORMAT_SPECIFIC_3: [['main', first, 'extra']],
                FORMAT_SPECIFIC_4: [
                  ['twin', first],
                  ['twin', first],
                ],
              }
            : {
                FORMAT_SPECIFIC_1: { main: 5 },
                FORMAT_SPECIFIC_2: { ' main': first },
                FORMAT_SPECIFIC_3: [],
                FORMAT_SPECIFIC_4: [['main', first]],
              }
        if (typeof value === 'string' && value in specific) value = specific[value]
      }
      if (value === MISSING) delete top[field]
      else top[field] = value
      break
    }
  }
  return { value: s, sessionForLoad: true }
}

/** A small but rich valid tree: branches, labels, summaries, history, a tool call with its result. */
function richTree(ops: readonly Op[]): SessionTree {
  const runner = new Runner({ fullEvery: 1_000_000, replayEvery: 1_000_000, byteCheckBelow: 0, baseEvery: 1_000_000 })
  const t = runner.tree
  t.append({ role: 'system', content: 'sys' })
  t.append({ role: 'user', content: 'hi' }, { label: 'first' })
  t.append(null, {
    type: 'tool_call',
    content: [{ type: 'tool_call', id: 'c0', name: 'ls', arguments: { path: '.' } }],
  })
  t.attachToolResult('c0', { content: 'a b c' })
  const root = t.cursor!
  t.append({ role: 'assistant', content: 'done' })
  t.fork(root, 'side')
  t.append({ role: 'user', content: 'other' })
  t.setBranchSummary('side', 'a side quest')
  t.jump({ branch: 'main' })
  // Then some random, valid-or-not operations through the model runner (failures are fine here).
  runner.m = modelOf(t)
  for (const op of ops) {
    if (op.k === 'rollbackStale' || op.k === 'rollbackForeign') continue
    try {
      ;(runner as unknown as { step(op: Op): void }).step(op)
    } catch {
      // The model runner may disagree with src (those are reported by the main properties); keep building.
      runner.m = modelOf(t)
    }
  }
  return t
}

function modelOf(t: SessionTree): Model {
  const m = emptyModel()
  for (const node of t.list()) {
    m.ids.push(node.nodeId)
    m.parent.set(node.nodeId, node.parentId)
    if (node.message) m.message.set(node.nodeId, node.message)
    if (node.type === 'compaction' && node.replaces) m.replaces.set(node.nodeId, node.replaces)
    if (node.label !== undefined) {
      m.nodeLabel.set(node.nodeId, node.label)
      m.labels.set(node.label, node.nodeId)
    }
    const call = node.type === 'tool_call' ? node.content?.find((p) => p.type === 'tool_call') : undefined
    if (call && call.type === 'tool_call') {
      m.toolCalls.set(call.id, node.nodeId)
      m.callOf.set(node.nodeId, call.id)
    }
  }
  const snapshot = t.snapshot()
  for (const [name, head] of headsOf(snapshot)) m.heads.set(name, head)
  for (const s of snapshot.summaries) m.summaries.set(s.branch, { text: s.summary, nodeId: s.nodeId })
  m.active = snapshot.activeBranch
  m.cursor = snapshot.cursor
  m.selected = snapshot.selectedNodeId
  m.back = snapshot.history.back.map((p) => ({ ...p }))
  m.forward = snapshot.history.forward.map((p) => ({ ...p }))
  return m
}

type Row = unknown[]
type Rows = Record<string, unknown> & { nodes: Row[] }

/** The extra object of a row, made when it has none. */
function extraOf(row: Row): Record<string, unknown> {
  while (row.length < 6) row.push(null)
  if (row.length === 6) row.push({})
  return row[6] as Record<string, unknown>
}

/** Apply a row corruption to a format 2 snapshot; undefined when it cannot apply to this tree (skipped). */
function corruptRows(source: unknown, c: RowCorruption): unknown {
  const s = JSON.parse(JSON.stringify(source)) as Rows
  const rows = s.nodes
  if (rows.length === 0) return undefined
  const i = c.i % rows.length
  const row = rows[i]!
  const pair = (j: number): [number, number] | undefined => {
    if (rows.length < 2) return undefined
    let k = j % rows.length
    if (k === i) k = (i + 1) % rows.length
    return i < k ? [i, k] : [k, i]
  }
  switch (c.k) {
    case 'notARow':
      rows[i] = c.value as Row
      break
    case 'length':
      if (c.keep === 8) rows[i] = [...row, ...Array.from({ length: 8 - row.length }, () => null)]
      else rows[i] = row.slice(0, c.keep)
      break
    case 'parent':
      row[1] = c.value
      break
    case 'parentBeyond':
      row[1] = i + 1
      break
    case 'duplicateId': {
      const ab = pair(c.j)
      if (!ab) return undefined
      rows[ab[1]]![0] = rows[ab[0]]![0]
      break
    }
    case 'duplicateLabel': {
      const ab = pair(c.j)
      if (!ab) return undefined
      extraOf(rows[ab[0]]!).label = 'twice'
      extraOf(rows[ab[1]]!).label = 'twice'
      break
    }
    case 'orphanPart': {
      const extra = extraOf(row)
      row[4] = null
      row[5] = null
      extra.content = [{ type: 'text' }]
      break
    }
    case 'replacesStranger':
      row[2] = 'compaction'
      extraOf(row).replaces = ['ghost-replaced']
      break
    case 'badCell': {
      const cells = { nodeId: 0, type: 2, time: 3, role: 4, text: 5 } as const
      const values: readonly unknown[] = BAD_ROW_CELLS[c.cell]
      while (row.length < 6) row.push(null)
      row[cells[c.cell]] = values[c.v % values.length]
      break
    }
    case 'badExtra': {
      const values: readonly unknown[] = BAD_EXTRA_FIELDS[c.field]
      extraOf(row)[c.field] = values[c.v % values.length]
      break
    }
  }
  return s
}

/** The constructor throws INVALID_SNAPSHOT for `bad`; the store refuses it and keeps what it had. */
function expectRefused(valid: unknown, bad: unknown, sessionForLoad: boolean, what: string): void {
  let thrown: unknown
  try {
    new SessionTree(SESSION, bad)
  } catch (error) {
    thrown = error
  }
  expect(thrown, `constructor accepted ${what}`).toBeInstanceOf(SessionTreeError)
  expect((thrown as SessionTreeError).code).toBe('INVALID_SNAPSHOT')
  expect((thrown as SessionTreeError).error.message).not.toBe('')
  if (!sessionForLoad) return
  const store = new SessionTreeStore()
  store.create('bystander')
  expect(store.load(valid).ok).toBe(true)
  const held = store.get(SESSION)!
  const heldJson = JSON.stringify(held.snapshot())
  const before = store.list()
  const result = store.load(bad)
  expect(result.ok, `store.load accepted ${what}`).toBe(false)
  if (!result.ok) expect(result.error.code).toBe('INVALID_SNAPSHOT')
  expect(store.list()).toEqual(before)
  expect(store.get(SESSION)).toBe(held)
  expect(JSON.stringify(store.get(SESSION)!.snapshot())).toBe(heldJson)
}

/** A valid tree's snapshot, checked to load (a tree that does not is the main properties' business). */
function validSnapshots(ops: readonly Op[]): { v2: unknown } | undefined {
  const tree = richTree(ops)
  const v2 = JSON.parse(JSON.stringify(tree.snapshot())) as unknown
  try {
    new SessionTree(SESSION, v2)
  } catch {
    return undefined
  }
  return { v2 }
}

describe('snapshot validation', () => {
  it('refuses every corruption of a valid snapshot with INVALID_SNAPSHOT, from the constructor and from the store', () => {
    const seen = new Set<string>()
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), fc.oneof(rowCorruptionArb, corruptionArb), (ops, c) => {
        const valid = validSnapshots(ops)
        fc.pre(valid !== undefined)
        const bad = isRowCorruption(c)
          ? { value: corruptRows(valid!.v2, c), sessionForLoad: true }
          : corrupt(valid!.v2, c)
        fc.pre(bad !== undefined && bad.value !== undefined)
        seen.add(c.k)
        expectRefused(valid!.v2, bad!.value, bad!.sessionForLoad, `corruption ${safeJson(c)}`)
      }),
      { numRuns: 500 },
    )
    expect(seen.size).toBeGreaterThanOrEqual(18)
  }, 600_000)

  it('refuses a non-string or empty session id in a snapshot handed to the store', () => {
    const store = new SessionTreeStore()
    for (const sessionId of [undefined, '', 7, null]) {
      const result = store.load({ ...new SessionTree('x').snapshot(), sessionId })
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.error.code).toBe('INVALID_SNAPSHOT')
    }
    expect(store.list()).toEqual([])
  })
})

const ROW_KINDS = new Set<string>([
  'notARow',
  'length',
  'parent',
  'parentBeyond',
  'duplicateId',
  'duplicateLabel',
  'orphanPart',
  'replacesStranger',
  'badCell',
  'badExtra',
])

/** Row corruptions (the rest are top-level). */
function isRowCorruption(c: RowCorruption | Corruption): c is RowCorruption {
  return ROW_KINDS.has(c.k)
}
