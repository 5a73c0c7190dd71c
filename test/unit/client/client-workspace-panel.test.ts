// @vitest-environment jsdom
/**
 * The Tree tab's workspace pieces wired into the real TreePanel in jsdom:
 * the real controller over the fake remote of client-fixtures (a real
 * SessionTree), and a hand-written fake of the six workspace methods (a stand-in:
 * the real service and browser are exercised in test/e2e/workspace-panel.test.ts).
 * It checks the wiring the e2e cannot reach cheaply: Conversation keeps Jump
 * exactly as it was (no preview asked), Both opens the preview, Apply waits
 * for the decision and sends exactly it, and a failure reads as its code's
 * meaning.
 */
import { act, createElement } from 'react'
import { describe, expect, it } from 'vitest'
import type { Result } from '../../../src/client/controller.ts'
import { TreePanel } from '../../../src/client/TreePanel.tsx'
import { WorkspaceClient, type WorkspaceRemote } from '../../../src/client/workspace/client.ts'
import type { FilesAtNode, RestorePreview, RestoreResult, WorkspaceOverview } from '../../../src/types.ts'
import { fakeRemote, smallTree } from '../../support/client-fixtures.ts'
import { panelDom } from '../../support/panel-dom.ts'

const dom = panelDom()

async function settle(): Promise<void> {
  for (let i = 0; i < 6; i++)
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0))
    })
}
async function click(target: Element): Promise<void> {
  await act(async () => {
    ;(target as HTMLElement).click()
  })
  await settle()
}
async function press(target: HTMLElement, key: string): Promise<void> {
  await act(async () => {
    target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }))
  })
  await settle()
}
const ok = <T>(value: T): Promise<Result<T>> => Promise.resolve({ ok: true, value })
const file = (hash: string) => ({ kind: 'file' as const, hash, size: 4 })

function workspaceFake(callId: string, parentId: string) {
  const calls: Array<[string, unknown]> = []
  let failRestore: { code: string; message: string } | undefined
  const status = {
    available: true,
    shell: 'git' as const,
    shellNote: '',
    maxFileBytes: 1 << 20,
    tracked: 2,
    interrupted: [],
    problems: [],
  }
  const preview: RestorePreview = {
    target: null,
    plan: {
      target: null,
      entries: [
        {
          path: 'new.txt',
          action: 'delete',
          current: file('n'),
          target: { kind: 'absent' },
          insertions: 0,
          deletions: 1,
        },
      ],
      conflicts: [
        {
          path: 'notes.txt',
          action: 'update',
          current: file('mine'),
          target: file('old'),
          insertions: 1,
          deletions: 1,
          reason: 'changed-outside',
        },
      ],
      blocked: [],
      stat: { files: 2, created: 0, updated: 1, deleted: 1, insertions: 1, deletions: 2 },
    },
    status,
  }
  const remote: WorkspaceRemote = {
    files: () =>
      ok<WorkspaceOverview>({ status, nodes: [{ nodeId: callId, paths: ['notes.txt', 'new.txt'] }], restores: [] }),
    filesAt: (_a, nodeId) => {
      calls.push(['filesAt', nodeId])
      const files: FilesAtNode['files'] =
        nodeId === parentId
          ? [
              { path: 'notes.txt', state: file('old'), differs: true },
              { path: 'new.txt', state: { kind: 'absent' }, differs: true },
            ]
          : [
              { path: 'notes.txt', state: file('new'), differs: true },
              { path: 'new.txt', state: file('n'), differs: false },
            ]
      return ok({ nodeId, files })
    },
    fileAt: (_a, nodeId, path) => ok({ nodeId, path, text: `${path} at ${nodeId}\n` }),
    compareFiles: (_a, a, b) => {
      calls.push(['compareFiles', [a, b]])
      return ok({
        a,
        b,
        tracked: 3,
        files: [
          { path: 'db.bin', a: { ...file('d1'), binary: true }, b: { kind: 'absent' } },
          { path: 'notes.txt', a: file('old'), b: file('new') },
        ],
      })
    },
    compareFileDiff: (_a, a, b, path) =>
      ok({ path, a: file('old'), b: file('new'), diff: `--- a/${path}\n+++ b/${path}\n@@ -1,1 +1,1 @@\n-old\n+new\n` }),
    carryPreview: () => Promise.reject(new Error('no carry in this test')),
    carryDiff: () => Promise.reject(new Error('no carry in this test')),
    carry: () => Promise.reject(new Error('no carry in this test')),
    restorePreview: (_a, request) => {
      calls.push(['restorePreview', request])
      return ok({
        ...preview,
        target: (request as { move: { nodeId: string } }).move.nodeId,
        plan: { ...preview.plan, target: (request as { move: { nodeId: string } }).move.nodeId },
      })
    },
    restoreDiff: (_a, _r, path) =>
      ok({
        path,
        current: file('mine'),
        target: file('old'),
        diff: `--- a/${path}\n+++ b/${path}\n@@ -1,1 +1,1 @@\n-mine\n+old\n`,
      }),
    restore: (_a, request) => {
      calls.push(['restore', request])
      if (failRestore) return Promise.resolve({ ok: false, error: failRestore })
      const move = (request as { move: { nodeId: string } }).move
      return ok<RestoreResult>({
        restore: 'both',
        target: move.nodeId,
        files: {
          id: 'r1',
          target: move.nodeId,
          created: [],
          updated: [],
          deleted: ['new.txt'],
          kept: ['notes.txt'],
          blocked: [],
        },
      })
    },
  }
  return {
    remote,
    calls,
    failNextRestore: (e: { code: string; message: string }) => {
      failRestore = e
    },
  }
}

async function mount() {
  const { tree, ids } = smallTree()
  const fake = fakeRemote(tree)
  const parentId = tree.get(ids.call)!.parentId!
  const ws = workspaceFake(ids.call, parentId)
  const controller = dom.controller(fake.remote)
  const host = dom.render(
    createElement(TreePanel, {
      sessionId: 's',
      tree: controller,
      hostLocale: () => undefined,
      standalone: true,
      workspace: new WorkspaceClient(async () => ws.remote, 's'),
    }),
  )
  await settle()
  return { el: host, ids, fake, ws }
}

const rowOf = (el: HTMLElement, id: string) => el.querySelector<HTMLElement>(`[data-node-id="${id}"][role="treeitem"]`)!
const treeEl = (el: HTMLElement) => el.querySelector<HTMLElement>('[role="tree"]')!

describe('the workspace in the Tree tab (jsdom)', () => {
  it('marks the call row with its count; its preview lists what it changed; files at this point show a file', async () => {
    const { el, ids } = await mount()
    const markers = [...el.querySelectorAll<HTMLElement>('[role="treeitem"] [data-type="files"]')]
    expect(markers.map((m) => [m.closest<HTMLElement>('[role="treeitem"]')!.dataset.nodeId, m.textContent])).toEqual([
      [ids.call, '2'],
    ])
    await click(rowOf(el, ids.call))
    const listed = [...el.querySelectorAll<HTMLElement>('[data-testid="session-tree-node-files"] .dst-ws-list li')].map(
      (li) => [li.dataset.path, li.dataset.change],
    )
    expect(listed).toEqual([
      ['new.txt', 'added'],
      ['notes.txt', 'changed'],
    ])
    await click(el.querySelector('[data-testid="session-tree-files-at-toggle"]')!)
    await click(el.querySelector('[data-testid="session-tree-files-at"] button[data-path="notes.txt"]')!)
    expect(el.querySelector('[data-testid="session-tree-file-text"]')!.textContent).toBe(`notes.txt at ${ids.call}\n`)
  })

  it('Conversation (the default) jumps as before; Both opens the preview, Apply waits for the decision and sends it', async () => {
    const { el, ids, fake, ws } = await mount()
    await click(rowOf(el, ids.q1))
    await press(treeEl(el), 'Enter')
    expect(fake.calls).toContain('jump')
    expect(ws.calls.filter(([m]) => m.startsWith('restore'))).toEqual([])
    // Take along: Both, from the keyboard (arrows move the radio group).
    const group = el.querySelector<HTMLElement>('[data-testid="session-tree-restore-choice"]')!
    await press(group, 'ArrowRight')
    await press(group, 'ArrowRight')
    expect(group.querySelector('[aria-checked="true"]')!.getAttribute('data-choice')).toBe('both')
    const jumps = fake.calls.filter((c) => c === 'jump').length
    await click(rowOf(el, ids.a1))
    await press(treeEl(el), 'Enter')
    expect(fake.calls.filter((c) => c === 'jump').length, 'no conversation-only jump').toBe(jumps)
    expect(ws.calls.at(-1)).toEqual(['restorePreview', { move: { kind: 'jump', nodeId: ids.a1 }, restore: 'both' }])
    const view = el.querySelector<HTMLElement>('[data-testid="session-tree-restore"]')!
    expect(
      [...view.querySelectorAll<HTMLElement>('.dst-restore-rows > li')].map((li) => [
        li.dataset.path,
        li.dataset.action,
        li.dataset.conflict ?? null,
      ]),
    ).toEqual([
      ['new.txt', 'delete', null],
      ['notes.txt', 'update', 'changed-outside'],
    ])
    const apply = view.querySelector<HTMLButtonElement>('[data-testid="session-tree-restore-apply"]')!
    expect(apply.disabled).toBe(true)
    await click(apply)
    expect(ws.calls.filter(([m]) => m === 'restore')).toEqual([])
    await click(view.querySelector('li[data-path="notes.txt"] button')!)
    expect(view.querySelector('[data-testid="session-tree-restore-diff"]')!.textContent).toContain('-mine\n+old')
    await click(view.querySelector('li[data-path="notes.txt"] input[data-decision="keep"]')!)
    expect(apply.disabled).toBe(false)
    await click(apply)
    expect(ws.calls.at(-1)).toEqual([
      'restore',
      { move: { kind: 'jump', nodeId: ids.a1 }, restore: 'both', conflicts: [{ path: 'notes.txt', decision: 'keep' }] },
    ])
    expect(el.querySelector('[data-testid="session-tree-restore-result"]')!.textContent).toContain(
      '0 added, 0 changed, 1 deleted',
    )
    expect(el.querySelector('[data-testid="session-tree-restore-kept"]')!.textContent).toBe(
      'Kept as you left them: notes.txt.',
    )
    // Esc closes it: the node preview is back.
    await press(el.querySelector<HTMLElement>('[data-testid="session-tree-restore"]')!, 'Escape')
    expect(el.querySelector('[data-testid="session-tree-restore"]')).toBeNull()
    expect(el.querySelector('[data-testid="session-tree-preview"]')).not.toBeNull()
  })

  it("Compare lists the files that differ between its two nodes (a binary one by size and hash) and each file's diff on demand", async () => {
    const { el, ws, ids } = await mount()
    await click(rowOf(el, ids.call))
    await click(el.querySelector<HTMLElement>('[data-compare-open]')!)
    await settle()
    const part = el.querySelector<HTMLElement>('[data-testid="session-tree-compare-files"]')!
    expect(part).not.toBeNull()
    const asked = ws.calls.filter((c) => c[0] === 'compareFiles')
    expect(asked).toHaveLength(1)
    const rows = [...part.querySelectorAll<HTMLElement>('li[data-path]')]
    expect(rows.map((r) => [r.dataset.path, r.querySelector('.dst-ws-stat')!.textContent])).toEqual([
      ['db.bin', `Binary: 4 B, SHA-256 d1… → absent`],
      ['notes.txt', '4 B → 4 B'],
    ])
    expect(part.textContent).toContain('2 of 3 tracked files differ between A and B')
    await click(rows[1]!.querySelector<HTMLElement>('button')!)
    await settle()
    const diff = part.querySelector<HTMLElement>('[data-testid="session-tree-compare-diff"]')!
    expect(diff.textContent).toBe('--- a/notes.txt\n+++ b/notes.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n')
    expect(diff.querySelector('.dst-ws-add')!.textContent).toBe('+new\n')
  })

  it("a failed restore reads as its code's meaning, with the code, and no stack", async () => {
    const { el, ids, ws } = await mount()
    const group = el.querySelector<HTMLElement>('[data-testid="session-tree-restore-choice"]')!
    await click(group.querySelector('[data-choice="files"]')!)
    await click(rowOf(el, ids.a1))
    await press(treeEl(el), 'Enter')
    ws.failNextRestore({
      code: 'AGENT_BUSY',
      message: 'the agent is running; restore files when it is idle\n    at restoreFiles (workspace.ts:1:1)',
    })
    await click(el.querySelector('li[data-path="notes.txt"] input[data-decision="overwrite"]')!)
    await click(el.querySelector('[data-testid="session-tree-restore-apply"]')!)
    const banner = el.querySelector<HTMLElement>('[data-testid="session-tree-restore-error"]')!
    expect(banner.dataset.code).toBe('AGENT_BUSY')
    expect(banner.textContent).toBe('The agent is running. Restore the files when it is idle. AGENT_BUSY')
    expect(el.querySelector('[data-testid="session-tree-restore"]')!.textContent).not.toContain('at restoreFiles')
  })
})
