/**
 * The summary choice of the Tree tab's Jump and Fork, in Debian's Chromium
 * against the real `dsh web` (stock harness, this package from its tarball,
 * the recording fake LLM, which answers the summary side call too):
 *   - "Summarize" on a Jump: the panel shows progress while the session's
 *     model writes (the fake holds its answer until the test releases it, so
 *     nothing races), then the written summary; the next prompt's request
 *     holds it exactly once;
 *   - the default "No summary" on a Jump: no side call, and the next request
 *     holds no summary;
 *   - "Summarize with my instructions" on a Fork: the instructions reach the
 *     side call, and the next request on the new branch holds the summary once.
 * Judged at the fake LLM's recorded requests, not by reading our own state.
 *
 * Evidence of every run: test/e2e/artifacts/summary-choice/ (screenshots).
 */
import fs from 'node:fs'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest'
import type { SessionTreeView, TreeNode } from '../../src/types.ts'
import { CARRIED_PREFIX } from '../../src/harness/carried-summary.ts'
import { artifactDir, keepOrRemove, requestsText, saveArtifact, saveWebEvidence } from './support/artifacts.ts'
import { ensureDsh, pluginAdd, startWeb, tempDir, type WebProcess } from './support/dsh.ts'
import {
  history,
  messageText,
  readOrAnswer,
  startFakeLlm,
  type ChatRequestBody,
  type FakeLlm,
} from './support/fake-llm.ts'
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
const TITLE = 'Summary choice session'
const ROWS = '[data-session-tree] [role="treeitem"]'
const FIRST = 'MODEL-SUMMARY-ONE: the branch read notes.txt and found banana.'
const SECOND = 'MODEL-SUMMARY-TWO: the files were notes.txt.'

/** How many messages of a request hold `text`. */
const holding = (body: ChatRequestBody, text: string): number =>
  body.messages.filter((m) => messageText(m).includes(text)).length
const anySummary = (body: ChatRequestBody): number =>
  body.messages.filter((m) => messageText(m).includes('MODEL-SUMMARY')).length

describe.skipIf(!HAVE_CHROMIUM)('the summary choice of Jump and Fork in the Tree tab (Chromium, real dsh web)', () => {
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
  const lastChat = () => llm.chatRequests().at(-1)!.body
  const row = (nodeId: string) => page.locator(`${ROWS}[data-node-id="${nodeId}"]`)
  const preview = () => page.getByTestId('session-tree-preview')
  const choice = () => preview().getByTestId('session-tree-summary-choice')
  const select = async (nodeId: string) => {
    await row(nodeId).click()
    await expect.poll(() => preview().getAttribute('data-node-id')).toBe(nodeId)
  }
  /** A summary answer held until the test releases it. */
  const gated = (text: string) => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    llm.setSummary(async () => {
      await gate
      return { text }
    })
    return release
  }

  beforeAll(async () => {
    artifacts = artifactDir('summary-choice')
    await ensureDsh('stock')
    plugin = await packPlugin()
    home = tempDir('summary-choice-home')
    work = tempDir('summary-choice-work')
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
    await page.goto(web.url)
    const notice = page.getByRole('button', { name: 'Continue' })
    await notice.waitFor({ timeout: 30_000 })
    await notice.click()
    const entry = page.getByText(TITLE, { exact: true })
    await entry.waitFor({ timeout: 30_000 }).catch(() => undefined)
    if (!(await entry.isVisible())) await page.getByText('Ungrouped', { exact: true }).click()
    await entry.click()
    await page.getByTestId('session-tree-open').click()
  }, 600_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop('SIGTERM', 5_000)
    await llm?.close()
    if (artifacts) {
      if (llm) saveArtifact(artifacts, 'requests.txt', requestsText(llm))
      saveWebEvidence(artifacts, web ? [web] : [])
    }
    keepOrRemove('summary-choice', failed, { home, work }, artifacts)
  }, 600_000)

  it('"Summarize" on a Jump: progress while the model writes, the summary shown, and the next request holds it exactly once', async () => {
    onTestFailed(() => {
      failed = true
    })
    const a1 = await nodeWith('ANSWER to: first question')
    await row(a1.nodeId).waitFor({ timeout: 15_000 })
    // The cursor's own node leaves nothing behind: no choice there.
    const tip = (await tree()).cursor!
    await select(tip)
    expect(await choice().count()).toBe(0)

    await select(a1.nodeId)
    await choice().waitFor()
    expect(await choice().getByRole('radio', { name: 'No summary' }).isChecked()).toBe(true)
    await choice().getByRole('radio', { name: 'Summarize', exact: true }).check()
    const release = gated(FIRST)
    const summariesBefore = llm.summaryRequests().length
    const chatsBefore = llm.chatRequests().length
    await preview().getByRole('button', { name: 'Jump here' }).click()
    const progress = page.getByTestId('session-tree-summary-progress')
    await progress.waitFor()
    expect(await progress.textContent()).toBe('The session’s model is writing the summary…')
    await page.screenshot({ path: path.join(artifacts, 'jump-summary-progress.png') })
    release()
    await progress.waitFor({ state: 'detached' })
    const written = page.getByTestId('session-tree-summary-written')
    await written.waitFor()
    expect(await written.locator('pre').textContent()).toBe(FIRST)
    expect(await written.getByTestId('session-tree-summary-written-by').textContent()).toContain(
      '100 tokens in, 10 out',
    )
    expect(await written.getByTestId('session-tree-summary-written-title').textContent()).toContain(
      'carried into the new path',
    )
    // The selection followed the cursor to the carrying node, which shows the summary too.
    const carriedNode = (await tree()).cursor!
    await expect.poll(() => preview().getAttribute('data-node-id')).toBe(carriedNode)
    expect(
      await preview().locator('[data-testid="session-tree-summary"][data-where="carried"] pre').textContent(),
    ).toBe(FIRST)
    await page.screenshot({ path: path.join(artifacts, 'jump-summary-written.png') })
    expect(llm.summaryRequests()).toHaveLength(summariesBefore + 1)
    expect(llm.chatRequests(), 'the side call is not a chat step').toHaveLength(chatsBefore)
    // It summarized what the jump left: the second and third turns.
    const asked = messageText(llm.summaryRequests().at(-1)!.body.messages.at(-1)!)
    expect(asked).toContain('please READ notes.txt')
    expect(asked).not.toContain('The user asks')

    await api().promptAndWait(sessionId, 'after the summarized jump')
    expect(holding(lastChat(), FIRST)).toBe(1)
    expect(
      history(lastChat())
        .map((m) => m.text)
        .slice(-3),
    ).toEqual(['ANSWER to: first question', `${CARRIED_PREFIX}\n\n${FIRST}`, 'after the summarized jump'])
    expect(pageErrors).toEqual([])
  }, 600_000)

  it('the default "No summary" on a Jump: no side call, and the next request holds no summary', async () => {
    onTestFailed(() => {
      failed = true
    })
    const a3 = await nodeWith('ANSWER to: third question')
    await row(a3.nodeId).waitFor({ timeout: 15_000 })
    await select(a3.nodeId)
    await choice().waitFor()
    // A move that used a summary resets the choice to the default.
    expect(await choice().getByRole('radio', { name: 'No summary' }).isChecked()).toBe(true)
    const summariesBefore = llm.summaryRequests().length
    await preview().getByRole('button', { name: 'Jump here' }).click()
    await expect.poll(async () => (await tree()).cursor).toBe(a3.nodeId)
    expect(await page.getByTestId('session-tree-summary-written').count()).toBe(0)
    await api().promptAndWait(sessionId, 'after the plain jump')
    expect(llm.summaryRequests()).toHaveLength(summariesBefore)
    expect(anySummary(lastChat())).toBe(0)
    expect(
      history(lastChat())
        .map((m) => m.text)
        .slice(-2),
    ).toEqual(['ANSWER to: third question', 'after the plain jump'])
  }, 600_000)

  it('"Summarize with my instructions" on a Fork: the instructions reach the model, and the new branch\'s next request holds the summary once', async () => {
    onTestFailed(() => {
      failed = true
    })
    const a1 = await nodeWith('ANSWER to: first question')
    await row(a1.nodeId).waitFor({ timeout: 15_000 })
    await select(a1.nodeId)
    await choice().getByRole('radio', { name: 'Summarize with my instructions' }).check()
    const instructions = choice().getByTestId('session-tree-summary-instructions')
    // Without instructions the move waits (the problem says why).
    expect(await preview().getByRole('button', { name: 'Jump here' }).isDisabled()).toBe(true)
    expect(await choice().getByTestId('session-tree-summary-problem').textContent()).toBe(
      'Write the instructions, or pick another choice.',
    )
    await instructions.fill('name the files')
    expect(await preview().getByRole('button', { name: 'Jump here' }).isEnabled()).toBe(true)
    await page.screenshot({ path: path.join(artifacts, 'fork-summary-choice.png') })
    const release = gated(SECOND)
    await preview().getByRole('button', { name: 'Fork here' }).click()
    const form = preview().getByTestId('session-tree-fork-form')
    await form.waitFor()
    await form.locator('input').fill('with-summary')
    await form.getByRole('button', { name: 'Create branch' }).click()
    await page.getByTestId('session-tree-summary-progress').waitFor()
    release()
    const written = page.getByTestId('session-tree-summary-written')
    await expect
      .poll(() =>
        written
          .locator('pre')
          .textContent()
          .catch(() => null),
      )
      .toBe(SECOND)
    const asked = messageText(llm.summaryRequests().at(-1)!.body.messages.at(-1)!)
    expect(asked).toContain('The user asks: name the files')
    // What the fork left begins after the first answer; the side call holds the path the cursor was on (the plain jump's turn).
    expect(asked).toContain(
      'from this message on:\nuser: please READ notes.txt\nright after\nassistant: ANSWER to: first question\n',
    )
    expect(history(llm.summaryRequests().at(-1)!.body).map((m) => m.text)).toContain('after the plain jump')

    await api().promptAndWait(sessionId, 'on the summarized fork')
    expect(holding(lastChat(), SECOND)).toBe(1)
    expect(holding(lastChat(), FIRST)).toBe(0)
    expect(
      history(lastChat())
        .map((m) => m.text)
        .slice(-3),
    ).toEqual(['ANSWER to: first question', `${CARRIED_PREFIX}\n\n${SECOND}`, 'on the summarized fork'])
    const view = await tree()
    expect(view.activeBranch).toBe('with-summary')
    expect(pageErrors).toEqual([])
  }, 600_000)
})
