/**
 * Where a carried branch summary goes, on a real harness `Session` (the
 * published dsh-session): at the end of the switch's path, as the target's
 * child on the new branch; mapped back when a later switch copies it; the
 * same tree when the log alone is projected again. Plus the part a move
 * leaves, the model writer's fallbacks, and the `/tree` flags.
 */
import { describe, expect, it } from 'vitest'
import { SessionTree } from '../../../src/tree/index.ts'
import type { BranchSummary, TreeEntry } from '../../../src/tree/types.ts'
import { SessionProjector } from '../../../src/harness/projector.ts'
import {
  CARRIED_PREFIX,
  carriedSummaryMessage,
  carriedSummaryOf,
  NOTICE_SUMMARY_MAX,
} from '../../../src/harness/carried-summary.ts'
import type { PlannedEvent } from '../../../src/surface/copy.ts'
import { leftPart, type SummaryPart, writeSummary } from '../../../src/service/branch-summary.ts'
import type { SummaryLlm } from '../../../src/service/model-summary.ts'
import { parseTreeCommand } from '../../../src/tool/command.ts'
import { LogBuilder } from '../../support/log-builder.ts'
import { stockRig, threeTurns } from '../../support/stock-rig.ts'

function setup() {
  return stockRig(threeTurns())
}

const SUMMARY: BranchSummary = {
  branch: 'main',
  nodeId: 'e0',
  summary: 'tried reading x.txt; it held file text',
  model: 'm',
  provider: 'p',
  createdAt: '2026-01-01T00:00:00.000Z',
}
const CARRIED = `${CARRIED_PREFIX}\n\n${SUMMARY.summary}`

function tail(id = 'summary-1'): PlannedEvent[] {
  return [{ type: 'user/message', data: carriedSummaryMessage(id, SUMMARY), intent: { surfaceOp: 'append' } }]
}

/** Every node as [id, parent], and the branches as [name, head]. */
function shape(tree: SessionTree) {
  return { nodes: tree.list().map((n) => [n.nodeId, n.parentId]), branches: tree.branchHeadList().sort() }
}

function rebuilt(log: LogBuilder): SessionProjector {
  const projector = new SessionProjector(new SessionTree('s1'))
  for (const event of log.events) projector.project(event)
  return projector
}

describe('a carried summary in a stock switch', () => {
  it("ends the new path as the target's child; the model reads it once, after the target", async () => {
    const { log, projector, switcher, agent, byText, sync } = setup()
    const a1 = byText('a1')
    const nodes = projector.tree.nodeCount
    projector.tree.jump(a1)
    const report = await switcher.switch(agent, a1, undefined, undefined, tail())
    sync()
    expect(report.ok).toBe(true)
    expect(log.modelTexts()).toEqual(['q1', 'a1', CARRIED])
    const carried = projector.tree.list().find((n) => n.message?.content === CARRIED)!
    expect(carried.parentId).toBe(a1)
    expect(carried.summary).toBe(`Branch summary (main): ${SUMMARY.summary}`)
    expect((carried.metadata as { branchSummary?: unknown }).branchSummary).toMatchObject({
      v: 1,
      branch: 'main',
      writer: { model: 'm', provider: 'p' },
    })
    expect(projector.tree.cursor).toBe(carried.nodeId)
    expect(projector.tip).toBe(carried.nodeId)
    expect(projector.tree.nodeCount).toBe(nodes + 1)
    expect(projector.quarantine).toEqual([])
    // The next prompt continues under it.
    log.userTurn('q4', 'a4')
    sync()
    expect(projector.tree.get(byText('q4'))?.parentId).toBe(carried.nodeId)
    // The log alone rebuilds the same tree.
    expect(shape(rebuilt(log).tree)).toEqual(shape(projector.tree))
  })

  it('a fork carries it onto the new branch, also when the log alone is projected', async () => {
    const { log, projector, switcher, agent, byText, sync } = setup()
    const a1 = byText('a1')
    expect(projector.tree.fork(a1, 'alt').ok).toBe(true)
    await switcher.switch(agent, a1, 'alt', undefined, tail())
    sync()
    const carried = projector.tree.list().find((n) => n.message?.content === CARRIED)!
    expect(projector.tree.activeBranch).toBe('alt')
    expect(projector.tree.branchHeadList()).toContainEqual(['alt', carried.nodeId])
    const again = rebuilt(log)
    expect(shape(again.tree)).toEqual(shape(projector.tree))
    expect(again.tree.activeBranch).toBe('alt')
    expect(again.tree.cursor).toBe(carried.nodeId)
    // The rebuilt navigation history holds the fork, as the live one does.
    expect(again.tree.back().ok).toBe(true)
  })

  it('a later switch across it copies it; the copy maps back to the same node (exactly once)', async () => {
    const { log, projector, switcher, agent, byText, sync } = setup()
    const a1 = byText('a1')
    const a3 = byText('a3')
    projector.tree.jump(a1)
    await switcher.switch(agent, a1, undefined, undefined, tail())
    sync()
    log.userTurn('q4', 'a4')
    sync()
    const a4 = byText('a4')
    projector.tree.jump(a3)
    await switcher.switch(agent, a3)
    sync()
    expect(log.modelTexts().filter((t) => t === CARRIED)).toHaveLength(0)
    const nodes = projector.tree.nodeCount
    projector.tree.jump(a4)
    await switcher.switch(agent, a4)
    sync()
    expect(log.modelTexts()).toEqual(['q1', 'a1', CARRIED, 'q4', 'a4'])
    expect(projector.tree.nodeCount).toBe(nodes)
    expect(projector.tree.list().filter((n) => n.message?.content === CARRIED)).toHaveLength(1)
    expect(shape(rebuilt(log).tree)).toEqual(shape(projector.tree))
  })
})

describe('the carried message', () => {
  it('is a plugin notice whose one-line summary stays within the harness bound', () => {
    const long = { ...SUMMARY, summary: '𝒳'.repeat(300) }
    const message = carriedSummaryMessage('x', long)
    const source = message.source as { kind: string; plugin: string; form: string; summary: string }
    expect(source).toMatchObject({ kind: 'plugin', plugin: 'dsh-session-tree', form: 'notice' })
    expect([...source.summary].length).toBe(NOTICE_SUMMARY_MAX)
    expect(carriedSummaryOf(message)?.facts).toMatchObject({ v: 1, branch: 'main', of: 'e0' })
    // Other plugin messages are not summaries.
    expect(carriedSummaryOf({ ...message, source: { kind: 'plugin', plugin: 'dsh-session-tree' } })).toBeUndefined()
    expect(
      carriedSummaryOf({
        ...message,
        source: { kind: 'plugin', plugin: 'other', branchSummary: { v: 1, branch: 'b', of: 'e1' } },
      }),
    ).toBeUndefined()
  })
})

describe('what a move leaves, and who writes its summary', () => {
  it("the part left is the cursor's path after the last node it shares with the target", () => {
    const { projector, byText } = setup()
    const tree = projector.tree
    const part = leftPart(tree, byText('a1'))!
    expect(part.fromNodeId).toBe(byText('a1'))
    expect(part.nodeId).toBe(byText('a3'))
    expect(part.entries.map((e) => e.message?.content)[0]).toBe('q2')
    expect(part.entries.some((e) => e.message?.content === 'q1' || e.message?.content === 'a1')).toBe(false)
    // Moving forward along the path leaves nothing.
    tree.jump(byText('a1'))
    expect(leftPart(tree, byText('a3'))).toBeUndefined()
    expect(leftPart(tree, null)).toMatchObject({ nodeId: byText('a1') })
  })

  it('across a compaction, the part left is the path as it was: the messages the compaction replaced included', () => {
    const log = new LogBuilder('s1')
      .userTurn('q1', 'a1')
      .userTurn('q2', 'a2')
      .userTurn('q3', 'a3')
      .compactedBy('summary of q1..a2', 4)
      .userTurn('q4', 'a4')
    const projector = new SessionProjector(new SessionTree('s1'))
    for (const e of log.events) projector.project(e)
    const tree = projector.tree
    expect(tree.messages().map((m) => m.content)).toEqual(['summary of q1..a2', 'q3', 'a3', 'q4', 'a4'])
    const a1 = tree.list().find((n) => n.message?.content === 'a1')!.nodeId
    const part = leftPart(tree, a1)!
    expect(part.entries.map((e) => [e.type, e.message?.content])).toEqual([
      ['message', 'q2'],
      ['message', 'a2'],
      ['message', 'q3'],
      ['message', 'a3'],
      ['compaction', 'summary of q1..a2'],
      ['message', 'q4'],
      ['message', 'a4'],
    ])
  })

  const part = () => leftPart(setup().projector.tree, null)!
  const writer = (llm: SummaryLlm, timeoutMs = 60_000) => ({
    llm,
    route: { provider: 'p', model: 'm' },
    sessionId: 's1',
    timeoutMs,
  })
  async function* chunks(list: unknown[]) {
    for (const c of list) yield c
  }
  /** A model that streams `events` to every call, and what each call asked it. */
  const answering = (events: unknown[]) => {
    const asked: Record<string, unknown>[] = []
    const llm: SummaryLlm = {
      stream: (options) => {
        asked.push(options)
        return chunks(events)
      },
    }
    return { llm, asked }
  }

  it("the model's text, with its route and usage", async () => {
    const { llm, asked } = answering([
      { type: 'text-delta', index: 0, text: 'Model ' },
      { type: 'text-delta', index: 0, text: 'summary.' },
      { type: 'usage', usage: { inputTokens: 7, outputTokens: 3, cacheReadTokens: 2 } },
      { type: 'finish', reason: { kind: 'stop' } },
    ])
    const summary = await writeSummary(part(), writer(llm), 'focus on files')
    expect(summary).toMatchObject({
      summary: 'Model summary.',
      model: 'm',
      provider: 'p',
      usage: { inputTokens: 7, outputTokens: 3, cacheReadTokens: 2 },
      instructions: 'focus on files',
    })
    expect(summary.fallback).toBeUndefined()
    expect(JSON.stringify(asked[0]!.messages)).toContain('The user asks: focus on files')
    expect(asked[0]).toMatchObject({ provider: 'p', model: 'm', sessionId: 's1' })
  })

  describe('a part that crosses a compaction', () => {
    const at = '2026-01-01T00:00:00.000Z'
    const entry = (nodeId: string, role: 'user' | 'assistant', content: string): TreeEntry => ({
      nodeId,
      parentId: null,
      type: 'message',
      summary: content,
      createdAt: at,
      message: { role, content },
    })
    const compaction = (replaces: string[]): TreeEntry => ({
      nodeId: 'e9',
      parentId: 'e4',
      type: 'compaction',
      summary: 'summary',
      createdAt: at,
      message: { role: 'user', content: '<compacted-summary>q1 to q2</compacted-summary>' },
      replaces,
    })
    const crossing = (replaces: string[]): SummaryPart => ({
      branch: 'main',
      nodeId: 'e6',
      fromNodeId: 'e2',
      entries: [
        entry('e3', 'user', 'q2'),
        entry('e4', 'assistant', 'a2'),
        compaction(replaces),
        entry('e5', 'user', 'q3'),
        entry('e6', 'assistant', 'a3'),
      ],
      fromEntry: entry('e2', 'assistant', 'a1'),
    })
    const prefix = { system: 'session system', messages: [{ role: 'user', content: 'compacted history' }] }
    const ask = async (part: SummaryPart) => {
      const { llm, asked } = answering([
        { type: 'text-delta', index: 0, text: 'S.' },
        { type: 'finish', reason: { kind: 'stop' } },
      ])
      await writeSummary(part, { ...writer(llm), prefix }, undefined)
      return asked[0]!
    }

    it('its first message compacted away: the side call sends the part as it was, not the compacted history', async () => {
      const asked = await ask(crossing(['e1', 'e2', 'e3', 'e4']))
      expect(asked.system).not.toBe('session system')
      const text = JSON.stringify(asked.messages)
      expect(text).not.toContain('compacted history')
      for (const said of ['user: q2', 'assistant: a2', 'user: q3', 'assistant: a3']) expect(text).toContain(said)
      expect(text).not.toContain('compacted-summary')
    })

    it('its first message kept by the compaction: the side call shares the session prefix', async () => {
      const asked = await ask(crossing(['e1', 'e2']))
      expect(asked.system).toBe('session system')
      expect(JSON.stringify(asked.messages)).toContain('compacted history')
    })
  })

  it('a model error falls back to the extractive digest, with the failure and the tokens spent', async () => {
    const { llm } = answering([
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 0 } },
      { type: 'finish', reason: { kind: 'error', failure: { code: 'HTTP_400', message: 'bad' } } },
    ])
    const summary = await writeSummary(part(), writer(llm), undefined)
    expect(summary).toMatchObject({
      model: 'extractive',
      fallback: true,
      failure: { code: 'HTTP_400' },
      usage: { inputTokens: 5, outputTokens: 0 },
    })
    expect(summary.summary).toContain('q1')
  })

  it('a model that never answers is cut off by the timeout (TIMEOUT, extractive text)', async () => {
    // The stream ends only when aborted: the timeout is the one way out, so nothing races.
    const llm: SummaryLlm = {
      stream: (options) =>
        (async function* () {
          const signal = options.signal as AbortSignal
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
          yield { type: 'finish', reason: { kind: 'aborted', failure: { code: 'ABORTED', message: 'aborted' } } }
        })(),
    }
    const summary = await writeSummary(part(), writer(llm, 20), undefined)
    expect(summary).toMatchObject({ model: 'extractive', fallback: true, failure: { code: 'TIMEOUT' } })
  })

  it('without a model the extractive digest is the writer, not a fallback', async () => {
    const summary = await writeSummary(
      part(),
      { llm: undefined, route: undefined, sessionId: 's1', timeoutMs: 10 },
      undefined,
    )
    expect(summary).toMatchObject({ model: 'extractive' })
    expect(summary.fallback).toBeUndefined()
    expect(summary.failure).toBeUndefined()
  })
})

describe('/tree summary flags', () => {
  it('parses --summarize, --carry and --instructions on jump and fork', () => {
    expect(parseTreeCommand('jump e3 --summarize')).toEqual({
      kind: 'jump',
      node: 'e3',
      summary: { kind: 'summarize' },
    })
    expect(parseTreeCommand('jump e3 --carry')).toEqual({
      kind: 'jump',
      node: 'e3',
      summary: { kind: 'summarize', carry: true },
    })
    expect(parseTreeCommand('fork e3 alt --carry --instructions "name the files"')).toEqual({
      kind: 'fork',
      node: 'e3',
      branch: 'alt',
      summary: { kind: 'custom', instructions: 'name the files', carry: true },
    })
    expect(parseTreeCommand('jump e3 --both --summarize')).toEqual({
      kind: 'jump',
      node: 'e3',
      files: 'both',
      summary: { kind: 'summarize' },
    })
    expect(parseTreeCommand('jump e3 --instructions')).toBeUndefined()
    expect(parseTreeCommand('jump e3')).toEqual({ kind: 'jump', node: 'e3' })
  })
})
