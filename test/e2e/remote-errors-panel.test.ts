/**
 * Our error codes reach the Tree tab in the real browser: the real `dsh web`
 * (stock rc.8, this package from its tarball, the recording fake LLM) in real
 * Chromium, every call made by the panel itself through its real client.
 *
 * dsh web's browser carrier accepts only the host's own error codes; a failure
 * with one of ours used to reach the page as `internal` plus a zod dump
 * (`src/service/attempt.ts`). Two different failures, provoked like a person:
 *
 * - a label another node carries (l, the label, Enter): `LABEL_EXISTS` (another client takes the label while
 *   the page's call is on its way: the page learns of labels at once and its form refuses a known one);
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
import { afterAll, beforeAll, expect, it } from 'vitest'
import { openTreeTab, TREE_ROWS as ROWS } from './support/tree-tab.ts'
import { readOrAnswer, type ScriptStep } from './support/fake-llm.ts'
import { readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

const TITLE = 'Error codes'

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
const held: ScriptStep = async (body) => {
  reached()
  await gate
  return readOrAnswer(body)
}

const options = {
  name: 'remote-errors-panel',
  llm: {
    titleText: TITLE,
    script: [readOrAnswer, readOrAnswer, held, ...readOrAnswerScript(10)],
  },
  browser: true,
}

describeWeb('our error codes in the Tree tab, in Chromium', options, (dsh) => {
  let sessionId: string
  /** What the page received from `/api/sessionTree/*`, verbatim. */
  const received: Array<{ url: string; request: unknown; response: unknown }> = []
  const banners: string[] = []
  dsh.evidence('received.json', received)
  dsh.evidence('banners.txt', () => banners.join('\n'))

  const tree = () => dsh.api.tree(sessionId)
  const row = (nodeId: string) => dsh.page.locator(`${ROWS}[data-node-id="${nodeId}"]`)
  const actionError = () => dsh.page.getByTestId('session-tree-action-error')

  beforeAll(async () => {
    const { workspace } = await dsh.api.callOk<{ workspace: { workspaceId: string } }>('workspace.create', {
      path: dsh.work,
    })
    ;({ sessionId } = await dsh.api.createSession({ workspaceId: workspace.workspaceId }))
    await dsh.api.promptAndWait(sessionId, 'first question')
    await dsh.api.promptAndWait(sessionId, 'second question')
    dsh.page.on('response', async (response) => {
      if (!new URL(response.url()).pathname.startsWith('/api/sessionTree/')) return
      const body = await response.json().catch(() => null)
      received.push({
        url: new URL(response.url()).pathname,
        request: response.request().postDataJSON(),
        response: body,
      })
    })
  }, 600_000)

  afterAll(() => release())

  it('opens the Tree tab of a session', async () => {
    await openTreeTab(dsh.page, dsh.url, new RegExp(`^(${TITLE}|first question)$`))
  }, 600_000)

  it('a label another node carries: the banner says LABEL_EXISTS, not internal', async () => {
    const view = await tree()
    const [first, second] = view.nodes.filter((n) => n.message?.role === 'user')
    // The Tree tab learns of a label at once (pushed) and its form refuses a taken one itself. So the other
    // client labels the first node while the page's own label call is on its way: the service refuses it.
    let raced = false
    await dsh.page.route('**/api/sessionTree/attempt', async (route) => {
      const body = route.request().postDataJSON() as { payload?: { args?: { method?: unknown } } } | null
      if (!raced && body?.payload?.args?.method === 'label') {
        raced = true
        await dsh.api.remoteOk('sessionTree/label', { agentId: sessionId, nodeId: first!.nodeId, label: 'taken' })
      }
      await route.continue()
    })
    await row(second!.nodeId).click()
    await dsh.page.keyboard.press('l')
    const input = dsh.page.getByTestId('session-tree-label-form').locator('input')
    await expect.poll(() => input.evaluate((el) => el === document.activeElement)).toBe(true)
    await input.fill('taken')
    await input.press('Enter')
    await actionError().waitFor({ timeout: 30_000 })
    banners.push(`label: ${(await actionError().textContent()) ?? ''}`)
    expect(await actionError().locator('.dst-code').textContent()).toBe('LABEL_EXISTS')
    expect(raced, 'the label went to the service after the other client took it').toBe(true)
    await dsh.page.unroute('**/api/sessionTree/attempt')
  }, 600_000)

  it('a jump while the agent is running: the banner says AGENT_BUSY, not internal', async () => {
    await actionError().getByRole('button', { name: 'Dismiss' }).click()
    const view = await tree()
    const answer = view.nodes.find((n) => n.message?.content === 'ANSWER to: first question')!
    const seq = await dsh.api.lastSeq(sessionId)
    await dsh.api.prompt(sessionId, 'third question')
    // The model's answer is held until the jump was refused: the agent is running, not by chance.
    await atModel
    await row(answer.nodeId).click()
    await dsh.page.keyboard.press('Enter')
    await actionError().waitFor({ timeout: 30_000 })
    banners.push(`jump: ${(await actionError().textContent()) ?? ''}`)
    await dsh.shot('agent-busy.png')
    expect(await actionError().locator('.dst-code').textContent()).toBe('AGENT_BUSY')
    release()
    await dsh.api.waitTurnEnd(sessionId, seq)
    expect(
      (await dsh.api.remoteOk<{ cursor: string | null }>('sessionTree/session', { agentId: sessionId })).cursor,
    ).not.toBe(answer.nodeId)
  }, 600_000)

  it('every failure the page received came through attempt, with our code in its value', () => {
    const failures = received
      .filter((r) => r.url === '/api/sessionTree/attempt')
      .map((r) => (r.response as { result: { value?: { ok: boolean; error?: { code: string } } } }).result.value)
      .filter((v) => v?.ok === false)
    expect(failures.map((v) => v!.error!.code)).toEqual(['LABEL_EXISTS', 'AGENT_BUSY'])
  })
})
