/**
 * Sessions across sessions where a person sees them: the real `dsh web`
 * (stock rc.8, this package from its tarball, the recording fake LLM) in real
 * Chromium.
 *
 * - In the Tree tab, select an earlier answer and press "Open as new
 *   session": the new session appears in the sidebar and opens; its Tree tab
 *   says "Forked from <source> at <node>"; the source's says "Forked to …".
 * - The new session continues from the page's own composer: the request at
 *   the fake LLM is the path plus the new prompt.
 * - The sidebar's own "Fork session" (the host's fork) shows up in the source's
 *   lineage strip too.
 *
 * Screenshots: test/e2e/artifacts/lineage-panel/ (looked at by a person; the
 * README's image is docs/lineage.png, copied there with `UPDATE_DOCS_SCREENSHOT=1`).
 */
import fs from 'node:fs'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest'
import type { SessionStatus, SessionTreeView } from '../../src/types.ts'
import { REPO_ROOT } from '../../dev/harness.ts'
import { artifactDir, keepOrRemove, requestsText, saveArtifact, saveWebEvidence } from './support/artifacts.ts'
import { ensureDsh, pluginAdd, startWeb, tempDir, type WebProcess } from './support/dsh.ts'
import { type FakeLlm, history, readOrAnswer, startFakeLlm } from './support/fake-llm.ts'
import { packPlugin } from './support/pack.ts'
import { findSessionLogs } from './support/session-log.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]
const HAVE_CHROMIUM = fs.existsSync(CHROMIUM)
const IN_CI = Boolean(process.env.CI)
const TITLE = 'Trip planning'
const ROWS = '[data-session-tree] [role="treeitem"]'

describe.skipIf(!HAVE_CHROMIUM && !IN_CI)('lineage in the Tree tab, in Chromium', () => {
  let failed = false
  let artifacts: string
  let llm: FakeLlm
  let home: string
  let work: string
  let web: WebProcess | undefined
  let browser: Browser | undefined
  let page: Page
  let source: string
  let childId: string
  const pageErrors: string[] = []

  const api = () => {
    if (!web) throw new Error('dsh web is not running')
    return web.api
  }
  const status = (agentId: string) => api().remoteOk<SessionStatus>('sessionTree/session', { agentId })
  const tree = (agentId: string) => api().remoteOk<SessionTreeView>('sessionTree/list', { agentId })
  const row = (nodeId: string) => page.locator(`${ROWS}[data-node-id="${nodeId}"]`)
  const strip = () => page.getByTestId('session-tree-lineage')
  const shot = async (name: string) => page.screenshot({ path: path.join(artifacts, name) })
  const markFailure = () =>
    onTestFailed(() => {
      failed = true
    })

  beforeAll(async () => {
    artifacts = artifactDir('lineage-panel')
    await ensureDsh('stock')
    const plugin = await packPlugin()
    home = tempDir('lineage-panel-home')
    work = tempDir('lineage-panel-work')
    llm = await startFakeLlm({ titleText: TITLE, script: Array.from({ length: 40 }, () => readOrAnswer) })
    await pluginAdd(home, 'web', plugin.tgz)
    web = await startWeb({ home, cwd: work, llmUrl: llm.url })
    const { workspace } = await api().callOk<{ workspace: { workspaceId: string } }>('workspace.create', { path: work })
    ;({ sessionId: source } = await api().createSession({ workspaceId: workspace.workspaceId }))
    await api().promptAndWait(source, 'plan a day in Lisbon')
    await api().promptAndWait(source, 'now make it rainy')
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, colorScheme: 'light', locale: 'en-US' })
    page.on('pageerror', (e) => pageErrors.push(e.message))
  }, 600_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop('SIGTERM', 5_000)
    await llm?.close()
    if (artifacts) {
      saveArtifact(artifacts, 'page-errors.txt', pageErrors.join('\n'))
      if (llm) saveArtifact(artifacts, 'requests.txt', requestsText(llm))
      saveWebEvidence(artifacts, web ? [web] : [])
    }
    keepOrRemove('lineage-panel', failed, { home, work }, artifacts)
  }, 600_000)

  it('Open as new session from an earlier answer: the sidebar gets it, it opens, both Tree tabs show the lineage', async () => {
    markFailure()
    await page.goto(web!.url)
    const notice = page.getByRole('button', { name: 'Continue' })
    await notice.waitFor({ timeout: 30_000 })
    await notice.click()
    await page.getByText(TITLE, { exact: true }).first().click()
    await page.getByTestId('session-tree-open').click()
    await page.locator(ROWS).first().waitFor({ timeout: 15_000 })
    const answer = (await tree(source)).nodes.find((n) => n.message?.content === 'ANSWER to: plan a day in Lisbon')!
    await row(answer.nodeId).click()
    const sessionsBefore = (await api().listSessions()).length
    await page.getByTestId('session-tree-open-new').click()

    await expect.poll(async () => (await status(source)).lineage?.forkedTo.length, { timeout: 30_000 }).toBe(1)
    const link = (await status(source)).lineage!.forkedTo[0]!
    childId = link.session
    expect(link).toMatchObject({ node: answer.nodeId, by: 'tree', exists: true })
    expect((await api().listSessions()).length).toBe(sessionsBefore + 1)
    // The sidebar lists it (in the source's workspace), and the page switched to it.
    const childTitle = `${TITLE} · branch`
    await page.getByText(childTitle, { exact: true }).first().waitFor({ timeout: 15_000 })
    await shot('new-session-opened.png')
    // The page shows the new session's conversation; its Tree tab is one click away, as for any session.
    await page.getByTestId('session-tree-open').click()
    await expect
      .poll(
        () =>
          strip()
            .getAttribute('data-session-id')
            .catch(() => null),
        { timeout: 15_000 },
      )
      .toBe(childId)
    await expect
      .poll(() => strip().textContent(), { timeout: 15_000 })
      .toContain(`Forked from ${TITLE} at ${answer.nodeId}`)
    // The new session's tree is the path: prompt, runtime context, answer.
    const childTree = await tree(childId)
    expect(
      childTree.nodes.map((n) => n.message?.content).filter((t) => !t?.startsWith('Current runtime context')),
    ).toEqual(['plan a day in Lisbon', 'ANSWER to: plan a day in Lisbon'])
    await shot('new-session-forked-from.png')
  }, 600_000)

  it("the new session continues from the page's composer: the request is the path plus the new prompt", async () => {
    markFailure()
    const before = llm.chatRequests().length
    const input = page.getByRole('textbox').last()
    await input.fill('and a museum instead')
    await page.getByRole('button', { name: 'Send message' }).click()
    await api().waitTurnEnd(childId, -1)
    await expect.poll(() => llm.chatRequests().length, { timeout: 30_000 }).toBe(before + 1)
    const asked = history(llm.chatRequests().at(-1)!.body)
      .filter((m) => !m.text.startsWith('Current runtime context'))
      .map((m) => `${m.role}: ${m.text}`)
    expect(asked).toEqual([
      'user: plan a day in Lisbon',
      'assistant: ANSWER to: plan a day in Lisbon',
      'user: and a museum instead',
    ])
    await page.getByText('ANSWER to: and a museum instead').first().waitFor({ timeout: 15_000 })
  }, 600_000)

  it('the source says "Forked to", and the sidebar\'s own Fork session joins its lineage', async () => {
    markFailure()
    const sourceRow = page.getByText(TITLE, { exact: true }).first()
    await sourceRow.hover()
    await page
      .getByRole('button', { name: `Session actions for ${TITLE}` })
      .first()
      .click()
    await page.getByRole('menuitem', { name: 'Fork session' }).click()
    await expect
      .poll(async () => (await status(source)).lineage?.forkedTo.map((l) => l.by), { timeout: 30_000 })
      .toEqual(['tree', 'host'])
    // The sidebar's fork keeps its tree in its own session directory, "forked from" the source.
    const hostChild = (await status(source)).lineage!.forkedTo[1]!.session
    // The child's log and its tree are written as the host fork settles, a moment after its provenance is known: wait for them.
    const childLineage = (): unknown => {
      const childLog = findSessionLogs(home).find((file) => path.basename(path.dirname(file)) === hostChild)
      const file =
        childLog === undefined ? undefined : path.join(path.dirname(childLog), 'session-tree', 'lineage.json')
      return file !== undefined && fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined
    }
    await expect
      .poll(childLineage, { timeout: 30_000 })
      .toMatchObject({ sessionId: hostChild, from: { session: source, by: 'host' } })
    // The host selects its fork when it is made (a moment later): select the source until it stays selected.
    await page.getByText(`${TITLE} (1)`, { exact: true }).first().waitFor({ timeout: 15_000 })
    await expect
      .poll(
        async () => {
          const shown = await strip()
            .getAttribute('data-session-id', { timeout: 2_000 })
            .catch(() => null)
          if (shown === source) return shown
          await page
            .getByText(TITLE, { exact: true })
            .first()
            .click({ timeout: 2_000 })
            .catch(() => undefined)
          await page
            .getByTestId('session-tree-open')
            .click({ timeout: 2_000 })
            .catch(() => undefined)
          return shown
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(source)
    await expect.poll(() => strip().textContent(), { timeout: 15_000 }).toContain('Forked to')
    const text = (await strip().textContent())!
    expect(text).toContain(`${TITLE} · branch`)
    expect(text).toContain(`${TITLE} (1)`)
    await shot('source-forked-to.png')
    await strip().screenshot({ path: path.join(artifacts, 'strip.png') })
    // The README's image is refreshed on request only: a test run never dirties the work tree.
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1')
      fs.copyFileSync(path.join(artifacts, 'source-forked-to.png'), path.join(REPO_ROOT, 'docs', 'lineage.png'))
    expect(pageErrors).toEqual([])
  }, 600_000)
})
