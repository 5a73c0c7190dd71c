/**
 * Moves on one session are serialized (a FIFO queue per session in the
 * service), in a real in-process agent loop (`test/support/tool-rig.ts`: the published
 * dsh-agent-loop, session store and tool runtime; only the model is
 * scripted), stock mode:
 *
 * - many concurrent jumps and forks: each acknowledged move's result is its
 *   own (its cursor, its branch), the refused one had no effect, the final
 *   cursor is the last move's, and the next request holds exactly its path;
 * - the model's own move inside its running step (`moveWithinStep`) never
 *   waits behind a panel move that waits for the agent.
 */
import { TypertLookupFailure } from '@deepseek-ai/dsh-typert-protocol'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { describe, expect, it } from 'vitest'
import type { ForkResult, MoveResult } from '../../../src/service/wire.ts'
import type { SessionTreeView } from '../../../src/tree/index.ts'
import { markerOf } from '../../../src/harness/marker.ts'
import { checkedRigs, transcript } from '../../support/tool-rig.ts'

const rig = checkedRigs()

/** Messages from the root to `nodeId`, as `role: text` lines (what a request shows). */
function pathLines(view: SessionTreeView, nodeId: string | null): string[] {
  const byId = new Map(view.nodes.map((n) => [n.nodeId, n]))
  const lines: string[] = []
  for (let id = nodeId; id !== null; id = byId.get(id)?.parentId ?? null) {
    const node = byId.get(id)!
    if (node.message) lines.unshift(`${node.message.role}: ${node.message.content}`)
  }
  return lines
}

const codeOf = (reason: unknown) =>
  reason instanceof TypertLookupFailure ? (reason.failure as { code: string }).code : String(reason)

describe('moves on one session are serialized', () => {
  it('30 concurrent jumps and forks: every result is its own, the refused one changed nothing, the last one wins', async () => {
    const r = await rig([{ text: 'A1' }, { text: 'A2' }, { text: 'A3' }, { text: 'A4' }])
    await r.say('Q1')
    await r.say('Q2')
    await r.say('Q3')
    const view = await r.service.list(r.sessionId)
    const messages = view.nodes.filter(
      (n) =>
        n.message &&
        (n.message.role === 'user' || n.message.role === 'assistant') &&
        !n.content?.some((p) => p.type === 'tool_call'),
    )
    expect(messages.length).toBe(6)
    type Call = { kind: 'jump'; nodeId: string } | { kind: 'fork'; nodeId: string; branch: string }
    const calls: Call[] = Array.from({ length: 30 }, (_, i) => {
      const nodeId = messages[(i * 7) % messages.length]!.nodeId
      return i % 3 === 2 ? { kind: 'fork', nodeId, branch: i === 29 ? 'b2' : `b${i}` } : { kind: 'jump', nodeId }
    })
    const settled = await Promise.allSettled(
      calls.map((call) =>
        call.kind === 'jump'
          ? r.service.jump(r.sessionId, call.nodeId)
          : r.service.fork(r.sessionId, call.nodeId, call.branch),
      ),
    )
    const after = await r.service.list(r.sessionId)
    settled.forEach((outcome, i) => {
      const call = calls[i]!
      if (i === 29) {
        // The duplicate name: refused, and the branch is the first fork's, untouched.
        expect(outcome.status === 'rejected' && codeOf(outcome.reason), `call ${i}`).toBe('BRANCH_EXISTS')
        expect(after.branches.find((b) => b.name === 'b2')?.headId).toBe(calls[2]!.nodeId)
        return
      }
      expect(
        outcome.status,
        `call ${i} (${JSON.stringify(call)}): ${outcome.status === 'rejected' ? codeOf(outcome.reason) : ''}`,
      ).toBe('fulfilled')
      const result = (outcome as PromiseFulfilledResult<MoveResult | ForkResult>).value
      expect(result.cursor, `call ${i} reports its own cursor`).toBe(call.nodeId)
      expect(result.messages.map((m) => `${m.role}: ${m.content}`)).toEqual(pathLines(after, call.nodeId))
      if (call.kind === 'fork') expect(result.branch).toBe(call.branch)
    })
    // FIFO: the last acknowledged move is where the tree and the model stand.
    expect(after.cursor).toBe(calls[28]!.nodeId)
    expect(after.activeBranch).toBe('b26')
    const status = await r.service.session(r.sessionId)
    expect(status.sidecarWarnings).toEqual([])
    await r.say('after the burst')
    expect(transcript(r.model.requests.at(-1)!)).toEqual([...pathLines(after, after.cursor), 'user: after the burst'])
  }, 600_000)

  it("the model's own move inside its step does not wait behind a panel move that waits for the agent", async () => {
    // A panel jump strands a prompt that arrives during its maintenance turn; the switch queues
    // it again, and in that prompt's turn the model moves itself (alone in its message).
    let target = ''
    const r = await rig([
      { text: 'A1' },
      { text: 'A2' },
      () => ({ calls: [{ name: 'tree', args: { action: 'jump', node: target } }] }),
      { text: 'after my own move' },
    ])
    await r.say('Q1')
    await r.say('Q2')
    const view = await r.service.list(r.sessionId)
    const q1 = view.nodes.find((n) => n.message?.content === 'Q1')!.nodeId
    const a1 = view.nodes.find((n) => n.message?.content === 'A1')!.nodeId
    target = q1
    let raced = false
    const off = (r.ctx as any).on('session/event', (_session: unknown, event: { type: string; data?: any }) => {
      if (raced || event.type !== 'agent/inbox/spliced' || !event.data?.inserted?.some((m: unknown) => markerOf(m)))
        return
      raced = true
      queueMicrotask(() =>
        r.agent.followup(
          createUserMessage({ content: [{ type: 'text', text: 'Q3 during the switch' }], source: { kind: 'user' } }),
        ),
      )
    })
    const moved = await r.service.jump(r.sessionId, a1)
    off()
    expect(raced).toBe(true)
    // The panel move answers with its own effect, whatever ran after it.
    expect(moved.cursor).toBe(a1)
    await r.settle()
    const requests = r.model.requests.map(transcript)
    // The stranded prompt ran on the jumped-to path; then the model's own move took effect at once.
    expect(requests.at(-2)).toEqual(['user: Q1', 'assistant: A1', 'user: Q3 during the switch'])
    expect(requests.at(-1)!.slice(0, 1)).toEqual(['user: Q1'])
    expect(requests.at(-1)!.at(-2)).toMatch(/^assistant: call tree\(\{"action":"jump"/)
    expect(requests.at(-1)!.at(-1)).toMatch(/^tool: Moved now: jump to e/)
  }, 600_000)
})
