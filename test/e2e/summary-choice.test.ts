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
import { beforeAll, expect, it } from 'vitest'
import { CARRIED_PREFIX } from '../../src/harness/carried-summary.ts'
import { history, messageText, type ChatRequestBody } from './support/fake-llm.ts'
import { openTreeTab, treeTab } from './support/tree-tab.ts'
import { notesWorkspace, readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

const TITLE = 'Summary choice session'
const FIRST = 'MODEL-SUMMARY-ONE: the branch read notes.txt and found banana.'
const SECOND = 'MODEL-SUMMARY-TWO: the files were notes.txt.'

/** How many messages of a request hold `text`. */
const holding = (body: ChatRequestBody, text: string): number =>
  body.messages.filter((m) => messageText(m).includes(text)).length
const anySummary = (body: ChatRequestBody): number =>
  body.messages.filter((m) => messageText(m).includes('MODEL-SUMMARY')).length

const options = {
  name: 'summary-choice',
  workspace: notesWorkspace,
  llm: { titleText: TITLE, script: readOrAnswerScript(40) },
  browser: true,
}

describeWeb('the summary choice of Jump and Fork in the Tree tab (Chromium, real dsh web)', options, (dsh) => {
  let sessionId: string

  const tree = () => dsh.api.tree(sessionId)
  const nodeWith = (text: string) => dsh.api.nodeWith(sessionId, text)
  const lastChat = () => dsh.llm.chatRequests().at(-1)!.body
  const { row, preview, select } = treeTab(() => dsh.page)
  const choice = () => preview().getByTestId('session-tree-summary-choice')
  /** A summary answer held until the test releases it. */
  const gated = (text: string) => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    dsh.llm.setSummary(async () => {
      await gate
      return { text }
    })
    return release
  }

  beforeAll(async () => {
    ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
    await dsh.api.converse(sessionId)
    await openTreeTab(dsh.page, dsh.url, TITLE)
  }, 600_000)

  it('"Summarize" on a Jump: progress while the model writes, the summary shown, and the next request holds it exactly once', async () => {
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
    const summariesBefore = dsh.llm.summaryRequests().length
    const chatsBefore = dsh.llm.chatRequests().length
    await preview().getByRole('button', { name: 'Jump here' }).click()
    const progress = dsh.page.getByTestId('session-tree-summary-progress')
    await progress.waitFor()
    expect(await progress.textContent()).toBe('The session’s model is writing the summary…')
    await dsh.shot('jump-summary-progress.png')
    release()
    await progress.waitFor({ state: 'detached' })
    const written = dsh.page.getByTestId('session-tree-summary-written')
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
    await dsh.shot('jump-summary-written.png')
    expect(dsh.llm.summaryRequests()).toHaveLength(summariesBefore + 1)
    expect(dsh.llm.chatRequests(), 'the side call is not a chat step').toHaveLength(chatsBefore)
    // It summarized what the jump left: the second and third turns.
    const asked = messageText(dsh.llm.summaryRequests().at(-1)!.body.messages.at(-1)!)
    expect(asked).toContain('please READ notes.txt')
    expect(asked).not.toContain('The user asks')

    await dsh.api.promptAndWait(sessionId, 'after the summarized jump')
    expect(holding(lastChat(), FIRST)).toBe(1)
    expect(
      history(lastChat())
        .map((m) => m.text)
        .slice(-3),
    ).toEqual(['ANSWER to: first question', `${CARRIED_PREFIX}\n\n${FIRST}`, 'after the summarized jump'])
    expect(dsh.pageErrors).toEqual([])
  }, 600_000)

  it('the default "No summary" on a Jump: no side call, and the next request holds no summary', async () => {
    const a3 = await nodeWith('ANSWER to: third question')
    await row(a3.nodeId).waitFor({ timeout: 15_000 })
    await select(a3.nodeId)
    await choice().waitFor()
    // A move that used a summary resets the choice to the default.
    expect(await choice().getByRole('radio', { name: 'No summary' }).isChecked()).toBe(true)
    const summariesBefore = dsh.llm.summaryRequests().length
    await preview().getByRole('button', { name: 'Jump here' }).click()
    await expect.poll(async () => (await tree()).cursor).toBe(a3.nodeId)
    expect(await dsh.page.getByTestId('session-tree-summary-written').count()).toBe(0)
    await dsh.api.promptAndWait(sessionId, 'after the plain jump')
    expect(dsh.llm.summaryRequests()).toHaveLength(summariesBefore)
    expect(anySummary(lastChat())).toBe(0)
    expect(
      history(lastChat())
        .map((m) => m.text)
        .slice(-2),
    ).toEqual(['ANSWER to: third question', 'after the plain jump'])
  }, 600_000)

  it('"Summarize with my instructions" on a Fork: the instructions reach the model, and the new branch\'s next request holds the summary once', async () => {
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
    await dsh.shot('fork-summary-choice.png')
    const release = gated(SECOND)
    await preview().getByRole('button', { name: 'Fork here' }).click()
    const form = preview().getByTestId('session-tree-fork-form')
    await form.waitFor()
    await form.locator('input').fill('with-summary')
    await form.getByRole('button', { name: 'Create branch' }).click()
    await dsh.page.getByTestId('session-tree-summary-progress').waitFor()
    release()
    const written = dsh.page.getByTestId('session-tree-summary-written')
    await expect
      .poll(() =>
        written
          .locator('pre')
          .textContent()
          .catch(() => null),
      )
      .toBe(SECOND)
    const asked = messageText(dsh.llm.summaryRequests().at(-1)!.body.messages.at(-1)!)
    expect(asked).toContain('The user asks: name the files')
    // What the fork left begins after the first answer; the side call holds the path the cursor was on (the plain jump's turn).
    expect(asked).toContain(
      'from this message on:\nuser: please READ notes.txt\nright after\nassistant: ANSWER to: first question\n',
    )
    expect(history(dsh.llm.summaryRequests().at(-1)!.body).map((m) => m.text)).toContain('after the plain jump')

    await dsh.api.promptAndWait(sessionId, 'on the summarized fork')
    expect(holding(lastChat(), SECOND)).toBe(1)
    expect(holding(lastChat(), FIRST)).toBe(0)
    expect(
      history(lastChat())
        .map((m) => m.text)
        .slice(-3),
    ).toEqual(['ANSWER to: first question', `${CARRIED_PREFIX}\n\n${SECOND}`, 'on the summarized fork'])
    const view = await tree()
    expect(view.activeBranch).toBe('with-summary')
    expect(dsh.pageErrors).toEqual([])
  }, 600_000)
})
