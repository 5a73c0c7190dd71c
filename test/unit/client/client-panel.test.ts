// @vitest-environment jsdom
/**
 * The Tree tab's React components in jsdom, over a real controller and a fake
 * of the generated remote backed by a real SessionTree: rows and badges,
 * virtualization at 10,000 nodes, keyboard use (arrows, Enter, f, l, /),
 * filters and search, errors with their codes, Chinese strings, the header
 * action, and the client entry's wiring (`apply`).
 */
import { rekeyHostTools } from '../../../src/client/chat/host-tools.ts'
import { act, createElement } from 'react'
import { describe, expect, it } from 'vitest'
import { TreeController, type TreeRemote } from '../../../src/client/controller.ts'
import { TreePanel } from '../../../src/client/TreePanel.tsx'
import { OpenTreeAction, openTreeTab } from '../../../src/client/OpenTreeAction.tsx'
import { apply, inject } from '../../../src/client/index.ts'
import type { HostLocale } from '../../../src/client/i18n.ts'
import { PLUGIN_ID } from '../../../src/client/stylesheet.ts'
import { fakeRemote, realBigView, smallTree, wholeOutline, type FakeRemote } from '../../support/client-fixtures.ts'
import { attemptOver } from '../../support/attempt-fixture.ts'
import { panelDom } from '../../support/panel-dom.ts'
import { assistant, user, value } from '../../support/messages.ts'
import { SessionTree } from '../../../src/tree/index.ts'

const dom = panelDom()

const english = (): HostLocale | undefined => undefined

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++)
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0))
    })
}

async function mount(
  remote: TreeRemote,
  hostLocale: () => HostLocale | undefined = english,
): Promise<{ el: HTMLElement; controller: TreeController }> {
  const controller = dom.controller(remote)
  const el = dom.render(createElement(TreePanel, { sessionId: 's', tree: controller, hostLocale, standalone: true }))
  await settle()
  return { el, controller }
}

const rows = (el: HTMLElement) => [...el.querySelectorAll<HTMLElement>('[role="treeitem"]')]
const rowOf = (el: HTMLElement, id: string) => el.querySelector<HTMLElement>(`[data-node-id="${id}"][role="treeitem"]`)!
const treeEl = (el: HTMLElement) => el.querySelector<HTMLElement>('[role="tree"]')!
const button = (el: HTMLElement, name: string) =>
  [...el.querySelectorAll('button')].find((b) => b.textContent?.trim() === name) as HTMLButtonElement | undefined

async function press(target: HTMLElement, key: string, init: KeyboardEventInit = {}): Promise<void> {
  await act(async () => {
    target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init }))
  })
  await settle()
}

async function type(input: HTMLInputElement, text: string): Promise<void> {
  await act(async () => {
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!
    setter.call(input, text)
    input.dispatchEvent(new Event('input', { bubbles: true }))
  })
  await settle()
}

async function click(target: HTMLElement): Promise<void> {
  await act(async () => {
    target.click()
  })
  await settle()
}

/** The small tree, served with a status that says `count` tool calls repeat an id, the first at event `firstSeq`. */
function repeatingCallIds(count: number, firstSeq: number): FakeRemote {
  const fake = fakeRemote(smallTree().tree)
  fake.status = {
    logWarnings: [
      { code: 'REPEATED_CALL_IDS', message: 'the message', remedy: 'the remedy', count, firstSeq, callId: 'call_1' },
    ],
  }
  return fake
}

describe('TreePanel', () => {
  it('shows progress, then every node with kind, folded tool call, cursor, branch head and surface mode', async () => {
    const { tree, ids } = smallTree()
    const fake = fakeRemote(tree)
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const slow: TreeRemote = { ...fake.remote, session: async (a) => (await gate, fake.remote.session(a)) }
    const controller = dom.controller(slow)
    const el = dom.render(
      createElement(TreePanel, { sessionId: 's', tree: controller, hostLocale: english, standalone: true }),
    )
    expect(el.querySelector('[role="status"]')?.textContent).toContain('Loading the conversation tree')
    release()
    await settle()
    expect(rows(el).map((r) => r.querySelector('.dst-text')!.textContent)).toEqual([
      'first question',
      'first answer',
      'please read notes',
      'read({"file_path":"notes.txt"})→banana',
      'the file says banana',
    ])
    expect(rowOf(el, ids.call).querySelector('.dst-kind')!.textContent).toBe('tool')
    expect(rowOf(el, ids.a2).getAttribute('aria-current')).toBe('location')
    expect(rowOf(el, ids.a2).textContent).toContain('main')
    expect(rowOf(el, ids.a2).textContent).toContain('you are here')
    expect(rowOf(el, ids.a2).getAttribute('aria-selected')).toBe('true')
    expect(el.querySelector('[data-testid="session-tree-status"]')!.textContent).toMatch(
      /Surface\s*stock\s*Jumps rewrite the model history with official harness events.*5 nodes · 1 branch · 0 labels/,
    )
    expect(el.querySelector('.dst-count')!.textContent).toBe('5 of 5 nodes')
    // Back/forward follow the session's navigation history.
    expect(button(el, '← Back')!.disabled).toBe(true)
  })

  it('renders only the visible rows of a 10,000-node tree', async () => {
    const view = realBigView(10_000)
    const remote: TreeRemote = {
      ...fakeRemote(smallTree().tree).remote,
      session: async () => ({
        ok: true,
        value: {
          sessionId: 'big',
          nodeCount: 10_000,
          messageCount: 0,
          branchCount: view.branches.length,
          cursor: view.cursor,
          activeBranch: 'main',
          currentPathLength: 0,
          snapshotVersion: 1,
          revision: 'r1',
          surfaceMode: 'stock',
        },
      }),
      outlineChanges: async () => ({ ok: true, value: wholeOutline(view) }),
    }
    // jsdom has no layout: give the tree a viewport of 20 rows.
    Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 560 })
    const { el } = await mount(remote).finally(
      () => delete (HTMLElement.prototype as { clientHeight?: number }).clientHeight,
    )
    expect(el.querySelector('.dst-count')!.textContent).toBe('10000 of 10000 nodes')
    expect(rows(el).length).toBeGreaterThanOrEqual(15)
    expect(rows(el).length).toBeLessThan(60)
    // The cursor (the main line's head) is scrolled into view and rendered.
    expect(rowOf(el, view.cursor!)).not.toBeNull()
  })

  it('`c` selects the cursor inside a folded branch: the fold opens and the row shows, selected', async () => {
    const tree = new SessionTree('s')
    const q1 = value(tree.append(user('first question'))).nodeId
    const a1 = value(tree.append(assistant('first answer'))).nodeId
    value(tree.append(user('second question')))
    const a2 = value(tree.append(assistant('second answer'))).nodeId
    value(tree.jump(a1))
    value(tree.append(user('another question')))
    value(tree.jump(a2))
    const { el } = await mount(fakeRemote(tree).remote)
    const list = treeEl(el)
    list.focus()
    await click(rowOf(el, a1))
    await press(list, '-')
    expect(rowOf(el, a2)).toBeNull()
    await press(list, 'Home')
    expect(rowOf(el, q1).getAttribute('aria-selected')).toBe('true')
    await press(list, 'c')
    expect(rowOf(el, a2)).not.toBeNull()
    expect(rowOf(el, a2).getAttribute('aria-selected')).toBe('true')
    expect(list.getAttribute('aria-activedescendant')).toBe(rowOf(el, a2).id)
  })

  it('is fully usable from the keyboard: arrows select, Enter jumps, f forks, l labels, / searches', async () => {
    const { tree, ids } = smallTree()
    const fake = fakeRemote(tree)
    const { el } = await mount(fake.remote)
    const list = treeEl(el)
    list.focus()
    expect(document.activeElement).toBe(list)
    await press(list, 'Home')
    expect(rowOf(el, ids.q1).getAttribute('aria-selected')).toBe('true')
    expect(list.getAttribute('aria-activedescendant')).toBe(rowOf(el, ids.q1).id)
    await press(list, 'ArrowDown')
    expect(rowOf(el, ids.a1).getAttribute('aria-selected')).toBe('true')
    // Selecting previews without side effects.
    expect(fake.calls.filter((c) => !['session', 'outlineChanges'].includes(c))).toEqual([])
    expect(el.querySelector('[data-testid="session-tree-preview-text"]')!.textContent).toBe('first answer')
    // Enter jumps; the tree then shows the new cursor.
    await press(list, 'Enter')
    expect(fake.calls).toContain('jump')
    expect(rowOf(el, ids.a1).getAttribute('aria-current')).toBe('location')
    // What the user got, not the log's jargon; the event count is in the tooltip.
    expect(el.querySelector('[data-testid="session-tree-notice"]')!.textContent).toContain(
      'Moved. The model’s next request holds the path to this node. The Chat marks where the history switched.',
    )
    expect(el.querySelector('[data-testid="session-tree-notice"]')!.textContent).not.toMatch(
      /events? appended|session log/,
    )
    expect(el.querySelector('[data-testid="session-tree-notice"]')!.getAttribute('title')).toContain(
      '7 official harness events',
    )
    // f opens the fork form with a suggested name; a taken name is refused before any call.
    await press(list, 'f')
    const input = el.querySelector<HTMLInputElement>('[data-testid="session-tree-fork-form"] input')!
    expect(document.activeElement).toBe(input)
    expect(input.value).toBe('branch-2')
    await type(input, 'main')
    await click(button(el, 'Create branch')!)
    expect(el.querySelector('.dst-problem')!.textContent).toBe('A branch with that name already exists.')
    expect(fake.calls).not.toContain('fork')
    await type(input, ' alt ')
    await click(button(el, 'Create branch')!)
    expect(fake.calls).toContain('fork')
    expect(tree.activeBranch).toBe('alt')
    expect(rowOf(el, ids.a1).textContent).toContain('alt')
    // l labels (Enter in the field submits).
    list.focus()
    await press(list, 'l')
    const labelInput = el.querySelector<HTMLInputElement>('[data-testid="session-tree-label-form"] input')!
    await type(labelInput, 'checkpoint')
    await act(async () => labelInput.form!.requestSubmit())
    await settle()
    expect(tree.get(ids.a1)?.label).toBe('checkpoint')
    expect(rowOf(el, ids.a1).querySelector('[data-type="label"]')!.textContent).toBe('checkpoint')
    // / focuses search; typing filters; Escape clears.
    list.focus()
    await press(list, '/')
    const search = el.querySelector<HTMLInputElement>('input[role="searchbox"]')!
    expect(document.activeElement).toBe(search)
    await type(search, 'BANANA')
    expect(rows(el).map((r) => r.dataset.nodeId)).toEqual([ids.call, ids.a2])
    expect(rowOf(el, ids.call).querySelector('mark')!.textContent).toBe('banana')
    expect(el.querySelector('.dst-count')!.textContent).toBe('2 of 5 nodes')
    await press(search, 'Escape')
    expect(rows(el)).toHaveLength(5)
    // [ goes back (undo the fork move).
    list.focus()
    await press(list, '[')
    expect(fake.calls).toContain('back')
  })

  it('filters like Pi: no tools, user prompts only, labeled only', async () => {
    const { tree, ids } = smallTree()
    value(tree.label(ids.q2, 'read-step'))
    const { el } = await mount(fakeRemote(tree).remote)
    await click(button(el, 'No tools')!)
    expect(rows(el).map((r) => r.dataset.nodeId)).toEqual([ids.q1, ids.a1, ids.q2, ids.a2])
    expect(button(el, 'No tools')!.getAttribute('aria-checked')).toBe('true')
    await click(button(el, 'User prompts')!)
    expect(rows(el).map((r) => r.dataset.nodeId)).toEqual([ids.q1, ids.q2])
    await click(button(el, 'Labeled')!)
    expect(rows(el).map((r) => r.dataset.nodeId)).toEqual([ids.q2])
    await click(button(el, 'All')!)
    expect(rows(el)).toHaveLength(5)
  })

  it('offers only valid actions: no Jump on the cursor, Summarize on a named branch', async () => {
    const { tree, ids } = smallTree()
    const { el } = await mount(fakeRemote(tree).remote)
    const preview = () => el.querySelector<HTMLElement>('[data-testid="session-tree-preview"]')!
    expect(preview().dataset.nodeId).toBe(ids.a2)
    expect(button(preview(), 'Jump here')).toBeUndefined()
    expect(button(preview(), 'Fork here')).toBeDefined()
    expect(button(preview(), 'Summarize branch')).toBeDefined()
    await click(rowOf(el, ids.q1))
    expect(preview().dataset.nodeId).toBe(ids.q1)
    expect(button(preview(), 'Jump here')).toBeDefined()
  })

  it('shows load errors and action errors with their code and message', async () => {
    const { tree, ids } = smallTree()
    const fake = fakeRemote(tree)
    fake.failNext('session', { code: 'SESSION_NOT_FOUND', message: 'session "s" is not loaded in this harness' })
    const { el } = await mount(fake.remote)
    const alert = el.querySelector('[role="alert"]')!
    expect(alert.textContent).toContain('The conversation tree could not be loaded')
    expect(alert.textContent).toContain('SESSION_NOT_FOUND: session "s" is not loaded in this harness')
    expect(alert.textContent).toContain('it loads when it gets a message')
    await click(button(el, 'Retry')!)
    expect(rows(el)).toHaveLength(5)
    fake.failNext('jump', { code: 'AGENT_BUSY', message: 'the agent is running; move in the tree when it is idle' })
    await click(rowOf(el, ids.q1))
    await click(button(el, 'Jump here')!)
    expect(el.querySelector('[data-testid="session-tree-action-error"]')!.textContent).toContain(
      'AGENT_BUSY: the agent is running; move in the tree when it is idle',
    )
    expect(rowOf(el, ids.a2).getAttribute('aria-current')).toBe('location')
    await click(button(el, 'Dismiss')!)
    expect(el.querySelector('[data-testid="session-tree-action-error"]')).toBeNull()
  })

  it('shows quarantine, sidecar warnings and a pending switch from session', async () => {
    const { tree } = smallTree()
    const fake = fakeRemote(tree)
    fake.status = {
      quarantine: [{ seq: 12, type: 'assistant/message', reason: 'bad content' }],
      sidecarWarnings: [{ code: 'SIDECAR_IO', message: 'journal truncated' }],
      pendingSwitch: { target: 'e9', branch: 'main' },
      surfaceMode: 'projection',
      surfaceNote: 'The model keeps its history.',
    }
    const { el } = await mount(fake.remote)
    const text = el.textContent!
    expect(text).toContain('1 harness event could not be read and was skipped')
    expect(text).toContain('Sidecar problem: SIDECAR_IO: journal truncated')
    expect(text).toContain('A history switch to e9 is waiting for the agent to become idle')
    expect(el.querySelector('.dst-pill')!.getAttribute('data-mode')).toBe('projection')
  })

  it('reports a log the Chat cannot load (repeated call ids), with what to do', async () => {
    const fake = repeatingCallIds(3, 90)
    const { el } = await mount(fake.remote)
    const banner = el.querySelector('[data-testid="session-tree-log-warning"]')!
    expect(banner.getAttribute('data-code')).toBe('REPEATED_CALL_IDS')
    expect(banner.textContent).toBe(
      'DSH’s Chat cannot load this session past event 90: call ids repeat (3 tool calls: the provider reused them, or an import answered calls on two branches). The model and this tree are not affected. Keep working here, or use “Branch into a new conversation” on the last answer the Chat shows.',
    )
    expect(banner.getAttribute('title')).toBe('the message\nthe remedy')
  })

  it("says the Chat reads such a log when DSH's tool Definitions in the page are re-keyed (chat/host-tools.ts)", async () => {
    const fake = repeatingCallIds(1, 12)
    const off = rekeyHostTools({ entries: () => [{ kind: 'tool-call', target: 'chat', match: () => null }] })
    try {
      const { el } = await mount(fake.remote)
      const banner = el.querySelector('[data-testid="session-tree-log-warning"]')!
      expect(banner.textContent).toBe(
        'This session’s log repeats a call id (1 tool call, first at event 12: the provider reused it, or an import answered a call on two branches). DSH’s Chat and Trajectory show it here: this plugin keys those calls apart. A program that reads the log by itself may not.',
      )
    } finally {
      off()
    }
  })

  it('speaks Chinese when the host locale is zh, and follows a switch', async () => {
    const { tree } = smallTree()
    let active = 'zh'
    const listeners = new Set<() => void>()
    const locale: HostLocale = {
      getSnapshot: () => ({ active }),
      subscribe: (l) => (listeners.add(l), () => listeners.delete(l)),
    }
    const { el } = await mount(fakeRemote(tree).remote, () => locale)
    expect(button(el, '全部')).toBeDefined()
    expect(button(el, '仅用户提示')).toBeDefined()
    expect(el.querySelector('.dst-count')!.textContent).toBe('显示 5 / 5 个节点')
    expect(el.querySelector('.dst-root')!.getAttribute('lang')).toBe('zh-CN')
    active = 'en'
    act(() => listeners.forEach((l) => l()))
    await settle()
    expect(button(el, 'All')).toBeDefined()
  })
})

describe('TreePanel while another process writes the tree', () => {
  it('says who writes it, and offers no move, label or summary (keys included)', async () => {
    const { tree, ids } = smallTree()
    const fake = fakeRemote(tree)
    fake.status = {
      readOnly: {
        code: 'SIDECAR_CLAIMED',
        message: 'another process writes this session’s tree',
        holder: { pid: 4242, host: 'box', kind: 'dsh-TUI', since: '2026-12-02T07:00:00.000Z' },
      },
    }
    const { el } = await mount(fake.remote)
    expect(el.querySelector('[data-testid="session-tree-read-only"]')!.textContent).toBe(
      'Read-only here: dsh-TUI (pid 4242 on box) writes this session’s tree. Moves, labels and summaries work there, or here once it closes the session or exits.',
    )
    const list = treeEl(el)
    list.focus()
    await press(list, 'Home')
    await press(list, 'ArrowDown')
    expect(rowOf(el, ids.a1).getAttribute('aria-selected')).toBe('true')
    for (const key of ['Enter', 'f', 'l', '[', ']']) await press(list, key)
    expect(fake.calls.filter((c) => !['session', 'outlineChanges'].includes(c))).toEqual([])
    expect(el.querySelector('form'), 'no fork or label form opened').toBeNull()
    // Reading still works: the preview shows the selected node.
    expect(el.querySelector('[data-testid="session-tree-preview-text"]')!.textContent).toBe('first answer')
    // Once the other process lets go, the tab offers the moves again.
    fake.status = {}
    await act(async () => {
      await dom.controllers[0]!.refresh(true)
    })
    await press(list, 'Enter')
    expect(fake.calls).toContain('jump')
    expect(el.querySelector('[data-testid="session-tree-read-only"]')).toBeNull()
  })
})

describe('OpenTreeAction', () => {
  it('presses the Tree tab of its own session header', async () => {
    const host = document.createElement('div')
    host.innerHTML =
      '<header><div role="tablist"><button role="tab">Chat</button><button role="tab">Tree</button></div><span id="slot"></span></header>'
    const pressed: string[] = []
    host
      .querySelectorAll('[role="tab"]')
      .forEach((tab) => tab.addEventListener('click', () => pressed.push(tab.textContent!)))
    dom.render(createElement(OpenTreeAction, { hostLocale: english }), host, host.querySelector('#slot')!)
    await click(host.querySelector<HTMLElement>('[data-testid="session-tree-open"]')!)
    expect(pressed).toEqual(['Tree'])
    const elsewhere = document.implementation.createHTMLDocument('x').createElement('div')
    expect(openTreeTab(elsewhere)).toBe(false)
  })
})

describe('client entry', () => {
  it('mounts the generated remote, registers the tab, the header action and the Chat decorations, and cleans up on dispose', async () => {
    const { tree } = smallTree()
    const fake: FakeRemote = fakeRemote(tree)
    const disposers: Array<() => void> = []
    const registered: Array<{
      name: string
      id?: string
      key?: string
      label?: unknown
      inject?: (s: string) => object
    }> = []
    const definitions: Array<{ kind: string; target: string }> = []
    const mounted: unknown[] = []
    const hostMatch = (event: { type: string; seq: number; data: { callId: string } }) =>
      event.type === 'tool/call' ? { id: event.data.callId, role: 'start' } : null
    const hostTool = { kind: 'tool-call', target: 'chat', match: hostMatch }
    const conversationEvents = {
      entries: () => [hostTool, ...definitions],
      register: (definition: { kind: string; target: string }) => {
        definitions.push(definition)
        return () => definitions.splice(definitions.indexOf(definition), 1)
      },
    }
    const ctx = {
      effect: (fn: () => () => void) => disposers.push(fn()),
      get: (name: string) => (name === 'locale' ? undefined : undefined),
      inject: (_deps: string[], fn: (scope: unknown) => void) =>
        fn({
          remote: { sessionTree: { ...fake.remote, attempt: attemptOver(fake.remote) } },
          conversationEvents,
          effect: ctx.effect,
        }),
      slots: {
        inject: (_name: string, fn: () => () => void) => {
          const dispose = fn()
          disposers.push(dispose)
          return dispose
        },
        register: (options: { name: string; id?: string; key?: string }) => {
          registered.push(options)
          return () => registered.splice(registered.indexOf(options), 1)
        },
      },
      remote: {
        $mount: async (contribution: unknown) => {
          mounted.push(contribution)
          return async () => {}
        },
      },
    }
    expect(inject).toEqual(['slots', 'remote'])
    apply(ctx as never, { intervalMs: 60_000 })
    expect(document.querySelector(`style[data-plugin="${PLUGIN_ID}"]`)).not.toBeNull()
    expect(registered.map((r) => [r.name, r.id ?? r.key])).toEqual([
      ['conversation.view', 'session-tree'],
      ['conversation.chat.node', 'session-tree-switch'],
      ['conversation.chat.node', 'session-tree-fork'],
      ['conversation.session.header.actions', 'session-tree'],
    ])
    expect(definitions.map((d) => [d.kind, d.target])).toEqual([
      ['session-tree-switch', 'chat'],
      ['session-tree-fork', 'chat'],
    ])
    expect(document.querySelector('style[data-plugin-css="dsh-session-tree/chat.css"]')).not.toBeNull()
    // DSH's own tool card Definition is re-keyed: a second call of one id gets a key of its own.
    expect(hostTool.match).not.toBe(hostMatch)
    expect([
      hostTool.match({ type: 'tool/call', seq: 4, data: { callId: 'c' } }),
      hostTool.match({ type: 'tool/call', seq: 9, data: { callId: 'c' } }),
    ]).toEqual([
      { id: 'c', role: 'start' },
      { id: 'c\u241e9', role: 'start' },
    ])
    expect((registered[0]!.label as () => string)()).toBe('Tree')
    const contribution = mounted[0] as { package: string; descriptors: Array<{ id: string }> }
    expect(contribution.package).toBe('dsh-session-tree')
    expect(contribution.descriptors.map((d) => d.id).sort()).toEqual(
      [
        'back',
        'carry',
        'carryDiff',
        'carryPreview',
        'chatPath',
        'compare',
        'compareFileDiff',
        'compareFiles',
        'export',
        'exportAs',
        'fileAt',
        'files',
        'filesAt',
        'fork',
        'forkWith',
        'forward',
        'importSession',
        'attempt',
        'jump',
        'jumpWith',
        'label',
        'list',
        'moveBrief',
        'outline',
        'outlineChanges',
        'restore',
        'restoreDiff',
        'restorePreview',
        'session',
        'summarize',
        'summarizeWith',
        'openAsNewSession',
        'gc',
        'watch',
      ]
        .sort()
        .map((m) => `dsh-session-tree#sessionTree/${m}`),
    )
    const injected = registered[0]!.inject!('s') as { tree: TreeController }
    expect(injected.tree).toBe((registered[0]!.inject!('s') as { tree: TreeController }).tree)
    await injected.tree.refresh()
    expect(injected.tree.getSnapshot().view?.nodes).toHaveLength(5)
    for (const dispose of disposers.reverse()) dispose()
    expect(registered).toEqual([])
    expect(hostTool.match).toBe(hostMatch)
    expect(document.querySelector(`style[data-plugin="${PLUGIN_ID}"]`)).toBeNull()
  })
})
