/**
 * Clean restarts report no warning, in the real `dsh web`, stock (the
 * unpatched harness) and native (the harness with
 * dev/session-branch-surface.patch), with this package from its tarball:
 * forks, jumps, labels, back and forward between four restarts. After every
 * restart `session.sidecarWarnings` is empty, the tree (nodes, labels,
 * branches, cursor) is exactly what it was, back/forward still step through
 * the same positions, and the next request holds exactly the path to the
 * cursor. (Before the fix, every restart re-applied the journal's forks onto
 * the branches the log's switch events had already rebuilt: BRANCH_EXISTS.)
 *
 * Evidence of every run: test/e2e/artifacts/restart-<mode>/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest'
import type { MoveResult, SessionStatus } from '../../src/service/wire.ts'
import type { SessionTreeView } from '../../src/tree/types.ts'
import { artifactDir, keepOrRemove, requestsText, saveArtifact, saveWebEvidence } from './support/artifacts.ts'
import { ensureDsh, pluginAdd, startWeb, tempDir, type WebProcess } from './support/dsh.ts'
import { history, readOrAnswer, startFakeLlm, type FakeLlm } from './support/fake-llm.ts'
import { packPlugin, type PackedPlugin } from './support/pack.ts'

const RESTARTS = 3

/** Messages from the root to `nodeId` as `role: text`, user prompts and answers with text only. */
function spoken(view: SessionTreeView, nodeId: string | null): string[] {
  const byId = new Map(view.nodes.map((n) => [n.nodeId, n]))
  const out: string[] = []
  for (let id = nodeId; id !== null; id = byId.get(id)!.parentId) {
    const m = byId.get(id)!.message
    if (m && (m.role === 'user' || m.role === 'assistant') && m.content !== '') out.unshift(`${m.role}: ${m.content}`)
  }
  return out
}

for (const mode of ['stock', 'native'] as const) {
  describe(`restarts report no warning and lose nothing (${mode})`, () => {
    const webs: WebProcess[] = []
    const rounds: unknown[] = []
    let failed = false
    let artifacts: string
    let plugin: PackedPlugin
    let llm: FakeLlm
    let home: string
    let work: string
    let web: WebProcess | undefined
    let sessionId: string

    const api = () => {
      if (!web) throw new Error('dsh web is not running (an earlier step failed)')
      return web.api
    }
    const list = () => api().remoteOk<SessionTreeView>('sessionTree/list', { agentId: sessionId })
    const status = () => api().remoteOk<SessionStatus>('sessionTree/session', { agentId: sessionId })
    const move = <T = MoveResult>(method: string, args: Record<string, unknown> = {}) =>
      api().remoteOk<T>(`sessionTree/${method}`, { agentId: sessionId, ...args })
    const node = async (text: string) => {
      const found = (await list()).nodes.find((n) => n.message?.content === text)
      if (!found) throw new Error(`no node ${JSON.stringify(text)}`)
      return found.nodeId
    }
    const boot = async () => {
      web = await startWeb({ home, cwd: work, llmUrl: llm.url, variant: mode })
      webs.push(web)
    }

    beforeAll(async () => {
      artifacts = artifactDir(`restart-${mode}`)
      await ensureDsh(mode)
      plugin = await packPlugin()
      home = tempDir(`restart-${mode}-home`)
      work = tempDir(`restart-${mode}-work`)
      fs.writeFileSync(path.join(work, 'notes.txt'), 'banana\n')
      llm = await startFakeLlm({ script: Array.from({ length: 80 }, () => readOrAnswer) })
      await pluginAdd(home, 'web', plugin.tgz, { variant: mode })
      await boot()
    }, 600_000)

    afterAll(async () => {
      for (const w of webs) await w.stop('SIGTERM', 5_000)
      await llm?.close()
      if (artifacts) {
        saveArtifact(artifacts, 'rounds.json', rounds)
        if (llm) saveArtifact(artifacts, 'requests.txt', requestsText(llm))
        saveWebEvidence(artifacts, webs)
      }
      keepOrRemove(`restart (${mode})`, failed, { home, work }, artifacts)
    }, 600_000)

    it(`${mode}: forks, jumps, labels, back and forward across ${RESTARTS} restarts`, async () => {
      onTestFailed(() => {
        failed = true
      })
      ;({ sessionId } = await api().createSession({ cwd: work }))
      await api().promptAndWait(sessionId, 'first question')
      await api().promptAndWait(sessionId, 'please READ notes.txt')
      await api().promptAndWait(sessionId, 'third question')
      expect((await status()).surfaceMode).toBe(mode)
      const a1 = await node('ANSWER to: first question')
      await move('fork', { nodeId: a1, branch: 'alt' })
      await api().promptAndWait(sessionId, 'on alt')
      await move('label', { nodeId: a1, label: 'first answer' })
      await move('jump', { nodeId: await node('ANSWER to: third question') })
      await move('back')
      await move('forward')

      for (let restart = 1; restart <= RESTARTS; restart++) {
        const before = await list()
        // Where back and then forward lead now, to compare after the restart.
        const back = await api().remote<MoveResult>('sessionTree/back', { agentId: sessionId })
        const forward = back.ok ? await move('forward') : undefined
        expect(forward === undefined || forward.cursor === before.cursor).toBe(true)
        await web!.stop('SIGTERM')
        web = undefined
        await boot()
        // A stored session loads when a move names it; a refused move (unknown node) loads it and changes nothing.
        const refused = await api().remote('sessionTree/jump', { agentId: sessionId, nodeId: 'e999999' })
        expect(refused.ok ? 'ok' : refused.error.code).toBe('NODE_NOT_FOUND')
        const after = await list()
        const warnings = (await status()).sidecarWarnings
        rounds.push({ restart, warnings, cursor: after.cursor, branches: after.branches.map((b) => b.name) })
        expect(warnings, `restart ${restart}`).toEqual([])
        expect(after, `restart ${restart}`).toEqual(before)
        // The navigation history came back too.
        const backAgain = await api().remote<MoveResult>('sessionTree/back', { agentId: sessionId })
        expect(backAgain.ok && backAgain.value.cursor, `back after restart ${restart}`).toBe(
          back.ok && back.value.cursor,
        )
        if (backAgain.ok) expect((await move('forward')).cursor).toBe(before.cursor)

        // More of everything before the next restart.
        await move('fork', { nodeId: a1, branch: `fork-${restart}` })
        await api().promptAndWait(sessionId, `on fork ${restart}`)
        await move('label', { nodeId: await node(`ANSWER to: on fork ${restart}`), label: `label ${restart}` })
        await move('jump', { nodeId: await node('ANSWER to: on alt') })
        await move('back')
        if (restart % 2 === 0) await move('forward')
      }
      const view = await list()
      await api().promptAndWait(sessionId, 'after all restarts')
      const sent = history(llm.chatRequests().at(-1)!.body).filter(
        (m) => (m.role === 'user' || m.role === 'assistant') && m.text !== '',
      )
      expect(sent.map((m) => `${m.role}: ${m.text}`)).toEqual([
        ...spoken(view, view.cursor),
        'user: after all restarts',
      ])
      expect(llm.faults).toEqual([])
    }, 600_000)
  })
}
