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
import { beforeAll, expect, it } from 'vitest'
import type { MoveResult } from '../../src/types.ts'
import { openTreeTab, treeTab } from './support/tree-tab.ts'
import { notesWorkspace, readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

const TITLE = 'Summary panel session'

const options = {
  name: 'summary-panel',
  workspace: notesWorkspace,
  llm: { titleText: TITLE, script: readOrAnswerScript(40) },
  browser: true,
}

describeWeb('branch summaries in the Tree panel (Chromium, real dsh web)', options, (dsh) => {
  let sessionId: string

  const nodeWith = (text: string) => dsh.api.nodeWith(sessionId, text)
  const { preview, select } = treeTab(() => dsh.page)
  const note = (where: string) => preview().locator(`[data-testid="session-tree-summary"][data-where="${where}"]`)

  beforeAll(async () => {
    ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
    await dsh.api.converse(sessionId)
  }, 600_000)

  it('a carried summary shows at the branch head, where the branch left from, and at its own node, with writer and tokens', async () => {
    const a1 = await nodeWith('ANSWER to: first question')
    const a3 = await nodeWith('ANSWER to: third question')
    const moved = await dsh.api.remoteOk<MoveResult>('sessionTree/jumpWith', {
      agentId: sessionId,
      nodeId: a1.nodeId,
      options: { summary: { kind: 'summarize', carry: true } },
    })
    const model = dsh.llm.chatRequests()[0]!.body.model
    await openTreeTab(dsh.page, dsh.url, TITLE)

    await select(a3.nodeId)
    await note('head').waitFor()
    expect(await note('head').locator('pre').textContent()).toBe(moved.summary!.summary)
    const writer = await note('head').getByTestId('session-tree-summary-writer').textContent()
    expect(writer).toContain(`written by ${moved.summary!.provider} / ${model}`)
    expect(writer).toContain('100 tokens in, 10 out')
    expect(writer).toContain('the model reads it on the new path')
    await dsh.shot('summary-at-head.png')

    await select(a1.nodeId)
    await note('from').waitFor()
    expect(await note('from').locator('.dst-sub').textContent()).toBe('Summary of “main”, which leaves from here')

    await select(moved.summary!.carriedNodeId!)
    await note('carried').waitFor()
    expect(await note('carried').locator('.dst-sub').textContent()).toBe(
      'Summary of “main”, carried into the model’s history',
    )
    await dsh.shot('summary-carried.png')
  }, 600_000)

  it('"Summarize branch" asks the model, shows progress while it writes, then the result', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    dsh.llm.setSummary(async () => {
      await gate
      return { text: 'MODEL-SUMMARY: written while the panel waited.' }
    })
    const a3 = await nodeWith('ANSWER to: third question')
    await select(a3.nodeId)
    const before = dsh.llm.summaryRequests().length
    await preview().getByRole('button', { name: 'Summarize branch' }).click()
    const progress = dsh.page.getByTestId('session-tree-summary-progress')
    await progress.waitFor()
    expect(await progress.textContent()).toBe('The session’s model is writing the summary…')
    await dsh.shot('summary-progress.png')
    release()
    await progress.waitFor({ state: 'detached' })
    await expect
      .poll(() => note('head').locator('pre').textContent())
      .toBe('MODEL-SUMMARY: written while the panel waited.')
    expect(await note('head').getByTestId('session-tree-summary-writer').textContent()).toContain(
      '100 tokens in, 10 out',
    )
    expect(dsh.llm.summaryRequests()).toHaveLength(before + 1)
    await dsh.shot('summary-written.png')
    expect(dsh.pageErrors).toEqual([])
  }, 600_000)
})
