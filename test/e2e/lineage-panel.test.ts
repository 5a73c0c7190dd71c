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
import { beforeAll, expect, it } from 'vitest'
import { openTreeTab, TREE_ROWS as ROWS } from './support/tree-tab.ts'
import { history } from './support/fake-llm.ts'
import { findSessionLogs } from './support/session-log.ts'
import { readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

const TITLE = 'Trip planning'

const options = {
  name: 'lineage-panel',
  llm: { titleText: TITLE, script: readOrAnswerScript(40) },
  browser: true,
}

describeWeb('lineage in the Tree tab, in Chromium', options, (dsh) => {
  let source: string
  let childId: string

  const status = (agentId: string) => dsh.api.status(agentId)
  const tree = (agentId: string) => dsh.api.tree(agentId)
  const row = (nodeId: string) => dsh.page.locator(`${ROWS}[data-node-id="${nodeId}"]`)
  const strip = () => dsh.page.getByTestId('session-tree-lineage')

  beforeAll(async () => {
    const { workspace } = await dsh.api.callOk<{ workspace: { workspaceId: string } }>('workspace.create', {
      path: dsh.work,
    })
    ;({ sessionId: source } = await dsh.api.createSession({ workspaceId: workspace.workspaceId }))
    await dsh.api.promptAndWait(source, 'plan a day in Lisbon')
    await dsh.api.promptAndWait(source, 'now make it rainy')
  }, 600_000)

  it('Open as new session from an earlier answer: the sidebar gets it, it opens, both Tree tabs show the lineage', async () => {
    await openTreeTab(dsh.page, dsh.url, TITLE)
    const answer = (await tree(source)).nodes.find((n) => n.message?.content === 'ANSWER to: plan a day in Lisbon')!
    await row(answer.nodeId).click()
    const sessionsBefore = (await dsh.api.listSessions()).length
    await dsh.page.getByTestId('session-tree-open-new').click()

    await expect.poll(async () => (await status(source)).lineage?.forkedTo.length, { timeout: 30_000 }).toBe(1)
    const link = (await status(source)).lineage!.forkedTo[0]!
    childId = link.session
    expect(link).toMatchObject({ node: answer.nodeId, by: 'tree', exists: true })
    expect((await dsh.api.listSessions()).length).toBe(sessionsBefore + 1)
    // The sidebar lists it (in the source's workspace), and the page switched to it.
    const childTitle = `${TITLE} · branch`
    await dsh.page.getByText(childTitle, { exact: true }).first().waitFor({ timeout: 15_000 })
    await dsh.shot('new-session-opened.png')
    // The page shows the new session's conversation; its Tree tab is one click away, as for any session.
    await dsh.page.getByTestId('session-tree-open').click()
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
    await dsh.shot('new-session-forked-from.png')
  }, 600_000)

  it("the new session continues from the page's composer: the request is the path plus the new prompt", async () => {
    const before = dsh.llm.chatRequests().length
    const input = dsh.page.getByRole('textbox').last()
    await input.fill('and a museum instead')
    await dsh.page.getByRole('button', { name: 'Send message' }).click()
    await dsh.api.waitTurnEnd(childId, -1)
    await expect.poll(() => dsh.llm.chatRequests().length, { timeout: 30_000 }).toBe(before + 1)
    const asked = history(dsh.llm.chatRequests().at(-1)!.body)
      .filter((m) => !m.text.startsWith('Current runtime context'))
      .map((m) => `${m.role}: ${m.text}`)
    expect(asked).toEqual([
      'user: plan a day in Lisbon',
      'assistant: ANSWER to: plan a day in Lisbon',
      'user: and a museum instead',
    ])
    await dsh.page.getByText('ANSWER to: and a museum instead').first().waitFor({ timeout: 15_000 })
  }, 600_000)

  it('the source says "Forked to", and the sidebar\'s own Fork session joins its lineage', async () => {
    const sourceRow = dsh.page.getByText(TITLE, { exact: true }).first()
    await sourceRow.hover()
    await dsh.page
      .getByRole('button', { name: `Session actions for ${TITLE}` })
      .first()
      .click()
    await dsh.page.getByRole('menuitem', { name: 'Fork session' }).click()
    await expect
      .poll(async () => (await status(source)).lineage?.forkedTo.map((l) => l.by), { timeout: 30_000 })
      .toEqual(['tree', 'host'])
    // The sidebar's fork keeps its tree in its own session directory, "forked from" the source.
    const hostChild = (await status(source)).lineage!.forkedTo[1]!.session
    // The child's log and its tree are written as the host fork settles, a moment after its provenance is known: wait for them.
    const childLineage = (): unknown => {
      const childLog = findSessionLogs(dsh.home).find((file) => path.basename(path.dirname(file)) === hostChild)
      const file =
        childLog === undefined ? undefined : path.join(path.dirname(childLog), 'session-tree', 'lineage.json')
      return file !== undefined && fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined
    }
    await expect
      .poll(childLineage, { timeout: 30_000 })
      .toMatchObject({ sessionId: hostChild, from: { session: source, by: 'host' } })
    // The host selects its fork when it is made (a moment later): select the source until it stays selected.
    await dsh.page.getByText(`${TITLE} (1)`, { exact: true }).first().waitFor({ timeout: 15_000 })
    await expect
      .poll(
        async () => {
          const shown = await strip()
            .getAttribute('data-session-id', { timeout: 2_000 })
            .catch(() => null)
          if (shown === source) return shown
          await dsh.page
            .getByText(TITLE, { exact: true })
            .first()
            .click({ timeout: 2_000 })
            .catch(() => undefined)
          await dsh.page
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
    await dsh.shot('source-forked-to.png')
    await strip().screenshot({ path: path.join(dsh.artifacts, 'strip.png') })
    // The README's image is refreshed on request only: a test run never dirties the work tree.
    dsh.toDocs('source-forked-to.png', 'lineage.png')
    expect(dsh.pageErrors).toEqual([])
  }, 600_000)
})
