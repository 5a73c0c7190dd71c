/**
 * Import and continue, in the real `dsh web` with this package installed from
 * its tarball: a Pi session with two branches (written by Pi's own
 * SessionManager) is imported through the service; the next prompt continues
 * Pi's active branch; a jump to the other branch makes the next request hold
 * exactly that branch's path — proven at the recording fake LLM, in stock and
 * native mode.
 *
 * Evidence: test/e2e/artifacts/interchange-<mode>/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest'
import type { ImportResult, MoveResult, SessionTreeView } from '../../src/types.ts'
import { artifactDir, keepOrRemove, requestsText, saveArtifact, saveWebEvidence } from './support/artifacts.ts'
import { ensureDsh, pluginAdd, startWeb, tempDir, type WebProcess } from './support/dsh.ts'
import { type FakeLlm, history, readOrAnswer, startFakeLlm } from './support/fake-llm.ts'
import { packPlugin } from './support/pack.ts'
import { assistant, SessionManager, toolResult, user } from '../support/pi.ts'

/** The model's view of a request, without DSH's runtime-context message. */
function conversation(body: Parameters<typeof history>[0]) {
  return history(body)
    .filter((m) => !(m.role === 'user' && m.text.startsWith('Current runtime context')))
    .map((m) => ({ role: m.role, text: m.text, ...(m.calls ? { calls: m.calls.map((c) => c.name) } : {}) }))
}

for (const mode of ['stock', 'native'] as const) {
  describe(`import a Pi session into dsh web and continue it (${mode})`, () => {
    let failed = false
    let artifacts: string
    let llm: FakeLlm
    let home: string
    let work: string
    let web: WebProcess | undefined
    let imported: ImportResult
    const markFailure = () => onTestFailed(() => { failed = true })
    const api = () => {
      if (!web) throw new Error('dsh web is not running')
      return web.api
    }

    beforeAll(async () => {
      artifacts = artifactDir(`interchange-${mode}`)
      await ensureDsh(mode)
      const plugin = await packPlugin()
      home = tempDir(`ix-home-${mode}`)
      work = tempDir(`ix-work-${mode}`)
      llm = await startFakeLlm({ script: Array.from({ length: 20 }, () => readOrAnswer) })
      expect((await pluginAdd(home, 'web', plugin.tgz, { variant: mode })).code).toBe(0)
      web = await startWeb({ home, cwd: work, llmUrl: llm.url, variant: mode })
    }, 600_000)

    afterAll(async () => {
      await web?.stop('SIGTERM', 5_000)
      await llm?.close()
      if (artifacts) {
        if (llm) saveArtifact(artifacts, 'requests.txt', requestsText(llm))
        if (web) saveWebEvidence(artifacts, [web])
      }
      keepOrRemove(`interchange (${mode})`, failed, { home, work }, artifacts)
    }, 60_000)

    it('imports a Pi session with two branches; the next prompt continues Pi\'s active branch', async () => {
      markFailure()
      const piDir = path.join(work, '.pi-sessions')
      fs.mkdirSync(piDir)
      const pi = SessionManager.create(work, piDir)
      pi.appendMessage(user('plan the release'))
      const a1 = pi.appendMessage(assistant('Which version?', { thinking: 'private reasoning, never sent' }))
      pi.appendMessage(user('version 2, and READ the notes'))
      pi.appendMessage(assistant('', { calls: [{ id: 'toolu_notes', name: 'read', args: { file_path: 'notes.txt' } }] }))
      pi.appendMessage(toolResult('toolu_notes', 'read', 'notes: ship on friday'))
      pi.appendMessage(assistant('Version 2 ships on Friday.'))
      pi.appendLabelChange(a1, 'fork point')
      pi.branch(a1)
      pi.appendMessage(user('version 3 instead'))
      pi.appendMessage(assistant('Version 3 needs more time.'))
      imported = await api().remoteOk<ImportResult>('sessionTree/importSession', { request: { path: pi.getSessionFile(), content: null, format: 'auto', dryRun: false, cwd: work } })
      saveArtifact(artifacts, 'import.json', imported)
      expect(imported).toMatchObject({ dryRun: false, cwd: work, report: { format: 'pi', nodes: 9, branches: 2, labels: 1, skipped: [] } })

      // The web app lists it like any stored session (its workspace is the source's, here `work`).
      expect((await api().listSessions()).map((s) => s.sessionId)).toContain(imported.sessionId)
      const before = llm.chatRequests().length
      await api().promptAndWait(imported.sessionId!, 'go on')
      const request = llm.chatRequests().at(-1)!.body
      expect(llm.chatRequests().length).toBe(before + 1)
      expect(conversation(request)).toEqual([
        { role: 'user', text: 'plan the release' },
        { role: 'assistant', text: 'Which version?' },
        { role: 'user', text: 'version 3 instead' },
        { role: 'assistant', text: 'Version 3 needs more time.' },
        { role: 'user', text: 'go on' },
      ])
      expect(JSON.stringify(request)).not.toContain('private reasoning')
    }, 180_000)

    it('a jump to the other branch: the next request holds exactly that branch, tool call and result included', async () => {
      markFailure()
      const view = await api().remoteOk<SessionTreeView>('sessionTree/list', { agentId: imported.sessionId })
      expect(view.nodes.find((n) => n.label === 'fork point')?.message?.content).toBe('Which version?')
      const v2 = view.nodes.find((n) => n.message?.content === 'Version 2 ships on Friday.')!
      const moved = await api().remoteOk<MoveResult>('sessionTree/jump', { agentId: imported.sessionId, nodeId: v2.nodeId })
      saveArtifact(artifacts, 'jump.json', moved)
      expect(moved).toMatchObject({ cursor: v2.nodeId, mode })
      await api().promptAndWait(imported.sessionId!, 'and the changelog?')
      expect(conversation(llm.chatRequests().at(-1)!.body)).toEqual([
        { role: 'user', text: 'plan the release' },
        { role: 'assistant', text: 'Which version?' },
        { role: 'user', text: 'version 2, and READ the notes' },
        { role: 'assistant', text: '', calls: ['read'] },
        { role: 'tool', text: 'notes: ship on friday' },
        { role: 'assistant', text: 'Version 2 ships on Friday.' },
        { role: 'user', text: 'and the changelog?' },
      ])
    }, 180_000)
  })
}
