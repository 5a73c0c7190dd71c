/**
 * Our error codes reach the Tree tab in the real browser: the real `dsh web`
 * (stock rc.8, this package from its tarball, the recording fake LLM) in real
 * Chromium, every call made by the panel itself through its real client.
 *
 * dsh web's browser carrier accepts only the host's own error codes; a failure
 * with one of ours used to reach the page as `internal` plus a zod dump
 * (`src/service/attempt.ts`). Two different failures, provoked like a person:
 *
 * - a label another node carries (l, the label, Enter): `LABEL_EXISTS`;
 * - a jump while the agent is running (its model answer held by the fake
 *   LLM until the jump was refused; Enter): `AGENT_BUSY`.
 *
 * (A fork onto an existing branch name never leaves the page: the fork form
 * refuses it itself.) The page's own `/api/sessionTree/*` responses are
 * recorded and asserted too.
 * Over HTTP the same failures keep today's envelope (`test/e2e/remote.test.ts`).
 * Evidence: test/e2e/artifacts/remote-errors-panel/ (every `/api/sessionTree/*`
 * response the page received, the banners, screenshots).
 */
import fs from 'node:fs'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest'
import type { SessionTreeView } from '../../src/types.ts'
import { artifactDir, keepOrRemove, requestsText, saveArtifact, saveWebEvidence } from './support/artifacts.ts'
import { ensureDsh, pluginAdd, startWeb, tempDir, type WebProcess } from './support/dsh.ts'
import { type FakeLlm, readOrAnswer, type ScriptStep, startFakeLlm } from './support/fake-llm.ts'
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
const HAVE_CHROMIUM = fs.existsSync(CHROMIUM)
const IN_CI = Boolean(process.env.CI)
const TITLE = 'Error codes'
const ROWS = '[data-session-tree] [role="treeitem"]'

describe.skipIf(!HAVE_CHROMIUM && !IN_CI)('our error codes in the Tree tab, in Chromium', () => {
  let failed = false
  let artifacts: string
  let llm: FakeLlm
  let home: string
  let work: string
  let web: WebProcess | undefined
  const webs: WebProcess[] = []
  let browser: Browser | undefined
  let page: Page
  let sessionId: string
  /** What the page received from `/api/sessionTree/*`, verbatim. */
  const received: Array<{ url: string; request: unknown; response: unknown }> = []
  const banners: string[] = []
  /** Lets the third model answer go (the agent is running until then). */
  let release: () => void = () => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  /** Settles when the held answer was asked for: the turn is at the model. */
  let reached: () => void = () => {}
  const atModel = new Promise<void>((resolve) => {
    reached = resolve
  })

  const api = () => {
    if (!web) throw new Error('dsh web is not running')
    return web.api
  }
  const tree = () => api().remoteOk<SessionTreeView>('sessionTree/list', { agentId: sessionId })
  const row = (nodeId: string) => page.locator(`${ROWS}[data-node-id="${nodeId}"]`)
  const actionError = () => page.getByTestId('session-tree-action-error')
  const markFailure = () =>
    onTestFailed(() => {
      failed = true
    })

  beforeAll(async () => {
    artifacts = artifactDir('remote-errors-panel')
    await ensureDsh('stock')
    const plugin = await packPlugin()
    home = tempDir('remote-errors-home')
    work = tempDir('remote-errors-work')
    const held: ScriptStep = async (body) => {
      reached()
      await gate
      return readOrAnswer(body)
    }
    llm = await startFakeLlm({
      titleText: TITLE,
      script: [readOrAnswer, readOrAnswer, held, ...Array.from({ length: 10 }, () => readOrAnswer)],
    })
    await pluginAdd(home, 'web', plugin.tgz)
    web = await startWeb({ home, cwd: work, llmUrl: llm.url })
    webs.push(web)
    const { workspace } = await api().callOk<{ workspace: { workspaceId: string } }>('workspace.create', { path: work })
    ;({ sessionId } = await api().createSession({ workspaceId: workspace.workspaceId }))
    await api().promptAndWait(sessionId, 'first question')
    await api().promptAndWait(sessionId, 'second question')
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, colorScheme: 'light', locale: 'en-US' })
    page.on('response', async (response) => {
      if (!new URL(response.url()).pathname.startsWith('/api/sessionTree/')) return
      const body = await response.json().catch(() => null)
      received.push({
        url: new URL(response.url()).pathname,
        request: response.request().postDataJSON(),
        response: body,
      })
    })
  }, 600_000)

  afterAll(async () => {
    release()
    await browser?.close()
    await web?.stop('SIGTERM', 5_000)
    await llm?.close()
    if (artifacts) {
      saveArtifact(artifacts, 'received.json', JSON.stringify(received, null, 2))
      saveArtifact(artifacts, 'banners.txt', banners.join('\n'))
      if (llm) saveArtifact(artifacts, 'requests.txt', requestsText(llm))
      saveWebEvidence(artifacts, webs)
    }
    keepOrRemove('remote-errors-panel', failed, { home, work }, artifacts)
  }, 600_000)

  it('opens the Tree tab of a session', async () => {
    markFailure()
    await page.goto(web!.url)
    const notice = page.getByRole('button', { name: 'Continue' })
    await notice.waitFor({ timeout: 30_000 })
    await notice.click()
    await page
      .getByText(new RegExp(`^(${TITLE}|first question)$`))
      .first()
      .click()
    await page.getByTestId('session-tree-open').click()
    await page.locator(ROWS).first().waitFor({ timeout: 30_000 })
  }, 600_000)

  it('a label another node carries: the banner says LABEL_EXISTS, not internal', async () => {
    markFailure()
    const view = await tree()
    const [first, second] = view.nodes.filter((n) => n.message?.role === 'user')
    await api().remoteOk('sessionTree/label', { agentId: sessionId, nodeId: first!.nodeId, label: 'taken' })
    await row(second!.nodeId).click()
    await page.keyboard.press('l')
    const input = page.getByTestId('session-tree-label-form').locator('input')
    await expect.poll(() => input.evaluate((el) => el === document.activeElement)).toBe(true)
    await input.fill('taken')
    await input.press('Enter')
    await actionError().waitFor({ timeout: 30_000 })
    banners.push(`label: ${(await actionError().textContent()) ?? ''}`)
    expect(await actionError().locator('.dst-code').textContent()).toBe('LABEL_EXISTS')
  }, 600_000)

  it('a jump while the agent is running: the banner says AGENT_BUSY, not internal', async () => {
    markFailure()
    await actionError().getByRole('button', { name: 'Dismiss' }).click()
    const view = await tree()
    const answer = view.nodes.find((n) => n.message?.content === 'ANSWER to: first question')!
    const seq = await api().lastSeq(sessionId)
    await api().prompt(sessionId, 'third question')
    // The model's answer is held until the jump was refused: the agent is running, not by chance.
    await atModel
    await row(answer.nodeId).click()
    await page.keyboard.press('Enter')
    await actionError().waitFor({ timeout: 30_000 })
    banners.push(`jump: ${(await actionError().textContent()) ?? ''}`)
    await page.screenshot({ path: path.join(artifacts, 'agent-busy.png') })
    expect(await actionError().locator('.dst-code').textContent()).toBe('AGENT_BUSY')
    release()
    await api().waitTurnEnd(sessionId, seq)
    expect(
      (await api().remoteOk<{ cursor: string | null }>('sessionTree/session', { agentId: sessionId })).cursor,
    ).not.toBe(answer.nodeId)
  }, 600_000)

  it('every failure the page received came through attempt, with our code in its value', () => {
    markFailure()
    const failures = received
      .filter((r) => r.url === '/api/sessionTree/attempt')
      .map((r) => (r.response as { result: { value?: { ok: boolean; error?: { code: string } } } }).result.value)
      .filter((v) => v?.ok === false)
    expect(failures.map((v) => v!.error!.code)).toEqual(['LABEL_EXISTS', 'AGENT_BUSY'])
  })
})
