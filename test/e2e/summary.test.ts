/**
 * Branch summaries written by the session's model and carried into the new
 * path (issue 14 part 1), judged at the recording fake LLM in the real
 * `dsh web` with this package installed from its tarball. The fake answers
 * the summary side call by its fixed system mark, without consuming a chat
 * step.
 *
 * stock and native: a jump with a carried summary puts it in the next
 * request exactly once; again after a restart, after a jump off it and back
 * across it, and (stock) after a restart with the sidecar deleted (the log
 * alone recognises the summary); a panel-only summary is in no request; a
 * model that hangs past the timeout or answers an error yields the
 * extractive digest, recorded as a fallback with the reason. projection:
 * carrying is refused with SURFACE_UNAVAILABLE, a panel-only summary works.
 *
 * Evidence of every run: test/e2e/artifacts/summary-<mode>/.
 */
import { beforeAll, expect, it } from 'vitest'
import type { BranchSummary, MoveResult } from '../../src/types.ts'
import { CARRIED_PREFIX } from '../../src/harness/carried-summary.ts'
import { SUMMARY_REQUEST_MARK } from '../../src/service/model-summary.ts'
import { canonical } from './support/canonical.ts'
import { sessionTreePatch } from './support/dsh.ts'
import { history, messageText, type ChatRequestBody } from './support/fake-llm.ts'
import { removeSidecars } from './support/sidecar-files.ts'
import { notesWorkspace, readOrAnswerScript, pathToFirstAnswer as firstAnswerPath } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

/** Long enough for a loopback answer on a loaded machine; the hanging answer below waits far longer. */
const SUMMARY_TIMEOUT_MS = 8_000
const SUMMARY_TEXT = 'MODEL-SUMMARY: the branch began with "please READ notes.txt".'
const CARRIED = `${CARRIED_PREFIX}\n\n${SUMMARY_TEXT}`

/** How many messages of a request hold the model-written summary. */
function summaryCount(body: ChatRequestBody): number {
  return body.messages.filter((m) => messageText(m).includes('MODEL-SUMMARY')).length
}

for (const mode of ['stock', 'native', 'projection'] as const) {
  const options = {
    name: `summary-${mode}`,
    variant: mode === 'native' ? 'native' : 'stock',
    workspace: notesWorkspace,
    llm: { script: readOrAnswerScript(80) },
    // Booted below, with a patch written into the DSH home.
    start: false,
  }
  describeWeb(`branch summaries written by the model (${mode})`, options, (dsh) => {
    let sessionId: string
    const patches: string[] = []
    const results: Record<string, unknown> = {}
    dsh.evidence('results.json', results)

    const tree = () => dsh.api.tree(sessionId)
    const nodeWith = (text: string) => dsh.api.nodeWith(sessionId, text)
    const lastChat = () => dsh.llm.chatRequests().at(-1)!.body
    const boot = () => dsh.startWeb({ patches })
    const pathToFirstAnswer = () => firstAnswerPath(dsh.llm)
    /** The last request: the path to the first answer, the summary, then `after`; the summary in it once, and once in the tree. */
    const summaryHeldOnce = async (after: readonly string[]) => {
      expect(history(lastChat()).map((m) => m.text)).toEqual([
        ...pathToFirstAnswer().map((m) => m.text),
        CARRIED,
        ...after,
      ])
      expect(summaryCount(lastChat())).toBe(1)
      expect((await tree()).nodes.filter((n) => n.message?.content === CARRIED)).toHaveLength(1)
    }

    beforeAll(async () => {
      patches.push(
        sessionTreePatch(dsh.home, 'summary.yml', {
          surfaceMode: mode === 'projection' ? 'projection' : 'auto',
          summaryTimeoutMs: SUMMARY_TIMEOUT_MS,
        }),
      )
      await boot()
    }, 600_000)

    it('converses for 3 turns, one with a tool call', async () => {
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
      await dsh.api.converse(sessionId)
      expect(dsh.llm.faults).toEqual([])
      expect(dsh.llm.chatRequests()).toHaveLength(4)
    }, 600_000)

    if (mode === 'projection') {
      it('refuses to carry a summary, with a typed code, and changes nothing', async () => {
        const a1 = await nodeWith('ANSWER to: first question')
        const before = await tree()
        const refused = await dsh.api.remote<MoveResult>('sessionTree/jumpWith', {
          agentId: sessionId,
          nodeId: a1.nodeId,
          options: { summary: { kind: 'summarize', carry: true } },
        })
        expect(refused.ok).toBe(false)
        if (refused.ok) return
        expect(refused.error.code).toBe('SURFACE_UNAVAILABLE')
        expect(refused.error.message).toContain('projection mode')
        expect(dsh.llm.summaryRequests(), 'refused before any model call').toHaveLength(0)
        expect((await tree()).cursor).toBe(before.cursor)
      }, 600_000)

      it('a panel-only summary is written by the model and recorded', async () => {
        const a1 = await nodeWith('ANSWER to: first question')
        const moved = await dsh.api.remoteOk<MoveResult>('sessionTree/jumpWith', {
          agentId: sessionId,
          nodeId: a1.nodeId,
          options: { summary: { kind: 'summarize' } },
        })
        expect(moved.summary).toMatchObject({ summary: SUMMARY_TEXT, usage: { inputTokens: 100, outputTokens: 10 } })
        expect(moved.summary?.fallback).toBeUndefined()
        expect(dsh.llm.summaryRequests()).toHaveLength(1)
      }, 600_000)
      return
    }

    it('jump with a carried summary: the model wrote it, and the next request holds it exactly once', async () => {
      const a1 = await nodeWith('ANSWER to: first question')
      const chatsBefore = dsh.llm.chatRequests().length
      const previous = dsh.llm.chatRequests().at(-1)!.body
      const moved = await dsh.api.remoteOk<MoveResult>('sessionTree/jumpWith', {
        agentId: sessionId,
        nodeId: a1.nodeId,
        options: { summary: { kind: 'summarize', carry: true } },
      })
      results.carried = moved
      expect(dsh.llm.chatRequests(), 'the side call consumes no chat step').toHaveLength(chatsBefore)
      const [request] = dsh.llm.summaryRequests()
      expect(request).toBeDefined()
      // The KV-cache prefix: the side call starts with the session's previous request, byte for byte
      // (system prompt, every message, the same tools), then the answer to it, then our instruction.
      const sent = request!.body.messages
      expect(sent).toHaveLength(previous.messages.length + 2)
      expect(canonical(sent.slice(0, previous.messages.length))).toBe(canonical(previous.messages))
      expect(canonical(request!.body.tools)).toBe(canonical(previous.tools))
      expect(previous.tools?.length).toBeGreaterThan(0)
      expect(sent.at(-2)).toMatchObject({ role: 'assistant', content: 'ANSWER to: third question' })
      // It names what the jump leaves: from the second prompt on, right after the first answer.
      const asked = messageText(sent.at(-1)!)
      expect(sent.at(-1)!.role).toBe('user')
      expect(asked.startsWith(SUMMARY_REQUEST_MARK)).toBe(true)
      expect(asked).toContain(
        'from this message on:\nuser: please READ notes.txt\nright after\nassistant: ANSWER to: first question\n',
      )
      expect(request!.body.model).toBe(dsh.llm.chatRequests()[0]!.body.model)
      // Reasoning off (the model lists that effort), our output cap.
      expect(request!.body.thinking).toEqual({ type: 'disabled' })
      expect(request!.body.max_tokens).toBe(1024)
      const summary = moved.summary!
      expect(summary).toMatchObject({
        summary: SUMMARY_TEXT,
        model: request!.body.model,
        usage: { inputTokens: 100, outputTokens: 10 },
        fromNodeId: a1.nodeId,
      })
      expect(summary.provider).toEqual(expect.any(String))
      expect(summary.fallback).toBeUndefined()
      expect(moved.cursor).toBe(summary.carriedNodeId)
      const view = await tree()
      const carried = view.nodes.find((n) => n.nodeId === summary.carriedNodeId)!
      expect(carried).toMatchObject({ parentId: a1.nodeId, message: { role: 'user', content: CARRIED } })
      expect(view.cursor).toBe(carried.nodeId)

      await dsh.api.promptAndWait(sessionId, 'after the carry')
      expect(history(lastChat())).toEqual([
        ...pathToFirstAnswer(),
        { role: 'user', text: CARRIED },
        { role: 'user', text: 'after the carry' },
      ])
      expect(summaryCount(lastChat())).toBe(1)
      const after = await tree()
      expect(after.nodes.find((n) => n.message?.content === 'after the carry')?.parentId).toBe(carried.nodeId)
    }, 600_000)

    it('after a restart the next request still holds it exactly once', async () => {
      await dsh.stopWeb('SIGTERM')
      await boot()
      await dsh.api.promptAndWait(sessionId, 'after the restart')
      await summaryHeldOnce(['after the carry', 'ANSWER to: after the carry', 'after the restart'])
    }, 600_000)

    it('a jump off the summary drops it; a jump back across it holds it once again (one node in the tree)', async () => {
      const a3 = await nodeWith('ANSWER to: third question')
      await dsh.api.remoteOk<MoveResult>('sessionTree/jump', { agentId: sessionId, nodeId: a3.nodeId })
      await dsh.api.promptAndWait(sessionId, 'on the old branch')
      expect(summaryCount(lastChat())).toBe(0)
      const back = await nodeWith('ANSWER to: after the restart')
      await dsh.api.remoteOk<MoveResult>('sessionTree/jump', { agentId: sessionId, nodeId: back.nodeId })
      await dsh.api.promptAndWait(sessionId, 'across the summary')
      // The stock copy maps back to the same node: the tree still holds the summary once.
      await summaryHeldOnce([
        'after the carry',
        'ANSWER to: after the carry',
        'after the restart',
        'ANSWER to: after the restart',
        'across the summary',
      ])
    }, 600_000)

    if (mode === 'stock') {
      it('with the sidecar deleted, the log alone recognises the summary (who wrote it) and the request holds it once', async () => {
        await dsh.stopWeb('SIGTERM')
        removeSidecars(dsh.home)
        await boot()
        // A stored session loads when it gets a message.
        await dsh.api.promptAndWait(sessionId, 'without a sidecar')
        expect(summaryCount(lastChat())).toBe(1)
        expect(
          history(lastChat())
            .map((m) => m.text)
            .slice(-2),
        ).toEqual(['ANSWER to: across the summary', 'without a sidecar'])
        const view = await tree()
        const carried = view.nodes.filter((n) => n.message?.content === CARRIED)
        expect(carried).toHaveLength(1)
        const facts = (
          carried[0]!.metadata as { branchSummary?: { writer?: { model?: string }; usage?: unknown } } | undefined
        )?.branchSummary
        expect(facts?.writer?.model).toBe(dsh.llm.chatRequests()[0]!.body.model)
        expect(facts?.usage).toMatchObject({ inputTokens: 100, outputTokens: 10 })
        expect(carried[0]!.summary).toContain('Branch summary')
      }, 600_000)
    }

    it('a panel-only summary (no carry) is recorded and reaches no request', async () => {
      const a1 = await nodeWith('ANSWER to: first question')
      const summariesBefore = dsh.llm.summaryRequests().length
      const moved = await dsh.api.remoteOk<MoveResult>('sessionTree/jumpWith', {
        agentId: sessionId,
        nodeId: a1.nodeId,
        options: { summary: { kind: 'custom', instructions: 'name the files' } },
      })
      expect(dsh.llm.summaryRequests()).toHaveLength(summariesBefore + 1)
      expect(messageText(dsh.llm.summaryRequests().at(-1)!.body.messages.at(-1)!)).toContain(
        'The user asks: name the files',
      )
      expect(moved.summary).toMatchObject({
        instructions: 'name the files',
        usage: { inputTokens: 100, outputTokens: 10 },
      })
      expect(moved.summary?.carriedNodeId).toBeUndefined()
      expect(moved.cursor).toBe(a1.nodeId)
      await dsh.api.promptAndWait(sessionId, 'panel only')
      expect(history(lastChat())).toEqual([...pathToFirstAnswer(), { role: 'user', text: 'panel only' }])
      expect(summaryCount(lastChat())).toBe(0)
      const view = await tree()
      expect(view.branches.find((b) => b.name === moved.summary!.branch)?.summary).toMatchObject({
        instructions: 'name the files',
      })
    }, 600_000)

    it('a model that hangs past the timeout, or answers an error: the extractive digest, recorded as a fallback with the reason', async () => {
      const a1 = await nodeWith('ANSWER to: first question')
      const tip = await nodeWith('ANSWER to: panel only')
      dsh.llm.setSummary({ text: 'too late', delayMs: 10 * 60_000 })
      await dsh.api.remoteOk<MoveResult>('sessionTree/jump', { agentId: sessionId, nodeId: tip.nodeId })
      const late = await dsh.api.remoteOk<MoveResult>('sessionTree/jumpWith', {
        agentId: sessionId,
        nodeId: a1.nodeId,
        options: { summary: { kind: 'summarize', carry: true } },
      })
      results.timeout = late.summary
      expect(late.summary).toMatchObject({ fallback: true, model: 'extractive', failure: { code: 'TIMEOUT' } })
      expect(late.summary!.summary).toContain('panel only')
      // The fallback is carried like any summary.
      await dsh.api.promptAndWait(sessionId, 'after the timeout')
      expect(history(lastChat()).map((m) => m.text)).toContain(`${CARRIED_PREFIX}\n\n${late.summary!.summary}`)

      dsh.llm.setSummary({ error: { status: 400, message: 'summary refused by the fake' } })
      const summarized = await dsh.api.remoteOk<BranchSummary>('sessionTree/summarize', {
        agentId: sessionId,
        branch: late.summary!.branch,
      })
      results.error = summarized
      expect(summarized).toMatchObject({ fallback: true, model: 'extractive' })
      expect(summarized.failure?.code).toEqual(expect.any(String))
      expect(summarized.failure?.code).not.toBe('TIMEOUT')
      expect(dsh.llm.faults).toEqual([])
    }, 600_000)
  })
}
