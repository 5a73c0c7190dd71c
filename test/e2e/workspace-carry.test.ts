/**
 * Carry work across branches (issue 24.4) in the real, pinned `dsh web` with
 * this package installed from its tarball, in a plain folder: the harness's
 * own `write`, `read` and `edit` tools, driven by the recording fake LLM,
 * change a.txt on two branches (line 1 on main, line 8 on "other") and make
 * a file on each; at main's tip the other branch's changes are carried over
 * HTTP. Judged by the files' hashes on disk and by the fake LLM's next
 * request (one note naming the carried files); Back with the files brings
 * back every byte, and no `.git` appears in the folder.
 *
 * Evidence of every run: test/e2e/artifacts/workspace-carry/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import type { CarryPreview, CarryResult, RestoreResult } from '../../src/types.ts'
import { messageText, requestEndingWith } from './support/fake-llm.ts'
import { describeWeb } from './support/web-suite.ts'
import { carryBranches, lines } from './support/carry-branches.ts'
import { hashes, sha, type Files } from './support/workspace-files.ts'

describeWeb('carry another branch’s file changes (real dsh web, plain folder)', { name: 'workspace-carry' }, (dsh) => {
  const states: Record<string, Files> = {}
  dsh.evidence('states.json', states)

  it('takes, merges and keeps per file; the next request is told; Back restores every byte', async () => {
    const { sessionId } = await dsh.api.createSession({ cwd: dsh.work })
    const restore = (request: Record<string, unknown>) =>
      dsh.api.remoteOk<RestoreResult>('sessionTree/restore', { agentId: sessionId, request })
    const { base, main, states: made } = await carryBranches(dsh, sessionId, restore)
    states.other = made.other
    states.mine = made.mine
    expect(dsh.llm.faults).toEqual([])
    expect(states.mine['a.txt']).toBe(sha(Buffer.from(lines('ONE', '2', '3', '4', '5', '6', '7', '8'))))

    const preview = await dsh.api.remoteOk<CarryPreview>('sessionTree/carryPreview', {
      agentId: sessionId,
      request: { from: 'other' },
    })
    expect(preview).toMatchObject({ branch: 'other', at: main, common: base })
    expect(preview.entries.map((e) => [e.path, e.action])).toEqual([
      ['a.txt', 'merge'],
      ['m.txt', 'kept'],
      ['o.txt', 'take'],
    ])
    const carried = await dsh.api.remoteOk<CarryResult>('sessionTree/carry', {
      agentId: sessionId,
      request: { from: 'other' },
    })
    expect(carried).toMatchObject({ taken: ['o.txt'], merged: ['a.txt'], marked: [], mine: [] })
    states.carried = hashes(dsh.work)
    expect(states.carried).toEqual({
      'a.txt': sha(Buffer.from(lines('ONE', '2', '3', '4', '5', '6', '7', 'EIGHT'))),
      'm.txt': states.mine['m.txt'],
      'o.txt': states.other['o.txt'],
    })
    expect(fs.existsSync(path.join(dsh.work, '.git'))).toBe(false)

    // The model's next request holds the note once; it names m.txt too (the jump back to main, not seen by the model yet).
    dsh.llm.push({ text: 'SEEN' })
    await dsh.api.promptAndWait(sessionId, 'T3: what changed?')
    const request = requestEndingWith(dsh.llm, 'T3: what changed?')
    const notes = request.messages.map(messageText).filter((text) => text.includes('were carried into the workspace'))
    expect(notes).toEqual([
      `[session-tree] The file changes of the branch at ${carried.from} were carried into the workspace. Changed since you last saw them: a.txt, m.txt, o.txt. Read a file again before you edit or overwrite it.`,
    ])

    // Back with the files: every byte as before the carry.
    await restore({ move: { kind: 'back' }, restore: 'files' })
    expect(hashes(dsh.work)).toEqual(states.mine)
  }, 600_000)
})
