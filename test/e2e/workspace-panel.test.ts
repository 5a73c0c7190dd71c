/**
 * File checkpoints where a person sees them: the Tree tab of the real, pinned
 * `dsh web` (stock rc.8, this package installed from its tarball) in real
 * Chromium, on a temporary git workspace, with the recording fake LLM
 * scripting the harness's own `write`, `edit` and `bash` calls.
 *
 * - the rows that changed files carry a marker with the right count (from
 *   the script, not from our service), and only those rows;
 * - the preview lists what the selected node changed (added/changed/deleted);
 * - "Files at this point" lists the workspace at a node, and a file's content
 *   there is what was on disk then;
 * - Jump with "Both" from the tab: the preview lists exactly the files that
 *   differ on disk from that point, Apply → every file's hash equals its state
 *   there, and the next request at the fake LLM holds the selected path;
 * - Back with "Both" from the toolbar → the files equal the tip again;
 * - a user's own edit is a conflict: Apply stays disabled until it is decided,
 *   "Keep mine" keeps it byte for byte;
 * - at 1440, 1024 and 768 px the panel has no horizontal scrollbar, light and
 *   dark.
 *
 * Judged by the files on disk and the fake LLM's requests. Screenshots:
 * test/e2e/artifacts/workspace-panel/ (looked at by a person); with
 * `UPDATE_DOCS_SCREENSHOT=1` four of them are copied to docs/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { animationsSettled } from './support/settled.ts'
import { beforeAll, expect, it } from 'vitest'
import type { SessionTreeView } from '../../src/types.ts'
import { history, requestEndingWith } from './support/fake-llm.ts'
import { openTreeTab, TREE_ROWS as ROWS, treeTab } from './support/tree-tab.ts'
import { until as waitUntil, type Probe } from './support/until.ts'
import { describeWeb } from './support/web-suite.ts'
import { bash, call, gitInit, hashes, sha, type Files } from './support/workspace-files.ts'

const TITLE = 'Workspace checkpoints'

/** Poll `probe` until it holds; the limit only turns a hang into a failure. */
const until = <T>(what: string, probe: Probe<T>, timeoutMs = 60_000): Promise<T> => waitUntil(what, probe, timeoutMs)

/** The paths whose bytes differ between two states of the workspace (present in one only included). */
function differing(a: Files, b: Files): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((p) => a[p] !== b[p]).sort()
}

const options = {
  name: 'workspace-panel',
  workspace: (work: string) => {
    fs.writeFileSync(path.join(work, 'notes.txt'), 'banana\n')
    fs.writeFileSync(path.join(work, 'gone.txt'), 'to be removed by the shell\n')
    gitInit(work)
  },
  llm: { titleText: TITLE },
  browser: true,
}

describeWeb('file checkpoints in the Tree tab, in Chromium (real dsh web, git workspace)', options, (dsh) => {
  let sessionId: string
  const states: Record<string, Files> = {}
  const texts: Record<string, string> = {}
  dsh.evidence('states.json', states)

  const tree = () => dsh.api.tree(sessionId)
  const nodeWith = (text: string) => dsh.api.nodeWith(sessionId, text)
  const { row, select } = treeTab(() => dsh.page)
  const write = (rel: string, text: string) => fs.writeFileSync(path.join(dsh.work, rel), text)
  const requestFor = (prompt: string) => requestEndingWith(dsh.llm, prompt)
  /** The tool-call nodes of one tool, in order. */
  const calls = (view: SessionTreeView, name: string) =>
    view.nodes.filter(
      (n) => n.type === 'tool_call' && n.content?.some((p) => p.type === 'tool_call' && p.name === name),
    )
  const restoreView = () => dsh.page.getByTestId('session-tree-restore')
  const choose = async (choice: 'conversation' | 'files' | 'both') => {
    await dsh.page.locator(`[data-testid="session-tree-restore-choice"] [data-choice="${choice}"]`).click()
    expect(
      await dsh.page
        .locator(`[data-testid="session-tree-restore-choice"] [data-choice="${choice}"]`)
        .getAttribute('aria-checked'),
    ).toBe('true')
  }
  /** The rows of the open restore preview: path → [action, conflict?]. */
  const planRows = () =>
    restoreView()
      .locator('.dst-restore-rows > li')
      .evaluateAll((els) =>
        els.map((e) => [
          (e as HTMLElement).dataset.path,
          (e as HTMLElement).dataset.action,
          (e as HTMLElement).dataset.conflict ?? null,
        ]),
      )
  const noHorizontalScroll = () =>
    dsh.page.evaluate(() =>
      [...document.querySelectorAll('.dst-root, .dst-tree, .dst-preview, .dst-restore, .dst-ws-at')]
        .map((el) => [el.className, el.scrollWidth, el.clientWidth] as const)
        .filter(([, s, c]) => s > c),
    )

  beforeAll(async () => {
    ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
    dsh.llm.push(
      call('write', { file_path: 'a.txt', content: 'alpha 1\n' }),
      call('read', { file_path: 'notes.txt' }),
      call('edit', { file_path: 'notes.txt', old_string: 'banana', new_string: 'cherry' }),
      bash('printf "shell 1\\n" > shell.txt && rm gone.txt'),
      { text: 'DONE 1' },
    )
    await dsh.api.promptAndWait(sessionId, 'T1: change the files')
    states.t1 = hashes(dsh.work)
    texts.notesT1 = fs.readFileSync(path.join(dsh.work, 'notes.txt'), 'utf8')
    dsh.llm.push(
      call('write', { file_path: 'a.txt', content: 'alpha 2\n' }),
      call('edit', { file_path: 'notes.txt', old_string: 'cherry', new_string: 'date' }),
      bash('printf "more\\n" > more.txt'),
      { text: 'DONE 2' },
    )
    await dsh.api.promptAndWait(sessionId, 'T2: change them again')
    states.t2 = hashes(dsh.work)
    expect(dsh.llm.faults).toEqual([])
  }, 600_000)

  it('marks the rows that changed files with their count; the preview lists what the node changed', async () => {
    await openTreeTab(dsh.page, dsh.url, TITLE)
    const view = await tree()
    // What the script changed, call by call (the read changed nothing).
    const expected = new Map([
      [calls(view, 'write')[0]!.nodeId, 1],
      [calls(view, 'edit')[0]!.nodeId, 1],
      [calls(view, 'bash')[0]!.nodeId, 2],
      [calls(view, 'write')[1]!.nodeId, 1],
      [calls(view, 'edit')[1]!.nodeId, 1],
      [calls(view, 'bash')[1]!.nodeId, 1],
    ])
    await until(
      'the markers',
      async () => (await dsh.page.locator(`${ROWS} [data-type="files"]`).count()) === expected.size,
      30_000,
    )
    const marked = await dsh.page.locator(ROWS).evaluateAll((els) =>
      els.flatMap((e) => {
        const badge = e.querySelector('[data-type="files"]') as HTMLElement | null
        return badge
          ? [[(e as HTMLElement).dataset.nodeId!, Number(badge.dataset.count), badge.textContent!.trim()] as const]
          : []
      }),
    )
    expect(new Map(marked.map(([id, n]) => [id, n]))).toEqual(expected)
    for (const [, n, text] of marked) expect(text).toBe(String(n))
    expect(
      await row(calls(view, 'read')[0]!.nodeId).locator('[data-type="files"]').count(),
      'a read changes nothing',
    ).toBe(0)
    expect(await row(calls(view, 'bash')[0]!.nodeId).locator('[data-type="files"]').getAttribute('title')).toBe(
      'Changed 2 files (checkpointed)',
    )

    const listed = async (nodeId: string) => {
      await select(nodeId)
      const list = dsh.page.getByTestId('session-tree-node-files').locator('.dst-ws-list li')
      await until(`the files of ${nodeId}`, async () => (await list.count()) > 0, 30_000)
      return list.evaluateAll((els) =>
        els.map((e) => [(e as HTMLElement).dataset.path, (e as HTMLElement).dataset.change]),
      )
    }
    expect(await listed(calls(view, 'bash')[0]!.nodeId)).toEqual([
      ['gone.txt', 'deleted'],
      ['shell.txt', 'added'],
    ])
    expect(await listed(calls(view, 'write')[0]!.nodeId)).toEqual([['a.txt', 'added']])
    expect(await listed(calls(view, 'edit')[1]!.nodeId)).toEqual([['notes.txt', 'changed']])
    await dsh.shot('marker-file-list-light.png')
  }, 600_000)

  it('files at this point: the workspace at a node, a file with the content it had there', async () => {
    const done1 = await nodeWith('DONE 1')
    await select(done1.nodeId)
    await dsh.page.getByTestId('session-tree-files-at-toggle').click()
    const browserEl = dsh.page.getByTestId('session-tree-files-at')
    await browserEl.locator('.dst-ws-files button').first().waitFor({ timeout: 30_000 })
    const files = await browserEl
      .locator('.dst-ws-files button')
      .evaluateAll((els) => els.map((e) => [(e as HTMLElement).dataset.path, e.textContent]))
    // At DONE 1: a.txt, notes.txt, shell.txt existed (gone.txt was removed); more.txt came later.
    expect(files.map(([p]) => p)).toEqual(['a.txt', 'more.txt', 'notes.txt', 'shell.txt'])
    expect(files.find(([p]) => p === 'more.txt')![1]).toContain('did not exist here')
    expect(files.find(([p]) => p === 'notes.txt')![1]).toContain('differs now')
    expect(files.find(([p]) => p === 'shell.txt')![1]).not.toContain('differs now')
    await browserEl.locator('.dst-ws-files button[data-path="notes.txt"]').click()
    const text = dsh.page.getByTestId('session-tree-file-text')
    await text.waitFor({ timeout: 30_000 })
    expect(await text.textContent()).toBe(texts.notesT1)
    expect(texts.notesT1).toBe('cherry\n')
    await dsh.shot('files-at-point-light.png')
  }, 600_000)

  it('Jump with Both from the tab: the preview lists exactly the files that differ; Apply restores every file; the next request holds the path', async () => {
    const done1 = await nodeWith('DONE 1')
    await select(done1.nodeId)
    await choose('both')
    await dsh.page.getByRole('button', { name: 'Jump here' }).click()
    await restoreView().locator('.dst-restore-rows > li').first().waitFor({ timeout: 30_000 })
    const now = hashes(dsh.work)
    const actions = (await planRows()).map(([p, action]) => [p, action])
    expect(actions.map(([p]) => p)).toEqual(differing(now, states.t1!))
    expect(Object.fromEntries(actions)).toEqual({ 'a.txt': 'update', 'more.txt': 'delete', 'notes.txt': 'update' })
    expect(await restoreView().getByTestId('session-tree-restore-stat').textContent()).toBe('3 files: +2 −3')
    // A per-file diff on demand.
    await restoreView().locator('li[data-path="notes.txt"] button', { hasText: 'Diff' }).click()
    expect(await restoreView().getByTestId('session-tree-restore-diff').textContent()).toBe(
      '--- a/notes.txt\n+++ b/notes.txt\n@@ -1,1 +1,1 @@\n-date\n+cherry\n',
    )
    expect(hashes(dsh.work), 'nothing is written before Apply').toEqual(now)
    const before = dsh.llm.chatRequests().length
    await restoreView().getByTestId('session-tree-restore-apply').click()
    await restoreView().getByTestId('session-tree-restore-result').waitFor({ timeout: 30_000 })
    expect(await restoreView().getByTestId('session-tree-restore-result').textContent()).toContain(
      '2 changed, 1 deleted',
    )
    expect(hashes(dsh.work)).toEqual(states.t1)
    expect(dsh.llm.chatRequests(), 'a restore makes no model call').toHaveLength(before)
    await until(
      'the cursor row to move',
      async () => (await row(done1.nodeId).getAttribute('aria-current')) === 'location',
    )
    await restoreView().getByTestId('session-tree-restore-close').click()
    // The next request: the path to DONE 1, one note about the files, the prompt.
    dsh.llm.push({ text: 'DONE 3' })
    await dsh.api.promptAndWait(sessionId, 'T3: after the jump')
    const sent = history(requestFor('T3: after the jump'))
    const pathToDone1 = history(requestFor('T2: change them again')).slice(0, -1)
    expect(pathToDone1.at(-1)).toEqual({ role: 'assistant', text: 'DONE 1' })
    expect(sent).toEqual([
      ...pathToDone1,
      {
        role: 'user',
        text: `[session-tree] The workspace files were restored to their state at ${done1.nodeId}. Changed since you last saw them: a.txt, more.txt, notes.txt. Read a file again before you edit or overwrite it.`,
      },
      { role: 'user', text: 'T3: after the jump' },
    ])
    expect(hashes(dsh.work)).toEqual(states.t1)
  }, 600_000)

  it('Back with Both from the toolbar: the files equal the tip again', async () => {
    const done2 = await nodeWith('DONE 2')
    await dsh.page.getByRole('button', { name: 'Back' }).click()
    await restoreView().getByTestId('session-tree-restore-apply').waitFor({ timeout: 30_000 })
    await until('the plan', async () => (await restoreView().locator('.dst-restore-rows > li').count()) > 0, 30_000)
    expect((await planRows()).map(([p]) => p)).toEqual(differing(hashes(dsh.work), states.t2!))
    await restoreView().getByTestId('session-tree-restore-apply').click()
    await restoreView().getByTestId('session-tree-restore-result').waitFor({ timeout: 30_000 })
    expect(hashes(dsh.work)).toEqual(states.t2)
    await until(
      'the cursor back at DONE 2',
      async () => (await row(done2.nodeId).getAttribute('aria-current')) === 'location',
    )
    await restoreView().getByTestId('session-tree-restore-close').click()
  }, 600_000)

  it('a user edit is a conflict: Apply waits for a decision, "Keep mine" keeps it byte for byte', async () => {
    const done1 = await nodeWith('DONE 1')
    const mine = 'my own edit — 我的\r\n'
    write('notes.txt', mine)
    await select(done1.nodeId)
    await dsh.page.getByRole('button', { name: 'Jump here' }).click()
    await until('the plan', async () => (await restoreView().locator('.dst-restore-rows > li').count()) > 0, 30_000)
    expect(await planRows()).toEqual([
      ['a.txt', 'update', null],
      ['more.txt', 'delete', null],
      ['notes.txt', 'update', 'changed-outside'],
    ])
    const apply = restoreView().getByTestId('session-tree-restore-apply')
    expect(await apply.isDisabled(), 'Apply waits for the decision').toBe(true)
    expect(await restoreView().getByTestId('session-tree-restore-undecided').textContent()).toBe(
      '1 conflict left to decide',
    )
    await dsh.shot('restore-conflict-light.png')
    await dsh.page.emulateMedia({ colorScheme: 'dark' })
    await until('the host dark theme', () => dsh.page.evaluate(() => document.body.hasAttribute('data-ds-dark-theme')))
    await dsh.shot('restore-conflict-dark.png')
    await dsh.page.emulateMedia({ colorScheme: 'light' })
    for (const [width, height] of [
      [1024, 700],
      [768, 900],
    ] as const) {
      await dsh.page.setViewportSize({ width, height })
      expect(await noHorizontalScroll(), `no horizontal scroll at ${width}px`).toEqual([])
      await dsh.shot(`restore-conflict-${width}.png`)
    }
    await dsh.page.setViewportSize({ width: 1440, height: 900 })
    expect(await noHorizontalScroll(), 'no horizontal scroll at 1440px').toEqual([])
    // Keyboard: the decision is a radio; Space picks it.
    await restoreView().locator('li[data-path="notes.txt"] input[data-decision="keep"]').focus()
    await dsh.page.keyboard.press('Space')
    expect(await apply.isDisabled()).toBe(false)
    await apply.click()
    await restoreView().getByTestId('session-tree-restore-result').waitFor({ timeout: 30_000 })
    expect(await restoreView().getByTestId('session-tree-restore-kept').textContent()).toContain('notes.txt')
    expect(fs.readFileSync(path.join(dsh.work, 'notes.txt'), 'utf8')).toBe(mine)
    expect(hashes(dsh.work)).toEqual({ ...states.t1, 'notes.txt': sha(Buffer.from(mine)) })
    await restoreView().getByTestId('session-tree-restore-close').click()
  }, 600_000)

  it("Compare lists exactly the files whose hashes differ between two nodes, each file's diff on demand (light and dark)", async () => {
    const done1 = await nodeWith('DONE 1')
    const done2 = await nodeWith('DONE 2')
    // The conflict test before moved the conversation to DONE 1: A is the selected DONE 2, B the cursor.
    expect((await tree()).cursor).toBe(done1.nodeId)
    await dsh.page.keyboard.press('Escape')
    await select(done2.nodeId)
    await dsh.page.locator('[data-compare-open]').click()
    const part = dsh.page.getByTestId('session-tree-compare-files')
    await part.locator('li[data-path]').first().waitFor({ timeout: 30_000 })
    const listed = await part
      .locator('li[data-path]')
      .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.path))
    expect(listed).toEqual(differing(states.t2!, states.t1!))
    expect(await part.textContent()).toContain(`${listed.length} of `)
    await part.locator('li[data-path="notes.txt"] button').click()
    const diff = part.getByTestId('session-tree-compare-diff')
    await diff.waitFor({ timeout: 30_000 })
    expect(await diff.textContent()).toBe(
      `--- a/notes.txt\n+++ b/notes.txt\n@@ -1,1 +1,1 @@\n-date\n+${texts.notesT1!.trim()}\n`,
    )
    await dsh.page.setViewportSize({ width: 1024, height: 900 })
    for (const scheme of ['light', 'dark'] as const) {
      await dsh.page.emulateMedia({ colorScheme: scheme })
      await until(`the host ${scheme} theme`, () =>
        dsh.page.evaluate((dark) => document.body.hasAttribute('data-ds-dark-theme') === dark, scheme === 'dark'),
      )
      await animationsSettled(dsh.page)
      await part.scrollIntoViewIfNeeded()
      await dsh.shot(`compare-files-${scheme}.png`)
    }
    await dsh.page.emulateMedia({ colorScheme: 'light' })
    await dsh.page.setViewportSize({ width: 1440, height: 900 })
    await dsh.page.locator('.dst-cmp-close').click()
    expect(dsh.pageErrors).toEqual([])
  }, 600_000)

  it('fits at 1440, 1024 and 768 px with the file list open, light and dark', async () => {
    const view = await tree()
    await dsh.page.keyboard.press('Escape')
    await select(calls(view, 'bash')[0]!.nodeId)
    await dsh.page.getByTestId('session-tree-files-at-toggle').click()
    await dsh.page
      .getByTestId('session-tree-files-at')
      .locator('.dst-ws-files button')
      .first()
      .waitFor({ timeout: 30_000 })
    for (const scheme of ['light', 'dark'] as const) {
      await dsh.page.emulateMedia({ colorScheme: scheme })
      await until(`the host ${scheme} theme`, () =>
        dsh.page.evaluate((dark) => document.body.hasAttribute('data-ds-dark-theme') === dark, scheme === 'dark'),
      )
      for (const [width, height] of [
        [1440, 900],
        [1024, 700],
        [768, 900],
      ] as const) {
        await dsh.page.setViewportSize({ width, height })
        // The host's sidebar animates back in after 768 px: shoot once every animation has finished.
        await animationsSettled(dsh.page)
        expect(await noHorizontalScroll(), `no horizontal scroll at ${width}px (${scheme})`).toEqual([])
        await dsh.shot(`marker-file-list-${scheme}-${width}.png`)
      }
    }
    await dsh.page.emulateMedia({ colorScheme: 'light' })
    await dsh.page.setViewportSize({ width: 1440, height: 900 })
    expect(dsh.pageErrors).toEqual([])
    dsh.toDocs('restore-conflict-light.png', 'workspace-restore.png')
    dsh.toDocs('marker-file-list-dark-1440.png', 'workspace-files.png')
    dsh.toDocs('compare-files-light.png', 'workspace-compare.png')
    dsh.toDocs('compare-files-dark.png', 'workspace-compare-dark.png')
  }, 600_000)
})
