/**
 * The event adapter on real harness logs (built through a real `Session`).
 */
import { CallId, createAssistantMessage, createToolResultMessage } from '@deepseek-ai/dsh-llm'
import { describe, expect, it } from 'vitest'
import { SessionTree } from '../../../src/tree/index.ts'
import { SessionProjector } from '../../../src/harness/projector.ts'
import { LogBuilder, MODEL, PROVIDER } from '../../support/log-builder.ts'

function project(log: LogBuilder, projector = new SessionProjector(new SessionTree(log.session.id))) {
  for (const event of log.events) projector.project(event)
  return projector
}
const texts = (p: SessionProjector) => p.tree.messages().map((m) => m.content)
const raw = (log: LogBuilder) =>
  (log.session.append as (type: string, data: unknown, intent?: unknown) => { seq: number }).bind(log.session)

describe('event adapter', () => {
  it('maps prompts, answers and tool exchanges to nodes; the tree path is the model history', () => {
    const log = new LogBuilder()
      .userTurn('q1', 'a1', { context: 'ctx' })
      .userTurn('q2', 'a2', { tools: [{ name: 'read', args: { file_path: 'x' }, result: 'file text' }] })
    const p = project(log)
    expect(p.quarantine).toEqual([])
    expect(texts(p)).toEqual(['q1', 'ctx', 'a1', 'q2', '', 'file text', 'a2'])
    const nodes = p.tree.list()
    expect(nodes.map((n) => n.type)).toEqual([
      'message',
      'message',
      'message',
      'message',
      'message',
      'tool_call',
      'message',
    ])
    // Typed prompts are not injected; plugin context is.
    expect(nodes[0]!.origin).toMatchObject({ source: 'session', kind: 'user' })
    expect(nodes[0]!.origin?.injected).toBeUndefined()
    expect(nodes[1]!.origin).toMatchObject({ kind: 'plugin', injected: true })
    expect(nodes[1]!.metadata).toEqual({ plugin: '@deepseek-ai/dsh-system-prompt' })
    // The call node holds call and result; the assistant node carries model and provider.
    expect(nodes[5]!.content).toEqual([
      { type: 'tool_call', id: 'call_1', name: 'read', arguments: { file_path: 'x' } },
      { type: 'tool_result', toolCallId: 'call_1', content: 'file text' },
    ])
    expect(nodes[2]).toMatchObject({ model: MODEL, provider: PROVIDER })
    expect(p.tip).toBe(nodes.at(-1)!.nodeId)
    expect(p.tree.cursor).toBe(p.tip)
  })

  it('is idempotent: projecting the same events again changes nothing', () => {
    const log = new LogBuilder().userTurn('q1', 'a1').userTurn('q2', 'a2')
    const p = project(log)
    const before = JSON.stringify(p.tree.snapshot())
    project(log, p)
    for (const event of log.events) p.project(event)
    expect(JSON.stringify(p.tree.snapshot())).toBe(before)
  })

  it('folds a result that arrives in a later sync into its call node', () => {
    const log = new LogBuilder()
    const s = log.session
    log.openCall('go', { id: 'k', name: 'bash', arguments: '{"command":"ls"}' })
    const p = project(log)
    const call = p.tree.findToolCallNode('k')!
    expect(call.message).toBeUndefined()
    s.append(
      'tool/result',
      {
        turn: 1,
        step: 1,
        message: createToolResultMessage({
          callId: CallId('k'),
          content: [{ type: 'text', text: 'a b' }],
          isError: true,
        }),
      },
      { surfaceOp: 'append' },
    )
    project(log, p)
    expect(p.tree.nodeCount).toBe(3)
    expect(p.tree.get(call.nodeId)).toMatchObject({
      message: { role: 'tool', content: 'a b', toolCallId: 'k', name: 'bash' },
      error: 'a b',
    })
  })

  it('keeps a result whose call is not in the tree as a standalone node', () => {
    const log = new LogBuilder().userTurn('q1', 'a1').toolResult(1, 'orphan', 'late')
    const p = project(log)
    expect(p.tree.list().at(-1)).toMatchObject({
      type: 'tool_result',
      message: { role: 'tool', content: 'late', toolCallId: 'orphan' },
    })
  })

  it('an empty assistant message hosts usage only: no node', () => {
    const log = new LogBuilder().userTurn('q1', 'a1')
    raw(log)(
      'assistant/message',
      {
        turn: 1,
        step: 1,
        message: createAssistantMessage({ content: [], source: { provider: PROVIDER, model: MODEL } }),
        usage: { inputTokens: 7, outputTokens: 0 },
      },
      { surfaceOp: 'append' },
    )
    const p = project(log)
    expect(p.tree.nodeCount).toBe(2)
    expect(p.hostedUsage).toEqual({ inputTokens: 7, outputTokens: 0 })
  })

  it('a model or provider change becomes a model_change node (not the first request)', () => {
    const log = new LogBuilder().userTurn('q1', 'a1')
    raw(log)('request/header', { header: { config: { provider: PROVIDER, model: 'bigger-model' } }, reason: 'change' })
    log.userTurn('q2', 'a2')
    const p = project(log)
    const changes = p.tree.list().filter((n) => n.type === 'model_change')
    // The builder's own headers name the original model again for turn 2: two changes, there and back.
    expect(changes.map((n) => n.summary)).toEqual([
      `model: ${PROVIDER}/${MODEL} → ${PROVIDER}/bigger-model`,
      `model: ${PROVIDER}/bigger-model → ${PROVIDER}/${MODEL}`,
    ])
    expect(texts(p)).toEqual(['q1', 'a1', 'q2', 'a2'])
  })

  it('a compaction becomes one compaction node; the model history matches the harness, nothing duplicated', () => {
    const log = new LogBuilder().userTurn('q1', 'a1').userTurn('q2', 'a2').userTurn('q3', 'a3')
    const surface = [...log.session.surface.nodes]
    raw(log)('compaction/summary', {
      compactionId: 'c1',
      summary: [{ type: 'text', text: 'S' }],
      shadowedRange: { start: surface[0], end: surface[3] },
      shadowedSeqs: surface.slice(0, 4),
      shadowedTokenCount: 10,
      provider: PROVIDER,
      model: 'summarizer',
    })
    log.compactedBy('summary of q1..a2', 4).userTurn('q4', 'a4')
    const p = project(log)
    expect(p.quarantine).toEqual([])
    expect(log.modelTexts()).toEqual(['summary of q1..a2', 'q3', 'a3', 'q4', 'a4'])
    expect(texts(p)).toEqual(log.modelTexts())
    const compaction = p.tree.list().find((n) => n.type === 'compaction')!
    expect(compaction).toMatchObject({ model: 'summarizer', provider: PROVIDER })
    expect(compaction.replaces).toHaveLength(4)
    expect(p.tree.nodeCount).toBe(6 + 1 + 2)
    // Jumping to before the compaction gives the raw history again.
    expect(
      p.tree.messages(p.tree.list().find((n) => n.message?.content === 'a2')!.nodeId).map((m) => m.content),
    ).toEqual(['q1', 'a1', 'q2', 'a2'])
  })

  it('a pruned tool result keeps its node; the tree keeps the original result', () => {
    const log = new LogBuilder().userTurn('q1', 'a1', {
      tools: [{ name: 'read', args: {}, result: 'a very long result' }],
    })
    const resultEvent = log.events.find((e) => e.type === 'tool/result')!
    const data = resultEvent.data as { message: { content: [{ content: unknown }] } }
    raw(log)(
      'tool/result',
      {
        ...data,
        message: {
          ...data.message,
          content: [{ ...data.message.content[0], content: [{ type: 'text', text: '[pruned]' }] }],
        },
      },
      {
        surfaceOp: { op: 'replace', start: resultEvent.seq, end: resultEvent.seq },
        sourceEventSeqs: [resultEvent.seq],
      },
    )
    const p = project(log)
    expect(p.quarantine).toEqual([])
    expect(p.tree.nodeCount).toBe(4)
    expect(p.tree.findToolCallNode('call_1')?.message?.content).toBe('a very long result')
    expect(p.surfaceEntries.map((e) => e.seq)).toEqual([...log.session.surface.nodes])
  })

  it('skips unknown event types and quarantines malformed ones: 1 bad event among 1,000 good ones', () => {
    const log = new LogBuilder()
    for (let i = 0; i < 160; i++) log.userTurn(`q${i}`, `a${i}`)
    raw(log)('mystery/event', { anything: true })
    const bad = raw(log)(
      'user/message',
      { id: 'x', role: 'user', content: 'not blocks', source: { kind: 'user' } },
      { surfaceOp: 'append' },
    )
    for (let i = 160; i < 170; i++) log.userTurn(`q${i}`, `a${i}`)
    expect(log.events.length).toBeGreaterThan(1000)
    const p = project(log)
    expect(p.quarantine).toEqual([{ seq: bad.seq, type: 'user/message', reason: 'message content must be an array' }])
    expect(p.watermark).toBe(log.session.seq - 1)
    expect(p.tree.info().messageCount).toBe(340)
    expect(texts(p).at(-1)).toBe('a169')
    // The unreadable prompt still holds its place on the surface, so later ranges resolve.
    expect(p.surfaceEntries.map((e) => e.seq)).toEqual([...log.session.surface.nodes])
  })

  it('never throws, even on garbage', () => {
    const p = new SessionProjector(new SessionTree('s'))
    for (const junk of [
      null,
      42,
      'x',
      {},
      { seq: 'a' },
      { seq: 0 },
      { seq: 1, type: 'user/message' },
      { seq: 2, type: 'turn/start', data: {} },
    ]) {
      expect(() => p.project(junk)).not.toThrow()
    }
    expect(p.quarantine.length).toBeGreaterThan(3)
  })
})
