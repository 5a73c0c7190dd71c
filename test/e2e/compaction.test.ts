/**
 * Branches survive a real DSH compaction (issue 26), in the real `dsh web` with this package from its
 * tarball, stock (the unpatched harness) and native (dev/session-branch-surface.patch): a
 * conversation with a tool call, a fork before the compaction, then DSH's own `/compact`
 * (`dsh-command-compact` over `dsh-compaction-basic`; the fake LLM answers its summarization
 * request with a scripted summary). Judged at the recorded requests, whose ground truth is what
 * DSH itself sent: before the compaction (the original messages) and right after it (the summary
 * and the kept messages). The tree keeps every node of every branch and shows the compaction
 * (`list`, `/tree`); labels before it resolve; jumps to either side, back and forward across it, a
 * fork before it, and a restart each give the model exactly the selected path.
 *
 * Evidence of every run: test/e2e/artifacts/compaction-<mode>/.
 */
import { expect, it } from 'vitest'
import type { SessionTreeView, TreeNode } from '../../src/types.ts'
import { compactionSession, orchard as long, type Said } from './support/compaction-session.ts'
import { COMPACTION_MARK, history } from './support/fake-llm.ts'
import { notesWorkspace, readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

/** What a node is, leaving out what its later children change (counts, heads). */
const kept = ({ nodeId, parentId, type, message, content, label, origin }: TreeNode) => ({
  nodeId,
  parentId,
  type,
  message,
  content,
  label,
  origin,
})

for (const mode of ['stock', 'native'] as const) {
  const options = {
    name: `compaction-${mode}`,
    variant: mode,
    workspace: notesWorkspace,
    llm: { script: readOrAnswerScript(80) },
  }
  describeWeb(`a DSH /compact keeps every branch (${mode})`, options, (dsh) => {
    let sessionId: string
    let beforeCompaction: SessionTreeView
    let compaction: TreeNode
    /** The path to a node as DSH sent it before the compaction, by the prompt that followed it. */
    const original = new Map<string, Said>()
    /** What DSH sent with the first prompt after its compaction (that prompt left out). */
    let compacted: Said
    const { whole, tree, move, command, nodeId, say, restartWhole } = compactionSession(dsh, () => sessionId)
    /** What the model read with a prompt, then the answer it gave. */
    const withAnswer = (prefix: Said, answer: string): Said => [...prefix, { role: 'assistant', text: answer }]

    it(`${mode}: a conversation, a fork before the compaction, then DSH's /compact; the tree keeps every node`, async () => {
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
      const prompts = [long(1), 'please READ notes.txt', long(3), long(4)]
      for (const prompt of prompts) {
        // The path to the node before this prompt, as DSH sent it.
        original.set(prompt, await say(prompt))
      }
      expect((await dsh.api.status(sessionId)).surfaceMode).toBe(mode)
      const a1 = await nodeId(`ANSWER to: ${long(1)}`)
      await move('fork', { nodeId: a1, branch: 'alt' })
      expect(await say('on alt')).toEqual(original.get('please READ notes.txt'))
      await move('label', { nodeId: await nodeId(`ANSWER to: ${long(3)}`), label: 'third answer' })
      await move('jump', { nodeId: await nodeId(`ANSWER to: ${long(4)}`) })
      beforeCompaction = await tree()

      const done = await command('/compact')
      expect(done.result.kind, done.result.text).toBe('success')
      expect(done.result.text).toMatch(/^Compacted \d+ history items/)
      expect(dsh.llm.compactionRequests()).toHaveLength(1)
      // DSH summarised the main path: the prompts of the turns before the kept tail, not the fork's.
      const asked = history(dsh.llm.compactionRequests()[0]!.body).map((m) => m.text)
      expect(asked.at(-1)).toContain(COMPACTION_MARK)
      expect(asked).toContain(long(1))
      expect(asked).not.toContain('on alt')

      const after = await tree()
      dsh.evidence('tree-after-compaction.json', after)
      // Nothing lost: every node of every branch, unchanged, and every branch head.
      for (const node of beforeCompaction.nodes) expect(after.nodes.map(kept)).toContainEqual(kept(node))
      for (const branch of beforeCompaction.branches) {
        const now = after.branches.find((b) => b.name === branch.name)
        // The branch the compaction happened on goes on to the compaction; the others stay as they were.
        expect(now?.nodeIds, branch.name).toEqual(
          branch.headId === beforeCompaction.cursor ? [...branch.nodeIds, expect.any(String)] : branch.nodeIds,
        )
      }
      const made = after.nodes.filter((n) => !beforeCompaction.nodes.some((o) => o.nodeId === n.nodeId))
      expect(made.map((n) => n.type)).toEqual(['compaction'])
      compaction = made[0]!
      // The compaction is a node: DSH's summary, what it replaced, where the model history now ends.
      expect(compaction.message?.content).toContain('<compacted-summary>')
      expect(compaction.message?.content).toContain(`COMPACTED: from "${long(1)}"`)
      expect(compaction.parentId).toBe(beforeCompaction.cursor)
      expect(after.cursor).toBe(compaction.nodeId)
      const replaced = compaction.replaces ?? []
      expect(replaced).toContain(await nodeId(long(1)))
      expect(replaced).toContain(a1)
      expect(replaced).not.toContain(beforeCompaction.cursor)
      // `/tree` shows it too.
      const shown = await command('/tree')
      expect(shown.result.text).toMatch(/compaction/i)
      expect(shown.result.text).toContain('← cursor')
    }, 600_000)

    it(`${mode}: the next prompt reads what DSH made of it: the summary and the kept messages`, async () => {
      compacted = await say(long(5))
      expect(compacted[0]?.role).toBe('user')
      expect(compacted[0]?.text).toContain('<compacted-summary>')
      expect(compacted.map((m) => m.text)).not.toContain(long(1))
      expect(compacted.at(-1)).toEqual({ role: 'assistant', text: `ANSWER to: ${long(4)}` })
      // The new prompt is the compaction's child.
      expect((await dsh.api.nodeWith(sessionId, long(5))).parentId).toBe(compaction.nodeId)
    }, 600_000)

    it(`${mode}: a jump by label to a node before it gives the model the original messages`, async () => {
      const jumped = await command('/tree jump third answer')
      expect(jumped.result.text).toContain(`Moved: jump to ${await nodeId(`ANSWER to: ${long(3)}`)}.`)
      expect(await say('after the third, again')).toEqual(original.get(long(4)))
    }, 600_000)

    it(`${mode}: a jump back to the compacted tip gives what DSH gave after the compaction`, async () => {
      await move('jump', { nodeId: compaction.nodeId })
      expect((await tree()).cursor).toBe(compaction.nodeId)
      expect(await say('from the compaction')).toEqual(compacted)
      await move('jump', { nodeId: await nodeId(`ANSWER to: ${long(5)}`) })
      expect(await say(long(6))).toEqual(withAnswer(whole.get(long(5))!, `ANSWER to: ${long(5)}`))
    }, 600_000)

    it(`${mode}: back and forward across it`, async () => {
      const tip = (await tree()).cursor
      const a1 = await nodeId(`ANSWER to: ${long(1)}`)
      await move('jump', { nodeId: a1 })
      expect((await move('back')).cursor).toBe(tip)
      const atTip = await say('back at the tip')
      expect(atTip.slice(0, compacted.length)).toEqual(compacted)
      expect(atTip.map((m) => m.text)).not.toContain(long(1))
      // Forward leads to where back came from: the first answer, before the compaction.
      await move('jump', { nodeId: tip })
      await move('jump', { nodeId: a1 })
      await move('back')
      expect((await move('forward')).cursor).toBe(a1)
      expect(await say('forward to the first')).toEqual(original.get('please READ notes.txt'))
    }, 600_000)

    it(`${mode}: a fork before it`, async () => {
      const a3 = await nodeId(`ANSWER to: ${long(3)}`)
      await move('fork', { nodeId: a3, branch: 'before-compaction' })
      expect(await say('on the early fork')).toEqual(original.get(long(4)))
      const view = await tree()
      expect(view.branches.map((b) => b.name)).toEqual(expect.arrayContaining(['alt', 'before-compaction']))
      for (const node of beforeCompaction.nodes) expect(view.nodes.map((n) => n.nodeId)).toContain(node.nodeId)
    }, 600_000)

    it(`${mode}: after a restart, the tree is whole and both sides of the compaction still hold`, async () => {
      await restartWhole()
      await command('/tree jump third answer')
      expect(await say('third, after the restart')).toEqual(original.get(long(4)))
      await move('jump', { nodeId: compaction.nodeId })
      expect(await say('compaction, after the restart')).toEqual(compacted)
      expect(dsh.llm.compactionRequests()).toHaveLength(1)
      expect(dsh.llm.faults).toEqual([])
    }, 600_000)
  })
}
