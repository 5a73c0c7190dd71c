/**
 * The dsh-TUI scene's pure parts (src/tui/scene-state.ts, scene-view.ts,
 * cells.ts, subcommands.ts, switch-rows.ts, i18n.ts): every key of the footer
 * as data, the frame at 80 and 200 columns in English and Chinese (no line
 * wider than the terminal), and the switch row's numbers from a real
 * `chatPath`-shaped answer.
 */
import type { LogEvent } from '../../../src/harness/log-event.ts'
import { describe, expect, it } from 'vitest'
import type { SessionTree } from '../../../src/tree/index.ts'
import { indexTree, layoutTree } from '../../../src/outline/index.ts'
import { cellWidth, clip, wrap, wrapPage } from '../../../src/tui/cells.ts'
import { tuiLang, word } from '../../../src/tui/i18n.ts'
import {
  INITIAL_SCENE,
  keyPresses,
  press,
  settle,
  type SceneEffect,
  type SceneState,
  type SceneView,
} from '../../../src/tui/scene-state.ts'
import { compareLines, footerKeys, outlineHeight, renderFrame, SIDE_BY_SIDE } from '../../../src/tui/scene-view.ts'
import { subcommandNodes, SUBCOMMANDS } from '../../../src/tui/subcommands.ts'
import { drawnAsMessage, pendingSwitchRows, renderSwitchRow } from '../../../src/tui/switch-rows.ts'
import { parseTreeCommand } from '../../../src/tool/command.ts'
import { boundedComparison } from '../../../src/service/compare-wire.ts'
import { compare } from '../../../src/tree/compare.ts'
import { realBigView, smallTree } from '../../support/client-fixtures.ts'
import { assistant, user, value } from '../../support/messages.ts'
import type { ChatPath } from '../../../src/service/chat-path.ts'

/** `smallTree` (q1 → a1 → q2 → read(notes) → a2) and a fork `alt` at a1 (u3 → a3, u3 labeled); cursor at a2. */
function sample() {
  const { tree, ids: small } = smallTree()
  value(tree.fork(small.a1, 'alt'))
  const u3 = value(tree.append(user('alternative question 问题'))).nodeId
  const a3 = value(tree.append(assistant('alternative answer'))).nodeId
  value(tree.label(u3, 'idea'))
  value(tree.jump(small.a2))
  return { tree, ids: { u1: small.q1, a1: small.a1, u2: small.q2, call: small.call, a2: small.a2, u3, a3 } }
}

function viewOf(tree: SessionTree, state: SceneState, height = 20): SceneView {
  const index = indexTree(tree.outline())
  return {
    index,
    layout: layoutTree(index, { filter: state.filter, query: state.query, folded: state.folded }),
    height,
  }
}

/** Feed keys; returns the last state and every effect. */
function drive(
  tree: SessionTree,
  keys: ReadonlyArray<string | [string, Record<string, boolean>]>,
  start: SceneState = INITIAL_SCENE,
): { state: SceneState; effects: SceneEffect[] } {
  let state = settle({ ...start, selected: start.selected ?? tree.cursor }, viewOf(tree, start))
  const effects: SceneEffect[] = []
  for (const entry of keys) {
    const [input, key] = typeof entry === 'string' ? [entry, {}] : entry
    const step = press(state, viewOf(tree, state), input, key)
    state = settle(step.state, viewOf(tree, step.state))
    if (step.effect) effects.push(step.effect)
  }
  return { state, effects }
}

const UP: [string, Record<string, boolean>] = ['', { upArrow: true }]
const DOWN: [string, Record<string, boolean>] = ['', { downArrow: true }]
const ENTER: [string, Record<string, boolean>] = ['', { return: true }]
const ESC: [string, Record<string, boolean>] = ['', { escape: true }]
const TAB: [string, Record<string, boolean>] = ['', { tab: true }]
const LEFT: [string, Record<string, boolean>] = ['', { leftArrow: true }]
const RIGHT: [string, Record<string, boolean>] = ['', { rightArrow: true }]

describe('the scene keyboard', () => {
  it('Enter on a node the move leaves the path for asks for the summary; 1 jumps with none, 3 asks for instructions', () => {
    const { tree, ids } = sample()
    // From the cursor (a2) up to a1: the move leaves u2, the call and a2.
    const plain = drive(tree, [UP, UP, UP, ENTER])
    expect(plain.state.overlay.kind).toBe('choose-summary')
    expect(drive(tree, [UP, UP, UP, ENTER, '1']).effects).toEqual([{ kind: 'jump', nodeId: ids.a1, summary: 'none' }])
    expect(drive(tree, [UP, UP, UP, ENTER, DOWN, ENTER]).effects).toEqual([
      { kind: 'jump', nodeId: ids.a1, summary: 'summarize' },
    ])
    const custom = drive(tree, [UP, UP, UP, ENTER, '3', 'what', ' ', 'failed', ENTER])
    expect(custom.effects).toEqual([{ kind: 'jump', nodeId: ids.a1, summary: 'custom', instructions: 'what failed' }])
    // Esc leaves the choice without a move.
    expect(drive(tree, [UP, UP, UP, ENTER, ESC]).effects).toEqual([])
  })

  it('Enter on the cursor itself moves without asking (nothing is left behind)', () => {
    const { tree, ids } = sample()
    expect(drive(tree, [ENTER]).effects).toEqual([{ kind: 'jump', nodeId: ids.a2, summary: 'none' }])
  })

  it('F asks for a name, then the summary; B, R, L, S, C, N, T, G each do their one thing', () => {
    const { tree, ids } = sample()
    const fork = drive(tree, [UP, UP, UP, 'F', 'retry', ENTER, '1'])
    expect(fork.effects).toEqual([{ kind: 'fork', nodeId: ids.a1, branch: 'retry', summary: 'none' }])
    // An empty name is not taken.
    expect(drive(tree, [UP, 'F', ENTER]).state.overlay.kind).toBe('input')
    expect(drive(tree, ['B']).effects).toEqual([{ kind: 'back' }])
    expect(drive(tree, ['R']).effects).toEqual([{ kind: 'forward' }])
    expect(drive(tree, ['L', 'keep', ENTER]).effects).toEqual([{ kind: 'label', nodeId: ids.a2, text: 'keep' }])
    expect(drive(tree, ['S']).effects).toEqual([{ kind: 'summarize', branch: 'main' }])
    const compare = drive(tree, ['C', UP, UP, UP, 'C'])
    expect(compare.effects).toEqual([{ kind: 'compare', a: ids.a2, b: ids.a1 }])
    expect(drive(tree, ['C', ESC]).state.compareFrom).toBeNull()
    expect(drive(tree, ['N']).effects).toEqual([{ kind: 'new-session', nodeId: ids.a2 }])
    expect(drive(tree, [UP, UP, UP, 'T', ENTER]).effects).toEqual([{ kind: 'jump', nodeId: ids.a1, summary: 'none' }])
    expect(drive(tree, [UP, UP, UP, 'T', DOWN, DOWN, ENTER]).effects).toEqual([
      { kind: 'restore-preview', nodeId: ids.a1, files: 'both' },
    ])
    expect(drive(tree, [UP, UP, 'G']).state.selected).toBe(ids.a2)
  })

  it('a label already there is offered for editing, and an empty one removes it', () => {
    const { tree, ids } = sample()
    const at = { ...INITIAL_SCENE, selected: ids.u3 }
    const opened = drive(tree, ['L'], at)
    expect(opened.state.overlay).toMatchObject({ kind: 'input', purpose: 'label', value: 'idea' })
    const cleared = drive(
      tree,
      [
        'L',
        ['', { backspace: true }],
        ['', { backspace: true }],
        ['', { backspace: true }],
        ['', { backspace: true }],
        ENTER,
      ],
      at,
    )
    expect(cleared.effects).toEqual([{ kind: 'label', nodeId: ids.u3, text: null }])
  })

  it('typing searches, Backspace edits, Esc clears the search and then closes; Tab cycles the filters', () => {
    const { tree, ids } = sample()
    const searched = drive(tree, ['b', 'a', 'n'])
    expect(searched.state.query).toBe('ban')
    expect(viewOf(tree, searched.state).layout.rows.map((r) => r.id)).toEqual([ids.call, ids.a2])
    expect(drive(tree, ['b', 'a', ['', { backspace: true }]]).state.query).toBe('b')
    expect(drive(tree, ['b', ESC]).state.query).toBe('')
    expect(drive(tree, ['b', ESC, ESC]).effects).toEqual([{ kind: 'close' }])
    expect(drive(tree, [TAB]).state.filter).toBe('no-tools')
    expect(drive(tree, [TAB, TAB]).state.filter).toBe('user')
    expect(drive(tree, [TAB, TAB, TAB]).state.filter).toBe('labeled')
    expect(drive(tree, [TAB, TAB, TAB, TAB]).state.filter).toBe('all')
    expect(drive(tree, [['', { tab: true, shift: true }]]).state.filter).toBe('labeled')
    // Lower-case letters never act: they search.
    expect(drive(tree, ['f', 'b', 'l']).effects).toEqual([])
  })

  it('← folds a fork point and → unfolds it; on a plain row ← goes to the parent', () => {
    const { tree, ids } = sample()
    const at = { ...INITIAL_SCENE, selected: ids.a1 }
    const folded = drive(tree, [LEFT], at)
    expect(folded.state.folded.has(ids.a1)).toBe(true)
    const layout = viewOf(tree, folded.state).layout
    expect(layout.rows.map((r) => r.id)).toEqual([ids.u1, ids.a1])
    expect(layout.rows[1]!.hidden).toBeGreaterThan(0)
    expect(drive(tree, [LEFT, RIGHT], at).state.folded.has(ids.a1)).toBe(false)
    expect(drive(tree, [LEFT], { ...INITIAL_SCENE, selected: ids.a2 }).state.selected).not.toBe(ids.a2)
  })

  it('the restore preview asks each conflict (k keeps mine, o overwrites) before Enter applies it', () => {
    const { tree, ids } = sample()
    const start: SceneState = {
      ...INITIAL_SCENE,
      selected: ids.a1,
      overlay: {
        kind: 'restore',
        nodeId: ids.a1,
        files: 'both',
        lines: [
          { path: 'a.txt', action: 'update', conflict: false },
          { path: 'b.txt', action: 'update', conflict: true },
          { path: 'c.txt', action: 'delete', conflict: true },
        ],
        decisions: {},
        index: 0,
      },
    }
    // Enter with undecided conflicts goes to the first one.
    const undecided = drive(tree, [ENTER], start)
    expect(undecided.effects).toEqual([])
    expect(undecided.state.overlay).toMatchObject({ kind: 'restore', index: 1 })
    const decided = drive(tree, [DOWN, 'k', DOWN, 'o', ENTER], start)
    expect(decided.effects).toEqual([
      { kind: 'restore', nodeId: ids.a1, files: 'both', decisions: { 'b.txt': 'keep', 'c.txt': 'overwrite' } },
    ])
  })

  it('a burst of input (text then Enter) is key presses, in order', () => {
    expect(keyPresses('retry\r', {})).toEqual([
      ['retry', {}],
      ['', { return: true }],
    ])
    expect(keyPresses('x', { shift: true })).toEqual([['x', { shift: true }]])
  })
})

describe('the scene frame', () => {
  const langs = ['en', 'zh'] as const
  for (const columns of [80, 200]) {
    for (const lang of langs) {
      it(`at ${columns} columns in ${lang}: every line fits, ids, roles, marks and the footer show`, () => {
        const { tree, ids } = sample()
        const state = settle(
          { ...INITIAL_SCENE, selected: ids.call },
          viewOf(tree, INITIAL_SCENE, outlineHeight(columns, 30)),
        )
        const index = indexTree(tree.outline())
        const layout = layoutTree(index, {})
        const frame = renderFrame({ index, layout, state, columns, rows: 30, lang })
        const text = frame.lines.map((line) => line.map((s) => s.text).join(''))
        expect(text).toHaveLength(30)
        for (const line of text) expect(cellWidth(line)).toBe(columns)
        const all = text.join('\n')
        expect(all).toContain(`${ids.u1} ${word(lang, 'role.user')} first question`)
        expect(all).toContain(`◀ ${word(lang, 'here')}`)
        expect(all).toContain('[idea]')
        expect(all).toContain('⎇alt')
        expect(all).toContain('⑂2')
        // The preview of the selected tool call: its call and its result.
        expect(all).toContain(`${word(lang, 'call')}: read`)
        expect(all).toContain('banana')
        // One key per action in the footer.
        for (const [key, label] of footerKeys('none', lang).slice(0, columns >= 100 ? 14 : 8))
          expect(all).toContain(`${key} ${label}`)
        // Side by side from SIDE_BY_SIDE columns; under it the preview is below a rule.
        if (columns >= SIDE_BY_SIDE) expect(text[2]).toContain(' │ ')
        else expect(all).toContain(`── ${word(lang, 'preview')}`)
      })
    }
  }

  it('a compaction node’s preview says what it replaced, in both languages', () => {
    const { tree, ids } = sample()
    const outline = tree.outline()
    // The last answer stands in for DSH's compaction: its summary message and the nodes it replaced.
    const compacted = {
      ...outline,
      nodes: outline.nodes.map((node) =>
        node.nodeId === ids.a2
          ? {
              ...node,
              type: 'compaction' as const,
              message: { role: 'user' as const, content: '<compacted-summary>q1 to q2</compacted-summary>' },
              replaces: [ids.u1, ids.a1, ids.u2],
            }
          : node,
      ),
    }
    const index = indexTree(compacted)
    const layout = layoutTree(index, {})
    const state = settle({ ...INITIAL_SCENE, selected: ids.a2 }, { index, layout, height: 20 })
    for (const lang of langs) {
      const frame = renderFrame({ index, layout, state, columns: 160, rows: 30, lang })
      const all = frame.lines.map((line) => line.map((s) => s.text).join('')).join('\n')
      expect(all).toContain(word(lang, 'replaces', { count: 3, first: ids.u1, last: ids.u2 }))
      expect(all).toContain('<compacted-summary>q1 to q2</compacted-summary>')
    }
  })

  it('a 20,000-node tree draws a screenful: the frame holds only the window', () => {
    const outline = realBigView(20_000)
    const index = indexTree(outline)
    const layout = layoutTree(index, {})
    const state = settle({ ...INITIAL_SCENE, selected: outline.cursor }, { index, layout, height: 40 })
    const frame = renderFrame({ index, layout, state, columns: 200, rows: 48, lang: 'en' })
    expect(frame.lines).toHaveLength(48)
    expect(frame.lines.map((l) => l.map((s) => s.text).join('')).join('\n')).toContain(`${outline.cursor} `)
  })

  it('the compare page is side by side at 200 columns and stacked at 80', () => {
    const { tree, ids } = sample()
    const result = boundedComparison(value(compare(tree, ids.a2, ids.a3, { maxRows: 200 })))
    const wide = compareLines(result, 200, 'en')
    expect(
      wide.some(
        (line) => line.includes(' │ ') && line.includes('please read notes') && line.includes('alternative question'),
      ),
    ).toBe(true)
    const narrow = compareLines(result, 80, 'en')
    expect(narrow.some((line) => line.startsWith('A ') && line.includes('please read notes'))).toBe(true)
    expect(narrow.some((line) => line.startsWith('B ') && line.includes('alternative question'))).toBe(true)
    for (const line of narrow.slice(2)) expect(cellWidth(line)).toBeLessThanOrEqual(80)
  })
})

describe('cells', () => {
  it('counts Chinese as two cells, clips with an ellipsis, wraps at spaces', () => {
    expect(cellWidth('问题ab')).toBe(6)
    expect(clip('问题问题', 5)).toBe('问题…')
    expect(cellWidth(clip('问题问题', 5))).toBeLessThanOrEqual(5)
    expect(wrap('one two three four', 9)).toEqual(['one two', 'three', 'four'])
  })
})

describe('a text page', () => {
  it('wraps a long line under its own indent instead of cutting it; a line that fits stays as it is', () => {
    const long = `  Jumps rewrite the model history ${'with official harness events '.repeat(4)}the end 对话树.`
    const fits = '    ↳ e27 user:  Check  notes.txt'
    const page = wrapPage([fits, long], 40)
    expect(page[0]).toBe(fits)
    for (const line of page) expect(cellWidth(line)).toBeLessThanOrEqual(40)
    expect(page.slice(1).every((line, i) => line.startsWith(i === 0 ? '  Jumps' : '    '))).toBe(true)
    // Nothing lost: the words of the long line, in order.
    expect(
      page
        .slice(1)
        .map((line) => line.trim())
        .join(' '),
    ).toBe(long.trim().replace(/ {2,}/g, ' '))
  })
})

describe('/session-tree completions', () => {
  it('lists every verb /tree parses, in both languages, and a move’s flags', () => {
    const nodes = subcommandNodes(['session-tree'])
    expect(nodes.map((n) => n.name)).toEqual(SUBCOMMANDS.map((s) => s.name))
    for (const node of nodes) expect(node.descriptions?.zh).toBeTruthy()
    // Each completed verb is one `/tree` understands (help aside, with its arguments).
    for (const verb of ['list', 'back', 'forward', 'help', 'gc']) expect(parseTreeCommand(verb)).toBeDefined()
    expect(parseTreeCommand('jump e1')).toMatchObject({ kind: 'jump' })
    expect(subcommandNodes(['session-tree', 'jump']).map((n) => n.name)).toContain('--both')
    expect(subcommandNodes(['session-tree', 'goto']).map((n) => n.name)).toContain('--summarize')
    expect(subcommandNodes(['session-tree', 'list'])).toEqual([])
  })
})

describe('the language', () => {
  it('follows dsh-TUI: DSH_TUI_LANG, else the saved /lang, else the locale (zh* → zh, none → zh)', () => {
    expect(tuiLang({ DSH_TUI_LANG: 'en' }, '/nonexistent')).toBe('en')
    expect(tuiLang({ DSH_TUI_LANG: 'zh', LANG: 'en_US.UTF-8' }, '/nonexistent')).toBe('zh')
    expect(tuiLang({ LANG: 'zh_CN.UTF-8' }, '/nonexistent')).toBe('zh')
    expect(tuiLang({ LANG: 'C.UTF-8' }, '/nonexistent')).toBe('en')
    expect(tuiLang({}, '/nonexistent')).toBe('zh')
  })
})

describe('the switch row', () => {
  const user = (seq: number, text: string, kind = 'user') => ({
    type: 'user/message',
    seq,
    time: 0,
    data: { source: { kind }, content: [{ type: 'text', text }] },
  })
  const answer = (seq: number, text: string) => ({
    type: 'assistant/message',
    seq,
    time: 0,
    data: { message: { content: text === '' ? [] : [{ type: 'text', text }] } },
  })
  it('counts what dsh-TUI draws: typed prompts, answers with text, tool cards; not context or empty answers', () => {
    expect(drawnAsMessage(user(1, 'hi'))).toBe(true)
    expect(drawnAsMessage(user(1, 'ctx', 'plugin'))).toBe(false)
    expect(drawnAsMessage(answer(2, 'yes'))).toBe(true)
    expect(drawnAsMessage(answer(2, ''))).toBe(false)
    expect(drawnAsMessage({ type: 'tool/call', seq: 3, time: 0, data: { name: 'read' } })).toBe(true)
    expect(drawnAsMessage({ type: 'tool/call', seq: 3, time: 0, data: { name: 'ask_user_question' } })).toBe(false)
  })

  it('one row per turn that switched: the abandoned rows above, the restated ones since the last row', () => {
    const events = [user(1, 'q1'), answer(2, 'a1'), user(3, 'q2'), answer(4, 'a2'), answer(8, 'a1')]
    const path = {
      sessionId: 's',
      revision: 'r',
      mode: 'stock',
      watermark: 8,
      tip: 'a1',
      hidden: [
        [3, 4],
        [6, 8],
      ],
      switches: [
        {
          seq: 5,
          time: 0,
          kind: 'switch',
          target: 'e2',
          branch: 'main',
          lead: true,
          leadSeq: 5,
          hiddenMessages: 2,
          reveal: [[3, 4]],
        },
      ],
      forks: [],
    } as unknown as ChatPath
    expect(pendingSwitchRows(events, path)).toEqual([{ target: 'e2', branch: 'main', hidden: 2, restated: 1 }])
    // Once written, the same switch owes nothing.
    expect(pendingSwitchRows([...events, { type: 'session-tree/switch', seq: 9, time: 0, data: {} }], path)).toEqual([])
    expect(renderSwitchRow({ target: 'e2', branch: 'main', hidden: 2, restated: 1 }, 'en')).toEqual({
      title: '⎇ Switched to main at e2 · 2 message(s) above hidden from the model',
      lines: ['the 1 message(s) just above restate the path (copies the model reads once)'],
    })
    expect(renderSwitchRow({ target: 'e2', branch: 'main', hidden: 3, restated: 0 }, 'zh')?.title).toBe(
      '⎇ 已切换到 main（e2） · 上方 3 条消息已对模型隐藏',
    )
    expect(renderSwitchRow('nonsense', 'en')).toBeUndefined()
  })

  /** A stock switch's copy of a tool exchange: the call (fresh id, cites nothing) and its result citing the original result. */
  const call = (seq: number, callId: string) => ({ type: 'tool/call', seq, time: 0, data: { callId, name: 'read' } })
  const result = (seq: number, callId: string, original?: number): LogEvent => ({
    type: 'tool/result',
    seq,
    time: 0,
    surfaceOp: 'append',
    ...(original === undefined ? {} : { sourceEventSeqs: [original] }),
    data: { message: { source: { kind: 'tool', callId } } },
  })
  const pathOf = (hidden: [number, number][], reveal: [number, number][]) =>
    ({
      sessionId: 's',
      revision: 'r',
      mode: 'stock',
      watermark: 30,
      tip: 'x',
      hidden,
      switches: [{ seq: 20, kind: 'switch', target: 'e2', branch: 'main', lead: true, leadSeq: 20, reveal }],
      forks: [],
    }) as unknown as ChatPath

  it('a copy an earlier switch left counts as hidden once what it restates is off the path (or summarized by a compaction above it)', () => {
    // q1; q2 with its read (3, 4) and answer; an earlier switch's copy of the read (6, 7), its row (9).
    const events: LogEvent[] = [
      user(1, 'q1'),
      user(2, 'q2'),
      call(3, 'c1'),
      result(4, 'c1'),
      answer(5, 'a2'),
      call(6, 'copy1'),
      result(7, 'copy1', 4),
      { type: 'session-tree/switch', seq: 9, time: 0, data: {} },
    ]
    // Now q2's turn is abandoned (2–5): the copy of its read is off the path too.
    expect(pendingSwitchRows(events, pathOf([[2, 7]], [[2, 5]]))).toEqual([
      { target: 'e2', branch: 'main', hidden: 4, restated: 0 },
    ])
    // On the path the original is shown and the old copy is neither hidden nor restated (it was, at its own row).
    expect(pendingSwitchRows(events, pathOf([[6, 7]], []))).toEqual([
      { target: 'e2', branch: 'main', hidden: 0, restated: 0 },
    ])
    // A compaction (11, citing its summary 10) replaced 1–5, the read with it; a copy drawn after it (12, 13) is
    // hidden while the compaction is on the path; one drawn before it (6, 7) is in what it summarized.
    const compacted: LogEvent[] = [
      ...events,
      { type: 'compaction/summary', seq: 10, time: 0, data: {} },
      {
        type: 'user/message',
        seq: 11,
        time: 0,
        surfaceOp: { op: 'replace', start: 1, end: 7 },
        sourceEventSeqs: [10, 1, 2, 4],
      },
      call(12, 'copy2'),
      result(13, 'copy2', 4),
      { type: 'session-tree/switch', seq: 14, time: 0, data: {} },
    ]
    expect(
      pendingSwitchRows(
        compacted,
        pathOf(
          [
            [6, 7],
            [12, 13],
          ],
          [],
        ),
      ),
    ).toEqual([{ target: 'e2', branch: 'main', hidden: 1, restated: 0 }])
    // Off the path, the compaction summarizes nothing the model reads: the copy after it restates the path.
    expect(
      pendingSwitchRows(
        compacted,
        pathOf(
          [
            [6, 7],
            [11, 11],
            [12, 13],
          ],
          [],
        ),
      ),
    ).toEqual([{ target: 'e2', branch: 'main', hidden: 0, restated: 0 }])
  })
})
