/**
 * The read-only Tree tab (issue 25.3) in real Chromium: a second real `dsh web` on the same DSH home
 * writes the session's tree (it holds the sidecar's claim, src/sidecar/claim.ts), so the first one's
 * Tree tab says who holds it (kind, pid, host) and offers no jump, fork, label or summary: no
 * button, and the keys (Enter, f, l, s) send nothing. When the other process exits, the tab turns
 * writable again by itself (another process's claim is in no push, so a read-only tab polls).
 *
 * Evidence: test/e2e/artifacts/read-only-panel/ (read-only.png, network.log).
 */
import os from 'node:os'
import { expect, it } from 'vitest'
import { startWeb, type WebProcess } from './support/dsh.ts'
import { openTreeTab, TREE_ROWS } from './support/tree-tab.ts'
import { until } from './support/until.ts'
import { readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

const TITLE = 'Read-only tree'

/** The process group a pid is in (field 5 of /proc/<pid>/stat): `dsh` may run node under a launcher. */
async function groupOf(pid: number): Promise<number> {
  const { readFileSync } = await import('node:fs')
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
}

describeWeb(
  'the Tree tab while another process writes the tree, in Chromium',
  {
    name: 'read-only-panel',
    llm: { titleText: TITLE, script: readOrAnswerScript(10) },
    browser: true,
  },
  (dsh) => {
    it('says who holds the tree and offers no move, label, fork or summary (keys included); writable again when it exits', async () => {
      let other: WebProcess | undefined
      try {
        const { sessionId } = await dsh.api.createSession({ cwd: dsh.work })
        await dsh.api.promptAndWait(sessionId, 'first question')
        await dsh.api.promptAndWait(sessionId, 'second question')
        const a1 = (await dsh.api.nodeWith(sessionId, 'ANSWER to: first question')).nodeId

        // The other process writes first: it holds the session's tree.
        other = await startWeb({ home: dsh.home, cwd: dsh.work, llmUrl: dsh.llm.url, variant: dsh.variant })
        const forked = await other.api.remote('sessionTree/fork', {
          agentId: sessionId,
          nodeId: a1,
          branch: 'elsewhere',
        })
        expect(forked.ok, JSON.stringify(forked)).toBe(true)
        const status = await dsh.api.status(sessionId)
        expect(status.readOnly?.code).toBe('SIDECAR_CLAIMED')

        const page = dsh.page
        const attempts: string[] = []
        page.on('request', (r) => {
          if (!r.url().includes('/api/sessionTree/attempt')) return
          const method = (r.postDataJSON() as { payload?: { args?: { method?: string } } } | null)?.payload?.args
            ?.method
          attempts.push(method ?? '?')
        })
        await openTreeTab(page, dsh.url, new RegExp(`^(${TITLE}|first question)$`))
        const strip = page.getByTestId('session-tree-read-only')
        await strip.waitFor({ timeout: 30_000 })
        const said = (await strip.textContent()) ?? ''
        expect(said).toContain('dsh web')
        expect(said).toContain(os.hostname())
        const pid = Number(/pid (\d+)/.exec(said)?.[1])
        expect(await groupOf(pid), 'the holder named is the other dsh web').toBe(other.pid)

        // Select a node off the cursor: nothing that changes the tree is offered for it.
        const row = page.locator(`${TREE_ROWS}[data-node-id="${a1}"]`)
        await row.click()
        await expect.poll(() => page.getByTestId('session-tree-preview').getAttribute('data-node-id')).toBe(a1)
        for (const name of [/^Jump/, /^Fork/, /^Label/, /^Summar/])
          expect(await page.getByRole('button', { name }).count(), `a ${String(name)} button`).toBe(0)
        await dsh.shot('read-only.png')
        // The keys: no form opens and no change is sent.
        const before = attempts.length
        for (const key of ['l', 'f', 's', 'Enter', '[', ']']) {
          await row.click()
          await page.keyboard.press(key)
        }
        expect(await page.getByTestId('session-tree-label-form').count()).toBe(0)
        expect(await page.getByTestId('session-tree-fork-form').count()).toBe(0)
        // Sent meanwhile, if anything: reads only (a read-only tab polls for the claim to end).
        const reads = new Set(['session', 'outline', 'outlineChanges', 'files', 'chatPath', 'lineage', 'compare'])
        expect(attempts.slice(before).filter((m) => !reads.has(m))).toEqual([])

        // The other process exits and lets go: the tab turns writable by itself.
        await other.stop('SIGTERM')
        other = undefined
        await until('the read-only strip goes', async () => (await strip.count()) === 0, 30_000)
        await row.click()
        await page.keyboard.press('l')
        await page.getByTestId('session-tree-label-form').waitFor({ timeout: 30_000 })
        await dsh.shot('writable-again.png')
      } finally {
        await other?.stop('SIGKILL')
      }
    }, 600_000)
  },
)
