/**
 * A stock switch while dsh-TUI is loaded (`drawnBy: 'dsh-tui'`), against a REAL `Session`: the
 * model's history is the same as for any other reader, the log alone rebuilds the same tree, and
 * dsh-TUI's rules (`drawnAsMessage` with the answers a later empty answer erases) draw none of
 * the restated prompts and answers; only the tool cards of copied exchanges (docs/known-limits.md).
 */
import { Session } from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import { SessionTree } from '../../../src/tree/index.ts'
import { SessionProjector } from '../../../src/harness/projector.ts'
import { StockSwitcher, type TranscriptReader } from '../../../src/surface/stock.ts'
import { drawnAsMessage, erasedAnswers } from '../../../src/tui/switch-rows.ts'
import { FakeAgent } from '../../support/fake-agent.ts'
import { LogBuilder } from '../../support/log-builder.ts'

/** q1 a1 · q2 (a read) a2 · q3 a3; back to a1, q4 a4; then the switch back to a3 (a sibling branch). */
async function siblingSwitch(drawnBy: TranscriptReader) {
  const log = new LogBuilder('s1')
    .userTurn('q1', 'a1')
    .userTurn('q2', 'a2', { tools: [{ name: 'read', args: { file_path: 'x.txt' }, result: 'file text' }] })
    .userTurn('q3', 'a3')
  const projector = new SessionProjector(new SessionTree('s1'))
  const sync = () => {
    for (const e of log.events) projector.project(e)
  }
  sync()
  const switcher = new StockSwitcher({ projectorFor: () => projector, flush: async () => {} })
  switcher.drawnBy = drawnBy
  const agent = new FakeAgent(log, (p, n) => switcher.preStep(p, n), sync)
  const byText = (text: string) => projector.tree.list().find((n) => n.message?.content === text)!.nodeId
  const a1 = byText('a1')
  projector.tree.jump(a1)
  expect((await switcher.switch(agent, a1)).ok).toBe(true)
  log.userTurn('q4', 'a4')
  sync()
  const switchedAt = log.session.seq
  const a3 = byText('a3')
  projector.tree.jump(a3)
  const report = await switcher.switch(agent, a3)
  expect(report.ok, JSON.stringify(report)).toBe(true)
  sync()
  const events = log.session.events as unknown as readonly { type: string; seq: number; data?: unknown }[]
  const erased = erasedAnswers(events)
  /** What dsh-TUI draws of the second switch: its rows by kind. */
  const drawn = events.filter((e) => e.seq > switchedAt && drawnAsMessage(e, erased)).map((e) => e.type)
  return { log, projector, drawn, a3 }
}

describe('copies shaped for dsh-TUI', () => {
  it('a sibling switch draws no prompt or answer a second time; the model reads the same history', async () => {
    const plain = await siblingSwitch('any')
    const shaped = await siblingSwitch('dsh-tui')
    // Without the shaping dsh-TUI draws the restated q2, a2, q3, a3 and the read's card again.
    expect(plain.drawn).toEqual(['user/message', 'tool/call', 'assistant/message', 'user/message', 'assistant/message'])
    // With it, only the copied exchange's card (dsh-TUI draws every tool/call).
    expect(shaped.drawn).toEqual(['tool/call'])
    expect(shaped.log.modelTexts()).toEqual(plain.log.modelTexts())
    const wire = (log: LogBuilder) => log.session.deriveMessages().map((m) => ({ role: m.role, content: m.content }))
    expect(wire(shaped.log).map((m) => m.role)).toEqual(wire(plain.log).map((m) => m.role))
    expect(JSON.stringify(wire(shaped.log)).replace(/call_dst_\w+/g, 'ID')).toBe(
      JSON.stringify(wire(plain.log)).replace(/call_dst_\w+/g, 'ID'),
    )
    expect(shaped.projector.tip).toBe(shaped.a3)
    expect(shaped.projector.tree.nodeCount).toBe(plain.projector.tree.nodeCount)
    expect(shaped.projector.quarantine).toEqual([])
  })

  it('the log alone rebuilds the same tree and the harness reloads it with the same history', async () => {
    const { log, projector } = await siblingSwitch('dsh-tui')
    const rebuilt = new SessionProjector(new SessionTree('s1'))
    for (const e of log.events) rebuilt.project(e)
    const shape = (p: SessionProjector) => p.tree.list().map((n) => [n.nodeId, n.parentId, n.type, n.summary, n.branch])
    expect(shape(rebuilt)).toEqual(shape(projector))
    expect(rebuilt.tip).toBe(projector.tip)
    expect(rebuilt.quarantine).toEqual([])
    const reloaded = Session.create(log.session.id, [...log.session.events] as never, log.session.header)
    expect(reloaded.deriveMessages().map((m) => m.id)).toEqual(log.session.deriveMessages().map((m) => m.id))
  })
})
