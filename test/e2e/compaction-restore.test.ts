/**
 * Files and branch summaries across a real DSH compaction (issue 26 item 4), in the real `dsh web`
 * with this package from its tarball, stock and native. The model changes two files with DSH's own
 * `write` and `edit` tools before DSH's `/compact` and again after it. Then:
 * - a files restore to a node before the compaction: every workspace file's hash is its state at
 *   that node, the next request holds that path as it was (the original messages) and one restore
 *   note; back restores the tip's files byte for byte, forward the node's again;
 * - a jump with a carried branch summary from the compacted tip to a node before the compaction:
 *   the fake LLM's summarization request holds what the jump leaves, as it was (the messages DSH
 *   compacted away included, DSH's summary of what stays not), and the next request carries the
 *   summary once after the original path.
 * Judged at the fake LLM's recorded requests under the strict provider contract.
 *
 * Evidence of every run: test/e2e/artifacts/compaction-restore-<mode>/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import type { RestoreResult, TreeNode } from '../../src/types.ts'
import { CARRIED_PREFIX } from '../../src/harness/carried-summary.ts'
import { compactionSession, orchard as long, type Said } from './support/compaction-session.ts'
import { type ChatRequestBody, messageText, readOrAnswer, type StaticStep, userPrompts } from './support/fake-llm.ts'
import { notesWorkspace } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'
import { call, hashes, type Files } from './support/workspace-files.ts'

/** The model of one suite: file steps for some prompts (then `DONE <n>`); any other prompt gets `readOrAnswer`. */
function fileModel(): (body: ChatRequestBody) => StaticStep {
  const planned = new Map<string, StaticStep[]>([
    [long(1), [call('write', { file_path: 'a.txt', content: 'alpha 1\n' }), { text: 'DONE 1' }]],
    [
      long(2),
      [
        call('read', { file_path: 'notes.txt' }),
        call('edit', { file_path: 'notes.txt', old_string: 'banana', new_string: 'cherry' }),
        { text: 'DONE 2' },
      ],
    ],
    [
      long(5),
      [
        call('read', { file_path: 'a.txt' }),
        call('write', { file_path: 'a.txt', content: 'alpha 2\n' }),
        call('read', { file_path: 'notes.txt' }),
        call('edit', { file_path: 'notes.txt', old_string: 'cherry', new_string: 'date' }),
        { text: 'DONE 5' },
      ],
    ],
  ])
  return (body) => {
    const prompt = userPrompts(body).at(-1)
    return (prompt ? planned.get(messageText(prompt))?.shift() : undefined) ?? readOrAnswer(body)
  }
}

/** What the model reads after a restore to a node (both files changed). */
const note = (nodeId: string) =>
  `[session-tree] The workspace files were restored to their state at ${nodeId}. Changed since you last saw them: a.txt, notes.txt. Read a file again before you edit or overwrite it.`

/** Every workspace file's bytes, by path. */
function contents(dir: string): Record<string, string> {
  return Object.fromEntries(
    Object.keys(hashes(dir)).map((rel) => [rel, fs.readFileSync(path.join(dir, rel)).toString('base64')]),
  )
}

for (const mode of ['stock', 'native'] as const) {
  const model = fileModel()
  const options = {
    name: `compaction-restore-${mode}`,
    variant: mode,
    workspace: notesWorkspace,
    llm: { script: Array.from({ length: 80 }, () => model) },
  }
  describeWeb(`files and branch summaries across a DSH /compact (${mode})`, options, (dsh) => {
    let sessionId: string
    let compaction: TreeNode
    const s = compactionSession(dsh, () => sessionId)
    const states: Record<string, Files> = {}
    const bytes: Record<string, Record<string, string>> = {}
    dsh.evidence('states.json', states)
    /** The path to the node before a prompt, as DSH sent it before the compaction. */
    const original = new Map<string, Said>()
    const restore = (request: Record<string, unknown>) =>
      dsh.api.remote<RestoreResult>('sessionTree/restore', { agentId: sessionId, request })

    it(`${mode}: files changed by DSH's write and edit before and after DSH's /compact`, async () => {
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
      for (const prompt of [long(1), long(2), long(3), long(4)]) original.set(prompt, await s.say(prompt))
      states.beforeCompaction = hashes(dsh.work)
      expect(fs.readFileSync(path.join(dsh.work, 'a.txt'), 'utf8')).toBe('alpha 1\n')
      expect(fs.readFileSync(path.join(dsh.work, 'notes.txt'), 'utf8')).toBe('cherry\n')
      const done = await s.command('/compact')
      expect(done.result.kind, done.result.text).toBe('success')
      compaction = (await s.tree()).nodes.find((n) => n.type === 'compaction')!
      expect(compaction.replaces).toContain(await s.nodeId('DONE 2'))
      const compacted = await s.say(long(5))
      expect(compacted[0]?.text).toContain('<compacted-summary>')
      expect(compacted.map((m) => m.text)).not.toContain('DONE 1')
      states.tip = hashes(dsh.work)
      bytes.tip = contents(dsh.work)
      expect(fs.readFileSync(path.join(dsh.work, 'a.txt'), 'utf8')).toBe('alpha 2\n')
      expect(fs.readFileSync(path.join(dsh.work, 'notes.txt'), 'utf8')).toBe('date\n')
      // Every tool call succeeded: no result is an error.
      const results = s
        .chats()
        .at(-1)!
        .body.messages.filter((m) => m.role === 'tool')
        .map(messageText)
      expect(results.length).toBeGreaterThanOrEqual(4)
      for (const text of results) expect(text).not.toMatch(/^Error|FS_[A-Z_]+/)
      expect(dsh.llm.faults).toEqual([])
    }, 600_000)

    it(`${mode}: a files restore to a node before the compaction; back restores the tip byte for byte`, async () => {
      const done2 = await s.nodeId('DONE 2')
      const tip = (await s.tree()).cursor
      const before = s.chats().length
      const result = await restore({ move: { kind: 'jump', nodeId: done2 }, restore: 'both' })
      expect(result.ok, JSON.stringify(result)).toBe(true)
      expect(s.chats(), 'a restore makes no model call').toHaveLength(before)
      expect(hashes(dsh.work)).toEqual(states.beforeCompaction)
      // The model reads that path as it was, and one note.
      expect(await s.say('after the restore')).toEqual([...original.get(long(3))!, { role: 'user', text: note(done2) }])
      const back = await restore({ move: { kind: 'back' }, restore: 'both' })
      expect(back.ok, JSON.stringify(back)).toBe(true)
      expect((await s.tree()).cursor).toBe(tip)
      expect(hashes(dsh.work)).toEqual(states.tip)
      expect(contents(dsh.work)).toEqual(bytes.tip)
      const forward = await restore({ move: { kind: 'forward' }, restore: 'both' })
      expect(forward.ok, JSON.stringify(forward)).toBe(true)
      expect(hashes(dsh.work)).toEqual(states.beforeCompaction)
      const again = await restore({ move: { kind: 'jump', nodeId: tip }, restore: 'both' })
      expect(again.ok, JSON.stringify(again)).toBe(true)
      expect(contents(dsh.work)).toEqual(bytes.tip)
      // The model reads the compacted path again, and that the files changed under it.
      const atTip = await s.say('at the tip again')
      expect(atTip[0]?.text).toContain('<compacted-summary>')
      expect(atTip.at(-2)).toEqual({ role: 'assistant', text: 'DONE 5' })
      expect(atTip.at(-1)).toEqual({ role: 'user', text: note(tip!) })
      await s.move('jump', { nodeId: tip })
    }, 600_000)

    it(`${mode}: a carried branch summary of what a jump across the compaction leaves`, async () => {
      const done1 = await s.nodeId('DONE 1')
      const moved = await s.move('jumpWith', {
        nodeId: done1,
        options: { summary: { kind: 'summarize', carry: true } },
      })
      const [request] = dsh.llm.summaryRequests()
      expect(request, 'the summarization request').toBeDefined()
      dsh.evidence('summary-request.json', request!.body)
      // The model is asked with what the jump leaves, as it was: from the second prompt to the tip, the
      // turns DSH compacted away included (not only named), nothing before it, not DSH's summary.
      const asked = request!.body.messages.map(messageText).join('\n')
      for (const text of [long(2), 'DONE 2', `ANSWER to: ${long(3)}`, `ANSWER to: ${long(4)}`, long(5), 'DONE 5'])
        expect(asked, `the summarization request holds ${JSON.stringify(text.slice(0, 40))}`).toContain(text)
      expect(asked).not.toContain(long(1))
      expect(asked).not.toContain('<compacted-summary>')
      const written = moved.summary!
      expect(written.fallback, JSON.stringify(written.failure)).toBeUndefined()
      expect(written.summary).toBe(`MODEL-SUMMARY: the branch began with "${long(2)}".`)
      // The next request: the path to the first answer as it was, then the summary once.
      const next = await s.say('after the carry')
      expect(next).toEqual([
        ...original.get(long(2))!,
        { role: 'user', text: `${CARRIED_PREFIX}\n\n${written.summary}` },
      ])
      expect(s.whole.get('after the carry')!.filter((m) => m.text.includes('MODEL-SUMMARY'))).toHaveLength(1)
      expect(dsh.llm.faults).toEqual([])
    }, 600_000)
  })
}
