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
import type { CompareResult } from '../../src/types.ts'
import { beforeAll, expect, it } from 'vitest'
import { DEMO_FORK_PROMPT, DEMO_NOTES, DEMO_PROMPTS, DEMO_TITLE, demoModel } from '../../dev/demo-model.ts'
import { openTreeTab, TREE_ROWS as ROWS } from './support/tree-tab.ts'
import { animationsSettled } from './support/settled.ts'
import { describeWeb } from './support/web-suite.ts'

const CMP_ROWS = '[data-compare-view] [role="option"]'

const options = {
  name: 'compare',
  workspace: (work: string) => fs.writeFileSync(path.join(work, 'notes.txt'), DEMO_NOTES),
  llm: { titleText: DEMO_TITLE, script: Array.from({ length: 20 }, () => demoModel) },
  browser: true,
}

describeWeb('compare two branches in a real dsh web, in Chromium', options, (dsh) => {
  let sessionId: string
  const nodeWith = (text: string) => dsh.api.nodeWith(sessionId, (content) => content.startsWith(text))

  beforeAll(async () => {
    ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
    for (const prompt of DEMO_PROMPTS) await dsh.api.promptAndWait(sessionId, prompt)
    // The second branch, as the panel's fork makes it: parked at the first answer, then a prompt on it.
    const day1 = await nodeWith('Day 1:')
    await dsh.api.remoteOk('sessionTree/fork', { agentId: sessionId, nodeId: day1.nodeId, branch: 'porto' })
    await dsh.api.promptAndWait(sessionId, DEMO_FORK_PROMPT)
  }, 600_000)

  it('the service compares the two branch heads over the real gateway', async () => {
    const food = await nodeWith('Food tour:')
    const porto = await nodeWith('Porto instead:')
    const day1 = await nodeWith('Day 1:')
    const result = await dsh.api.remoteOk<CompareResult>('sessionTree/compare', {
      agentId: sessionId,
      a: food.nodeId,
      b: porto.nodeId,
    })
    expect(result.ancestor).toBe(day1.nodeId)
    expect(result.b.path.at(-1)).toBe(porto.nodeId)
    const first = result.rows[0]!
    expect(first.kind).toBe('pair')
    expect(first.kind === 'pair' && first.diff.text).toMatchObject({ kind: 'words' })
    const bad = await dsh.api.remote('sessionTree/compare', { agentId: sessionId, a: food.nodeId, b: 'e99999' })
    expect(JSON.stringify(bad)).toContain('NODE_NOT_FOUND')
  }, 600_000)

  it('Compare… opens the view; picking the two branch heads shows them side by side, the divergence focused', async () => {
    await openTreeTab(dsh.page, dsh.url, DEMO_TITLE)
    await dsh.page.getByRole('button', { name: '⇆ Compare…' }).click()
    const view = dsh.page.locator('[data-compare-view]')
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
    const divergence = dsh.page.locator(`${CMP_ROWS}[data-divergence]`)
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
    const onlyA = dsh.page.locator(`${CMP_ROWS}[data-kind="only_a"]`)
    expect(await onlyA.count()).toBeGreaterThan(0)
    await dsh.shot('compare-1440.png')
    await dsh.page.setViewportSize({ width: 1024, height: 700 })
    await dsh.shot('compare-1024.png')
    await dsh.page.setViewportSize({ width: 1440, height: 900 })
  }, 600_000)

  it('is keyboard-usable: ↓, End, n/p between changes, Esc back to the tree', async () => {
    const list = dsh.page.locator('[data-compare-view] [role="listbox"]')
    await expect.poll(() => list.evaluate((el) => el === document.activeElement)).toBe(true)
    const focused = () => dsh.page.locator(`${CMP_ROWS}[aria-selected="true"]`).getAttribute('id')
    expect(await focused()).toBe('dst-cmp-row-0')
    await dsh.page.keyboard.press('ArrowDown')
    expect(await focused()).toBe('dst-cmp-row-1')
    await dsh.page.keyboard.press('End')
    const count = await dsh.page.locator(CMP_ROWS).count()
    expect(await focused()).toBe(`dst-cmp-row-${count - 1}`)
    await dsh.page.keyboard.press('Home')
    expect(await focused()).toBe('dst-cmp-row-0')
    await dsh.page.keyboard.press('n')
    expect(await focused()).not.toBe('dst-cmp-row-0')
    // The detail pane shows the focused row in full.
    expect(await dsh.page.locator('.dst-cmp-detail').textContent()).not.toBe('')
    await dsh.page.keyboard.press('Escape')
    await dsh.page.locator(ROWS).first().waitFor()
    expect(await dsh.page.locator('[data-compare-view]').count()).toBe(0)
    // The toolbar with its Compare… button at the narrower width.
    await dsh.page.setViewportSize({ width: 1024, height: 700 })
    await expect.poll(() => dsh.page.getByRole('button', { name: '⇆ Compare…' }).isVisible()).toBe(true)
    await dsh.shot('tree-1024.png')
    dsh.toDocs('compare-1440.png', 'compare.png')
    expect(dsh.pageErrors).toEqual([])
  }, 600_000)

  it('"Compare with…" on any row: pick a second node in the tree, the view opens on the two; at 768 px too', async () => {
    await dsh.page.setViewportSize({ width: 1440, height: 900 })
    const food = await nodeWith('Food tour:')
    const porto = await nodeWith('Porto instead:')
    const day1 = await nodeWith('Day 1:')
    const row = (id: string) => dsh.page.locator(`${ROWS}[data-node-id="${id}"]`)
    await row(food.nodeId).click()
    const preview = dsh.page.getByTestId('session-tree-preview')
    await expect.poll(() => preview.getAttribute('data-node-id')).toBe(food.nodeId)
    await preview.getByRole('button', { name: '⇆ Compare with…' }).click()
    const banner = dsh.page.getByTestId('session-tree-compare-pick')
    await banner.waitFor()
    expect(await banner.textContent()).toContain(`Compare ${food.nodeId} with: click a node in the tree`)
    // Esc cancels the pick; the tree is as it was.
    await dsh.page.locator('[data-session-tree] [role="tree"]').focus()
    await dsh.page.keyboard.press('Escape')
    await banner.waitFor({ state: 'detached' })
    await preview.getByRole('button', { name: '⇆ Compare with…' }).click()
    await banner.waitFor()
    // Clicking the node it started from picks nothing; another row does.
    await row(food.nodeId).click()
    expect(await dsh.page.locator('[data-compare-view]').count()).toBe(0)
    await row(porto.nodeId).click()
    const view = dsh.page.locator('[data-compare-view]')
    await view.waitFor()
    await expect
      .poll(() => view.locator('.dst-cmp-summary').textContent(), { timeout: 15_000 })
      .toContain(`They part after ${day1.nodeId}`)
    expect(await view.locator('.dst-cmp-cols').textContent()).toContain(`A ${food.nodeId}`)
    expect(await view.locator('.dst-cmp-cols').textContent()).toContain(`B ${porto.nodeId}`)
    expect(await view.locator('select').nth(1).locator('option:checked').textContent()).toBe(
      `picked node ${porto.nodeId}`,
    )
    await dsh.page.locator(`${CMP_ROWS}[data-divergence]`).waitFor()
    await dsh.page.setViewportSize({ width: 768, height: 900 })
    // The host's sidebar slides away below 1024 px: measure and shoot once its animation is over.
    await animationsSettled(dsh.page)
    // Nothing sticks out sideways at 768 px: the view fits the dsh.page.
    const overflow = await view.evaluate((el) => el.scrollWidth - el.clientWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    await dsh.shot('compare-768.png')
    dsh.toDocs('compare-768.png')
    await dsh.page.keyboard.press('Escape')
    await dsh.page.locator(ROWS).first().waitFor()
    expect(await dsh.page.getByTestId('session-tree-compare-pick').count()).toBe(0)
    expect(dsh.pageErrors).toEqual([])
  }, 600_000)
})
