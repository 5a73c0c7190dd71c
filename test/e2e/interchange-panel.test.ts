/**
 * The Tree tab's "Import…" and Export menu where a person uses them: the real
 * `dsh web` (stock rc.8, this package from its tarball, the recording fake
 * LLM) in real Chromium.
 *
 * - A Pi session with two branches and a label, written by Pi's own
 *   SessionManager, is picked through the file input; the preview shows what
 *   Pi's file holds (format, version, nodes, branches, labels, compactions)
 *   before anything is written (no session yet); "Create session" creates it,
 *   the sidebar lists it at once by its title in its workspace's group, "Open
 *   it" opens it.
 * - DSH's own views of it at once: the Chat is the path Pi ended on, the
 *   Trajectory has no empty assistant row (the branch change restates, as a
 *   live rewind does), and a prompt there sends exactly that path.
 * - In its Tree tab, a jump to the branch Pi did not end on, then a prompt from
 *   the page's composer: the request at the fake LLM is what Pi's
 *   `buildSessionContext` gives for that branch's leaf, plus the prompt.
 * - Export → Pi session: the downloaded file opens with Pi's
 *   `SessionManager.open`, keeps every entry of the source with the same
 *   children and labels, and Pi resumes on the continued path.
 * - A garbage file shows the service's NOT_A_SESSION and creates no session;
 *   a file above the upload limit is refused before it is read.
 *
 * Screenshots (test/e2e/artifacts/interchange-panel/): the preview in light,
 * dark and at 768 px; docs/import-preview.png is refreshed from the light one
 * only with `UPDATE_DOCS_SCREENSHOT=1`.
 */
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import type { SessionStatus } from '../../src/types.ts'
import { MAX_UPLOAD_BYTES } from '../../src/service/interchange.ts'
import { saveArtifact } from './support/artifacts.ts'
import { history, messageText } from './support/fake-llm.ts'
import { chatTranscript, sameRows, visibleRows, type Row } from './support/chat-page.ts'
import { openTreeTab, TREE_ROWS as ROWS } from './support/tree-tab.ts'
import { until as untilWithin } from './support/until.ts'
import { readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'
import { assistant, piContext, SessionManager, toolResult, user } from '../support/pi.ts'

const TITLE = 'Release planning'
/** The imported session's title: the first words of its first prompt (the Pi file below has no name). */
const PI_TITLE = 'plan the release'
/** The file's hang guard for a wait (not a budget). */
const until = <T>(what: string, probe: Parameters<typeof untilWithin<T>>[1]) => untilWithin(what, probe, 60_000)

const options = {
  name: 'interchange-panel',
  llm: { titleText: TITLE, script: readOrAnswerScript(40) },
  browser: { viewport: { width: 1280, height: 900 }, acceptDownloads: true },
}

describeWeb('Import… and Export in the Tree tab, in Chromium', options, (dsh) => {
  let pi: SessionManager
  let offLeaf: string
  let imported: string

  const sessionIds = async () => (await dsh.api.listSessions()).map((s) => s.sessionId)
  const tree = (agentId: string) => dsh.api.tree(agentId)
  const row = (nodeId: string) => dsh.page.locator(`${ROWS}[data-node-id="${nodeId}"]`)
  const dialog = () => dsh.page.getByTestId('session-tree-import-dialog')
  /** Press Import… and pick `file` in the browser's own file chooser. */
  const pick = async (file: string | { name: string; mimeType: string; buffer: Buffer }) => {
    const [chooser] = await Promise.all([
      dsh.page.waitForEvent('filechooser'),
      dsh.page.getByTestId('session-tree-import').click(),
    ])
    await chooser.setFiles(file)
  }

  beforeAll(async () => {
    const { workspace } = await dsh.api.callOk<{ workspace: { workspaceId: string } }>('workspace.create', {
      path: dsh.work,
    })
    const { sessionId } = await dsh.api.createSession({ workspaceId: workspace.workspaceId })
    await dsh.api.promptAndWait(sessionId, 'hello')

    // The Pi session, by Pi's own API: a tool exchange on one branch, a label at the fork point, Pi ending on the other branch.
    const piDir = path.join(dsh.work, '.pi-sessions')
    fs.mkdirSync(piDir)
    pi = SessionManager.create(dsh.work, piDir)
    pi.appendMessage(user('plan the release'))
    const a1 = pi.appendMessage(assistant('Which version?', { thinking: 'private reasoning, never sent' }))
    pi.appendMessage(user('version 2, and READ the notes'))
    pi.appendMessage(assistant('', { calls: [{ id: 'toolu_notes', name: 'read', args: { file_path: 'notes.txt' } }] }))
    pi.appendMessage(toolResult('toolu_notes', 'read', 'notes: ship on friday'))
    offLeaf = pi.appendMessage(assistant('Version 2 ships on Friday.'))
    pi.appendLabelChange(a1, 'fork point')
    pi.branch(a1)
    pi.appendMessage(user('version 3 instead'))
    pi.appendMessage(assistant('Version 3 needs more time.'))

    await openTreeTab(dsh.page, dsh.url, TITLE)
  }, 600_000)

  it('Import… previews the Pi file (its figures, before anything is written), creates the session on confirm, and opens it', async () => {
    const before = await sessionIds()
    const sidebar = dsh.page.locator('aside, nav, [class*="sidebar" i]').filter({ hasText: 'New Session' }).first()
    const named = () => sidebar.getByText(path.basename(dsh.work), { exact: true }).count()
    const namedBefore = await named()
    await pick(pi.getSessionFile()!)
    const preview = dsh.page.getByTestId('session-tree-import-preview')
    await preview.waitFor({ timeout: 30_000 })
    // The figures are the file's: one node per Pi entry, one branch per leaf, the label set, no compaction.
    const entries = pi.getEntries()
    const parents = new Set(entries.map((e) => e.parentId))
    const leaves = entries.filter((e) => !parents.has(e.id))
    const labelled = entries.filter((e) => pi.getLabel(e.id) !== undefined)
    const figure = async (name: string) => Number(await preview.locator(`[data-figure="${name}"] dd`).textContent())
    expect({
      nodes: await figure('nodes'),
      branches: await figure('branches'),
      labels: await figure('labels'),
      compactions: await figure('compactions'),
    }).toEqual({ nodes: entries.length, branches: leaves.length, labels: labelled.length, compactions: 0 })
    expect(leaves.length).toBe(2)
    expect(await preview.getAttribute('data-format')).toBe('pi')
    expect(await preview.getAttribute('data-version')).toBe('3')
    expect(await preview.textContent()).toContain('Pi session, version 3')
    // Every branch, the one Pi ended on marked; nothing skipped, nothing opaque.
    const branches = preview.locator('.dsx-branches li')
    expect(await branches.count()).toBe(2)
    expect(await preview.locator('.dsx-branches li[data-active]').textContent()).toContain('version 3 instead')
    // (Pi's label entry is the last entry of the other branch: its leaf.)
    expect(await preview.locator('.dsx-branches li:not([data-active])').textContent()).toContain(
      'version 2, and READ the notes',
    )
    expect(await dsh.page.getByTestId('session-tree-import-skipped').count()).toBe(0)
    // Nothing was written by the preview.
    expect(await sessionIds()).toEqual(before)
    // The confirm button has the focus (Enter confirms; Escape would cancel).
    expect(await dsh.page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'session-tree-import-confirm',
    )

    await dsh.shot('preview-light.png')
    await dialog().screenshot({ path: path.join(dsh.artifacts, 'preview-dialog-light.png') })
    await dsh.page.emulateMedia({ colorScheme: 'dark' })
    await until('the host dark theme', () => dsh.page.evaluate(() => document.body.hasAttribute('data-ds-dark-theme')))
    await dsh.shot('preview-dark.png')
    await dsh.page.emulateMedia({ colorScheme: 'light' })
    await dsh.page.setViewportSize({ width: 768, height: 900 })
    await dsh.shot('preview-768.png')
    // At 768 px the dialog fits the panel: nothing runs off to the right.
    const fits = await dialog().evaluate((el) => {
      const box = el.getBoundingClientRect()
      return box.left >= 0 && box.right <= window.innerWidth && el.scrollWidth <= el.clientWidth + 1
    })
    expect(fits).toBe(true)
    await dsh.page.setViewportSize({ width: 1280, height: 900 })
    dsh.toDocs('preview-dialog-light.png', 'import-preview.png')

    await dsh.page.keyboard.press('Enter')
    const done = dsh.page.getByTestId('session-tree-import-done')
    await done.waitFor({ timeout: 60_000 })
    imported = (await done.getAttribute('data-session-id'))!
    expect(new Set(await sessionIds())).toEqual(new Set([...before, imported]))
    // Named and placed at once, before any prompt: the sidebar lists it by its title (Pi's file has no name: the
    // first prompt's words, as DSH's own fallback titles a session) in the group of its workspace (Pi's cwd, a
    // directory of this machine), not as an untitled row under "Ungrouped".
    const workspaceName = path.basename(dsh.work)
    const grouped = async () => {
      const lines = await sidebar.evaluate((el) =>
        (el as HTMLElement).innerText
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean),
      )
      const from = lines.indexOf(workspaceName)
      const to = lines.indexOf('Ungrouped', from)
      return { lines, workspace: from === -1 ? [] : lines.slice(from + 1, to === -1 ? undefined : to) }
    }
    const shown = await until('the imported session by its title in its workspace in the sidebar', async () => {
      const seen = await grouped()
      return seen.workspace.includes(PI_TITLE) ? seen : undefined
    }).catch(async (error) => {
      throw new Error(`${String(error)}\nsidebar: ${JSON.stringify((await grouped()).lines)}`)
    })
    saveArtifact(dsh.artifacts, 'sidebar-after-import.json', shown.lines)
    expect(await named(), 'no untitled row named by its folder').toBe(namedBefore)
    const row = (await dsh.api.listSessions()).find((s) => s.sessionId === imported)
    saveArtifact(dsh.artifacts, 'imported-row.json', row)
    expect((row?.projections as { values?: { title?: unknown } } | undefined)?.values?.title).toBe(PI_TITLE)
    await dsh.shot('import-done.png')
    await dsh.page.getByTestId('session-tree-import-open').click()
    await expect
      .poll(
        async () => {
          await dsh.page
            .getByTestId('session-tree-open')
            .click({ timeout: 2_000 })
            .catch(() => undefined)
          const shown = await dsh.page
            .locator('[data-session-tree] [role="treeitem"]')
            .allTextContents()
            .catch(() => [])
          return shown.some((text) => text.includes('version 3 instead'))
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(true)
    await dsh.shot('imported-open.png')
  }, 600_000)

  it("the imported session looks right in DSH's own views at once: its Chat is exactly the path Pi ended on, its Trajectory has no empty assistant row, and a prompt there sends exactly that path", async () => {
    const from = dsh.pageErrors.length
    // The Chat: the path Pi continues on (the other branch is not on screen).
    await dsh.page.getByRole('tab', { name: 'Chat' }).click()
    const expected = piContext(pi).map((m) => ({ role: m.role, text: m.text }))
    let seen: Row[] = []
    await until('the Chat shows the path Pi ended on', async () => {
      seen = chatTranscript(await visibleRows(dsh.page))
      return sameRows(expected, seen)
    }).catch((error) => {
      throw new Error(`${String(error)}\nexpected ${JSON.stringify(expected)}\nvisible ${JSON.stringify(seen)}`)
    })
    await dsh.shot('imported-chat.png')
    // The Trajectory: the branch change the import wrote restates the fork point's answer, so no row is an empty
    // "ASSISTANT —" (what an empty tombstone answer shows as), as for a live rewind (trajectory-model-move.test.ts).
    await dsh.page.getByRole('tab', { name: 'Trajectory' }).click()
    const rows = dsh.page.locator('tr[data-trajectory-row-key]')
    const trajectory = await until('the trajectory rows, to the last answer', async () => {
      const all = await rows.evaluateAll((els) =>
        els.map((el) => ({
          key: decodeURIComponent(el.getAttribute('data-trajectory-row-key')!).split('\0'),
          text: (el as HTMLElement).innerText.replace(/\s+/g, ' ').trim().slice(0, 120),
        })),
      )
      return all.at(-1)?.text.includes('Version 3 needs more time.') ? all : undefined
    })
    saveArtifact(dsh.artifacts, 'imported-trajectory.json', trajectory)
    await dsh.shot('imported-trajectory.png')
    expect(
      trajectory.filter((r) => r.key[0] === 'assistant' && /ASSISTANT\s*—\s*$/.test(r.text)),
      'empty assistant rows',
    ).toEqual([])
    // Every Pi entry on a path is listed (both branches: the Trajectory is the log).
    for (const text of [
      'plan the release',
      'Which version?',
      'version 2, and READ the notes',
      'Version 2 ships on Friday.',
      'version 3 instead',
      'Version 3 needs more time.',
    ]) {
      expect(
        trajectory.some((r) => r.text.includes(text)),
        text,
      ).toBe(true)
    }
    expect(dsh.pageErrors.slice(from)).toEqual([])
    // A prompt on that path: the request holds exactly Pi's context for its leaf (the restated answer sends the same bytes), then the prompt.
    const before = dsh.llm.chatRequests().length
    await dsh.api.promptAndWait(imported, 'and the date?')
    expect(dsh.llm.chatRequests()).toHaveLength(before + 1)
    const body = dsh.llm.chatRequests().at(-1)!.body
    const asked = history(body)
      .filter((m) => !(m.role === 'user' && m.text.startsWith('Current runtime context')))
      .map((m) => ({ role: m.role, text: m.text.trimEnd() + (m.calls ?? []).map((c) => `call:${c.name}`).join('') }))
    expect(asked).toEqual([...piContext(pi), { role: 'user', text: 'and the date?' }])
    // The fork point's answer as the provider receives it: the message Pi's answer makes, nothing else (no id, no trace of the restatement).
    expect(
      body.messages
        .filter((m) => m.role === 'assistant' && messageText(m) === 'Which version?')
        .map((m) => JSON.stringify(m)),
    ).toEqual([JSON.stringify({ role: 'assistant', content: 'Which version?' })])
    await dsh.page.getByTestId('session-tree-open').click()
    await dsh.page.locator(ROWS).first().waitFor({ timeout: 15_000 })
  }, 600_000)

  it("a jump to the branch Pi did not end on, then a prompt from the composer: the request is Pi's context for that leaf plus the prompt", async () => {
    const target = (await tree(imported)).nodes.find((n) => n.message?.content === 'Version 2 ships on Friday.')!
    await row(target.nodeId).click()
    await dsh.page.getByRole('button', { name: 'Jump here' }).click()
    await until(
      'the cursor on the other branch',
      async () => (await row(target.nodeId).getAttribute('aria-current')) === 'location',
    )
    const before = dsh.llm.chatRequests().length
    const input = dsh.page.getByRole('textbox').last()
    await input.fill('and the changelog?')
    await dsh.page.getByRole('button', { name: 'Send message' }).click()
    await dsh.api.waitTurnEnd(imported, -1)
    await expect.poll(() => dsh.llm.chatRequests().length, { timeout: 30_000 }).toBe(before + 1)
    const asked = history(dsh.llm.chatRequests().at(-1)!.body)
      .filter((m) => !(m.role === 'user' && m.text.startsWith('Current runtime context')))
      .map((m) => ({ role: m.role, text: m.text.trimEnd() + (m.calls ?? []).map((c) => `call:${c.name}`).join('') }))
    expect(asked).toEqual([...piContext(pi, offLeaf), { role: 'user', text: 'and the changelog?' }])
    expect(JSON.stringify(dsh.llm.chatRequests().at(-1)!.body)).not.toContain('private reasoning')
    await until(
      'the cursor on the answer',
      async () =>
        (await dsh.api.remoteOk<SessionStatus>('sessionTree/session', { agentId: imported })).cursor !== target.nodeId,
    )
  }, 600_000)

  it('Export → Pi session downloads a file that Pi opens, with every source entry, the same children and labels, resumed on the continued path', async () => {
    await dsh.page.getByTestId('session-tree-export').click()
    const items = dsh.page.getByRole('menuitem')
    expect(await items.allTextContents()).toEqual([
      expect.stringContaining('Pi session (JSONL)'),
      expect.stringContaining('Claude Code transcript (JSONL)'),
      expect.stringContaining('Markdown transcript'),
      expect.stringContaining('Active path digest (JSON)'),
    ])
    await dsh.shot('export-menu.png')
    // Keyboard: the first item has the focus; Enter picks it.
    expect(await dsh.page.evaluate(() => document.activeElement?.getAttribute('data-format'))).toBe('pi')
    const [download] = await Promise.all([dsh.page.waitForEvent('download'), dsh.page.keyboard.press('Enter')])
    const file = path.join(dsh.artifacts, download.suggestedFilename())
    await download.saveAs(file)
    expect(download.suggestedFilename()).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+Z_.+\.jsonl$/)
    const reopened = SessionManager.open(file)
    const exported = new Map(reopened.getEntries().map((e) => [e.id, e]))
    for (const entry of pi.getEntries()) {
      expect(exported.has(entry.id), `entry ${entry.id} kept`).toBe(true)
      const children = new Set(reopened.getChildren(entry.id).map((c) => c.id))
      for (const child of pi.getChildren(entry.id))
        expect(children.has(child.id), `child ${child.id} of ${entry.id}`).toBe(true)
      expect(reopened.getLabel(entry.id), `label of ${entry.id}`).toBe(pi.getLabel(entry.id))
    }
    // What was added in DSH hangs under the branch the prompt was sent on; Pi resumes there.
    // (DSH's runtime-context snapshot travels as a Pi custom message, as it is in DSH's own history; set aside as everywhere.)
    const context = piContext(reopened).filter((m) => !m.text.startsWith('Current runtime context'))
    expect(context.slice(0, -2)).toEqual([...piContext(pi, offLeaf)])
    expect(context.slice(-2).map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(context.at(-2)!.text).toBe('and the changelog?')
    expect(context.at(-1)!.text).toBe('ANSWER to: and the changelog?')
    await dsh.page
      .getByRole('status')
      .filter({ hasText: download.suggestedFilename() })
      .first()
      .waitFor({ timeout: 10_000 })
  }, 600_000)

  it("a garbage file shows the service's error by its code and creates no session; a file above the upload limit is refused before it is read", async () => {
    const before = await sessionIds()
    await pick({
      name: 'notes.jsonl',
      mimeType: 'application/json',
      buffer: Buffer.from('this is not a session\n{"type":"nothing"}\n'),
    })
    const error = dsh.page.getByTestId('session-tree-import-error')
    await error.waitFor({ timeout: 30_000 })
    await dsh.shot('import-error.png')
    expect(await error.getAttribute('data-code')).toBe('NOT_A_SESSION')
    expect(await error.textContent()).toContain('This file is not a Pi, Claude Code or Codex session.')
    await dsh.page.keyboard.press('Escape')
    await dialog().waitFor({ state: 'detached', timeout: 10_000 })
    expect(await sessionIds()).toEqual(before)

    const big = path.join(dsh.work, 'big.jsonl')
    fs.writeFileSync(big, Buffer.alloc(MAX_UPLOAD_BYTES + 1, 0x20))
    await pick(big)
    await error.waitFor({ timeout: 30_000 })
    expect(await error.getAttribute('data-code')).toBe('TOO_LARGE')
    // The browser's own message (the limit, and the host-side command), not the service's: nothing was sent.
    expect(await error.textContent()).toContain('the upload limit is 64 MiB')
    await dialog().getByRole('button', { name: 'Close' }).click()
    expect(await sessionIds()).toEqual(before)
    expect(dsh.pageErrors).toEqual([])
  }, 600_000)
})
