/**
 * Branches survive DSH's AUTOMATIC compaction (issue 26), in the real `dsh web` with this package
 * from its tarball, stock and native. The session runs on an agent preset of the test's own (DSH's
 * `code` preset, its `compaction-basic` row given a small window: the threshold sits a fixed
 * margin above the request envelope, measured on a probe session of the same preset), so DSH
 * compacts by itself before a step once the conversation outgrows it; the fake LLM answers the
 * summarization request. A fork before the compaction, then jumps to both sides, back and
 * forward across it, and a restart, each judged at the recorded request against what DSH itself
 * sent (before the compaction and right after it).
 *
 * Evidence of every run: test/e2e/artifacts/compaction-auto-<mode>/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import type { TreeNode } from '../../src/types.ts'
import { compactionSession, orchard, type Said, said } from './support/compaction-session.ts'
import { ensureDsh } from './support/dsh.ts'
import { openTreeTab, treeTab } from './support/tree-tab.ts'
import { notesWorkspace, readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

const PRESET = 'compact-test'
const PROBE = 'compact-probe'
/** Tokens above the request envelope at which DSH compacts, and the tail it keeps verbatim. */
const MARGIN = 1000
const RETAIN = 400
/** DSH's default context window for the fake model's route, which the ratios scale. */
const WINDOW = 1e6
const TITLE = 'Orchard rows'

/** A prompt of about 170 tokens: three turns stay under the margin, a fourth prompt crosses it. */
const long = (n: number) => orchard(n, 8)

/** DSH's `code` preset with `compaction-basic` configured, as a user preset in the DSH home. */
async function writePreset(
  home: string,
  variant: string,
  id: string,
  compaction: Record<string, number>,
): Promise<void> {
  const install = await ensureDsh(variant)
  const shipped = path.join(
    fs.realpathSync(path.join(install.dir, 'node_modules', '@deepseek-ai', 'dsh')),
    'config',
    'agent-presets',
    'code',
  )
  const row = "    - id: compaction-basic\n      name: '@deepseek-ai/dsh-compaction-basic'\n"
  const composition = fs.readFileSync(path.join(shipped, 'agent.cordis.yml'), 'utf8')
  if (!composition.includes(row)) throw new Error(`no compaction-basic row in ${shipped}/agent.cordis.yml`)
  const config = Object.entries(compaction)
    .map(([key, value]) => `        ${key}: ${value}\n`)
    .join('')
  const dir = path.join(home, '.agent-presets', id)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'agent.cordis.yml'), composition.replace(row, `${row}      config:\n${config}`))
}

for (const mode of ['stock', 'native'] as const) {
  const options = {
    name: `compaction-auto-${mode}`,
    variant: mode,
    workspace: notesWorkspace,
    llm: {
      titleText: TITLE,
      script: readOrAnswerScript(60),
      compaction: { text: 'COMPACTED: the orchard questions so far.' },
    },
    browser: { viewport: { width: 1280, height: 900 } },
  }
  describeWeb(`DSH's automatic compaction keeps every branch (${mode})`, options, (dsh) => {
    let sessionId: string
    let compaction: TreeNode
    const original = new Map<string, Said>()
    let compacted: Said
    let envelope: number
    const tab = treeTab(() => dsh.page)
    const { whole, tree, move, nodeId, say, restartWhole } = compactionSession(dsh, () => sessionId)

    it(`${mode}: DSH compacts by itself once the conversation outgrows the window; the tree keeps every node`, async () => {
      // The envelope (system prompt and tools) of a session on this preset, measured on a probe.
      // (A preset mounts once per process: the probe has one of its own, the same composition.)
      await writePreset(dsh.home, mode, PROBE, { thresholdRatio: 1, retainTokens: RETAIN })
      const probe = (await dsh.api.createSession({ cwd: dsh.work, agentPreset: PROBE })).sessionId
      await dsh.api.promptAndWait(probe, 'probe')
      const breakdown = (await dsh.api.history(probe, { maxMessages: 1 })).projections!.values as {
        contextBreakdown: { systemTokens: number; toolsTokens: number }
      }
      envelope = breakdown.contextBreakdown.systemTokens + breakdown.contextBreakdown.toolsTokens
      // The window stays DSH's default (1e6 for this model): the ratio puts the threshold at envelope + MARGIN.
      await writePreset(dsh.home, mode, PRESET, { thresholdRatio: (envelope + MARGIN) / WINDOW, retainTokens: RETAIN })
      dsh.evidence('window.json', { envelope, margin: MARGIN, retain: RETAIN })

      const created = await dsh.api.createSession({ cwd: dsh.work, agentPreset: PRESET })
      sessionId = created.sessionId
      expect(created.agentPreset).toBe(PRESET)
      expect((await dsh.api.status(sessionId)).surfaceMode).toBe(mode)
      for (const prompt of [long(1), long(2)]) original.set(prompt, await say(prompt))
      await move('fork', { nodeId: await nodeId(`ANSWER to: ${long(1)}`), branch: 'alt' })
      expect(await say('on alt')).toEqual(original.get(long(2)))
      await move('jump', { nodeId: await nodeId(`ANSWER to: ${long(2)}`) })
      original.set(long(3), await say(long(3)))
      expect(dsh.llm.compactionRequests(), 'no compaction below the threshold').toHaveLength(0)
      const before = await tree()

      // The fourth prompt crosses the threshold: DSH compacts before the step, then asks the model.
      compacted = await say(long(4))
      expect(dsh.llm.compactionRequests()).toHaveLength(1)
      expect(compacted[0]?.role).toBe('user')
      expect(compacted[0]?.text).toContain('COMPACTED: the orchard questions so far.')
      expect(compacted.map((m) => m.text)).not.toContain(long(1))

      const after = await tree()
      dsh.evidence('tree-after-compaction.json', after)
      for (const node of before.nodes) expect(after.nodes.map((n) => n.nodeId)).toContain(node.nodeId)
      for (const node of before.nodes)
        expect(after.nodes.find((n) => n.nodeId === node.nodeId)?.message).toEqual(node.message)
      const made = after.nodes.filter((n) => n.type === 'compaction')
      expect(made).toHaveLength(1)
      compaction = made[0]!
      expect(compaction.message?.content).toContain('<compacted-summary>')
      expect(compaction.replaces).toContain(await nodeId(long(1)))
      // DSH compacted before the turn's prompt joined the history: the compaction stands after the third answer,
      // the fourth prompt continues from it.
      expect(compaction.parentId).toBe(await nodeId(`ANSWER to: ${long(3)}`))
      expect((await dsh.api.nodeWith(sessionId, long(4))).parentId).toBe(compaction.nodeId)
      expect(after.branches.find((b) => b.name === 'alt')?.nodeIds).toEqual(
        before.branches.find((b) => b.name === 'alt')?.nodeIds,
      )
    }, 600_000)

    it(`${mode}: a jump before it gives the original messages; back at the compaction, what DSH gave`, async () => {
      await move('jump', { nodeId: await nodeId(`ANSWER to: ${long(2)}`) })
      expect(await say('after the second, again')).toEqual(original.get(long(3)))
      expect(dsh.llm.compactionRequests()).toHaveLength(1)
      await move('jump', { nodeId: await nodeId(`ANSWER to: ${long(4)}`) })
      expect(await say('after the fourth')).toEqual([
        ...whole.get(long(4))!,
        { role: 'assistant', text: `ANSWER to: ${long(4)}` },
      ])
      await move('jump', { nodeId: compaction.nodeId })
      expect(await say('from the compaction')).toEqual(compacted)
    }, 600_000)

    it(`${mode}: back and forward across it, a fork before it, and a restart`, async () => {
      const a1 = await nodeId(`ANSWER to: ${long(1)}`)
      const tip = (await tree()).cursor
      await move('jump', { nodeId: a1 })
      expect((await move('back')).cursor).toBe(tip)
      expect((await move('forward')).cursor).toBe(a1)
      expect(await say('forward to the first')).toEqual(original.get(long(2)))
      await move('fork', { nodeId: await nodeId(`ANSWER to: ${long(2)}`), branch: 'early' })
      expect(await say('on the early fork')).toEqual(original.get(long(3)))

      await restartWhole()
      await move('jump', { nodeId: compaction.nodeId })
      expect(await say('compaction, after the restart')).toEqual(compacted)
      expect(dsh.llm.compactionRequests()).toHaveLength(1)
      expect(dsh.llm.faults).toEqual([])
    }, 600_000)

    it(`${mode}: a path before it that is itself over the threshold: the Tree tab says so, and DSH's own rules apply (compacted at the next step, both compactions kept)`, async () => {
      const threshold = Math.floor(WINDOW * ((envelope + MARGIN) / WINDOW))
      // Priced by DSH's own meter against the preset's threshold: two turns fit, nothing to say.
      await move('jump', { nodeId: await nodeId(`ANSWER to: ${long(2)}`) })
      const under = (await dsh.api.status(sessionId)).contextFit
      expect(under).toMatchObject({ verdict: 'fits', contextWindow: WINDOW, threshold })
      expect(under!.tokens).toBeGreaterThan(envelope)
      expect(under!.tokens).toBeLessThan(threshold)
      // The three turns DSH compacted before are over it by themselves.
      const a3 = await nodeId(`ANSWER to: ${long(3)}`)
      await move('jump', { nodeId: a3 })
      const over = (await dsh.api.status(sessionId)).contextFit
      dsh.evidence('context-fit.json', { under, over })
      expect(over).toMatchObject({ verdict: 'compacts', contextWindow: WINDOW, threshold })
      expect(over!.tokens).toBeGreaterThanOrEqual(threshold)

      await openTreeTab(dsh.page, dsh.url, TITLE)
      await expect.poll(() => tab.row(a3).getAttribute('aria-current')).toBe('location')
      const banner = dsh.page.getByTestId('session-tree-context-fit')
      await expect
        .poll(() => banner.textContent())
        .toBe(
          `This path is about ${over!.tokens.toLocaleString('en-US')} tokens, over the ` +
            `${threshold.toLocaleString('en-US')} at which DSH compacts (the model’s window is 1,000,000): ` +
            'DSH compacts it before the next step, as it would any conversation. The tree keeps every node of it.',
        )
      await dsh.shot('context-fit.png')
      if (mode === 'stock') dsh.toDocs('context-fit.png', 'compaction-context-fit.png')

      // DSH's own rules at the next step: it compacts that path's original messages, not the first summary.
      const again = await say(long(5))
      const requests = dsh.llm.compactionRequests()
      expect(requests).toHaveLength(2)
      // What it summarized (its instruction last).
      const summarized = said(requests[1]!.body)
        .map((m) => m.text)
        .slice(0, -1)
      expect(summarized).toContain(long(1))
      expect(summarized.filter((text) => text.includes('COMPACTED:'))).toEqual([])
      expect(again[0]?.text).toContain('COMPACTED: the orchard questions so far.')
      expect(again.map((m) => m.text)).not.toContain(long(1))

      const after = await tree()
      dsh.evidence('tree-after-second-compaction.json', after)
      const made = after.nodes.filter((n) => n.type === 'compaction')
      expect(made.map((n) => n.nodeId)).toContain(compaction.nodeId)
      expect(made).toHaveLength(2)
      const second = made.find((n) => n.nodeId !== compaction.nodeId)!
      expect(second.parentId).toBe(a3)
      expect(second.replaces).toContain(await nodeId(long(1)))
      expect((await dsh.api.nodeWith(sessionId, long(5))).parentId).toBe(second.nodeId)

      // The first compaction's side is as it was: what DSH gave after it, no third compaction.
      await move('jump', { nodeId: compaction.nodeId })
      expect(await say('the first compaction, once more')).toEqual(compacted)
      // One turn fits: the banner goes.
      await move('jump', { nodeId: await nodeId(`ANSWER to: ${long(1)}`) })
      expect((await dsh.api.status(sessionId)).contextFit?.verdict).toBe('fits')
      await expect.poll(() => banner.count()).toBe(0)
      expect(await say('the first answer, once more')).toEqual(original.get(long(2)))
      expect(dsh.llm.compactionRequests()).toHaveLength(2)
      expect(dsh.llm.faults).toEqual([])
    }, 600_000)
  })
}
