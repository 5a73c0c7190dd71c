/**
 * A summary carried by the model's own move (a `tree` jump with `summary:
 * "carry"`), judged at the recording fake LLM in the real `dsh web` (this
 * package from its tarball), in stock and native mode:
 *   - stock: the move switches the history inside the model's step, so the
 *     step's very next request holds the path to the target, the carried
 *     summary exactly once, the jump call and its result;
 *   - native: the move waits for the end of the turn, so the next prompt's
 *     request holds the path to the target, the summary exactly once, and the
 *     prompt;
 *   - both: the side call shares the session's prefix (the step's own request
 *     in stock, byte for byte), and a later request still holds the summary once.
 *
 * Evidence of every run: test/e2e/artifacts/summary-model-move-<mode>/.
 */
import { beforeAll, expect, it } from 'vitest'
import { CARRIED_PREFIX } from '../../src/harness/carried-summary.ts'
import { SUMMARY_REQUEST_MARK } from '../../src/service/model-summary.ts'
import { canonical } from './support/canonical.ts'
import { history, messageText, readOrAnswer, type ChatRequestBody, type StaticStep } from './support/fake-llm.ts'
import { until } from './support/until.ts'
import { notesWorkspace } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

const MOVE_PROMPT = 'go back to your first answer and keep a summary of this'
const MOVED_REPLY = 'Back at my first answer, with a summary of the rest.'
const SUMMARY = 'MODEL-SUMMARY-MOVE: the model read notes.txt and found banana.'
const CARRIED = `${CARRIED_PREFIX}\n\n${SUMMARY}`
const holding = (body: ChatRequestBody): number =>
  body.messages.filter((m) => messageText(m).includes('MODEL-SUMMARY')).length

for (const mode of ['stock', 'native'] as const) {
  let target = ''
  /** The request that answered the jump's tool result (the step's continuation). */
  let continued: ChatRequestBody | undefined
  /** The suites' model, except that MOVE_PROMPT makes it call a tree jump alone, carrying a summary. */
  const model = (body: ChatRequestBody): StaticStep => {
    const last = body.messages.at(-1)
    const call = [...body.messages].reverse().find((m) => m.role === 'assistant')?.tool_calls?.[0]
    if (last?.role === 'tool' && call?.function.name === 'tree' && last.tool_call_id === call.id) {
      continued = body
      return { text: MOVED_REPLY }
    }
    if (last?.role === 'user' && messageText(last) === MOVE_PROMPT)
      return {
        toolCalls: [
          { id: 'call_model_jump', name: 'tree', arguments: { action: 'jump', node: target, summary: 'carry' } },
        ],
      }
    return readOrAnswer(body)
  }
  const options = {
    name: `summary-model-move-${mode}`,
    variant: mode,
    workspace: notesWorkspace,
    llm: { script: Array.from({ length: 40 }, () => model), summary: { text: SUMMARY } },
  }
  describeWeb(`a summary carried by the model's own move (${mode})`, options, (dsh) => {
    let sessionId: string
    let carried: { nodeId: string }

    const tree = () => dsh.api.tree(sessionId)
    const nodeWith = async (text: string) => (await dsh.api.nodeWith(sessionId, text)).nodeId
    const lastChat = () => dsh.llm.chatRequests().at(-1)!.body

    beforeAll(async () => {
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
      await dsh.api.promptAndWait(sessionId, 'first question')
      await dsh.api.promptAndWait(sessionId, 'please READ notes.txt')
      target = await nodeWith('ANSWER to: first question')
      await dsh.api.promptAndWait(sessionId, MOVE_PROMPT)
      // In native mode the move (and its summary side call) runs after the turn ended: every judgement below waits for it.
      carried = await until(
        "the carried summary in the tree, on the cursor's path",
        async () => {
          const view = await tree()
          const node = view.nodes.find((n) => n.message?.content === CARRIED)
          return node && node.parentId === target && (mode === 'native' ? view.cursor === node.nodeId : true)
            ? node
            : undefined
        },
        30_000,
      )
    }, 600_000)

    it("the model's move asked its own model for the summary, sharing the session's prefix", () => {
      expect(dsh.llm.faults).toEqual([])
      const summaries = dsh.llm.summaryRequests()
      expect(summaries).toHaveLength(1)
      const sent = summaries[0]!.body
      const asked = messageText(sent.messages.at(-1)!)
      expect(asked.startsWith(SUMMARY_REQUEST_MARK)).toBe(true)
      // What the move leaves begins with the second prompt, right after the first answer.
      expect(asked).toContain(
        'from this message on:\nuser: please READ notes.txt\nright after\nassistant: ANSWER to: first question\n',
      )
      const moveRequest = dsh.llm
        .chatRequests()
        .find(
          (r) => r.body.messages.at(-1)?.role === 'user' && messageText(r.body.messages.at(-1)!) === MOVE_PROMPT,
        )!.body
      if (mode === 'stock') {
        // Inside the step: the side call is the step's own request (its unanswered jump call left out), then the instruction.
        expect(canonical(sent.messages.slice(0, -1))).toBe(canonical(moveRequest.messages))
      } else {
        // After the turn: the whole turn (the jump call, its result, the reply), then the instruction.
        expect(canonical(sent.messages.slice(0, moveRequest.messages.length))).toBe(canonical(moveRequest.messages))
        expect(
          history(sent)
            .map((m) => m.text)
            .slice(-2),
        ).toEqual([MOVED_REPLY, asked])
      }
      expect(canonical(sent.tools)).toBe(canonical(moveRequest.tools))
    })

    if (mode === 'stock') {
      it("the step's next request holds the path to the first answer, the summary exactly once, the jump call and its result", () => {
        expect(continued).toBeDefined()
        const seen = history(continued!)
        expect(holding(continued!)).toBe(1)
        const at = seen.findIndex((m) => m.text === CARRIED)
        expect(seen[at - 1]).toEqual({ role: 'assistant', text: 'ANSWER to: first question' })
        expect(seen.slice(at + 1).map((m) => m.role)).toEqual(['assistant', 'tool'])
        expect(seen[at + 1]!.calls?.map((c) => c.name)).toEqual(['tree'])
        expect(seen.map((m) => m.text)).not.toContain('please READ notes.txt')
      })
    } else {
      it("the move waits for the turn's end: the rest of the step saw no summary", () => {
        expect(continued).toBeDefined()
        expect(holding(continued!)).toBe(0)
        expect(messageText(continued!.messages.at(-1)!)).toContain('Scheduled')
      })
    }

    it("the next prompt's request holds the summary exactly once, on the path to the first answer", async () => {
      await dsh.api.promptAndWait(sessionId, 'after the model move')
      expect(holding(lastChat())).toBe(1)
      const seen = history(lastChat()).map((m) => m.text)
      expect(seen.slice(seen.indexOf(CARRIED) - 1, seen.indexOf(CARRIED) + 1)).toEqual([
        'ANSWER to: first question',
        CARRIED,
      ])
      expect(seen.at(-1)).toBe('after the model move')
      expect(seen).not.toContain('please READ notes.txt')
      expect((await tree()).nodes.filter((n) => n.message?.content === CARRIED).map((n) => n.nodeId)).toEqual([
        carried.nodeId,
      ])
      expect(dsh.llm.faults).toEqual([])
    }, 600_000)
  })
}
