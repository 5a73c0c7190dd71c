/**
 * Carry in the Tree tab (issue 24.4): real Chromium on the real, pinned `dsh
 * web` with this package from its tarball, in a plain folder. DSH's own
 * `write`/`read`/`edit` and `bash`, driven by the recording fake LLM, change
 * files on two branches; at main's tip a person selects the other branch's
 * node, opens Carry here, and sees per file what the carry does (merges
 * cleanly, applies cleanly, binary, deleted there, conflict, kept), opens a
 * diff, decides the conflict in the page (both, with markers), asks for the
 * branch's summary, and applies. Judged by every file's hash on disk, by the
 * fake LLM's next request (the summary once) and by the toolbar's Back with
 * the files, which brings back every byte.
 *
 * Screenshots: test/e2e/artifacts/workspace-carry-panel/ (with
 * `UPDATE_DOCS_SCREENSHOT=1` the carry preview, light and dark, goes to docs/).
 */
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import { CARRIED_WORK_PREFIX } from '../../src/harness/carried-summary.ts'
import { animationsSettled } from './support/settled.ts'
import { messageText, requestEndingWith } from './support/fake-llm.ts'
import { openTreeTab, treeTab } from './support/tree-tab.ts'
import { until } from './support/until.ts'
import { describeWeb } from './support/web-suite.ts'
import { carryBranches, lines } from './support/carry-branches.ts'
import { bash, call, hashes, sha, type Files } from './support/workspace-files.ts'

const TITLE = 'Carry in the Tree tab'
const SUMMARY = 'CARRY-SUMMARY: the other branch changed line 8 of a.txt and wrote o.txt.'

const options = {
  name: 'workspace-carry-panel',
  llm: { titleText: TITLE, summary: { text: SUMMARY } },
  browser: true,
}

describeWeb('Carry in the Tree tab, in Chromium (real dsh web, plain folder)', options, (dsh) => {
  const states: Record<string, Files> = {}
  dsh.evidence('states.json', states)

  it('previews every file, asks for the conflict, carries it with the summary; Back restores every byte', async () => {
    const { sessionId } = await dsh.api.createSession({ cwd: dsh.work })
    const restore = (request: Record<string, unknown>) =>
      dsh.api.remoteOk('sessionTree/restore', { agentId: sessionId, request })
    const { row, select } = treeTab(() => dsh.page)
    const carryView = () => dsh.page.getByTestId('session-tree-carry')
    const noHorizontalScroll = () =>
      dsh.page.evaluate(() =>
        [...document.querySelectorAll('.dst-root, .dst-tree, .dst-preview, .dst-restore')]
          .map((el) => [el.className, el.scrollWidth, el.clientWidth] as const)
          .filter(([, s, c]) => s > c),
      )

    const {
      base,
      other,
      states: made,
    } = await carryBranches(dsh, sessionId, restore, {
      base: [
        call('write', { file_path: 'c.txt', content: 'c0\n' }),
        call('write', { file_path: 'd.txt', content: 'to be deleted there\n' }),
      ],
      main: [call('read', { file_path: 'c.txt' }), call('write', { file_path: 'c.txt', content: 'c-main\n' })],
      other: [
        call('read', { file_path: 'c.txt' }),
        call('write', { file_path: 'c.txt', content: 'c-other\n' }),
        bash("rm d.txt && printf 'PNG\\0\\1\\2' > bin.dat"),
      ],
    })
    states.other = made.other
    states.mine = made.mine
    expect(Object.keys(states.other).sort()).toEqual(['a.txt', 'bin.dat', 'c.txt', 'o.txt'])
    expect(Object.keys(states.mine).sort()).toEqual(['a.txt', 'c.txt', 'd.txt', 'm.txt'])
    expect(dsh.llm.faults).toEqual([])

    await openTreeTab(dsh.page, dsh.url, TITLE)
    await row(other).waitFor({ timeout: 30_000 })
    // Nothing to carry from the conversation's own path: no Carry there.
    await select(base)
    expect(await dsh.page.getByTestId('session-tree-carry-open').count()).toBe(0)
    await select(other)
    await dsh.page.getByTestId('session-tree-carry-open').click()
    await carryView().locator('.dst-restore-rows > li').first().waitFor({ timeout: 30_000 })
    const rows = await carryView()
      .locator('.dst-restore-rows > li')
      .evaluateAll((els) =>
        els.map((e) => {
          const d = (e as HTMLElement).dataset
          return [d.path, d.action, d.deletes ?? null, d.binary ?? null, e.querySelector('.dst-ws-tag')!.textContent]
        }),
      )
    expect(rows).toEqual([
      ['a.txt', 'merge', null, null, 'merges cleanly'],
      ['bin.dat', 'take', null, 'true', 'applies cleanly'],
      ['c.txt', 'conflict', null, null, 'conflict'],
      ['d.txt', 'take', 'true', null, 'deleted there'],
      ['m.txt', 'kept', null, null, 'kept (only here)'],
      ['o.txt', 'take', null, null, 'applies cleanly'],
    ])
    expect(await carryView().getByTestId('session-tree-carry-stat').textContent()).toBe(
      '3 taken, 1 merged, 1 in conflict, 1 kept as they are',
    )
    const binStat = carryView().locator('li[data-path="bin.dat"] .dst-ws-stat')
    expect(await binStat.textContent()).toBe('binary, 6 B')
    expect(await binStat.getAttribute('title')).toBe(
      `Binary: absent → 6 B, SHA-256 ${states.other['bin.dat']!.slice(0, 12)}…`,
    )
    // What a.txt becomes here, on demand.
    await carryView().locator('li[data-path="a.txt"] button', { hasText: 'Diff' }).click()
    const diff = carryView().getByTestId('session-tree-carry-diff')
    await diff.waitFor({ timeout: 30_000 })
    expect(await diff.textContent()).toBe('--- a/a.txt\n+++ b/a.txt\n@@ -5,4 +5,4 @@\n 5\n 6\n 7\n-8\n+EIGHT\n')
    // c.txt: mine, theirs or both with markers; Apply waits for the decision.
    const apply = carryView().getByTestId('session-tree-restore-apply')
    expect(await apply.isDisabled(), 'Apply waits for the decision').toBe(true)
    expect(
      await carryView()
        .locator('li[data-path="c.txt"] input[data-decision]')
        .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value)),
    ).toEqual(['mine', 'theirs', 'markers'])
    expect(await carryView().getByTestId('session-tree-restore-undecided').textContent()).toBe(
      '1 conflict left to decide',
    )
    expect(hashes(dsh.work), 'nothing is written before Apply').toEqual(states.mine)
    for (const [width, height] of [
      [1440, 900],
      [1024, 760],
    ] as const) {
      await dsh.page.setViewportSize({ width, height })
      for (const scheme of ['light', 'dark'] as const) {
        await dsh.page.emulateMedia({ colorScheme: scheme })
        await until(
          `the host ${scheme} theme`,
          () =>
            dsh.page.evaluate((dark) => document.body.hasAttribute('data-ds-dark-theme') === dark, scheme === 'dark'),
          30_000,
        )
        await animationsSettled(dsh.page)
        expect(await noHorizontalScroll(), `no horizontal scroll at ${width}px (${scheme})`).toEqual([])
        await dsh.shot(`carry-preview-${scheme}-${width}.png`)
      }
    }
    await dsh.page.emulateMedia({ colorScheme: 'light' })
    await dsh.page.setViewportSize({ width: 1440, height: 900 })

    await carryView().locator('li[data-path="c.txt"] input[data-decision="markers"]').check()
    await carryView().locator('[data-testid="session-tree-summary-choice"] input[value="summarize"]').check()
    expect(await apply.isDisabled()).toBe(false)
    await apply.click()
    const result = carryView().getByTestId('session-tree-carry-result')
    await result.waitFor({ timeout: 60_000 })
    expect(await result.locator('[role="status"]').textContent()).toContain(
      '3 taken, 1 merged, 1 with conflict markers',
    )
    expect(await carryView().getByTestId('session-tree-carry-summary').textContent()).toBe(
      'The summary of other is now in the conversation.',
    )
    await dsh.shot('carry-result-light.png')
    states.carried = hashes(dsh.work)
    const marked = fs.readFileSync(path.join(dsh.work, 'c.txt'), 'utf8')
    expect(marked).toBe(`<<<<<<< mine\nc-main\n=======\nc-other\n>>>>>>> theirs (${other})\n`)
    expect(states.carried).toEqual({
      'a.txt': sha(Buffer.from(lines('ONE', '2', '3', '4', '5', '6', '7', 'EIGHT'))),
      'bin.dat': states.other['bin.dat'],
      'c.txt': sha(Buffer.from(marked)),
      'm.txt': states.mine['m.txt'],
      'o.txt': states.other['o.txt'],
    })
    expect(fs.existsSync(path.join(dsh.work, '.git'))).toBe(false)
    expect(dsh.llm.summaryRequests()).toHaveLength(1)
    await carryView().getByTestId('session-tree-restore-close').click()

    // The next model request holds the summary exactly once, as our lead and the fake's text.
    dsh.llm.push({ text: 'SEEN' })
    await dsh.api.promptAndWait(sessionId, 'T3: what came over?')
    const request = requestEndingWith(dsh.llm, 'T3: what came over?')
    expect(request.messages.map(messageText).filter((text) => text.includes('CARRY-SUMMARY'))).toEqual([
      `${CARRIED_WORK_PREFIX}\n\n${SUMMARY}`,
    ])

    // The toolbar's Back, taking the files along: every byte as before the carry.
    await dsh.page.locator('[data-testid="session-tree-restore-choice"] [data-choice="files"]').click()
    await dsh.page.getByRole('button', { name: 'Back' }).click()
    const back = dsh.page.getByTestId('session-tree-restore')
    await until('the Back plan', async () => (await back.locator('.dst-restore-rows > li').count()) > 0, 30_000)
    await back.getByTestId('session-tree-restore-apply').click()
    await back.getByTestId('session-tree-restore-result').waitFor({ timeout: 30_000 })
    expect(hashes(dsh.work)).toEqual(states.mine)
    expect(dsh.pageErrors).toEqual([])
    dsh.toDocs('carry-preview-light-1440.png', 'workspace-carry.png')
    dsh.toDocs('carry-preview-dark-1440.png', 'workspace-carry-dark.png')
  }, 600_000)
})
