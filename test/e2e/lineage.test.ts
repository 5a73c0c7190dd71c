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
 * - The tree follows the session: each session's sidecar sits in its own
 *   DSH directory (the source, the new session, the host fork with "forked
 *   from"), and DSH lists and loads those sessions as before; a branched
 *   tree left in the old layout (`<sidecarRoot>/<encoded id>/`) moves into
 *   its session's directory at a restart, byte for byte, and the next
 *   request is still the selected path; `rm -rf` of a session's directory
 *   (rc.8 has no delete; this is how a session goes away) leaves nothing of
 *   its tree anywhere.
 * - Old-layout trees whose session is gone are orphans: a restart reports
 *   them, a later scan removes them after the grace period (0 here), and
 *   `gc` removes them on command; the other trees stay.
 *
 * Evidence: test/e2e/artifacts/lineage/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import type { GcResult, NewSessionResult, TreeNode } from '../../src/types.ts'
import { saveArtifact } from './support/artifacts.ts'
import { sessionTreePatch } from './support/dsh.ts'
import { history, withoutCallIds } from './support/fake-llm.ts'
import { findSessionLogs, readSessionById } from './support/session-log.ts'
import { encodeSessionId } from '../../src/sidecar/index.ts'
import { snapshotSidecars } from './support/sidecar-files.ts'
import { notesWorkspace, readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

const options = {
  name: 'lineage',
  workspace: notesWorkspace,
  llm: { script: readOrAnswerScript(60) },
  // Booted below, with a patch written into the DSH home.
  start: false,
}

describeWeb('lineage: open as new session, host forks, orphaned trees', options, (dsh) => {
  let sidecarRoot: string
  const patches: string[] = []
  let source: string
  let child: NewSessionResult
  let hostChild: string
  let forkNode: TreeNode
  let branched: string

  const status = (agentId: string) => dsh.api.status(agentId)
  const tree = (agentId: string) => dsh.api.tree(agentId)
  const nodeWith = (agentId: string, text: string) => dsh.api.nodeWith(agentId, text)
  const sessionDirOf = (id: string): string => {
    const file = findSessionLogs(dsh.home).find((f) => path.basename(path.dirname(f)) === id)
    if (!file) throw new Error(`no session directory for ${id}`)
    return path.dirname(file)
  }
  /** Where a session's tree lives (inside its DSH directory), and where it lived before. */
  const sidecarOf = (id: string): string => path.join(sessionDirOf(id), 'session-tree')
  const oldPlaceOf = (id: string): string => path.join(sidecarRoot, encodeSessionId(id))
  const filesIn = (dir: string): Record<string, string> => {
    const out: Record<string, string> = {}
    for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
      const full = path.join(entry.parentPath, entry.name)
      out[path.relative(dir, full)] = entry.isDirectory() ? 'dir' : fs.readFileSync(full).toString('base64')
    }
    return out
  }
  const boot = () => dsh.startWeb({ patches })

  beforeAll(async () => {
    sidecarRoot = path.join(dsh.home, 'session-tree')
    // Grace 0: an orphan found by one scan is removed by the next one (a restart), so the test needs no clock;
    // the scan at once after start (by default it waits 10 s, out of the way of the first session listing).
    patches.push(sessionTreePatch(dsh.home, 'grace.yml', { sidecarRoot, orphanGraceMs: 0, orphanScanDelayMs: 0 }))
    await boot()
  }, 600_000)

  it('open as new session at the tool answer: listed, in the workspace, lineage both ways', async () => {
    const { workspace } = await dsh.api.callOk<{ workspace: { workspaceId: string } }>('workspace.create', {
      path: dsh.work,
    })
    ;({ sessionId: source } = await dsh.api.createSession({ workspaceId: workspace.workspaceId }))
    await dsh.api.converse(source)
    expect(dsh.llm.chatRequests()).toHaveLength(4)
    forkNode = await nodeWith(source, 'READ-DONE: banana')
    const before = (await tree(source)).nodes.length

    child = await dsh.api.remoteOk<NewSessionResult>('sessionTree/openAsNewSession', {
      agentId: source,
      nodeId: forkNode.nodeId,
    })
    saveArtifact(dsh.artifacts, 'new-session.json', child)
    expect(child).toMatchObject({ nodeId: forkNode.nodeId, adopted: true })
    expect(child.notDurable).toBeUndefined()
    expect(child.sessionId).not.toBe(source)
    expect(dsh.llm.chatRequests(), 'making the session calls no model').toHaveLength(4)
    // The source is not changed.
    expect((await tree(source)).nodes).toHaveLength(before)

    const listed = await dsh.api.listSessions()
    expect(listed.map((s) => s.sessionId)).toContain(child.sessionId)
    expect(child.workspaceId).toBe(workspace.workspaceId)
    const workspaces = await dsh.api.callOk<{ items: { workspaceId: string; sessionIds: string[] }[] }>(
      'workspace.list',
      {},
    )
    expect(
      workspaces.items.find((w) => w.workspaceId === workspace.workspaceId)?.sessionIds,
      "the new session joined the source's workspace",
    ).toEqual(expect.arrayContaining([source, child.sessionId]))

    const from = (await status(child.sessionId)).lineage
    expect(from?.forkedFrom).toMatchObject({ session: source, node: forkNode.nodeId, by: 'tree', exists: true })
    const to = (await status(source)).lineage
    expect(to?.forkedTo).toEqual([
      expect.objectContaining({ session: child.sessionId, node: forkNode.nodeId, by: 'tree', exists: true }),
    ])
    expect((await tree(source)).lineage?.forkedTo.map((l) => l.session)).toEqual([child.sessionId])
    // The new log names its source too (a log-only rebuild keeps it), in official events only.
    const log = readSessionById(dsh.home, child.sessionId)
    expect(log.header).toMatchObject({ parentSession: source, seedLength: child.seedEvents })
    expect(new Set(log.events.map((e) => e.type))).not.toContain('session-tree/selection')
  }, 600_000)

  it('the new session continues: its first request is exactly the path plus the new prompt', async () => {
    await dsh.api.promptAndWait(child.sessionId, 'continue in the new session')
    const requests = dsh.llm.chatRequests()
    expect(requests).toHaveLength(5)
    const first = withoutCallIds(history(requests[4]!.body))
    // The source's request for 'third question' held the path to READ-DONE, then that prompt.
    const sourceThird = withoutCallIds(history(requests[3]!.body))
    const cut = sourceThird.findIndex((m) => m.text === 'third question')
    expect(cut).toBeGreaterThan(0)
    saveArtifact(dsh.artifacts, 'first-request.json', { first, expected: sourceThird.slice(0, cut) })
    expect(first.slice(0, -1)).toEqual(sourceThird.slice(0, cut))
    expect(first.at(-1)).toMatchObject({ role: 'user', text: 'continue in the new session' })
    expect(
      first.some((m) => m.text.includes('provenance') || m.text.includes('forked-from')),
      'the provenance record never reaches the model',
    ).toBe(false)
    // The new session's own tree: the copied path plus the new turn.
    const own = await tree(child.sessionId)
    expect(own.nodes.some((n) => n.message?.content === 'ANSWER to: continue in the new session')).toBe(true)
  }, 600_000)

  it("the host's own fork gets the same lineage, at the node it cut at", async () => {
    const forked = await dsh.api.callOk<{ sessionId: string }>('session.fork', { sessionId: source })
    hostChild = forked.sessionId
    const last = await nodeWith(source, 'ANSWER to: third question')
    const to = (await status(source)).lineage?.forkedTo ?? []
    expect(to.map((l) => [l.session, l.by])).toEqual([
      [child.sessionId, 'tree'],
      [hostChild, 'host'],
    ])
    expect(to[1]).toMatchObject({ node: last.nodeId })
    expect((await status(hostChild)).lineage?.forkedFrom).toMatchObject({
      session: source,
      node: last.nodeId,
      by: 'host',
    })
  }, 600_000)

  it("/tree new-session and /tree gc --dry-run, through the web's command remote", async () => {
    const command = (line: string) =>
      dsh.api.remoteOk<{ result: { kind: string; text?: string } }>('commands/execute', {
        agentId: source,
        line,
        images: [],
      })
    const first = await nodeWith(source, 'ANSWER to: first question')
    await command(`/tree label ${first.nodeId} "first answer"`)
    const made = await command('/tree new-session first answer')
    expect(made.result).toEqual({
      kind: 'success',
      text: expect.stringMatching(
        /^Opened “.+ · branch” \(session-[0-9a-f-]+\): a new session whose history is the 3 message\(s\) up to /,
      ),
    })
    const to = (await status(source)).lineage?.forkedTo ?? []
    expect(to.at(-1)).toMatchObject({ node: first.nodeId, by: 'tree' })
    expect((await command('/tree gc --dry-run')).result).toEqual({
      kind: 'success',
      text: 'Every tree belongs to a session: nothing to remove.',
    })
    expect((await command('/tree new-session nowhere')).result).toEqual({
      kind: 'error',
      text: expect.stringMatching(/^NODE_NOT_FOUND: /),
    })
  }, 600_000)

  it('each tree lives in its session\'s directory: the source, the new session, the host fork ("forked from")', async () => {
    for (const id of [source, child.sessionId, hostChild]) {
      expect(fs.existsSync(path.join(sidecarOf(id), 'lineage.json')), id).toBe(true)
      expect(fs.existsSync(oldPlaceOf(id)), `${id}: nothing at the old place`).toBe(false)
    }
    expect(fs.existsSync(path.join(sidecarOf(source), 'journal.jsonl')), "the source's label").toBe(true)
    const hostLineage = JSON.parse(fs.readFileSync(path.join(sidecarOf(hostChild), 'lineage.json'), 'utf8')) as unknown
    expect(hostLineage).toMatchObject({ sessionId: hostChild, from: { session: source, by: 'host' } })
    saveArtifact(dsh.artifacts, 'layout-1.json', Object.keys(snapshotSidecars(dsh.home)))
  }, 600_000)

  it("a branched tree left in the old layout moves into its session's directory at a restart, intact; the next request is the selected path", async () => {
    ;({ sessionId: branched } = await dsh.api.createSession({ cwd: dsh.work }))
    await dsh.api.promptAndWait(branched, 'alpha')
    await dsh.api.promptAndWait(branched, 'beta')
    const alpha = await nodeWith(branched, 'ANSWER to: alpha')
    await dsh.api.remoteOk('sessionTree/fork', { agentId: branched, nodeId: alpha.nodeId, branch: 'other' })
    await dsh.api.promptAndWait(branched, 'gamma')
    await dsh.api.remoteOk('sessionTree/label', { agentId: branched, nodeId: alpha.nodeId, label: 'where it forks' })
    const before = await tree(branched)
    expect(before.branches.map((b) => b.name)).toEqual(expect.arrayContaining(['other']))
    const dir = sidecarOf(branched)
    expect(Object.keys(filesIn(dir))).toContain('journal.jsonl')
    expect(fs.existsSync(oldPlaceOf(branched))).toBe(false)
    // Archiving (the sidebar's "Archive session") touches no session file: the tree stays as it is.
    const files = filesIn(dir)
    await dsh.api.callOk('workspace.archiveSession', { sessionId: branched })
    expect(filesIn(dir)).toEqual(files)

    // The layout before this version: the tree under <sidecarRoot>/<encoded id>/.
    await dsh.stopWeb('SIGTERM', 10_000)
    fs.mkdirSync(sidecarRoot, { recursive: true })
    fs.renameSync(dir, oldPlaceOf(branched))
    await boot()
    // A refused move loads the stored session and changes nothing.
    const refused = await dsh.api.remote('sessionTree/jump', { agentId: branched, nodeId: 'e999999' })
    expect(refused.ok ? 'ok' : refused.error.code).toBe('NODE_NOT_FOUND')
    expect(await tree(branched)).toEqual(before)
    expect(fs.existsSync(oldPlaceOf(branched)), 'moved, not copied').toBe(false)
    // writer.json is the running process's claim (sidecar/claim.ts), released at the stop: not part of the tree.
    const { 'writer.json': _claim, ...kept } = files
    expect(filesIn(dir), 'the same files, byte for byte').toEqual(kept)
    const scan = (await status(branched)).orphanSidecars
    saveArtifact(dsh.artifacts, 'migration-scan.json', scan)
    expect(scan?.migrated).toEqual([{ sessionId: branched, from: oldPlaceOf(branched), to: dir }])
    expect(scan?.problems).toEqual([])

    await dsh.api.promptAndWait(branched, 'delta')
    // DSH's runtime-context snapshot is set aside, as the other request checks do: the path is what counts.
    const sent = history(dsh.llm.chatRequests().at(-1)!.body).filter(
      (m) =>
        (m.role === 'user' || m.role === 'assistant') && m.text !== '' && !m.text.startsWith('Current runtime context'),
    )
    saveArtifact(dsh.artifacts, 'after-migration-request.json', sent)
    expect(sent.map((m) => m.text)).toEqual(['alpha', 'ANSWER to: alpha', 'gamma', 'ANSWER to: gamma', 'delta'])
  }, 600_000)

  it("rm -rf of a session's directory leaves nothing of its tree anywhere", async () => {
    await dsh.stopWeb('SIGTERM', 10_000)
    fs.rmSync(sessionDirOf(branched), { recursive: true })
    await boot()
    await dsh.api.promptAndWait(source, 'after removing a session')
    const scan = (await status(source)).orphanSidecars
    expect(scan?.orphans.map((o) => o.sessionId) ?? []).not.toContain(branched)
    const named = (fs.readdirSync(dsh.home, { recursive: true }) as string[]).filter(
      (rel) => rel.includes(branched) || rel.includes(encodeSessionId(branched)),
    )
    expect(named, 'no path under DSH_HOME names the session').toEqual([])
    const mentioned = Object.entries(snapshotSidecars(dsh.home)).filter(([, data]) =>
      Buffer.from(data, 'base64').toString('utf8').includes(branched),
    )
    expect(
      mentioned.map(([name]) => name),
      'no sidecar file mentions it',
    ).toEqual([])
  }, 600_000)

  it('an old-layout tree whose session is gone is reported at start, removed by a later scan (grace 0) and by gc on command', async () => {
    // Trees left in the old layout whose session then goes: orphans under the root.
    const childTree = oldPlaceOf(child.sessionId)
    const hostTree = oldPlaceOf(hostChild)
    const sourceTree = sidecarOf(source)
    await dsh.stopWeb('SIGTERM', 10_000)
    fs.mkdirSync(sidecarRoot, { recursive: true })
    fs.renameSync(sidecarOf(child.sessionId), childTree)
    for (const dir of [childTree, sourceTree]) expect(fs.existsSync(dir), dir).toBe(true)
    fs.rmSync(sessionDirOf(child.sessionId), { recursive: true })
    await boot()
    // A read never loads a stored session: a message does.
    await dsh.api.promptAndWait(source, 'after the first restart')
    const first = (await status(source)).orphanSidecars
    saveArtifact(dsh.artifacts, 'scan-1.json', first)
    expect(first?.orphans.map((o) => o.sessionId)).toEqual([child.sessionId])
    expect(first?.removed).toEqual([])
    expect(fs.existsSync(childTree), 'reported, not removed silently').toBe(true)
    expect((await status(source)).lineage?.forkedTo.find((l) => l.session === child.sessionId)?.exists).toBe(false)

    await dsh.stopWeb('SIGTERM', 10_000)
    fs.renameSync(sidecarOf(hostChild), hostTree)
    fs.rmSync(sessionDirOf(hostChild), { recursive: true })
    await boot()
    await dsh.api.promptAndWait(source, 'after the second restart')
    const second = (await status(source)).orphanSidecars
    saveArtifact(dsh.artifacts, 'scan-2.json', second)
    expect(
      second?.removed.map((o) => o.sessionId),
      'past its grace period',
    ).toEqual([child.sessionId])
    expect(
      second?.orphans.map((o) => o.sessionId),
      'new orphans wait one scan',
    ).toEqual([hostChild])
    expect(fs.existsSync(childTree)).toBe(false)
    expect(fs.existsSync(hostTree)).toBe(true)

    const dry = await dsh.api.remoteOk<GcResult>('sessionTree/gc', { dryRun: true })
    expect(dry).toMatchObject({ dryRun: true, removed: [] })
    expect(dry.orphans.map((o) => o.sessionId)).toEqual([hostChild])
    expect(fs.existsSync(hostTree)).toBe(true)
    const collected = await dsh.api.remoteOk<GcResult>('sessionTree/gc', { dryRun: false })
    saveArtifact(dsh.artifacts, 'gc.json', collected)
    expect(collected.removed.map((o) => o.sessionId)).toEqual([hostChild])
    expect(collected.orphans).toEqual([])
    expect(fs.existsSync(hostTree)).toBe(false)
    expect(fs.existsSync(sourceTree), "a live session's tree stays").toBe(true)
    expect((await status(source)).nodeCount).toBeGreaterThan(0)
  }, 600_000)
})
