/**
 * Import and continue, in the real `dsh web` with this package installed from
 * its tarball: a Pi session with two branches (written by Pi's own
 * SessionManager) is imported through the service; the next prompt continues
 * Pi's active branch; a jump to the other branch makes the next request hold
 * exactly that branch's path — proven at the recording fake LLM, in stock and
 * native mode. Then a transcript the real Claude Code 2.1.197 wrote (with a
 * compaction) and a rollout family the real Codex 0.171.0 wrote (a thread
 * and its fork, found beside each other) are imported the same way: the next
 * request holds exactly what the CLI itself last sent its model (recorded in
 * the fixtures' requests.jsonl), the answer it got, then the new prompt.
 *
 * Evidence: test/e2e/artifacts/interchange-<mode>/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import type { ImportResult, MoveResult, SessionStatus, SessionTreeView } from '../../src/types.ts'
import {
  appliedRevision,
  chatTranscript,
  openSession,
  requestTranscript,
  sameRows,
  visibleRows,
  type Row,
} from './support/chat-page.ts'
import { saveArtifact } from './support/artifacts.ts'
import { history } from './support/fake-llm.ts'
import { chromium, itNeeding } from '../support/prerequisites.ts'
import { readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'
import { assistant, SessionManager, toolResult, user } from '../support/pi.ts'
import { requestUnits, type ApiMessage } from '../support/claude-units.ts'

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures')
type Unit = readonly [string, string]

/** A DSH request as units: one per message text, call and result (DSH's runtime-context message left out). */
function chatUnits(body: Parameters<typeof history>[0]): Unit[] {
  const units: Unit[] = []
  for (const m of history(body)) {
    if (m.role === 'user' && m.text.startsWith('Current runtime context')) continue
    if (m.role === 'tool') units.push(['result', m.text.trimEnd()])
    else if (m.text.trim() !== '') units.push([m.role, m.text.trimEnd()])
    for (const call of m.calls ?? []) units.push(['call', call.name])
  }
  return units
}

/** The last request a real CLI sent to its fake model (test/fixtures/<tool>/generated/requests.jsonl). */
function lastRequest<T>(tool: string): T {
  return JSON.parse(
    fs
      .readFileSync(path.join(FIXTURES, tool, 'generated', 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .at(-1)!,
  ) as T
}

/** The model's view of a request, without DSH's runtime-context message. */
function conversation(body: Parameters<typeof history>[0]) {
  return history(body)
    .filter((m) => !(m.role === 'user' && m.text.startsWith('Current runtime context')))
    .map((m) => ({ role: m.role, text: m.text, ...(m.calls ? { calls: m.calls.map((c) => c.name) } : {}) }))
}

for (const mode of ['stock', 'native'] as const) {
  const options = {
    name: `interchange-${mode}`,
    variant: mode,
    llm: { script: readOrAnswerScript(20) },
  }
  describeWeb(`import a Pi session into dsh web and continue it (${mode})`, options, (dsh) => {
    let imported: ImportResult

    it("imports a Pi session with two branches; the next prompt continues Pi's active branch", async () => {
      const piDir = path.join(dsh.work, '.pi-sessions')
      fs.mkdirSync(piDir)
      const pi = SessionManager.create(dsh.work, piDir)
      pi.appendMessage(user('plan the release'))
      const a1 = pi.appendMessage(assistant('Which version?', { thinking: 'private reasoning, never sent' }))
      pi.appendMessage(user('version 2, and READ the notes'))
      pi.appendMessage(
        assistant('', { calls: [{ id: 'toolu_notes', name: 'read', args: { file_path: 'notes.txt' } }] }),
      )
      pi.appendMessage(toolResult('toolu_notes', 'read', 'notes: ship on friday'))
      pi.appendMessage(assistant('Version 2 ships on Friday.'))
      pi.appendLabelChange(a1, 'fork point')
      pi.branch(a1)
      pi.appendMessage(user('version 3 instead'))
      pi.appendMessage(assistant('Version 3 needs more time.'))
      imported = await dsh.api.remoteOk<ImportResult>('sessionTree/importSession', {
        request: { path: pi.getSessionFile(), content: null, format: 'auto', dryRun: false, cwd: dsh.work },
      })
      saveArtifact(dsh.artifacts, 'import.json', imported)
      expect(imported).toMatchObject({
        dryRun: false,
        cwd: dsh.work,
        report: { format: 'pi', nodes: 9, branches: 2, labels: 1, skipped: [] },
      })

      // The web app lists it like any stored session (its workspace is the source's, here `work`).
      expect((await dsh.api.listSessions()).map((s) => s.sessionId)).toContain(imported.sessionId)
      const before = dsh.llm.chatRequests().length
      await dsh.api.promptAndWait(imported.sessionId!, 'go on')
      const request = dsh.llm.chatRequests().at(-1)!.body
      expect(dsh.llm.chatRequests().length).toBe(before + 1)
      expect(conversation(request)).toEqual([
        { role: 'user', text: 'plan the release' },
        { role: 'assistant', text: 'Which version?' },
        { role: 'user', text: 'version 3 instead' },
        { role: 'assistant', text: 'Version 3 needs more time.' },
        { role: 'user', text: 'go on' },
      ])
      expect(JSON.stringify(request)).not.toContain('private reasoning')
    }, 600_000)

    it('a jump to the other branch: the next request holds exactly that branch, tool call and result included', async () => {
      const view = await dsh.api.remoteOk<SessionTreeView>('sessionTree/list', { agentId: imported.sessionId })
      expect(view.nodes.find((n) => n.label === 'fork point')?.message?.content).toBe('Which version?')
      const v2 = view.nodes.find((n) => n.message?.content === 'Version 2 ships on Friday.')!
      const moved = await dsh.api.remoteOk<MoveResult>('sessionTree/jump', {
        agentId: imported.sessionId,
        nodeId: v2.nodeId,
      })
      saveArtifact(dsh.artifacts, 'jump.json', moved)
      expect(moved).toMatchObject({ cursor: v2.nodeId, mode })
      await dsh.api.promptAndWait(imported.sessionId!, 'and the changelog?')
      expect(conversation(dsh.llm.chatRequests().at(-1)!.body)).toEqual([
        { role: 'user', text: 'plan the release' },
        { role: 'assistant', text: 'Which version?' },
        { role: 'user', text: 'version 2, and READ the notes' },
        { role: 'assistant', text: '', calls: ['read'] },
        { role: 'tool', text: 'notes: ship on friday' },
        { role: 'assistant', text: 'Version 2 ships on Friday.' },
        { role: 'user', text: 'and the changelog?' },
      ])
    }, 600_000)

    itNeeding(
      [chromium],
      "DSH's Chat of the imported session shows the selected path: exactly the last request plus its reply, live and after a reload (Chromium)",
      async () => {
        const row = (await dsh.api.listSessions()).find((s) => s.sessionId === imported.sessionId)!
        saveArtifact(dsh.artifacts, 'imported-row.json', row)
        // The sidebar shows the session's title projection (the import's first prompt here).
        const projected = (row.projections as { values?: { title?: unknown } } | undefined)?.values?.title
        expect(typeof projected, 'the imported session has a title').toBe('string')
        const title = projected as string
        const page = await dsh.newPage({ viewport: { width: 1280, height: 900 } })
        const problems: string[] = []
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(`console: ${m.text()}`)
        })
        page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
        const last = dsh.llm.chatRequests().at(-1)!
        const expected = requestTranscript(last.body, last.reply)
        // The jumped-to branch, its tool exchange included; Pi's other branch and the prompt made on it hidden.
        expect(expected.map((r) => r.text)).toContain('version 2, and READ the notes')
        expect(expected.map((r) => r.text)).not.toContain('version 3 instead')
        for (const step of ['open', 'reload']) {
          if (step === 'open') await openSession(page, dsh.url, title)
          else {
            await page.reload()
            await openSession(page, undefined, title)
          }
          const revision = (
            await dsh.api.remoteOk<SessionStatus>('sessionTree/session', { agentId: imported.sessionId })
          ).revision
          let rows: Row[] = []
          for (let i = 0; i < 300; i++) {
            rows = chatTranscript(await visibleRows(page))
            if ((await appliedRevision(page)) === revision && sameRows(expected, rows)) break
            await new Promise((resolve) => setTimeout(resolve, 100))
          }
          saveArtifact(dsh.artifacts, `chat-${step}.json`, rows)
          expect(
            sameRows(expected, rows),
            `the Chat (${step}) reads as the model's last request: ${JSON.stringify(rows)}`,
          ).toBe(true)
          expect(await page.evaluate(() => document.body.innerText.includes('Failed to load history'))).toBe(false)
        }
        await dsh.shot('chat-imported.png', page)
        expect(problems).toEqual([])
      },
      600_000,
    )

    it('a transcript the real Claude Code wrote and a rollout family the real Codex wrote continue: the next request holds what the CLI itself sent last, its answer, then the prompt', async () => {
      // Claude Code 2.1.197: its last request came after a /compact; our import must give DSH's model the same context.
      const claudeDir = path.join(dsh.work, 'claude-project')
      fs.cpSync(path.join(FIXTURES, 'claude-code', 'generated'), claudeDir, { recursive: true })
      const claude = await dsh.api.remoteOk<ImportResult>('sessionTree/importSession', {
        request: {
          path: path.join(claudeDir, '7d0c1c2e-5b1a-4c1e-9a57-3f1f0d2b6a10.jsonl'),
          content: null,
          format: 'auto',
          dryRun: false,
          cwd: dsh.work,
        },
      })
      saveArtifact(dsh.artifacts, 'import-claude.json', claude)
      const claudeLast = lastRequest<{ messages: ApiMessage[] }>('claude-code')
      const transcript = fs
        .readFileSync(path.join(claudeDir, '7d0c1c2e-5b1a-4c1e-9a57-3f1f0d2b6a10.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type?: string; message?: { content?: { type: string; text?: string }[] } })
      const claudeAnswer = transcript
        .filter((r) => r.type === 'assistant')
        .at(-1)!
        .message!.content!.map((b) => b.text ?? '')
        .join('')
      await dsh.api.promptAndWait(claude.sessionId!, 'go on')
      expect(chatUnits(dsh.llm.chatRequests().at(-1)!.body)).toEqual([
        ...requestUnits(claudeLast.messages),
        ['assistant', claudeAnswer],
        ['user', 'go on'],
      ])

      // Codex 0.171.0: the thread and its fork, found beside each other; importing the thread continues the thread.
      const codexDir = path.join(dsh.work, 'codex-sessions')
      fs.mkdirSync(codexDir)
      const rollouts = fs
        .readdirSync(path.join(FIXTURES, 'codex', 'generated'))
        .filter((n) => n.startsWith('rollout-'))
        .sort()
      for (const name of rollouts)
        fs.copyFileSync(path.join(FIXTURES, 'codex', 'generated', name), path.join(codexDir, name))
      const codex = await dsh.api.remoteOk<ImportResult>('sessionTree/importSession', {
        request: {
          path: path.join(codexDir, rollouts[0]!),
          content: null,
          format: 'auto',
          dryRun: false,
          cwd: dsh.work,
        },
      })
      saveArtifact(dsh.artifacts, 'import-codex.json', codex)
      expect(codex.report).toMatchObject({ format: 'codex', branches: 2, compactions: 1 })
      type Item = { type: string; role?: string; content?: { text?: string }[]; name?: string; output?: unknown }
      const recorded = new Set(
        fs
          .readFileSync(path.join(codexDir, rollouts[0]!), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { type: string; payload: Item & { replacement_history?: Item[] } })
          .flatMap((r) =>
            r.type === 'response_item' && r.payload.type === 'message'
              ? [r.payload]
              : r.type === 'compacted'
                ? (r.payload.replacement_history ?? [])
                : [],
          )
          .map((i) => (i.content ?? []).map((c) => c.text ?? '').join('')),
      )
      const codexUnits = lastRequest<{ input: Item[] }>('codex').input.flatMap((item): Unit[] => {
        const text = (item.content ?? []).map((c) => c.text ?? '').join('')
        if (item.type === 'message')
          return item.role === 'developer' && !recorded.has(text)
            ? []
            : [[item.role === 'assistant' ? 'assistant' : 'user', text.trimEnd()]]
        if (item.type === 'function_call') return [['call', item.name!]]
        if (item.type === 'function_call_output') return [['result', String(item.output).trimEnd()]]
        return []
      })
      await dsh.api.promptAndWait(codex.sessionId!, 'and now?')
      expect(chatUnits(dsh.llm.chatRequests().at(-1)!.body)).toEqual([
        ...codexUnits,
        ['assistant', 'You are welcome.'],
        ['user', 'and now?'],
      ])
    }, 600_000)
  })
}
