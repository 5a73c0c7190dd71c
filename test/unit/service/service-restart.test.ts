/**
 * Restarts of a real in-process agent loop (stock mode): the log alone holds
 * every switch (its marker names target and branch), the sidecar journal the
 * rest. Re-applying what the log already holds is a no-op, so a clean
 * restart reports no warning at all, and the tree — nodes, branches, labels,
 * cursor, navigation history — comes back exactly, restart after restart.
 * (Native mode: test/e2e/restart.test.ts against the patched `dsh web`.)
 */
import { describe, expect, it } from 'vitest'
import { checkedRigs, transcript, type LoopRig, type ScriptEntry } from '../../support/tool-rig.ts'

const rig = checkedRigs()

const answers = (n: number): ScriptEntry[] => Array.from({ length: n }, (_, i) => ({ text: `A${i + 1}` }))

/** Everything a restart must bring back. */
async function state(r: LoopRig) {
  const tree = r.service.sync.get(r.sessionId)!.projector.tree
  return { view: await r.service.list(r.sessionId), navigation: tree.navigation(), summaries: tree.summaries() }
}

describe('a clean restart reports no warning and loses nothing', () => {
  it('forks, jumps, labels, back and forward, over four restarts (stock)', async () => {
    const script: ScriptEntry[] = [
      { text: 'A1' },
      { calls: [{ name: 'tree', args: { action: 'list' } }] },
      { text: 'A2 after the listing' },
      ...answers(20),
    ]
    let r = await rig(script)
    await r.say('Q1')
    await r.say('Q2 with a tool')
    await r.say('Q3')
    const node = async (text: string) =>
      (await r.service.list(r.sessionId)).nodes.find((n) => n.message?.content === text)!.nodeId
    const a1 = await node('A1')
    await r.service.fork(r.sessionId, a1, 'alt')
    await r.say('on alt')
    await r.service.label(r.sessionId, a1, 'first answer')
    await r.service.jump(r.sessionId, await node('A2 after the listing'))
    await r.service.back(r.sessionId)
    await r.service.forward(r.sessionId)
    await r.service.summarize(r.sessionId, 'alt')

    for (let restart = 1; restart <= 4; restart++) {
      const before = await state(r)
      const stopped = await r.stop()
      r = await rig(script.slice(r.model.requests.length), { resume: stopped })
      const status = await r.service.session(r.sessionId)
      expect(status.sidecarWarnings, `restart ${restart}`).toEqual([])
      expect(status.quarantine, `restart ${restart}`).toEqual([])
      expect(await state(r), `restart ${restart}`).toEqual(before)
      // More of everything before the next restart.
      const tip = (await r.service.list(r.sessionId)).cursor
      await r.service.fork(r.sessionId, a1, `fork-${restart}`)
      await r.say(`on fork ${restart}`)
      await r.service.jump(r.sessionId, tip)
      await r.service.back(r.sessionId)
      if (restart % 2 === 0) await r.service.forward(r.sessionId)
      await r.service.label(r.sessionId, await node(`on fork ${restart}`), `label ${restart}`)
    }
    const last = await state(r)
    await r.say('after all restarts')
    expect(transcript(r.model.requests.at(-1)!).at(-1)).toBe('user: after all restarts')
    const byId = new Map(last.view.nodes.map((n) => [n.nodeId, n]))
    const expected: string[] = []
    for (let id = last.view.cursor; id !== null; id = byId.get(id)!.parentId) {
      const message = byId.get(id)!.message
      if (message) expected.unshift(`${message.role}: ${message.content}`)
    }
    const sent = transcript(r.model.requests.at(-1)!)
      .slice(0, -1)
      .filter((line) => !line.includes('call tree({"action":"list"') && !line.startsWith('tool:'))
    expect(sent).toEqual(expected.filter((line) => !line.includes('tree({"action":"list"')))
  }, 600_000)
})
