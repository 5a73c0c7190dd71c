/**
 * The claim that matters: after a jump or fork in the tree, the NEXT request
 * the model receives holds exactly the selected path — proven at a fake LLM
 * that records request bodies, in the real `dsh web`, with this package
 * installed from its tarball, and still after a restart.
 *
 * - stock: the unpatched harness (official events only); also after a restart
 *   with the sidecar deleted (the log alone rebuilds the tree);
 * - native: the harness with dev/session-branch-surface.patch;
 * - projection (forced by config): the opposite — the history is unchanged,
 *   so the test can tell the modes apart.
 *
 * Evidence of every run (requests, switch reports, logs): test/e2e/artifacts/surface-<mode>/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import type { MoveResult, SessionStatus, SessionTreeView } from '../../src/types.ts'
import { sessionTreePatch } from './support/dsh.ts'
import { type ChatRequestBody, history, toolPairing, withoutCallIds } from './support/fake-llm.ts'
import { notesWorkspace, readOrAnswerScript, pathToFirstAnswer as firstAnswerPath } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

type Mode = 'stock' | 'native' | 'projection'

for (const mode of ['stock', 'native', 'projection'] as const satisfies readonly Mode[]) {
  const options = {
    name: `surface-${mode}`,
    variant: mode === 'native' ? 'native' : 'stock',
    workspace: notesWorkspace,
    llm: { script: readOrAnswerScript(80) },
    // Booted below (projection with a patch written into the DSH home).
    start: false,
  }
  describeWeb(`surface mode ${mode}: the next request holds the selected path`, options, (dsh) => {
    let sessionId: string
    const patches: string[] = []
    const switches: Record<string, unknown> = {}
    dsh.evidence('switches.json', switches)

    const tree = () => dsh.api.tree(sessionId)
    const nodeWith = (text: string) => dsh.api.nodeWith(sessionId, text)
    const lastChat = () => dsh.llm.chatRequests().at(-1)!.body
    const pathToFirstAnswer = () => firstAnswerPath(dsh.llm)
    const boot = () => dsh.startWeb({ patches })

    beforeAll(async () => {
      if (mode === 'projection')
        patches.push(sessionTreePatch(dsh.home, 'projection.yml', { surfaceMode: 'projection' }))
      await boot()
    }, 600_000)

    it('converses for 3 turns, one with a tool call; the tree shows them', async () => {
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
      await dsh.api.converse(sessionId)
      expect(dsh.llm.faults).toEqual([])
      expect(dsh.llm.chatRequests()).toHaveLength(4)
      const view = await tree()
      expect(view.nodes.some((n) => n.type === 'tool_call' && n.message?.content.includes('banana'))).toBe(true)
      const status = await dsh.api.remoteOk<SessionStatus>('sessionTree/session', { agentId: sessionId })
      expect(status.surfaceMode).toBe(mode)
      expect(status.quarantine).toEqual([])
    }, 600_000)

    it('jump to the first answer: the next request is exactly that path plus the new prompt', async () => {
      const before = dsh.llm.chatRequests()
      const a1 = await nodeWith('ANSWER to: first question')
      const moved = await dsh.api.remoteOk<MoveResult>('sessionTree/jump', { agentId: sessionId, nodeId: a1.nodeId })
      switches.rewind = moved.switch ?? null
      expect(moved).toMatchObject({ cursor: a1.nodeId, mode })
      expect(dsh.llm.chatRequests(), 'a switch makes no model call').toHaveLength(before.length)
      await dsh.api.promptAndWait(sessionId, 'after the rewind')
      const sent = history(lastChat())
      const pathToA1 = pathToFirstAnswer()
      if (mode === 'projection') {
        // The opposite: the model's history did not move.
        expect(sent).toEqual([
          ...history(before.at(-1)!.body),
          { role: 'assistant', text: 'ANSWER to: third question' },
          { role: 'user', text: 'after the rewind' },
        ])
      } else {
        expect(sent).toEqual([...pathToA1, { role: 'user', text: 'after the rewind' }])
        // The shared prefix is byte-identical to what the provider saw before (its cache still applies).
        const raw = lastChat().messages.filter((m) => m.role !== 'system')
        expect(raw.slice(0, pathToA1.length)).toEqual(
          before[1]!.body.messages.filter((m) => m.role !== 'system').slice(0, pathToA1.length),
        )
        // marker insert, turn/start, claim, step/start, the tombstone's price, the tombstone, step/end, turn/end
        if (mode === 'stock') expect(moved.switch?.appendedEvents).toBe(8)
      }
    }, 600_000)

    it('jump back to the original tip: the original path with the tool call and result intact', async () => {
      const a3 = await nodeWith('ANSWER to: third question')
      const moved = await dsh.api.remoteOk<MoveResult>('sessionTree/jump', { agentId: sessionId, nodeId: a3.nodeId })
      switches.back = moved.switch ?? null
      // Marker insert, turn/start, claim, 3 steps (one per copied assistant message) around the price of the
      // rewind's turn, its stand-in (a copy of the second prompt), 5 more copies and 1 tool/call copy, turn/end.
      if (mode === 'stock') expect(moved.switch?.appendedEvents).toBe(18)
      await dsh.api.promptAndWait(sessionId, 'back on the original branch')
      const sent = history(lastChat())
      const chats = dsh.llm.chatRequests()
      // The request that produced the third answer holds the original path up to the third prompt.
      const third = history(chats[3]!.body)
      if (mode === 'projection') {
        expect(sent.map((m) => m.text)).toContain('after the rewind')
        return
      }
      expect(withoutCallIds(sent)).toEqual(
        withoutCallIds([
          ...third,
          { role: 'assistant', text: 'ANSWER to: third question' },
          { role: 'user', text: 'back on the original branch' },
        ]),
      )
      const call = sent.find((m) => m.calls)
      expect(call?.calls?.[0]).toMatchObject({ name: 'read' })
      expect(sent.find((m) => m.role === 'tool')?.text).toContain('banana')
      expect(sent.map((m) => m.text)).not.toContain('after the rewind')
      // Every call the model reads is answered by its own result.
      const pairs = toolPairing(lastChat())
      expect(pairs).toHaveLength(1)
      for (const { calls, results } of pairs) expect(results).toEqual(calls)
      // Stock copies carry fresh call ids (native mode selects the original events).
      const original = toolPairing(chats[3]!.body).flatMap((p) => p.calls)
      const now = pairs.flatMap((p) => p.calls)
      if (mode === 'stock') expect(now.filter((id) => original.includes(id))).toEqual([])
      else expect(now).toEqual(original)
      // The request's bytes: identical to the original up to the first copied call, then only the ids differ.
      const raw = (body: ChatRequestBody) =>
        body.messages.filter((m) => m.role !== 'system').map((m) => JSON.stringify(m))
      const rawThen = raw(chats[3]!.body)
      const rawNow = raw(lastChat())
      const firstCall = chats[3]!.body.messages.filter((m) => m.role !== 'system').findIndex((m) => m.tool_calls)
      expect(rawNow.slice(0, firstCall)).toEqual(rawThen.slice(0, firstCall))
      const idsOut = (text: string) => text.replaceAll(/"(id|tool_call_id)":"[^"]*"/g, '"$1":"…"')
      expect(rawNow.slice(firstCall, rawThen.length).map(idsOut)).toEqual(rawThen.slice(firstCall).map(idsOut))
      if (mode === 'stock') expect(rawNow[firstCall]).not.toBe(rawThen[firstCall])
      // No call id repeats among the log's tool/call events (DSH web's Chat keys tool cards by it).
      const logged = (await dsh.api.history(sessionId, { maxMessages: 100_000 })).events.flatMap(({ event }) =>
        event.type === 'tool/call' ? [(event.data as { callId: string }).callId] : [],
      )
      expect(logged).toHaveLength(mode === 'stock' ? 2 : 1)
      expect(new Set(logged).size).toBe(logged.length)
    }, 600_000)

    it('a jump into a tool exchange lands at its end, never between a call and its result', async () => {
      const view = await tree()
      const call = view.nodes.find((n) => n.type === 'tool_call')!
      const issuer = view.nodes.find((n) => n.nodeId === call.parentId)!
      expect(issuer.content?.some((part) => part.type === 'tool_call')).toBe(true)
      const moved = await dsh.api.remoteOk<MoveResult>('sessionTree/jump', {
        agentId: sessionId,
        nodeId: issuer.nodeId,
      })
      if (mode === 'projection') {
        // Nothing reaches the model, so the tree may stand anywhere.
        expect(moved.cursor).toBe(issuer.nodeId)
        expect(moved.snappedFrom).toBeUndefined()
      } else {
        expect(moved).toMatchObject({ cursor: call.nodeId, snappedFrom: issuer.nodeId })
        expect(moved.messages.at(-1)).toMatchObject({ role: 'tool' })
      }
    }, 600_000)

    it('fork a named branch at the first answer: the next request follows it, the tree names it', async () => {
      const a1 = await nodeWith('ANSWER to: first question')
      const forked = await dsh.api.remoteOk<MoveResult & { forkCount: number }>('sessionTree/fork', {
        agentId: sessionId,
        nodeId: a1.nodeId,
        branch: 'experiment',
      })
      switches.fork = forked.switch ?? null
      expect(forked).toMatchObject({ cursor: a1.nodeId, branch: 'experiment' })
      await dsh.api.promptAndWait(sessionId, 'on the experiment branch')
      const sent = history(lastChat())
      const view = await tree()
      expect(view.activeBranch).toBe(mode === 'projection' ? view.activeBranch : 'experiment')
      if (mode === 'projection') {
        expect(sent.map((m) => m.text)).toContain('back on the original branch')
        return
      }
      expect(sent).toEqual([...pathToFirstAnswer(), { role: 'user', text: 'on the experiment branch' }])
    }, 600_000)

    it('after a restart the model still sees the selected path', async () => {
      const a1 = await nodeWith('ANSWER to: first question')
      await dsh.api.remoteOk<MoveResult>('sessionTree/jump', { agentId: sessionId, nodeId: a1.nodeId })
      const expected = mode === 'projection' ? undefined : pathToFirstAnswer()
      await dsh.stopWeb('SIGTERM')
      await boot()
      await dsh.api.promptAndWait(sessionId, 'after the restart')
      const sent = history(lastChat())
      if (mode === 'projection') {
        expect(sent.map((m) => m.text)).toContain('on the experiment branch')
        return
      }
      expect(sent).toEqual([...expected!, { role: 'user', text: 'after the restart' }])
      const view = await tree()
      expect(view.nodes.find((n) => n.nodeId === view.cursor)?.message?.content).toBe('ANSWER to: after the restart')
      expect(view.branches.map((b) => b.name)).toContain('experiment')
    }, 600_000)

    if (mode === 'stock') {
      it('…and with the sidecar deleted: the log alone rebuilds the tree and the path', async () => {
        const target = await nodeWith('ANSWER to: back on the original branch')
        await dsh.api.remoteOk<MoveResult>('sessionTree/jump', { agentId: sessionId, nodeId: target.nodeId })
        const before = await tree()
        await dsh.stopWeb('SIGTERM')
        fs.rmSync(path.join(dsh.home, 'session-tree'), { recursive: true, force: true })
        await boot()
        await dsh.api.promptAndWait(sessionId, 'without a sidecar')
        const sent = history(lastChat())
        expect(sent.map((m) => m.text)).toEqual([
          ...history(dsh.llm.chatRequests()[3]!.body).map((m) => m.text),
          'ANSWER to: third question',
          'back on the original branch',
          'ANSWER to: back on the original branch',
          'without a sidecar',
        ])
        const after = await tree()
        // Same nodes, same parents: nothing came back twice, nothing was lost.
        const shape = (view: SessionTreeView) => view.nodes.map((n) => [n.nodeId, n.parentId])
        expect(shape(after).slice(0, before.nodes.length)).toEqual(shape(before))
        expect(after.branches.map((b) => b.name)).toContain('experiment')
        const status = await dsh.api.remoteOk<SessionStatus>('sessionTree/session', { agentId: sessionId })
        expect(status.quarantine).toEqual([])
      }, 600_000)
    }
  })
}
