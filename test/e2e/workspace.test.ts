/**
 * Workspace checkpoints in the real, pinned `dsh web` 0.1.0-rc.8 with this
 * package installed from its tarball, the harness's own `write`, `read`,
 * `edit` and `bash` tools and its read-before-write policy, driven over HTTP
 * against a recording fake LLM that scripts the calls. Twice: in a git
 * repository and in a plain folder: shell changes are snapshotted through a
 * git directory of the plugin's own in both, and no `.git` ever appears in
 * the plain folder.
 *
 * - every change is checkpointed on the tool-call node that made it;
 * - jump with "both": every workspace file's hash equals its state at that
 *   node, the next request holds the selected path plus one short note, and
 *   a blind write over a restored file is refused until the model re-reads;
 * - back with "both": the files equal the tip again;
 * - a user's edit made between the checkpoint and the restore is a conflict:
 *   refused without a decision, kept with `keep`;
 * - kill -9 during a restore, stopped deterministically by the test hook at a
 *   chosen file (it blocks there for good; the kill comes after the hook's
 *   marker file exists, so no race is left to luck): no half-written file;
 *   after a restart the restore is reported interrupted and repeating it
 *   reaches the target.
 *
 * Evidence of every run: test/e2e/artifacts/workspace-<kind>/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import type { FileDiff, FilesAtNode, RestorePreview, RestoreResult, WorkspaceOverview } from '../../src/types.ts'
import { history, messageText, requestEndingWith } from './support/fake-llm.ts'
import { describeWeb } from './support/web-suite.ts'
import { bash, call, gitInit, hashes, sha, type Files } from './support/workspace-files.ts'

type Kind = 'git' | 'plain'

for (const kind of ['git', 'plain'] as const satisfies readonly Kind[]) {
  const options = {
    name: `workspace-${kind}`,
    workspace: (work: string) => {
      fs.writeFileSync(path.join(work, 'notes.txt'), 'banana\n')
      fs.writeFileSync(path.join(work, 'gone.txt'), 'to be removed by the shell\n')
      if (kind === 'git') gitInit(work)
    },
  }
  describeWeb(`workspace checkpoints in a ${kind} workspace (real dsh web)`, options, (dsh) => {
    let sessionId: string
    const states: Record<string, Files> = {}
    dsh.evidence('states.json', states)
    const boot = (extra: Record<string, string> = {}) => dsh.startWeb({ extra })
    const tree = () => dsh.api.tree(sessionId)
    const nodeWith = (text: string) => dsh.api.nodeWith(sessionId, text)
    const restore = (request: Record<string, unknown>) =>
      dsh.api.remote<RestoreResult>('sessionTree/restore', { agentId: sessionId, request })
    const chats = () => dsh.llm.chatRequests()
    /** The history of the first request that holds `prompt` as its last message. */
    const requestFor = (prompt: string) => requestEndingWith(dsh.llm, prompt)
    const write = (rel: string, text: string) => fs.writeFileSync(path.join(dsh.work, rel), text)

    it('checkpoints every write, edit and shell change on the tool-call node that made it', async () => {
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
      states.start = hashes(dsh.work)
      dsh.llm.push(
        call('write', { file_path: 'a.txt', content: 'alpha 1\n' }),
        call('read', { file_path: 'notes.txt' }),
        call('edit', { file_path: 'notes.txt', old_string: 'banana', new_string: 'cherry' }),
        bash('printf "shell 1\\n" > shell.txt && rm gone.txt && printf "DB\\0\\001\\377\\r\\n" > bin.dat'),
        { text: 'DONE 1' },
      )
      await dsh.api.promptAndWait(sessionId, 'T1: change the files')
      states.t1 = hashes(dsh.work)
      dsh.llm.push(
        call('write', { file_path: 'a.txt', content: 'alpha 2\n' }),
        call('edit', { file_path: 'notes.txt', old_string: 'cherry', new_string: 'date' }),
        bash('printf "more\\n" > more.txt && printf "DB\\0\\002\\376" >> bin.dat'),
        { text: 'DONE 2' },
      )
      await dsh.api.promptAndWait(sessionId, 'T2: change them again')
      states.t2 = hashes(dsh.work)
      expect(dsh.llm.faults).toEqual([])
      expect(Object.keys(states.t2).sort()).toEqual(['a.txt', 'bin.dat', 'more.txt', 'notes.txt', 'shell.txt'])
      expect(fs.readFileSync(path.join(dsh.work, 'bin.dat'))).toEqual(
        Buffer.from('DB\0\x01\xff\r\nDB\0\x02\xfe', 'latin1'),
      )
      // Every tool call succeeded (no result is an error); the last request holds each result once.
      const results = chats()
        .at(-1)!
        .body.messages.filter((m) => m.role === 'tool')
        .map(messageText)
      expect(results).toHaveLength(7)
      for (const text of results) expect(text).not.toMatch(/^Error|FS_[A-Z_]+/)
      expect(results.filter((t) => t.includes('not tracked'))).toEqual([])
      const overview = await dsh.api.remoteOk<WorkspaceOverview>('sessionTree/files', { agentId: sessionId })
      expect(overview.status).toMatchObject({
        available: true,
        shell: kind === 'git' ? 'git' : 'folder',
        root: dsh.work,
      })
      expect(overview.status.shellNote).toMatch(kind === 'git' ? /snapshotted through git/ : /plain folder/)
      if (kind === 'plain') expect(fs.existsSync(path.join(dsh.work, '.git'))).toBe(false)
      const view = await tree()
      const callNode = (name: string, n: number) =>
        view.nodes.filter(
          (x) => x.type === 'tool_call' && x.content?.some((p) => p.type === 'tool_call' && p.name === name),
        )[n]!.nodeId
      const expected = [
        { nodeId: callNode('write', 0), paths: ['a.txt'] },
        { nodeId: callNode('edit', 0), paths: ['notes.txt'] },
        { nodeId: callNode('bash', 0), paths: ['bin.dat', 'gone.txt', 'shell.txt'] },
        { nodeId: callNode('write', 1), paths: ['a.txt'] },
        { nodeId: callNode('edit', 1), paths: ['notes.txt'] },
        { nodeId: callNode('bash', 1), paths: ['bin.dat', 'more.txt'] },
      ]
      expect([...overview.nodes].sort((a, b) => Number(a.nodeId.slice(1)) - Number(b.nodeId.slice(1)))).toEqual(
        expected,
      )
    }, 600_000)

    it('jump with both: every file is as it was at that node; the next request holds the selected path and one note', async () => {
      const done1 = await nodeWith('DONE 1')
      const request = { move: { kind: 'jump', nodeId: done1.nodeId }, restore: 'both' }
      const preview = await dsh.api.remoteOk<RestorePreview>('sessionTree/restorePreview', {
        agentId: sessionId,
        request,
      })
      expect(preview.plan.entries.map((e) => [e.path, e.action]).sort()).toEqual([
        ['a.txt', 'update'],
        ['bin.dat', 'update'],
        ['more.txt', 'delete'],
        ['notes.txt', 'update'],
      ])
      expect(preview.plan.conflicts).toEqual([])
      expect(preview.plan.stat).toMatchObject({ insertions: 2, deletions: 3 })
      const diff = await dsh.api.remoteOk<{ diff: string }>('sessionTree/restoreDiff', {
        agentId: sessionId,
        request,
        path: 'notes.txt',
      })
      expect(diff.diff).toBe('--- a/notes.txt\n+++ b/notes.txt\n@@ -1,1 +1,1 @@\n-date\n+cherry\n')
      // A binary file: by size and hash, no text diff.
      const binDiff = await dsh.api.remoteOk<FileDiff>('sessionTree/restoreDiff', {
        agentId: sessionId,
        request,
        path: 'bin.dat',
      })
      expect(binDiff).toEqual({
        path: 'bin.dat',
        current: { kind: 'file', hash: states.t2!['bin.dat'], size: 12, binary: true },
        target: { kind: 'file', hash: states.t1!['bin.dat'], size: 7, binary: true },
        diff: '',
      })
      const atNode = await dsh.api.remoteOk<FilesAtNode>('sessionTree/filesAt', {
        agentId: sessionId,
        nodeId: done1.nodeId,
      })
      expect(
        atNode.files
          .filter((f) => f.differs)
          .map((f) => f.path)
          .sort(),
      ).toEqual(['a.txt', 'bin.dat', 'more.txt', 'notes.txt'])
      const before = chats().length
      const result = await restore(request)
      expect(result.ok, JSON.stringify(result)).toBe(true)
      expect(chats(), 'a restore makes no model call').toHaveLength(before)
      // Exactly the state after T1, the shell's files included, in a plain folder too.
      expect(hashes(dsh.work)).toEqual(states.t1)
      // The next turn: a blind write over a restored file is refused by the read-before-write policy; after a read it works.
      dsh.llm.push(
        call('write', { file_path: 'a.txt', content: 'blind\n' }),
        call('read', { file_path: 'a.txt' }),
        call('write', { file_path: 'a.txt', content: 'alpha 3\n' }),
        { text: 'DONE 3' },
      )
      await dsh.api.promptAndWait(sessionId, 'T3: after the jump')
      const sent = history(requestFor('T3: after the jump'))
      const t2 = history(requestFor('T2: change them again'))
      const pathToDone1 = t2.slice(0, -1)
      expect(pathToDone1.at(-1)).toEqual({ role: 'assistant', text: 'DONE 1' })
      const changed = 'a.txt, bin.dat, more.txt, notes.txt'
      expect(sent).toEqual([
        ...pathToDone1,
        {
          role: 'user',
          text: `[session-tree] The workspace files were restored to their state at ${done1.nodeId}. Changed since you last saw them: ${changed}. Read a file again before you edit or overwrite it.`,
        },
        { role: 'user', text: 'T3: after the jump' },
      ])
      const results = chats()
        .slice(before)
        .flatMap((r) =>
          r.body.messages
            .slice(-1)
            .filter((m) => m.role === 'tool')
            .map(messageText),
        )
      expect(results[0]).toMatch(/FS_STALE_VERSION|re-read the file/)
      expect(fs.readFileSync(path.join(dsh.work, 'a.txt'), 'utf8')).toBe('alpha 3\n')
      // Once: the request after the note's holds it in its history, but no second one.
      const later = history(chats().at(-1)!.body)
      expect(later.filter((m) => m.text.includes('The workspace files were restored'))).toHaveLength(1)
      states.t3 = hashes(dsh.work)
    }, 600_000)

    it('back with both: the files equal the tip again', async () => {
      const done2 = await nodeWith('DONE 2')
      const result = await restore({ move: { kind: 'jump', nodeId: done2.nodeId }, restore: 'both' })
      expect(result.ok, JSON.stringify(result)).toBe(true)
      expect(hashes(dsh.work)).toEqual(states.t2)
      // Back undoes that move: the conversation and the files return to after T3.
      const back = await restore({ move: { kind: 'back' }, restore: 'both' })
      expect(back.ok, JSON.stringify(back)).toBe(true)
      expect(hashes(dsh.work)).toEqual(states.t3)
      const forward = await restore({ move: { kind: 'forward' }, restore: 'both' })
      expect(forward.ok, JSON.stringify(forward)).toBe(true)
      expect(hashes(dsh.work)).toEqual(states.t2)
      expect((await tree()).cursor).toBe(done2.nodeId)
    }, 600_000)

    it("a user's own edit since the checkpoint is a conflict: refused without a decision, kept with keep", async () => {
      const done1 = await nodeWith('DONE 1')
      write('notes.txt', 'my own edit\n')
      const mine = sha(Buffer.from('my own edit\n'))
      const request = { move: { kind: 'jump', nodeId: done1.nodeId }, restore: 'both' }
      const preview = await dsh.api.remoteOk<RestorePreview>('sessionTree/restorePreview', {
        agentId: sessionId,
        request,
      })
      expect(preview.plan.conflicts.map((c) => [c.path, c.reason])).toEqual([['notes.txt', 'changed-outside']])
      const refused = await restore(request)
      expect(refused.ok).toBe(false)
      expect(!refused.ok && refused.error).toMatchObject({
        code: 'WORKSPACE_CONFLICT',
        details: { conflicts: [{ path: 'notes.txt' }] },
      })
      expect(hashes(dsh.work)['notes.txt']).toBe(mine)
      expect((await tree()).cursor).not.toBe(done1.nodeId)
      const kept = await restore({ ...request, conflicts: [{ path: 'notes.txt', decision: 'keep' }] })
      expect(kept.ok, JSON.stringify(kept)).toBe(true)
      expect(kept.ok && kept.value.files?.kept).toEqual(['notes.txt'])
      expect(hashes(dsh.work)).toEqual({ ...states.t1, 'notes.txt': mine })
    }, 600_000)

    it('kill -9 in the middle of a restore: no half-written file, and the restore repeats to its target', async () => {
      const done2 = await nodeWith('DONE 2')
      const before = hashes(dsh.work)
      const marker = path.join(dsh.home, 'restore-stopped')
      // Restart with the test hook: the restore stops, for good, before its second file is renamed into place.
      await dsh.stopWeb('SIGTERM')
      await boot({ DSH_SESSION_TREE_TEST_RESTORE_STOP: `2:${marker}` })
      // The user's edit from the test before is a conflict again: overwrite it (it is checkpointed first).
      const request = {
        move: { kind: 'jump', nodeId: done2.nodeId },
        restore: 'files',
        conflicts: [{ path: '*', decision: 'overwrite' }],
      }
      const pending = restore(request).catch((error: unknown) => error)
      for (let i = 0; !fs.existsSync(marker); i++) {
        if (i > 600) throw new Error('the restore never reached its second file')
        await new Promise((r) => setTimeout(r, 50))
      }
      const stoppedAt = fs.readFileSync(marker, 'utf8')
      const killed = await dsh.stopWeb('SIGKILL')
      expect(killed.signal).toBe('SIGKILL')
      await pending
      // Every file is either as before or as at the target, never anything else; the stopped one is still as before.
      const now = hashes(dsh.work)
      const temps = Object.keys(now).filter((p) => p.includes('.dsh-restore-'))
      // `.<name>.dsh-restore-<id>` next to `<name>`: the file it stages.
      const stages = (temp: string) =>
        path.posix.join(
          path.posix.dirname(temp),
          path.posix
            .basename(temp)
            .slice(1)
            .replace(/\.dsh-restore-.*$/, ''),
        )
      expect(
        temps.map(stages),
        'the stopped file was staged (with the rest of its round) next to its target',
      ).toContain(stoppedAt)
      for (const [rel, hash] of Object.entries(now)) {
        if (temps.includes(rel)) continue
        expect([before[rel], states.t2![rel]], rel).toContain(hash)
      }
      expect(now[stoppedAt]).toBe(before[stoppedAt])
      // After a restart: reported as interrupted, the leftover removed, and repeating it reaches the target.
      await boot()
      const repeated = await restore(request)
      expect(repeated.ok, JSON.stringify(repeated)).toBe(true)
      expect(hashes(dsh.work)).toEqual(states.t2)
      const overview = await dsh.api.remoteOk<WorkspaceOverview>('sessionTree/files', { agentId: sessionId })
      expect(overview.restores.filter((r) => !r.complete)).toHaveLength(1)
      expect(overview.status.interrupted).toHaveLength(1)
      if (kind === 'plain') expect(fs.existsSync(path.join(dsh.work, '.git'))).toBe(false)
    }, 600_000)
  })
}
