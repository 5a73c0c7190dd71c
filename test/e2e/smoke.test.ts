/**
 * Smoke test on the real harness: the pinned, unpatched `dsh` 0.1.0-rc.8
 * (`dev/harness/stock`), this package built and installed from its `npm pack`
 * tarball with `dsh plugin add`, `dsh web` on 127.0.0.1 talking to a recording
 * fake LLM, driven only over HTTP. It proves the plugin installs, composes and
 * boots, that a conversation (with a real `read` tool call) reaches the model
 * as expected with the plugin loaded, and that it survives a restart.
 *
 * Evidence of every run: test/e2e/artifacts/smoke/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import type { SessionStatus } from '../../src/types.ts'
import { saveArtifact } from './support/artifacts.ts'
import { dumpConfig, pluginAdd } from './support/dsh.ts'
import { type ChatMessage, messageText, summarizeMessages } from './support/fake-llm.ts'
import { readSessionById } from './support/session-log.ts'
import { notesWorkspace } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

const PACKAGE = 'dsh-session-tree'
const PROFILE = 'web'
const READ_CALL_ID = 'call_read_notes'

/** The web system prompt embeds the server URL (a new port per boot). */
const withoutUrl = (message: ChatMessage | undefined): string =>
  messageText(message ?? { role: 'system', content: '' }).replace(/http:\/\/127\.0\.0\.1:\d+/g, '<url>')

const options = {
  name: 'smoke',
  workspace: notesWorkspace,
  llm: {
    script: [
      { text: 'ANSWER-1: hello from the fake model.' },
      { toolCalls: [{ id: READ_CALL_ID, name: 'read', arguments: { file_path: 'notes.txt' } }] },
      { text: 'ANSWER-2: the file says banana.' },
      { text: 'ANSWER-3: I still remember the banana.' },
    ],
  },
  // Installing and booting are steps of this suite.
  profiles: [],
  start: false,
}

describeWeb('smoke: the packed plugin in a real dsh web (stock harness)', options, (dsh) => {
  let sessionId: string
  const { time } = dsh
  dsh.evidence('llm-requests.json', () => dsh.llm.requests)

  it('packs the package with its bundle patch and built entry', () => {
    expect(dsh.plugin.name).toBe(PACKAGE)
    expect(dsh.plugin.files).toEqual(expect.arrayContaining(['package.json', 'cordis.patch.yml', 'lib/index.js']))
  })

  it('installs from the tarball with `dsh plugin --profile web add`', async () => {
    await time('pluginAdd', () => pluginAdd(dsh.home, PROFILE, dsh.plugin.tgz))
    const manifest = JSON.parse(fs.readFileSync(path.join(dsh.home, 'profiles', PROFILE, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>
      dsh?: { profile?: { bundles?: string[] } }
    }
    expect(manifest.dependencies?.[PACKAGE]).toMatch(/^file:.*\.tgz$/)
    expect(manifest.dsh?.profile?.bundles).toContain(PACKAGE)
    // A tarball gets a real copy (a directory would get a link).
    const installed = path.join(dsh.home, 'profiles', PROFILE, 'node_modules', PACKAGE)
    expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false)
    expect(fs.existsSync(path.join(installed, 'cordis.patch.yml'))).toBe(true)
  }, 600_000)

  it('`dsh --profile web --dump-config` shows the session-tree row of cordis.patch.yml', async () => {
    const dump = await time('dumpConfig', () => dumpConfig(dsh.home, PROFILE))
    saveArtifact(dsh.artifacts, 'dump-config.yml', dump)
    const layer = dump.slice(dump.indexOf(`# == ${PACKAGE}\n`))
    expect(layer, 'the layer of this package').toMatch(
      /^# == dsh-session-tree\n- id: session-tree\n {2}name: dsh-session-tree\n {2}config:\n/,
    )
    const row = layer.split(/\n# == /)[0] ?? ''
    expect(row).toContain("sidecarRoot: !!js dshHomePath('session-tree')")
    expect(row).toContain('surfaceMode: auto')
  }, 600_000)

  it('boots `dsh web` with the plugin entry enabled and active', async () => {
    await time('boot1', () => dsh.startWeb())
    const entries = await dsh.api.pluginInventory()
    saveArtifact(dsh.artifacts, 'plugin-inventory.json', entries)
    const ours = entries.filter((e) => e.moduleName === PACKAGE)
    expect(ours, 'one pluginInventory entry for this package').toHaveLength(1)
    expect(ours[0]).toMatchObject({ enabled: true, fiberPhase: 'active' })
  }, 600_000)

  it('converses: a text turn, then a turn with a real `read` tool call', async () => {
    ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
    expect(sessionId).toMatch(/\S/)

    await time('turn1', () => dsh.api.promptAndWait(sessionId, 'first question'))
    await time('turn2', () => dsh.api.promptAndWait(sessionId, 'please read notes.txt'))

    const chat = dsh.llm.chatRequests()
    saveArtifact(
      dsh.artifacts,
      'requests-before-restart.txt',
      chat.map((r) => [`#${r.n}`, ...summarizeMessages(r.body)].join('\n')).join('\n\n'),
    )
    expect(dsh.llm.faults).toEqual([])
    expect(chat.some((r) => r.exhausted)).toBe(false)
    expect(chat, 'text answer, tool call, answer after the tool result').toHaveLength(3)
    const [first, second, third] = chat.map((r) => r.body.messages) as [ChatMessage[], ChatMessage[], ChatMessage[]]

    // Turn 1: the system prompt, then the prompt (the runtime-context snapshot may follow it).
    expect(first[0]?.role).toBe('system')
    expect(first.filter((m) => m.role === 'user').map(messageText)[0]).toBe('first question')
    expect(first.some((m) => m.role === 'assistant')).toBe(false)

    // Turn 2: the whole first request, byte for byte, then the answer and the new prompt.
    expect(second.slice(0, first.length)).toEqual(first)
    expect(second.slice(first.length)).toEqual([
      expect.objectContaining({ role: 'assistant', content: 'ANSWER-1: hello from the fake model.' }),
      expect.objectContaining({ role: 'user', content: 'please read notes.txt' }),
    ])

    // Turn 2's follow-up: the tool call and its result (the real file content) appended.
    expect(third.slice(0, second.length)).toEqual(second)
    const tail = third.slice(second.length)
    expect(tail).toHaveLength(2)
    expect(tail[0]).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: READ_CALL_ID, type: 'function', function: { name: 'read' } }],
    })
    expect(JSON.parse(tail[0]?.tool_calls?.[0]?.function.arguments ?? '{}')).toEqual({ file_path: 'notes.txt' })
    expect(tail[1]).toMatchObject({ role: 'tool', tool_call_id: READ_CALL_ID })
    expect(messageText(tail[1] as ChatMessage)).toContain('banana')
    expect(messageText(tail[1] as ChatMessage)).not.toMatch(/error/i)

    // The session title request is separate and does not consume the script.
    expect(dsh.llm.titleRequests().length).toBeLessThanOrEqual(1)
  }, 600_000)

  it('resumes the session after a restart: the next request holds the earlier history', async () => {
    const beforeRestart = dsh.llm.chatRequests().at(-1)?.body.messages ?? []
    expect(beforeRestart.length, 'the conversation step ran').toBeGreaterThan(0)
    const stopped = await time('stop1', () => dsh.stopWeb('SIGTERM'))
    expect(stopped.signal, 'a graceful stop, not the SIGKILL fallback').not.toBe('SIGKILL')

    await time('boot2', () => dsh.startWeb())
    const ours = (await dsh.api.pluginInventory()).filter((e) => e.moduleName === PACKAGE)
    expect(ours[0]).toMatchObject({ enabled: true, fiberPhase: 'active' })
    const cold = (await dsh.api.listSessions()).find((s) => s.sessionId === sessionId)
    expect(cold, 'the session is listed after the restart').toMatchObject({ running: false })

    await time('turn3Resumed', () => dsh.api.promptAndWait(sessionId, 'do you remember?'))
    const chat = dsh.llm.chatRequests()
    expect(chat).toHaveLength(4)
    const resumed = chat[3]?.body.messages ?? []
    saveArtifact(dsh.artifacts, 'request-after-restart.txt', summarizeMessages(chat[3]!.body).join('\n'))

    // Everything after the system prompt is the pre-restart request, byte for byte ...
    expect(resumed.slice(1, beforeRestart.length)).toEqual(beforeRestart.slice(1))
    // ... the system prompt differs only by the server URL ...
    expect(withoutUrl(resumed[0])).toBe(withoutUrl(beforeRestart[0]))
    // ... then the last answer and the new prompt.
    expect(resumed.slice(beforeRestart.length)).toEqual([
      expect.objectContaining({ role: 'assistant', content: 'ANSWER-2: the file says banana.' }),
      expect.objectContaining({ role: 'user', content: 'do you remember?' }),
    ])
    expect(dsh.llm.faults).toEqual([])

    // The harness log on disk holds the whole conversation, and the resume marker.
    await dsh.stopWeb('SIGTERM')
    const log = readSessionById(dsh.home, sessionId)
    const types = log.events.map((e) => e.type)
    expect(log.header.id).toBe(sessionId)
    expect(log.frames).toBeGreaterThan(1)
    expect(types).toContain('session/end-seed')
    const prompts = log.events
      .filter((e) => e.type === 'user/message' && (e.data as { source?: { kind?: string } }).source?.kind === 'user')
      .map((e) =>
        ((e.data as { content?: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? '').join(''),
      )
    expect(prompts).toEqual(['first question', 'please read notes.txt', 'do you remember?'])
    expect(log.events.filter((e) => e.type === 'tool/call').map((e) => (e.data as { callId?: string }).callId)).toEqual(
      [READ_CALL_ID],
    )
    expect(types.filter((t) => t === 'turn/end')).toHaveLength(3)
    saveArtifact(dsh.artifacts, 'session-log.json', log)
  }, 600_000)

  it('the plugin service answers `sessionTree/session` over the typert wire after a restart', async () => {
    await time('boot3', () => dsh.startWeb())

    // A stored session before it is resumed: a typed answer either way, never a 500 or a hang.
    const cold = await dsh.api.remote<SessionStatus>('sessionTree/session', { agentId: sessionId })
    saveArtifact(dsh.artifacts, 'session-tree-session-cold.json', cold)
    if (!cold.ok) expect(cold.error.code).toBe('SESSION_NOT_FOUND')

    dsh.llm.push({ text: 'ANSWER-4: the tree is watching.' })
    await time('turn4', () => dsh.api.promptAndWait(sessionId, 'one more question'))
    const status = await dsh.api.remote<SessionStatus>('sessionTree/session', { agentId: sessionId })
    saveArtifact(dsh.artifacts, 'session-tree-session.json', status)
    expect(status).toMatchObject({ ok: true, value: { sessionId, snapshotVersion: 1, surfaceMode: 'stock' } })
    if (!status.ok) return
    // Four prompts, four answers, one tool call with its result (however the tree folds them).
    expect(status.value.nodeCount).toBeGreaterThanOrEqual(8)
    expect(status.value.messageCount).toBeGreaterThanOrEqual(8)
    expect(typeof status.value.cursor).toBe('string')
    expect(status.value.currentPathLength).toBeGreaterThanOrEqual(8)

    // An unknown session is a typed error.
    const unknown = await dsh.api.remote('sessionTree/session', { agentId: 'session-does-not-exist' })
    expect(unknown).toMatchObject({ ok: false, error: { code: 'SESSION_NOT_FOUND' } })
    // Argument names are checked against the descriptor.
    const extra = await dsh.api.remote('sessionTree/session', { agentId: sessionId, surprise: true })
    expect(extra).toMatchObject({ ok: false, error: { code: expect.any(String) } })
    const missing = await dsh.api.remote('sessionTree/session', {})
    expect(missing).toMatchObject({ ok: false, error: { code: expect.any(String) } })
  }, 600_000)
})
