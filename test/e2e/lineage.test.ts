/**
 * Sessions across sessions, in the real `dsh web` (stock rc.8, this package
 * installed from its tarball, the recording fake LLM):
 *
 * - "Open as new session" from a node: the new session is in the web's
 *   session list (the sidebar's data), in the source's workspace, and its
 *   FIRST request at the fake LLM holds exactly the root-to-node path plus the
 *   new prompt; the lineage is recorded both ways.
 * - The host's own fork (`session.fork`, what its "Fork session" and "Branch
 *   into a new conversation" buttons call) gets the same lineage, at the node
 *   the host cut at.
 * - The session's life: a session whose directory is removed (rc.8 has no
 *   delete; this is how a session goes away) leaves an orphaned tree that a
 *   restart reports, a later scan removes after the grace period (0 here),
 *   and `gc` removes on command; the other trees stay.
 *
 * Evidence: test/e2e/artifacts/lineage/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest'
import type { GcResult, NewSessionResult, SessionStatus, SessionTreeListing, SessionTreeView, TreeNode } from '../../src/types.ts'
import { artifactDir, keepOrRemove, requestsText, saveArtifact, saveWebEvidence } from './support/artifacts.ts'
import { ensureDsh, pluginAdd, startWeb, tempDir, writePatch, type WebProcess } from './support/dsh.ts'
import { type FakeLlm, history, readOrAnswer, startFakeLlm, withoutCallIds } from './support/fake-llm.ts'
import { packPlugin } from './support/pack.ts'
import { findSessionLogs, readSessionById } from './support/session-log.ts'
import { encodeSessionId } from '../../src/sidecar/index.ts'

describe('lineage: open as new session, host forks, orphaned trees', () => {
  let failed = false
  let artifacts: string
  let llm: FakeLlm
  let home: string
  let work: string
  let sidecarRoot: string
  let web: WebProcess | undefined
  const webs: WebProcess[] = []
  const patches: string[] = []
  let source: string
  let child: NewSessionResult
  let hostChild: string
  let forkNode: TreeNode

  const api = () => {
    if (!web) throw new Error('dsh web is not running (an earlier step failed)')
    return web.api
  }
  const status = (agentId: string) => api().remoteOk<SessionStatus>('sessionTree/session', { agentId })
  const tree = (agentId: string) => api().remoteOk<SessionTreeListing>('sessionTree/list', { agentId })
  const nodeWith = async (agentId: string, text: string): Promise<TreeNode> => {
    const found = (await tree(agentId)).nodes.find((n) => n.message?.content === text)
    if (!found) throw new Error(`no node with text ${JSON.stringify(text)}`)
    return found
  }
  const sessionDirOf = (id: string): string => {
    const file = findSessionLogs(home).find((f) => path.basename(path.dirname(f)) === id)
    if (!file) throw new Error(`no session directory for ${id}`)
    return path.dirname(file)
  }
  const boot = async () => {
    web = await startWeb({ home, cwd: work, llmUrl: llm.url, patches })
    webs.push(web)
  }
  const restart = async () => {
    await web?.stop('SIGTERM', 10_000)
    web = undefined
    await boot()
  }
  const markFailure = () => onTestFailed(() => { failed = true })

  beforeAll(async () => {
    artifacts = artifactDir('lineage')
    await ensureDsh('stock')
    const plugin = await packPlugin()
    home = tempDir('home-lineage')
    work = tempDir('work-lineage')
    sidecarRoot = path.join(home, 'session-tree')
    fs.writeFileSync(path.join(work, 'notes.txt'), 'banana\n')
    llm = await startFakeLlm({ script: Array.from({ length: 40 }, () => readOrAnswer) })
    await pluginAdd(home, 'web', plugin.tgz)
    // Grace 0: an orphan found by one scan is removed by the next one (a restart), so the test needs no clock.
    patches.push(writePatch(home, 'grace.yml', [
      '- id: session-tree',
      '  config:',
      `    sidecarRoot: ${JSON.stringify(sidecarRoot)}`,
      '    surfaceMode: auto',
      '    orphanGraceMs: 0',
      '',
    ].join('\n')))
    await boot()
  }, 600_000)

  afterAll(async () => {
    for (const w of webs) await w.stop('SIGTERM', 5_000)
    await llm?.close()
    if (artifacts) {
      if (llm) saveArtifact(artifacts, 'requests.txt', requestsText(llm))
      saveWebEvidence(artifacts, webs)
    }
    keepOrRemove('lineage', failed, { home, work }, artifacts)
  }, 600_000)

  it('open as new session at the tool answer: listed, in the workspace, lineage both ways', async () => {
    markFailure()
    const { workspace } = await api().callOk<{ workspace: { workspaceId: string } }>('workspace.create', { path: work })
    ;({ sessionId: source } = await api().createSession({ workspaceId: workspace.workspaceId }))
    await api().promptAndWait(source, 'first question')
    await api().promptAndWait(source, 'please READ notes.txt')
    await api().promptAndWait(source, 'third question')
    expect(llm.chatRequests()).toHaveLength(4)
    forkNode = await nodeWith(source, 'READ-DONE: banana')
    const before = (await tree(source)).nodes.length

    child = await api().remoteOk<NewSessionResult>('sessionTree/openAsNewSession', { agentId: source, nodeId: forkNode.nodeId })
    saveArtifact(artifacts, 'new-session.json', child)
    expect(child).toMatchObject({ nodeId: forkNode.nodeId, adopted: true })
    expect(child.notDurable).toBeUndefined()
    expect(child.sessionId).not.toBe(source)
    expect(llm.chatRequests(), 'making the session calls no model').toHaveLength(4)
    // The source is not changed.
    expect((await tree(source)).nodes).toHaveLength(before)

    const listed = await api().listSessions()
    expect(listed.map((s) => s.sessionId)).toContain(child.sessionId)
    expect(child.workspaceId).toBe(workspace.workspaceId)
    const workspaces = await api().callOk<{ items: { workspaceId: string; sessionIds: string[] }[] }>('workspace.list', {})
    expect(workspaces.items.find((w) => w.workspaceId === workspace.workspaceId)?.sessionIds, 'the new session joined the source\'s workspace').toEqual(expect.arrayContaining([source, child.sessionId]))

    const from = (await status(child.sessionId)).lineage
    expect(from?.forkedFrom).toMatchObject({ session: source, node: forkNode.nodeId, by: 'tree', exists: true })
    const to = (await status(source)).lineage
    expect(to?.forkedTo).toEqual([expect.objectContaining({ session: child.sessionId, node: forkNode.nodeId, by: 'tree', exists: true })])
    expect((await tree(source)).lineage?.forkedTo.map((l) => l.session)).toEqual([child.sessionId])
    // The new log names its source too (a log-only rebuild keeps it), in official events only.
    const log = readSessionById(home, child.sessionId)
    expect(log.header).toMatchObject({ parentSession: source, seedLength: child.seedEvents })
    expect(new Set(log.events.map((e) => e.type))).not.toContain('session-tree/selection')
  }, 600_000)

  it('the new session continues: its first request is exactly the path plus the new prompt', async () => {
    markFailure()
    await api().promptAndWait(child.sessionId, 'continue in the new session')
    const requests = llm.chatRequests()
    expect(requests).toHaveLength(5)
    const first = withoutCallIds(history(requests[4]!.body))
    // The source's request for 'third question' held the path to READ-DONE, then that prompt.
    const sourceThird = withoutCallIds(history(requests[3]!.body))
    const cut = sourceThird.findIndex((m) => m.text === 'third question')
    expect(cut).toBeGreaterThan(0)
    saveArtifact(artifacts, 'first-request.json', { first, expected: sourceThird.slice(0, cut) })
    expect(first.slice(0, -1)).toEqual(sourceThird.slice(0, cut))
    expect(first.at(-1)).toMatchObject({ role: 'user', text: 'continue in the new session' })
    expect(first.some((m) => m.text.includes('provenance') || m.text.includes('forked-from')), 'the provenance record never reaches the model').toBe(false)
    // The new session's own tree: the copied path plus the new turn.
    const own = await api().remoteOk<SessionTreeView>('sessionTree/list', { agentId: child.sessionId })
    expect(own.nodes.some((n) => n.message?.content === 'ANSWER to: continue in the new session')).toBe(true)
  }, 600_000)

  it('the host\'s own fork gets the same lineage, at the node it cut at', async () => {
    markFailure()
    const forked = await api().callOk<{ sessionId: string }>('session.fork', { sessionId: source })
    hostChild = forked.sessionId
    const last = await nodeWith(source, 'ANSWER to: third question')
    const to = (await status(source)).lineage?.forkedTo ?? []
    expect(to.map((l) => [l.session, l.by])).toEqual([[child.sessionId, 'tree'], [hostChild, 'host']])
    expect(to[1]).toMatchObject({ node: last.nodeId })
    expect((await status(hostChild)).lineage?.forkedFrom).toMatchObject({ session: source, node: last.nodeId, by: 'host' })
  }, 600_000)

  it('/tree new-session and /tree gc --dry-run, through the web\'s command remote', async () => {
    markFailure()
    const command = (line: string) => api().remoteOk<{ result: { kind: string; text?: string } }>('commands/execute', { agentId: source, line, images: [] })
    const first = await nodeWith(source, 'ANSWER to: first question')
    await command(`/tree label ${first.nodeId} "first answer"`)
    const made = await command('/tree new-session first answer')
    expect(made.result).toEqual({ kind: 'success', text: expect.stringMatching(/^Opened “.+ · branch” \(session-[0-9a-f-]+\): a new session whose history is the 3 message\(s\) up to /) })
    const to = (await status(source)).lineage?.forkedTo ?? []
    expect(to.at(-1)).toMatchObject({ node: first.nodeId, by: 'tree' })
    expect((await command('/tree gc --dry-run')).result).toEqual({ kind: 'success', text: 'Every tree belongs to a session: nothing to remove.' })
    expect((await command('/tree new-session nowhere')).result).toEqual({ kind: 'error', text: expect.stringMatching(/^NODE_NOT_FOUND: /) })
  }, 600_000)

  it('a removed session\'s tree is reported at start, removed by a later scan (grace 0) and by gc on command', async () => {
    markFailure()
    const childTree = path.join(sidecarRoot, encodeSessionId(child.sessionId))
    const hostTree = path.join(sidecarRoot, encodeSessionId(hostChild))
    const sourceTree = path.join(sidecarRoot, encodeSessionId(source))
    for (const dir of [childTree, hostTree, sourceTree]) expect(fs.existsSync(dir), dir).toBe(true)

    await web!.stop('SIGTERM', 10_000)
    fs.rmSync(sessionDirOf(child.sessionId), { recursive: true })
    await restart()
    // A read never loads a stored session: a message does.
    await api().promptAndWait(source, 'after the first restart')
    const first = (await status(source)).orphanSidecars
    saveArtifact(artifacts, 'scan-1.json', first)
    expect(first?.orphans.map((o) => o.sessionId)).toEqual([child.sessionId])
    expect(first?.removed).toEqual([])
    expect(fs.existsSync(childTree), 'reported, not removed silently').toBe(true)
    expect((await status(source)).lineage?.forkedTo.find((l) => l.session === child.sessionId)?.exists).toBe(false)

    await web!.stop('SIGTERM', 10_000)
    fs.rmSync(sessionDirOf(hostChild), { recursive: true })
    await restart()
    await api().promptAndWait(source, 'after the second restart')
    const second = (await status(source)).orphanSidecars
    saveArtifact(artifacts, 'scan-2.json', second)
    expect(second?.removed.map((o) => o.sessionId), 'past its grace period').toEqual([child.sessionId])
    expect(second?.orphans.map((o) => o.sessionId), 'new orphans wait one scan').toEqual([hostChild])
    expect(fs.existsSync(childTree)).toBe(false)
    expect(fs.existsSync(hostTree)).toBe(true)

    const dry = await api().remoteOk<GcResult>('sessionTree/gc', { dryRun: true })
    expect(dry).toMatchObject({ dryRun: true, removed: [] })
    expect(dry.orphans.map((o) => o.sessionId)).toEqual([hostChild])
    expect(fs.existsSync(hostTree)).toBe(true)
    const collected = await api().remoteOk<GcResult>('sessionTree/gc', { dryRun: false })
    saveArtifact(artifacts, 'gc.json', collected)
    expect(collected.removed.map((o) => o.sessionId)).toEqual([hostChild])
    expect(collected.orphans).toEqual([])
    expect(fs.existsSync(hostTree)).toBe(false)
    expect(fs.existsSync(sourceTree), 'a live session\'s tree stays').toBe(true)
    expect((await status(source)).nodeCount).toBeGreaterThan(0)
  }, 600_000)
})
