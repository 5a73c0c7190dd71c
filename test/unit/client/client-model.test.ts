/**
 * The panel's pure view logic (src/outline/index.ts, commands.ts, i18n.ts) on
 * views served by the real SessionTree: layout with lanes and fork points,
 * filters, search, the virtual window, keyboard commands, action validity,
 * input validation, and the two dictionaries.
 */
import { describe, expect, it } from 'vitest'
import { SessionTree, type SessionTreeOutline, type TreeNode, type TreeResult } from '../../../src/tree/index.ts'
import {
  gutter,
  highlight,
  indexTree,
  isToolRequest,
  laneColor,
  layoutTree,
  rowKind,
  rowText,
  scrollToReveal,
  visibleRange,
  type Layout,
} from '../../../src/outline/index.ts'
import {
  availableActions,
  keyCommand,
  suggestBranchName,
  validateBranchName,
  validateLabel,
} from '../../../src/client/commands.ts'
import { DICTIONARIES, localeOf, resolveLocale, translator } from '../../../src/client/i18n.ts'
import type { SessionStatus } from '../../../src/types.ts'
import { user, assistant, value } from '../../support/messages.ts'

const id = (r: TreeResult<TreeNode>) => value(r).nodeId
/** The model's call that reads notes.txt (id c1). */
const READ_NOTES = { type: 'tool_call', id: 'c1', name: 'read', arguments: { file_path: 'notes.txt' } } as const
/** The read of notes.txt as a call node shown as `summary`, its result banana, and the answer that quotes it. */
function readsNotes(tree: SessionTree, summary: string) {
  const call = id(tree.append(null, { type: 'tool_call', content: [READ_NOTES], summary }))
  value(tree.attachToolResult('c1', { content: 'banana' }))
  return { call, a2: id(tree.append(assistant('the file says banana'))) }
}

/**
 * u1 → a1 → u2 → call(read → banana) → a2 → u3 → a3   (main)
 *        └─ u4 → a4                                   (alt, forked at a1)
 *        └─ u5                                        (alt-2 … a second fork at a1)
 */
function sample() {
  const tree = new SessionTree('s')
  const u1 = id(tree.append(user('first question')))
  const a1 = id(tree.append(assistant('first answer')))
  const u2 = id(tree.append(user('please read notes')))
  const { call, a2 } = readsNotes(tree, 'read({"file_path":"notes.txt"})')
  const u3 = id(tree.append(user('third question')))
  const a3 = id(tree.append(assistant('third answer')))
  value(tree.fork(a1, 'alt'))
  const u4 = id(tree.append(user('alternative question')))
  const a4 = id(tree.append(assistant('alternative answer')))
  value(tree.label(u4, 'idea'))
  value(tree.fork(a1, 'alt-b'))
  const u5 = id(tree.append(user('another try')))
  value(tree.jump(a3))
  return { tree, view: tree.view(), ids: { u1, a1, u2, call, a2, u3, a3, u4, a4, u5 } }
}

/** A user message node under `parentId`, its summary and text its id, on main; `fields` replace the defaults. */
const userNode = (nodeId: string, parentId: string | null, fields: Partial<TreeNode> = {}): TreeNode => ({
  nodeId,
  parentId,
  type: 'message',
  summary: nodeId,
  createdAt: '2026-01-01T00:00:00.000Z',
  branch: 'main',
  message: { role: 'user', content: nodeId },
  ...fields,
})
const texts = (layout: Layout) => layout.rows.map((r) => `${'  '.repeat(r.depth)}${rowText(r.node)}`)

describe('layout', () => {
  it('draws chains flat and fork children one level deeper, in creation order, with tee/elbow gutters', () => {
    const { view, ids } = sample()
    const layout = layoutTree(indexTree(view))
    expect(texts(layout)).toEqual([
      'first question',
      'first answer',
      '  please read notes',
      '  read({"file_path":"notes.txt"}) → banana',
      '  the file says banana',
      '  third question',
      '  third answer',
      '  alternative question',
      '  alternative answer',
      '  another try',
    ])
    const row = (id: string) => layout.rows[layout.indexOf.get(id)!]!
    expect(row(ids.a1).forkCount).toBe(3)
    expect(row(ids.u2).branchStart).toBe(true)
    expect(gutter(row(ids.u2)).glyphs).toEqual(['tee'])
    expect(gutter(row(ids.a2)).glyphs).toEqual(['pipe'])
    expect(gutter(row(ids.u4)).glyphs).toEqual(['tee'])
    expect(gutter(row(ids.a4)).glyphs).toEqual(['pipe'])
    expect(gutter(row(ids.u5)).glyphs).toEqual(['elbow'])
    expect(row(ids.u2).parentId).toBe(ids.a1)
    expect(row(ids.a1).childCount).toBe(3)
  })

  it('marks the cursor path, branch heads (active first) and labels', () => {
    const { view, ids } = sample()
    const index = indexTree(view)
    expect([...index.cursorPath].sort()).toEqual([ids.u1, ids.a1, ids.u2, ids.call, ids.a2, ids.u3, ids.a3].sort())
    expect(index.headsAt.get(ids.a3)).toEqual(['main'])
    expect(index.headsAt.get(ids.a4)).toEqual(['alt'])
    expect(index.labels.get('idea')).toBe(ids.u4)
    expect(index.branchNames).toEqual(new Set(['main', 'alt', 'alt-b']))
    expect(index.unreachable).toBe(0)
  })

  it('index and layout agree on a node whose parent is itself or missing: a root, not elided', () => {
    const view: SessionTreeOutline = {
      sessionId: 's',
      cursor: 'b',
      activeBranch: 'main',
      branches: [],
      nodes: [userNode('a', null), userNode('self', 'self'), userNode('lost', 'gone'), userNode('b', 'a')],
    }
    const index = indexTree(view)
    expect(index.children.get(null)).toEqual(['a', 'self', 'lost'])
    const rows = layoutTree(index).rows
    for (const id of ['self', 'lost'])
      expect(rows.find((r) => r.id === id)).toMatchObject({ parentId: null, elided: false })
  })

  it('folds a tool call with its result into one row', () => {
    const { view, ids } = sample()
    const call = indexTree(view).byId.get(ids.call)!
    expect(rowKind(call)).toBe('tool')
    expect(rowText(call)).toBe('read({"file_path":"notes.txt"}) → banana')
  })

  it('lays out a 100,000-deep linear chain without recursion', () => {
    const n = 100_000
    const nodes: TreeNode[] = []
    for (let i = 0; i < n; i++) {
      nodes.push({
        nodeId: `n${i}`,
        parentId: i === 0 ? null : `n${i - 1}`,
        type: 'message',
        summary: `m${i}`,
        createdAt: '2026-01-01T00:00:00.000Z',
        branch: 'main',
        message: { role: i % 2 ? 'assistant' : 'user', content: `m${i}` },
      })
    }
    const view: SessionTreeOutline = {
      sessionId: 's',
      cursor: `n${n - 1}`,
      activeBranch: 'main',
      nodes,
      branches: [{ name: 'main', headId: `n${n - 1}` }],
    }
    const index = indexTree(view)
    const layout = layoutTree(index)
    expect(layout.rows).toHaveLength(n)
    expect(layout.rows.every((r) => r.depth === 0)).toBe(true)
    expect(index.cursorPath.size).toBe(n)
    expect(layoutTree(index, { filter: 'user' }).rows).toHaveLength(n / 2)
    // Linear, not quadratic: counted in test/unit/outline/panel-work.test.ts; the paint time is a bench figure (npm run bench).
  })

  it('lays out 5,000 nested forks (deep gutters) and clips the drawn gutter', () => {
    // Each level: a fork point with two children; the first child forks again.
    const nodes: TreeNode[] = []
    const mk = (nodeId: string, parentId: string | null) => userNode(nodeId, parentId, { branch: '' })
    nodes.push(mk('r', null))
    let parent = 'r'
    for (let i = 0; i < 5_000; i++) {
      nodes.push(mk(`a${i}`, parent), mk(`b${i}`, parent))
      parent = `a${i}`
    }
    const layout = layoutTree(indexTree({ sessionId: 's', cursor: null, activeBranch: 'main', nodes, branches: [] }))
    expect(layout.rows).toHaveLength(10_001)
    const deepest = layout.rows[layout.indexOf.get('a4999')!]!
    expect(deepest.depth).toBe(5_000)
    const drawn = gutter(deepest, 12)
    expect(drawn.glyphs).toHaveLength(12)
    expect(drawn.clipped).toBe(5_000 - 12)
    expect(drawn.glyphs.at(-1)).toBe('tee')
  })

  it('treats nodes with a missing parent as roots and several roots as siblings', () => {
    const mk = (nodeId: string, parentId: string | null) => userNode(nodeId, parentId, { createdAt: '', branch: '' })
    const layout = layoutTree(
      indexTree({
        sessionId: 's',
        cursor: 'x',
        activeBranch: 'main',
        nodes: [mk('a', null), mk('b', 'a'), mk('x', 'gone')],
        branches: [],
      }),
    )
    expect(layout.rows.map((r) => [r.id, r.depth, r.branchStart])).toEqual([
      ['a', 1, true],
      ['b', 1, false],
      ['x', 1, true],
    ])
  })
})

describe('filters and search', () => {
  it('no-tools hides tool calls and tool-only requests; children hang off the nearest visible ancestor', () => {
    const { view, ids } = sample()
    const index = indexTree(view)
    const layout = layoutTree(index, { filter: 'no-tools' })
    expect(layout.indexOf.has(ids.call)).toBe(false)
    const a2 = layout.rows[layout.indexOf.get(ids.a2)!]!
    expect(a2.parentId).toBe(ids.u2)
    expect(a2.elided).toBe(true)
    expect(layout.shown).toBe(layout.total - 1)
    const request: TreeNode = {
      nodeId: 'q',
      parentId: null,
      type: 'message',
      summary: 'read(…)',
      createdAt: '',
      branch: '',
      message: { role: 'assistant', content: '' },
      content: [{ type: 'tool_call', id: 'x', name: 'read', arguments: {} }],
    }
    expect(isToolRequest(request)).toBe(true)
    expect(isToolRequest(index.byId.get(ids.a2)!)).toBe(false)
  })

  it('user shows typed prompts only (not injected ones); labeled shows labeled nodes', () => {
    const { tree, ids } = sample()
    value(tree.append(user('runtime context'), { origin: { source: 'session', injected: true } }))
    const index = indexTree(tree.view())
    expect(layoutTree(index, { filter: 'user' }).rows.map((r) => rowText(r.node))).toEqual([
      'first question',
      'please read notes',
      'third question',
      'alternative question',
      'another try',
    ])
    expect(layoutTree(index, { filter: 'labeled' }).rows.map((r) => r.id)).toEqual([ids.u4])
  })

  it('search matches text, tool arguments and results, labels and branch names, case-insensitively', () => {
    const { view, ids } = sample()
    const index = indexTree(view)
    const ids_ = (query: string) => layoutTree(index, { query }).rows.map((r) => r.id)
    expect(ids_('BANANA')).toEqual([ids.call, ids.a2])
    expect(ids_('notes.txt')).toEqual([ids.call])
    expect(ids_('  idea ')).toEqual([ids.u4])
    expect(ids_('alt-b')).toEqual([ids.u5])
    expect(layoutTree(index, { query: 'question', filter: 'user' }).rows).toHaveLength(3)
    expect(ids_('no such text')).toEqual([])
  })

  it('highlights every occurrence', () => {
    expect(highlight('Banana banana', 'ana')).toEqual([
      { text: 'B', match: false },
      { text: 'ana', match: true },
      { text: 'na b', match: false },
      { text: 'ana', match: true },
      { text: 'na', match: false },
    ])
    expect(highlight('x', '')).toEqual([{ text: 'x', match: false }])
  })
})

describe('virtual window', () => {
  it('renders only the rows in view plus overscan', () => {
    expect(visibleRange(0, 280, 28, 10_000, 8)).toEqual({ start: 0, end: 18 })
    expect(visibleRange(28 * 5000, 280, 28, 10_000, 8)).toEqual({ start: 4992, end: 5018 })
    expect(visibleRange(28 * 20_000, 280, 28, 10_000, 8)).toEqual({ start: 10_000, end: 10_000 })
    expect(visibleRange(0, 280, 28, 0)).toEqual({ start: 0, end: 0 })
  })

  it('scrolls just enough to reveal a row', () => {
    expect(scrollToReveal(0, 100, 280, 28)).toBe(0)
    expect(scrollToReveal(20, 0, 280, 28)).toBe(21 * 28 - 280)
    expect(scrollToReveal(5, 0, 280, 28)).toBe(0)
  })

  it('gives a branch a lane colour that depends on its name alone, and spreads names over all 8 slots', () => {
    // Stable: the same name built another way (the panel gets names from fresh JSON each poll) gets the same slot.
    for (const name of ['main', 'alt', 'main-2', 'é-ünï 分支'])
      expect(laneColor([...name].join(''))).toBe(laneColor(name))
    expect(laneColor('')).toBe(-1)
    const slots = Array.from({ length: 64 }, (_, i) => laneColor(`branch-${i}`))
    for (const slot of slots) expect(Number.isInteger(slot) && slot >= 0 && slot < 8).toBe(true)
    expect(new Set(slots).size).toBe(8)
    // Auto-named siblings (main-2, main-3, ...) are told apart: not all in one slot.
    expect(new Set(Array.from({ length: 8 }, (_, i) => laneColor(`main-${i + 2}`))).size).toBeGreaterThan(1)
  })
})

describe('keyboard', () => {
  const { view, ids } = sample()
  const index = indexTree(view)
  const layout = layoutTree(index)
  const key = (selected: string | null, k: string, extra: object = {}) =>
    keyCommand(layout, selected, view.cursor, { key: k, ...extra }, 3)

  it('arrows move, Home/End/PageUp/PageDown jump, ←/→ go to parent/first child', () => {
    expect(key(ids.u1, 'ArrowDown')).toEqual({ kind: 'select', id: ids.a1 })
    expect(key(ids.u1, 'ArrowUp')).toEqual({ kind: 'select', id: ids.u1 })
    expect(key(ids.u5, 'ArrowDown')).toEqual({ kind: 'select', id: ids.u5 })
    expect(key(null, 'ArrowDown')).toEqual({ kind: 'select', id: ids.u1 })
    expect(key(ids.a2, 'Home')).toEqual({ kind: 'select', id: ids.u1 })
    expect(key(ids.a2, 'End')).toEqual({ kind: 'select', id: ids.u5 })
    expect(key(ids.u1, 'PageDown')).toEqual({ kind: 'select', id: ids.call })
    expect(key(ids.u4, 'ArrowLeft')).toEqual({ kind: 'select', id: ids.a1 })
    expect(key(ids.a1, 'ArrowRight')).toEqual({ kind: 'select', id: ids.u2 })
    expect(key(ids.a3, 'ArrowRight')).toBeNull()
  })

  it('Enter jumps, f forks, l labels, s summarizes, / searches, [ ] and Alt+arrows go back/forward, c selects the cursor', () => {
    expect(key(ids.a1, 'Enter')).toEqual({ kind: 'jump', id: ids.a1 })
    expect(key(ids.a1, 'f')).toEqual({ kind: 'fork', id: ids.a1 })
    expect(key(ids.a1, 'l')).toEqual({ kind: 'label', id: ids.a1 })
    expect(key(ids.a4, 's')).toEqual({ kind: 'summarize', id: ids.a4 })
    expect(key(ids.a1, '/')).toEqual({ kind: 'search' })
    expect(key(ids.a1, '[')).toEqual({ kind: 'back' })
    expect(key(ids.a1, ']')).toEqual({ kind: 'forward' })
    expect(key(ids.a1, 'ArrowLeft', { altKey: true })).toEqual({ kind: 'back' })
    expect(key(ids.a1, 'ArrowRight', { altKey: true })).toEqual({ kind: 'forward' })
    expect(key(ids.u1, 'c')).toEqual({ kind: 'select', id: ids.a3 })
    expect(key(ids.u1, 'Escape')).toEqual({ kind: 'escape' })
  })

  it('leaves other keys and modified keys to the browser', () => {
    expect(key(ids.a1, 'x')).toBeNull()
    expect(key(ids.a1, 'f', { ctrlKey: true })).toBeNull()
    expect(key(ids.a1, 'ArrowDown', { metaKey: true })).toBeNull()
    expect(key(null, 'Enter')).toBeNull()
  })
})

describe('actions and validation', () => {
  const { view, ids } = sample()
  const index = indexTree(view)
  const status = { canGoBack: true, canGoForward: false } as SessionStatus

  it('offers only the actions valid for a node', () => {
    expect(availableActions(index, ids.a3, status)).toEqual({
      jump: false,
      fork: true,
      label: true,
      summarize: 'main',
      back: true,
      forward: false,
      export: true,
    })
    expect(availableActions(index, ids.a4, status)).toMatchObject({ jump: true, summarize: 'alt' })
    expect(availableActions(index, null, undefined)).toEqual({
      jump: false,
      fork: false,
      label: false,
      summarize: null,
      back: false,
      forward: false,
      export: true,
    })
    expect(availableActions(undefined, null, undefined).export).toBe(false)
  })

  it('validates branch names and labels as the tree does', () => {
    expect(validateBranchName('  idea-2 ', index.branchNames)).toEqual({ value: 'idea-2' })
    expect(validateBranchName('   ', index.branchNames)).toEqual({ problem: 'nameRequired' })
    expect(validateBranchName('alt', index.branchNames)).toEqual({ problem: 'nameExists' })
    expect(validateBranchName('x'.repeat(101), index.branchNames)).toEqual({ problem: 'nameTooLong' })
    expect(validateBranchName('a\u0007b', index.branchNames)).toEqual({ problem: 'nameInvalid' })
    // The service's rule exactly: its length is UTF-16 units (51 emoji are 102), so the panel refuses what it would refuse.
    expect(validateBranchName('😀'.repeat(51), index.branchNames)).toEqual({ problem: 'nameTooLong' })
    expect(validateLabel(' keep ', ids.a1, index.labels)).toEqual({ value: 'keep' })
    expect(validateLabel('', ids.a1, index.labels)).toEqual({ value: null })
    expect(validateLabel('idea', ids.a1, index.labels)).toEqual({ problem: 'labelExists' })
    expect(validateLabel('idea', ids.u4, index.labels)).toEqual({ value: 'idea' })
    expect(validateLabel('y'.repeat(201), ids.a1, index.labels)).toEqual({ problem: 'labelTooLong' })
    expect(suggestBranchName(new Set(['main', 'branch-2']))).toBe('branch-3')
  })
})

describe('strings', () => {
  it('ships the same keys in English and Chinese', () => {
    expect(Object.keys(DICTIONARIES.zh).sort()).toEqual(Object.keys(DICTIONARIES.en).sort())
    for (const [key, text] of Object.entries(DICTIONARIES.zh)) expect(text, key).toMatch(/\S/)
  })

  it('uses the same placeholders in both languages (a Chinese string never shows a raw {name})', () => {
    const names = (text: string) => [...new Set(text.match(/\{\w+\}/g) ?? [])].sort()
    for (const [key, text] of Object.entries(DICTIONARIES.en)) {
      expect(names(DICTIONARIES.zh[key as keyof typeof DICTIONARIES.zh]), key).toEqual(names(text))
    }
  })

  it('fills placeholders and picks singular or plural', () => {
    const en = translator('en')
    expect(en('status.nodes', { count: 1 })).toBe('1 node')
    expect(en('status.nodes', { count: 3 })).toBe('3 nodes')
    expect(en('search.count', { shown: 2, total: 9 })).toBe('2 of 9 nodes')
    expect(en('notice.fork', { branch: 'x' })).toBe('Branch “x” created; the next prompt continues from here.')
    expect(translator('zh')('status.nodes', { count: 1 })).toBe('1 个节点')
    expect(translator('zh')('tab')).toBe('树')
  })

  it('follows the host locale, then the page, then the browser', () => {
    expect(localeOf('zh-Hans-CN')).toBe('zh')
    expect(localeOf('en_GB')).toBe('en')
    expect(localeOf('fr')).toBeUndefined()
    expect(resolveLocale({ getSnapshot: () => ({ active: 'zh' }), subscribe: () => () => {} })).toBe('zh')
    expect(resolveLocale({ getSnapshot: () => ({ active: 'en' }), subscribe: () => () => {} })).toBe('en')
  })
})

describe('one row per tool exchange, folds (issue 14 §5)', () => {
  /** u1 → a1 (calls read) → call(read → banana) → a2, the way the harness projector records a tool step. */
  function toolStep() {
    const tree = new SessionTree('s')
    const u1 = id(tree.append(user('read my notes')))
    const request = id(tree.append({ role: 'assistant', content: '' }, { content: [READ_NOTES] }))
    const { call, a2 } = readsNotes(tree, 'read')
    return { tree, ids: { u1, request, call, a2 } }
  }

  it('draws a tool-only request and its call as one row, the line solid', () => {
    const { tree, ids } = toolStep()
    const index = indexTree(tree.view())
    const layout = layoutTree(index)
    expect(layout.rows.map((r) => r.id)).toEqual([ids.u1, ids.call, ids.a2])
    expect(texts(layout)).toEqual(['read my notes', 'read({"file_path":"notes.txt"}) → banana', 'the file says banana'])
    expect(layout.rows[1]!.parentId).toBe(ids.u1)
    expect(layout.rows[1]!.elided).toBe(false)
    expect(layout.total).toBe(3)
    expect(layout.shown).toBe(3)
    expect(index.rowTotal).toBe(3)
  })

  it('keeps the request as a row of its own when something marks it (the cursor, a label, a branch head)', () => {
    const { tree, ids } = toolStep()
    value(tree.label(ids.request, 'asked here'))
    expect(layoutTree(indexTree(tree.view())).rows.map((r) => r.id)).toEqual([ids.u1, ids.request, ids.call, ids.a2])
    value(tree.label(ids.request, null))
    value(tree.jump(ids.request))
    expect(layoutTree(indexTree(tree.view())).rows.map((r) => r.id)).toContain(ids.request)
  })

  it('folds a fork point: its branches leave the rows, the row counts them, ← folds and → unfolds', () => {
    const { view, ids } = sample()
    const index = indexTree(view)
    const open = layoutTree(index)
    const a1 = open.rows[open.indexOf.get(ids.a1)!]!
    expect(a1.foldable).toBe(true)
    expect(a1.hidden).toBeUndefined()
    expect(keyCommand(open, ids.a1, view.cursor, { key: 'ArrowLeft' })).toEqual({ kind: 'fold', id: ids.a1 })
    expect(keyCommand(open, ids.u1, view.cursor, { key: 'ArrowLeft' })).toBeNull()
    const folded = layoutTree(index, { folded: new Set([ids.a1]) })
    expect(folded.rows.map((r) => r.id)).toEqual([ids.u1, ids.a1])
    const row = folded.rows[1]!
    expect(row.hidden).toBe(8)
    expect(row.childCount).toBe(0)
    expect(folded.shown).toBe(10)
    expect(keyCommand(folded, ids.a1, view.cursor, { key: 'ArrowRight' })).toEqual({ kind: 'unfold', id: ids.a1 })
    expect(keyCommand(folded, ids.a1, view.cursor, { key: '+' })).toEqual({ kind: 'unfold', id: ids.a1 })
    // `c` finds the cursor inside a fold too: the panel opens the folds above it.
    expect(folded.indexOf.has(view.cursor!)).toBe(false)
    expect(keyCommand(folded, ids.u1, view.cursor, { key: 'c' })).toEqual({ kind: 'reveal', id: view.cursor })
    // A linear node is no fork point: nothing to fold.
    expect(open.rows[open.indexOf.get(ids.u3)!]!.foldable).toBe(false)
    expect(layoutTree(index, { folded: new Set([ids.u3]) }).rows).toHaveLength(10)
  })

  it('unfoldTo opens the folds above a node (so the new tip shows) and nothing else', async () => {
    const { unfoldTo } = await import('../../../src/outline/index.ts')
    const { view, ids } = sample()
    const index = indexTree(view)
    const folds = new Set([ids.a1, ids.u5])
    expect([...unfoldTo(index, folds, ids.a3)]).toEqual([ids.u5])
    expect(unfoldTo(index, folds, ids.u1)).toBe(folds)
  })
})

describe('typing problems (no silent cut, no bidi override)', () => {
  it('says a pasted 10,000-character name is too long and refuses direction overrides', async () => {
    const { typingProblem } = await import('../../../src/client/commands.ts')
    expect(typingProblem('fork', 'x'.repeat(10_000))).toBe('nameTooLong')
    expect(typingProblem('fork', 'ok-name')).toBeUndefined()
    expect(typingProblem('fork', '')).toBeUndefined()
    expect(typingProblem('label', 'evil\u202etxt')).toBe('labelBidi')
    expect(validateLabel('evil\u202etxt', 'n', new Map())).toEqual({ problem: 'labelBidi' })
    expect(validateBranchName('a\u2067b', new Set())).toEqual({ problem: 'nameBidi' })
    expect(translator('en')('problem.nameTooLong', { length: 10_000 })).toBe(
      'At most 100 characters (this one has 10000).',
    )
  })
})
