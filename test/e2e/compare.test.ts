/**
 * Compare in a real browser: Debian `chromium` (playwright-core) against the
 * real `dsh web` (pinned stock harness) with this package installed from its
 * tarball and the recording fake LLM running the demo's scripted model.
 *
 * Two branches are made the way a person makes them (a fork at the first
 * answer, then a prompt on the new branch); the Tree tab's "Compare…" opens
 * the compare view, the user picks the two branch heads, and the test checks
 * what the page shows — the divergence flagged and focused, removed words
 * struck on the A side and added ones on the B side, keyboard moves, Esc back
 * to the tree — against the service's own answer over the real gateway.
 * "Compare with…" on a row picks a second node in the tree (Esc cancels).
 * Screenshots at 1440, 1024 and 768 px go to test/e2e/artifacts/compare/
 * (docs/compare.png and docs/compare-768.png only with UPDATE_DOCS_SCREENSHOT=1).
 */
import fs from 'node:fs'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { animationsSettled } from './support/settled.ts'
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest'
import type { CompareResult, SessionTreeView, TreeNode } from '../../src/types.ts'
import { DEMO_FORK_PROMPT, DEMO_NOTES, DEMO_PROMPTS, DEMO_TITLE, demoModel } from '../../dev/demo-model.ts'
import { artifactDir, saveArtifact, requestsText, saveWebEvidence, keepOrRemove } from './support/artifacts.ts'
import { ensureDsh, pluginAdd, startWeb, tempDir, type WebProcess } from './support/dsh.ts'
import { type FakeLlm, startFakeLlm } from './support/fake-llm.ts'
import { packPlugin } from './support/pack.ts'

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
const IN_CI = Boolean(process.env.CI)
const HAVE_CHROMIUM = fs.existsSync(CHROMIUM)
const ROWS = '[data-session-tree] [role="treeitem"]'
const CMP_ROWS = '[data-compare-view] [role="option"]'

if (!HAVE_CHROMIUM && !IN_CI) console.warn(`compare e2e skipped: ${CHROMIUM} is missing`)

describe.skipIf(!HAVE_CHROMIUM && !IN_CI)('compare two branches in a real dsh web, in Chromium', () => {
  let failed = false
  let artifacts: string
  let llm: FakeLlm
  let home: string
  let work: string
  let web: WebProcess | undefined
  let browser: Browser | undefined
  let page: Page
  let sessionId: string
  const console_: string[] = []
  const pageErrors: string[] = []
  const markFailure = () =>
    onTestFailed(() => {
      failed = true
    })
  const api = () => {
    if (!web) throw new Error('dsh web is not running (an earlier step failed)')
    return web.api
  }
  const nodeWith = async (text: string): Promise<TreeNode> => {
    const found = (await api().remoteOk<SessionTreeView>('sessionTree/list', { agentId: sessionId })).nodes.find((n) =>
      n.message?.content.startsWith(text),
    )
    if (!found) throw new Error(`no node with text ${JSON.stringify(text)}`)
    return found
  }
  const shot = async (name: string) => {
    await page.screenshot({ path: path.join(artifacts, name) })
  }

  beforeAll(async () => {
    artifacts = artifactDir('compare')
    if (!HAVE_CHROMIUM) throw new Error(`${CHROMIUM} is missing: the browser test cannot run.`)
    await ensureDsh('stock')
    const plugin = await packPlugin()
    home = tempDir('compare-home')
    work = tempDir('compare-work')
    fs.writeFileSync(path.join(work, 'notes.txt'), DEMO_NOTES)
    llm = await startFakeLlm({ titleText: DEMO_TITLE, script: Array.from({ length: 20 }, () => demoModel) })
    await pluginAdd(home, 'web', plugin.tgz)
    web = await startWeb({ home, cwd: work, llmUrl: llm.url })
    ;({ sessionId } = await api().createSession({ cwd: work }))
    for (const prompt of DEMO_PROMPTS) await api().promptAndWait(sessionId, prompt)
    // The second branch, as the panel's fork makes it: parked at the first answer, then a prompt on it.
    const day1 = await nodeWith('Day 1:')
    await api().remoteOk('sessionTree/fork', { agentId: sessionId, nodeId: day1.nodeId, branch: 'porto' })
    await api().promptAndWait(sessionId, DEMO_FORK_PROMPT)
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, colorScheme: 'light', locale: 'en-US' })
    page.on('console', (m) => console_.push(`${m.type()}: ${m.text()}`))
    page.on('pageerror', (e) => pageErrors.push(e.message))
  }, 600_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop('SIGTERM', 5_000)
    await llm?.close()
    if (artifacts) {
      saveArtifact(artifacts, 'console.log', [...console_, ...pageErrors.map((e) => `pageerror: ${e}`)].join('\n'))
      if (llm) saveArtifact(artifacts, 'requests.txt', requestsText(llm))
      saveWebEvidence(artifacts, web ? [web] : [])
    }
    keepOrRemove('compare', failed, { home, work }, artifacts)
  }, 600_000)

  it('the service compares the two branch heads over the real gateway', async () => {
    markFailure()
    const food = await nodeWith('Food tour:')
    const porto = await nodeWith('Porto instead:')
    const day1 = await nodeWith('Day 1:')
    const result = await api().remoteOk<CompareResult>('sessionTree/compare', {
      agentId: sessionId,
      a: food.nodeId,
      b: porto.nodeId,
    })
    expect(result.ancestor).toBe(day1.nodeId)
    expect(result.b.path.at(-1)).toBe(porto.nodeId)
    const first = result.rows[0]!
    expect(first.kind).toBe('pair')
    expect(first.kind === 'pair' && first.diff.text).toMatchObject({ kind: 'words' })
    const bad = await api().remote('sessionTree/compare', { agentId: sessionId, a: food.nodeId, b: 'e99999' })
    expect(JSON.stringify(bad)).toContain('NODE_NOT_FOUND')
  }, 600_000)

  it('Compare… opens the view; picking the two branch heads shows them side by side, the divergence focused', async () => {
    markFailure()
    await page.goto(web!.url)
    const notice = page.getByRole('button', { name: 'Continue' })
    await notice.waitFor({ timeout: 30_000 })
    await notice.click()
    const entry = page.getByText(DEMO_TITLE, { exact: true })
    if (!(await entry.isVisible())) await page.getByText('Ungrouped', { exact: true }).click()
    await entry.click()
    await page.getByTestId('session-tree-open').click()
    await page.locator(ROWS).first().waitFor({ timeout: 15_000 })
    await page.getByRole('button', { name: '⇆ Compare…' }).click()
    const view = page.locator('[data-compare-view]')
    await view.waitFor()
    const [a, b] = [view.locator('select').nth(0), view.locator('select').nth(1)]
    await a.selectOption('branch:main')
    await b.selectOption('branch:porto')
    const food = await nodeWith('Food tour:')
    const porto = await nodeWith('Porto instead:')
    const day1 = await nodeWith('Day 1:')
    await expect
      .poll(() => view.locator('.dst-cmp-summary').textContent(), { timeout: 15_000 })
      .toContain(`They part after ${day1.nodeId}`)
    await expect.poll(() => view.locator('.dst-cmp-cols').textContent()).toContain(`A ${food.nodeId}`)
    expect(await view.locator('.dst-cmp-cols').textContent()).toContain(`B ${porto.nodeId}`)
    // The divergence is the first row: the two prompts, removed words struck on A, added ones on B.
    const divergence = page.locator(`${CMP_ROWS}[data-divergence]`)
    await divergence.waitFor()
    expect(await divergence.getAttribute('aria-selected')).toBe('true')
    expect(await divergence.getAttribute('data-kind')).toBe('changed')
    const removed = await divergence.locator('del').allTextContents()
    const added = await divergence.locator('ins').allTextContents()
    expect(removed.join(' ')).toContain('notes')
    expect(added.join(' ')).toContain('Porto')
    // Side A holds the prompt of main, side B the prompt of porto (common and marked words joined).
    const cells = divergence.locator('.dst-cmp-cell')
    expect(await cells.nth(0).locator('.dst-cmp-line').textContent()).toBe(DEMO_PROMPTS[1])
    expect(await cells.nth(1).locator('.dst-cmp-line').textContent()).toBe(DEMO_FORK_PROMPT)
    // Rows only A has are marked as such on the B side.
    const onlyA = page.locator(`${CMP_ROWS}[data-kind="only_a"]`)
    expect(await onlyA.count()).toBeGreaterThan(0)
    await shot('compare-1440.png')
    await page.setViewportSize({ width: 1024, height: 700 })
    await shot('compare-1024.png')
    await page.setViewportSize({ width: 1440, height: 900 })
  }, 600_000)

  it('is keyboard-usable: ↓, End, n/p between changes, Esc back to the tree', async () => {
    markFailure()
    const list = page.locator('[data-compare-view] [role="listbox"]')
    await expect.poll(() => list.evaluate((el) => el === document.activeElement)).toBe(true)
    const focused = () => page.locator(`${CMP_ROWS}[aria-selected="true"]`).getAttribute('id')
    expect(await focused()).toBe('dst-cmp-row-0')
    await page.keyboard.press('ArrowDown')
    expect(await focused()).toBe('dst-cmp-row-1')
    await page.keyboard.press('End')
    const count = await page.locator(CMP_ROWS).count()
    expect(await focused()).toBe(`dst-cmp-row-${count - 1}`)
    await page.keyboard.press('Home')
    expect(await focused()).toBe('dst-cmp-row-0')
    await page.keyboard.press('n')
    expect(await focused()).not.toBe('dst-cmp-row-0')
    // The detail pane shows the focused row in full.
    expect(await page.locator('.dst-cmp-detail').textContent()).not.toBe('')
    await page.keyboard.press('Escape')
    await page.locator(ROWS).first().waitFor()
    expect(await page.locator('[data-compare-view]').count()).toBe(0)
    // The toolbar with its Compare… button at the narrower width.
    await page.setViewportSize({ width: 1024, height: 700 })
    await expect.poll(() => page.getByRole('button', { name: '⇆ Compare…' }).isVisible()).toBe(true)
    await shot('tree-1024.png')
    if (process.env.UPDATE_DOCS_SCREENSHOT)
      fs.copyFileSync(
        path.join(artifacts, 'compare-1440.png'),
        path.join(import.meta.dirname, '..', '..', 'docs', 'compare.png'),
      )
    expect(pageErrors).toEqual([])
  }, 600_000)

  it('"Compare with…" on any row: pick a second node in the tree, the view opens on the two; at 768 px too', async () => {
    markFailure()
    await page.setViewportSize({ width: 1440, height: 900 })
    const food = await nodeWith('Food tour:')
    const porto = await nodeWith('Porto instead:')
    const day1 = await nodeWith('Day 1:')
    const row = (id: string) => page.locator(`${ROWS}[data-node-id="${id}"]`)
    await row(food.nodeId).click()
    const preview = page.getByTestId('session-tree-preview')
    await expect.poll(() => preview.getAttribute('data-node-id')).toBe(food.nodeId)
    await preview.getByRole('button', { name: '⇆ Compare with…' }).click()
    const banner = page.getByTestId('session-tree-compare-pick')
    await banner.waitFor()
    expect(await banner.textContent()).toContain(`Compare ${food.nodeId} with: click a node in the tree`)
    // Esc cancels the pick; the tree is as it was.
    await page.locator('[data-session-tree] [role="tree"]').focus()
    await page.keyboard.press('Escape')
    await banner.waitFor({ state: 'detached' })
    await preview.getByRole('button', { name: '⇆ Compare with…' }).click()
    await banner.waitFor()
    // Clicking the node it started from picks nothing; another row does.
    await row(food.nodeId).click()
    expect(await page.locator('[data-compare-view]').count()).toBe(0)
    await row(porto.nodeId).click()
    const view = page.locator('[data-compare-view]')
    await view.waitFor()
    await expect
      .poll(() => view.locator('.dst-cmp-summary').textContent(), { timeout: 15_000 })
      .toContain(`They part after ${day1.nodeId}`)
    expect(await view.locator('.dst-cmp-cols').textContent()).toContain(`A ${food.nodeId}`)
    expect(await view.locator('.dst-cmp-cols').textContent()).toContain(`B ${porto.nodeId}`)
    expect(await view.locator('select').nth(1).locator('option:checked').textContent()).toBe(
      `picked node ${porto.nodeId}`,
    )
    await page.locator(`${CMP_ROWS}[data-divergence]`).waitFor()
    await page.setViewportSize({ width: 768, height: 900 })
    // The host's sidebar slides away below 1024 px: measure and shoot once its animation is over.
    await animationsSettled(page)
    // Nothing sticks out sideways at 768 px: the view fits the page.
    const overflow = await view.evaluate((el) => el.scrollWidth - el.clientWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    await shot('compare-768.png')
    if (process.env.UPDATE_DOCS_SCREENSHOT)
      fs.copyFileSync(
        path.join(artifacts, 'compare-768.png'),
        path.join(import.meta.dirname, '..', '..', 'docs', 'compare-768.png'),
      )
    await page.keyboard.press('Escape')
    await page.locator(ROWS).first().waitFor()
    expect(await page.getByTestId('session-tree-compare-pick').count()).toBe(0)
    expect(pageErrors).toEqual([])
  }, 600_000)
})
