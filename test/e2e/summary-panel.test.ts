/**
 * Branch summaries in the Tree panel, in Debian's Chromium against the real
 * `dsh web` (stock harness, this package from its tarball, the recording fake
 * LLM): a summary carried by a jump shows at the branch head, at the node the
 * branch left from and at the carrying node, with its writer and token cost;
 * "Summarize branch" asks the session's model, shows progress while the
 * model writes (the fake holds its answer until the test releases it, so
 * nothing races), then the result.
 *
 * Evidence of every run: test/e2e/artifacts/summary-panel/ (screenshots).
 */
import fs from 'node:fs'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest'
import type { MoveResult, SessionTreeView, TreeNode } from '../../src/types.ts'
import { artifactDir, keepOrRemove, requestsText, saveArtifact, saveWebEvidence } from './support/artifacts.ts'
import { ensureDsh, pluginAdd, startWeb, tempDir, type WebProcess } from './support/dsh.ts'
import { readOrAnswer, startFakeLlm, type FakeLlm } from './support/fake-llm.ts'
import { packPlugin, type PackedPlugin } from './support/pack.ts'

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
const HAVE_CHROMIUM = fs.existsSync(CHROMIUM) || Boolean(process.env.CI)
const TITLE = 'Summary panel session'
const ROWS = '[data-session-tree] [role="treeitem"]'

describe.skipIf(!HAVE_CHROMIUM)('branch summaries in the Tree panel (Chromium, real dsh web)', () => {
  let failed = false
  let artifacts: string
  let plugin: PackedPlugin
  let llm: FakeLlm
  let home: string
  let work: string
  let web: WebProcess | undefined
  let browser: Browser | undefined
  let page: Page
  let sessionId: string
  const pageErrors: string[] = []

  const api = () => web!.api
  const tree = () => api().remoteOk<SessionTreeView>('sessionTree/list', { agentId: sessionId })
  const nodeWith = async (text: string): Promise<TreeNode> => {
    const found = (await tree()).nodes.find((n) => n.message?.content === text)
    if (!found) throw new Error(`no node with text ${JSON.stringify(text)}`)
    return found
  }
  const row = (nodeId: string) => page.locator(`${ROWS}[data-node-id="${nodeId}"]`)
  const preview = () => page.getByTestId('session-tree-preview')
  const select = async (nodeId: string) => {
    await row(nodeId).click()
    await expect.poll(() => preview().getAttribute('data-node-id')).toBe(nodeId)
  }
  const note = (where: string) => preview().locator(`[data-testid="session-tree-summary"][data-where="${where}"]`)

  beforeAll(async () => {
    artifacts = artifactDir('summary-panel')
    await ensureDsh('stock')
    plugin = await packPlugin()
    home = tempDir('summary-panel-home')
    work = tempDir('summary-panel-work')
    fs.writeFileSync(path.join(work, 'notes.txt'), 'banana\n')
    llm = await startFakeLlm({ titleText: TITLE, script: Array.from({ length: 40 }, () => readOrAnswer) })
    await pluginAdd(home, 'web', plugin.tgz)
    web = await startWeb({ home, cwd: work, llmUrl: llm.url })
    ;({ sessionId } = await api().createSession({ cwd: work }))
    await api().promptAndWait(sessionId, 'first question')
    await api().promptAndWait(sessionId, 'please READ notes.txt')
    await api().promptAndWait(sessionId, 'third question')
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, colorScheme: 'light', locale: 'en-US' })
    page.on('pageerror', (e) => pageErrors.push(e.message))
  }, 600_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop('SIGTERM', 5_000)
    await llm?.close()
    if (artifacts) {
      if (llm) saveArtifact(artifacts, 'requests.txt', requestsText(llm))
      saveWebEvidence(artifacts, web ? [web] : [])
    }
    keepOrRemove('summary-panel', failed, { home, work }, artifacts)
  }, 600_000)

  it('a carried summary shows at the branch head, where the branch left from, and at its own node, with writer and tokens', async () => {
    onTestFailed(() => {
      failed = true
    })
    const a1 = await nodeWith('ANSWER to: first question')
    const a3 = await nodeWith('ANSWER to: third question')
    const moved = await api().remoteOk<MoveResult>('sessionTree/jumpWith', {
      agentId: sessionId,
      nodeId: a1.nodeId,
      options: { summary: { kind: 'summarize', carry: true } },
    })
    const model = llm.chatRequests()[0]!.body.model
    await page.goto(web!.url)
    const notice = page.getByRole('button', { name: 'Continue' })
    await notice.waitFor({ timeout: 30_000 })
    await notice.click()
    const entry = page.getByText(TITLE, { exact: true })
    await entry.waitFor({ timeout: 30_000 }).catch(() => undefined)
    if (!(await entry.isVisible())) await page.getByText('Ungrouped', { exact: true }).click()
    await entry.click()
    await page.getByTestId('session-tree-open').click()
    await row(a3.nodeId).waitFor({ timeout: 15_000 })

    await select(a3.nodeId)
    await note('head').waitFor()
    expect(await note('head').locator('pre').textContent()).toBe(moved.summary!.summary)
    const writer = await note('head').getByTestId('session-tree-summary-writer').textContent()
    expect(writer).toContain(`written by ${moved.summary!.provider} / ${model}`)
    expect(writer).toContain('100 tokens in, 10 out')
    expect(writer).toContain('the model reads it on the new path')
    await page.screenshot({ path: path.join(artifacts, 'summary-at-head.png') })

    await select(a1.nodeId)
    await note('from').waitFor()
    expect(await note('from').locator('.dst-sub').textContent()).toBe('Summary of “main”, which leaves from here')

    await select(moved.summary!.carriedNodeId!)
    await note('carried').waitFor()
    expect(await note('carried').locator('.dst-sub').textContent()).toBe(
      'Summary of “main”, carried into the model’s history',
    )
    await page.screenshot({ path: path.join(artifacts, 'summary-carried.png') })
  }, 600_000)

  it('"Summarize branch" asks the model, shows progress while it writes, then the result', async () => {
    onTestFailed(() => {
      failed = true
    })
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    llm.setSummary(async () => {
      await gate
      return { text: 'MODEL-SUMMARY: written while the panel waited.' }
    })
    const a3 = await nodeWith('ANSWER to: third question')
    await select(a3.nodeId)
    const before = llm.summaryRequests().length
    await preview().getByRole('button', { name: 'Summarize branch' }).click()
    const progress = page.getByTestId('session-tree-summary-progress')
    await progress.waitFor()
    expect(await progress.textContent()).toBe('The session’s model is writing the summary…')
    await page.screenshot({ path: path.join(artifacts, 'summary-progress.png') })
    release()
    await progress.waitFor({ state: 'detached' })
    await expect
      .poll(() => note('head').locator('pre').textContent())
      .toBe('MODEL-SUMMARY: written while the panel waited.')
    expect(await note('head').getByTestId('session-tree-summary-writer').textContent()).toContain(
      '100 tokens in, 10 out',
    )
    expect(llm.summaryRequests()).toHaveLength(before + 1)
    await page.screenshot({ path: path.join(artifacts, 'summary-written.png') })
    expect(pageErrors).toEqual([])
  }, 600_000)
})
