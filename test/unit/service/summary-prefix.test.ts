/**
 * The session's request prefix for the summary side call (`summary-prefix.ts`):
 * what is shared, what is left out (an unanswered call of the running step),
 * and when the side call sends its own compact request instead (projection
 * mode, no header, a context window the whole would not fit). What a real
 * provider receives is proven at the fake LLM in test/e2e/summary.test.ts and
 * summary-model-move.test.ts; these are the rules behind it.
 */
import { describe, expect, it } from 'vitest'
import { answeredOnly, BYTES_PER_TOKEN, estimateTokens, sessionPrefix } from '../../../src/service/summary-prefix.ts'

const user = (id: string, text: string) => ({ id, role: 'user', content: [{ type: 'text', text }] })
const answer = (id: string, text: string) => ({ id, role: 'assistant', content: [{ type: 'text', text }] })
const call = (id: string, callId: string) => ({
  id,
  role: 'assistant',
  content: [{ type: 'tool-call', id: callId, name: 'tree', arguments: '{"action":"jump"}' }],
})
const result = (id: string, callId: string) => ({
  id,
  role: 'user',
  content: [{ type: 'tool-result', toolCallId: callId, content: [] }],
})
const header = {
  config: { provider: 'p', model: 'm' },
  system: 'SYSTEM',
  tools: [{ name: 'read', description: 'r', parameters: {} }],
}

describe("the summary side call's shared prefix", () => {
  it("shares the session's system prompt, tools and model history as they are", () => {
    const history = [user('u1', 'q'), answer('a1', 'a')]
    const chosen = sessionPrefix(
      { requestHeader: () => header, requestContext: () => undefined, deriveMessages: () => history },
      'stock',
      100,
    )
    expect(chosen).toEqual({ kind: 'shared', prefix: { system: 'SYSTEM', tools: header.tools, messages: history } })
  })

  it("leaves out a trailing call without its result (the running step's own move), and only that", () => {
    const answered = [user('u1', 'q'), call('c1', 'k1'), result('r1', 'k1'), answer('a1', 'done')]
    expect(answeredOnly(answered)).toEqual(answered)
    const running = [user('u1', 'q'), call('c1', 'k1'), result('r1', 'k1'), user('u2', 'go back'), call('c2', 'k2')]
    expect(answeredOnly(running)).toEqual(running.slice(0, 4))
    expect(answeredOnly([user('u1', 'q')])).toEqual([user('u1', 'q')])
  })

  it('sends its own request in projection mode, without a header, or when the whole would not fit the context window', () => {
    const history = [user('u1', 'x'.repeat(1_000))]
    expect(
      sessionPrefix(
        { requestHeader: () => header, requestContext: () => undefined, deriveMessages: () => history },
        'projection',
        0,
      ),
    ).toEqual({
      kind: 'own',
      reason: 'projection',
    })
    expect(
      sessionPrefix(
        { requestHeader: () => undefined, requestContext: () => undefined, deriveMessages: () => history },
        'native',
        0,
      ),
    ).toEqual({
      kind: 'own',
      reason: 'no-header',
    })
    expect(
      sessionPrefix(
        { requestHeader: () => header, requestContext: () => undefined, deriveMessages: () => [] },
        'stock',
        0,
      ),
    ).toEqual({
      kind: 'own',
      reason: 'empty',
    })
    const tokens = estimateTokens({ system: 'SYSTEM', tools: header.tools, messages: history })
    expect(tokens).toBeGreaterThan(1_000 / BYTES_PER_TOKEN)
    const at = (contextWindow: number) =>
      sessionPrefix(
        { requestHeader: () => header, deriveMessages: () => history, requestContext: () => ({ contextWindow }) },
        'stock',
        1_024,
      )
    expect(at(tokens + 1_024).kind).toBe('shared')
    expect(at(tokens + 1_023)).toEqual({ kind: 'own', reason: 'context-window' })
  })
})
