/**
 * The provider contract (`test/support/provider-contract.ts`), one test per rule: each bad
 * body breaks exactly its rule (with that rule left out of the check it passes, so the test
 * fails when the rule is removed), and the strict fake provider refuses it over HTTP as a real
 * API does (400, an OpenAI-style body), without consuming its script.
 */
import { describe, expect, it } from 'vitest'
import { CONTRACT_RULES, contractViolations, refusalBody, type ContractRule } from '../../support/provider-contract.ts'
import { RECAP_MARK, startFakeLlm, type FakeLlm } from '../../e2e/support/fake-llm.ts'
import { jsonOrUndefined } from '../../e2e/support/api.ts'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LogBuilder } from '../../support/log-builder.ts'
import { loopRig } from '../../support/tool-rig.ts'
import { wireBody } from '../../support/dsh-wire.ts'

const system = { role: 'system', content: 'You are a coding agent.' }
const prompt = (text: string) => ({ role: 'user', content: text })
const answer = (text: string) => ({ role: 'assistant', content: text })
const call = (id: string, name = 'read', args = '{"file_path":"notes.txt"}') => ({
  id,
  type: 'function',
  function: { name, arguments: args },
})
const calls = (...list: ReturnType<typeof call>[]) => ({ role: 'assistant', content: '', tool_calls: list })
const result = (id: string, text = 'ok') => ({ role: 'tool', tool_call_id: id, content: text })
const body = (...messages: unknown[]) => ({ model: 'deepseek-chat', messages, stream: true })

/** Each rule and a body that breaks it alone. */
const BAD: Record<ContractRule, unknown> = {
  empty_messages: body(),
  invalid_role: body(system, prompt('hi'), { role: 'function', content: 'x' }),
  empty_assistant_message: body(system, prompt('hi'), answer(''), prompt('again')),
  duplicate_tool_call_id: body(
    prompt('read twice'),
    calls(call('call_1')),
    result('call_1'),
    calls(call('call_1')),
    result('call_1'),
    answer('done'),
  ),
  invalid_tool_arguments: body(
    prompt('patch it'),
    calls(call('call_p', 'apply_patch', '*** Begin Patch\n*** End Patch')),
    result('call_p'),
  ),
  tool_call_without_result: body(
    prompt('edit both'),
    calls(call('call_a', 'edit'), call('call_b', 'edit')),
    result('call_a'),
    prompt('stop, do something else'),
  ),
  tool_message_without_call: body(prompt('hi'), answer('hello'), result('call_nowhere')),
}

describe('the provider contract, one rule at a time', () => {
  for (const rule of CONTRACT_RULES) {
    it(`${rule}: the bad body breaks this rule, and only this one`, () => {
      const found = contractViolations(BAD[rule])
      expect(found.map((v) => v.rule)).toEqual([rule])
      expect(found[0]!.param).toMatch(/^messages/)
      // With the rule left out, the same body passes: the check above is this rule's alone.
      expect(contractViolations(BAD[rule], new Set(CONTRACT_RULES.filter((r) => r !== rule)))).toEqual([])
    })
  }

  it('accepts what a real API accepts: parallel calls answered in any order, a call with text, results ending the request, array content', () => {
    expect(
      contractViolations(
        body(
          system,
          prompt('go'),
          { role: 'assistant', content: 'Reading both.', tool_calls: [call('c1'), call('c2', 'grep', '{}')] },
          result('c2'),
          result('c1', ''),
          { role: 'assistant', content: null, tool_calls: [call('c3')] },
          result('c3'),
          { role: 'assistant', content: [{ type: 'text', text: 'Done.' }], reasoning_content: 'thought' },
          { role: 'developer', content: 'note' },
          prompt('thanks'),
          answer('You are welcome.'),
        ),
      ),
    ).toEqual([])
  })

  it('names the details a person needs: the open calls a user message cut off, the position, every breach', () => {
    const found = contractViolations(
      body(prompt('x'), calls(call('a'), call('b')), prompt('y'), answer(''), result('a')),
    )
    expect(found).toEqual([
      expect.objectContaining({ rule: 'tool_call_without_result', param: 'messages[1].tool_calls[0]' }),
      expect.objectContaining({ rule: 'tool_call_without_result', param: 'messages[1].tool_calls[1]' }),
      expect.objectContaining({ rule: 'empty_assistant_message', param: 'messages[3].content' }),
      expect.objectContaining({ rule: 'tool_message_without_call', param: 'messages[4].tool_call_id' }),
    ])
    expect(found[0]!.message).toContain("must be followed by tool messages responding to each 'tool_call_id'")
    // A result answers only a call still open: a second answer to the same call answers none.
    expect(
      contractViolations(body(prompt('x'), calls(call('a')), result('a'), result('a'))).map((v) => v.rule),
    ).toEqual(['tool_message_without_call'])
    // Empty text parts are no content; whitespace is (a strict server counts characters).
    expect(contractViolations(body(prompt('x'), { role: 'assistant', content: [{ type: 'text', text: '' }] }))).toEqual(
      [expect.objectContaining({ rule: 'empty_assistant_message' })],
    )
    expect(contractViolations(body(prompt('x'), { role: 'assistant', content: null }))).toEqual([
      expect.objectContaining({ rule: 'empty_assistant_message' }),
    ])
    expect(contractViolations({ model: 'm' }).map((v) => v.rule)).toEqual(['empty_messages'])
  })

  it("refuses with the OpenAI error shape: message, type 'invalid_request_error', param, code", () => {
    const [violation] = contractViolations(BAD.invalid_tool_arguments)
    expect(refusalBody(violation!)).toEqual({
      error: {
        message: expect.stringContaining('expected a JSON text'),
        type: 'invalid_request_error',
        param: 'messages[1].tool_calls[0].function.arguments',
        code: 'invalid_tool_arguments',
      },
    })
  })
})

async function post(llm: FakeLlm, payload: unknown): Promise<{ status: number; json: unknown; text: string }> {
  const response = await fetch(`${llm.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  })
  const text = await response.text()
  return { status: response.status, json: jsonOrUndefined(text), text }
}

describe('the strict fake provider', () => {
  it('refuses a body a real API refuses (400, OpenAI-style), keeps its script for the next request, records the refusal', async () => {
    const llm = await startFakeLlm({ script: [{ text: 'first answer' }] })
    try {
      const refused = await post(llm, BAD.tool_call_without_result)
      expect(refused.status).toBe(400)
      expect(refused.json).toEqual({
        error: {
          message: expect.stringContaining('call_b'),
          type: 'invalid_request_error',
          param: 'messages[1].tool_calls[1]',
          code: 'tool_call_without_result',
        },
      })
      expect(llm.refusals.map((r) => [r.n, r.kind, r.violations.map((v) => v.rule)])).toEqual([
        [1, 'chat', ['tool_call_without_result']],
      ])
      expect(llm.requests).toEqual([])
      // A waiting test hears of it at once, with the rule and the request's messages.
      await expect(llm.waitForChat(1, 60_000)).rejects.toThrow(
        /request #1 \(chat\) refused.*\n.*tool_call_without_result/,
      )
      const ok = await post(llm, body(prompt('hi')))
      expect(ok.status).toBe(200)
      expect(llm.requests.map((r) => [r.n, r.reply])).toEqual([[2, { text: 'first answer' }]])
      expect(llm.takeRefusals().map((r) => r.n)).toEqual([1])
      expect(llm.refusals).toEqual([])
    } finally {
      await llm.close()
    }
  })

  it("answers dsh-TUI's recap apart: the JSON its contract asks, naming the excerpt's last prompt, no script step, not a chat request", async () => {
    const llm = await startFakeLlm({ script: [{ text: 'the chat answer' }] })
    try {
      const excerpt = 'user: plan a trip\nassistant: Lisbon it is\nuser: now the hotels'
      const recap = `${RECAP_MARK}\nUse the user's language.\n\nActivity excerpt:\n${excerpt}`
      expect((await post(llm, body(system, prompt(recap)))).status).toBe(200)
      expect((await post(llm, body(system, prompt('a real prompt')))).status).toBe(200)
      expect(llm.recapRequests().map((r) => r.reply)).toEqual([
        { text: JSON.stringify({ title: 'Fake recap', summary: 'RECAP: the last prompt was "now the hotels".' }) },
      ])
      expect(llm.chatRequests().map((r) => r.reply)).toEqual([{ text: 'the chat answer' }])
    } finally {
      await llm.close()
    }
  })

  it('a lenient fake answers what a real API refuses, and only when the test says why', async () => {
    await expect(startFakeLlm({ contract: { lenient: ' ' } })).rejects.toThrow(/needs the reason/)
    const llm = await startFakeLlm({
      script: [{ text: 'answered anyway' }],
      contract: { lenient: 'this test proves the lenient mode answers' },
    })
    try {
      const response = await post(llm, BAD.empty_assistant_message)
      expect(response.status).toBe(200)
      expect(llm.refusals).toEqual([])
      expect(llm.requests[0]!.violations?.map((v) => v.rule)).toEqual(['empty_assistant_message'])
    } finally {
      await llm.close()
    }
  })
})

describe('the in-process agent loop of the unit tests refuses like a strict provider', () => {
  it("DSH's own DeepSeek adapter builds the body (an empty answer is content ''), and a refused request fails the turn and the rig", async () => {
    expect(
      await wireBody([
        { role: 'user', content: [{ type: 'text', text: 'q1' }] },
        { role: 'assistant', content: [{ type: 'text', text: '' }] },
      ]),
    ).toMatchObject({
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: '' },
      ],
    })
    // A log whose answer is an empty text block (an earlier import wrote such answers): the next request breaks the contract.
    const log = new LogBuilder('s-empty').userTurn('q1', '')
    const rig = await loopRig([{ text: 'never sent' }], {
      resume: {
        sessionId: 's-empty',
        events: structuredClone([...log.events]),
        sidecarRoot: mkdtempSync(join(tmpdir(), 'strict-rig-')),
      },
    })
    await rig.say('again')
    expect(rig.model.refusals.map((r) => [r.n, r.violations.map((v) => v.rule), r.transcript])).toEqual([
      [1, ['empty_assistant_message'], ['user: q1', 'assistant: ', 'user: again']],
    ])
    expect(rig.model.script).toHaveLength(1)
    await expect(rig.dispose()).rejects.toThrow(
      /a strict provider refuses: #1 empty_assistant_message at messages\[2\]\.content/,
    )
  })
})
