/**
 * Claude Code transcripts the tool wrote (test/fixtures/claude-code, see
 * SOURCES.md): imported into DSH sessions through the published persistence,
 * checked against facts read straight off the raw lines (not through the
 * reader under test), and exported back.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { importSession } from '../../../src/interchange/session/import.ts'
import { exportTree, writeNewFile } from '../../../src/interchange/session/export.ts'
import { TreeSidecar } from '../../../src/sidecar/index.ts'
import { dshModelView, importFresh, loadTree } from '../../support/interchange.ts'
import { pathUnits, requestUnits, type ApiMessage } from '../../support/claude-units.ts'

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'claude-code')
type Raw = {
  type?: string
  uuid?: string
  parentUuid?: string | null
  isSidechain?: boolean
  message?: { id?: string; role?: string; content?: unknown }
  toolUseResult?: { agentId?: string }
  isCompactSummary?: boolean
  logicalParentUuid?: string
}
const rawLines = (file: string): Raw[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Raw)
const blocks = (raw: Raw) =>
  Array.isArray(raw.message?.content)
    ? (raw.message!.content as {
        type: string
        id?: string
        tool_use_id?: string
        text?: string
        thinking?: string
        input?: { prompt?: string }
      }[])
    : []

describe('Claude Code transcripts (2.0.57/2.0.58, real files)', () => {
  it('a plain session: one node per response (split records merged by message.id), slash-command expansions kept as context, every call paired', async () => {
    const file = join(FIXTURES, '462ed189-a6a6-46ec-b100-ff1c3dcf390a.jsonl')
    const raw = rawLines(file)
    const { home, outcome } = await importFresh(file)
    expect(outcome.report).toMatchObject({ format: 'claude-code', version: '2.0.57', branches: 1, skipped: [] })
    const { tree, events, warnings } = await loadTree(home, outcome.sessionId!)
    expect(warnings).toEqual([])
    const view = dshModelView(outcome.sessionId!, events)
    // Facts off the raw file: responses = distinct message ids; results = tool_result blocks; prompts = string-content user records.
    const responses = new Set(raw.filter((r) => r.type === 'assistant').map((r) => r.message!.id))
    const results = raw.flatMap((r) => (r.type === 'user' ? blocks(r).filter((b) => b.type === 'tool_result') : []))
    const prompts = raw
      .filter((r) => r.type === 'user' && !blocks(r).some((b) => b.type === 'tool_result'))
      .map((r) =>
        typeof r.message?.content === 'string'
          ? r.message.content
          : blocks(r)
              .map((b) => b.text ?? '')
              .join(''),
      )
    expect(view.filter((m) => m.role === 'assistant')).toHaveLength(responses.size)
    expect(view.filter((m) => m.role === 'tool')).toHaveLength(results.length)
    expect(view.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(prompts)
    const lastText = [...raw]
      .reverse()
      .flatMap((r) => (r.type === 'assistant' ? blocks(r).filter((b) => b.type === 'text') : []))[0]!.text!
    expect(view.filter((m) => m.role === 'assistant').at(-1)).toEqual({ role: 'assistant', text: lastText })
    // Every call the model made is answered before the next response (what an API replay requires).
    const session = events.filter((e) => (e as { type: string }).type === 'tool/call').length
    expect(session).toBe(results.length)
    expect(tree.nodeCount).toBe(responses.size + results.length + prompts.length)
  })

  it("subagents (agent-*.jsonl beside the session) hang under the tool exchange that started them, after its last result; other sessions' agents are left out", async () => {
    const file = join(FIXTURES, 'subagents', 'd6a37ffc-384d-4d2a-832a-78cdd493af69.jsonl')
    const raw = rawLines(file)
    const { home, outcome } = await importFresh(file)
    expect(outcome.report.notes).toEqual(
      expect.arrayContaining([
        '3 subagent conversation(s) linked to the tool call that started them',
        '2 subagent conversation(s) with no call referring to them kept as roots of their own',
      ]),
    )
    expect(outcome.report.notes.join('\n')).not.toContain('agent-4140fdcf')
    const { tree, events } = await loadTree(home, outcome.sessionId!)
    // The Task calls and the prompts they gave their agents, off the raw file.
    const tasks = raw.flatMap((r) =>
      blocks(r)
        .filter((b) => b.type === 'tool_use' && b.input?.prompt)
        .map((b) => ({ id: b.id!, prompt: b.input!.prompt! })),
    )
    const linked = raw
      .filter((r) => r.toolUseResult?.agentId)
      .map((r) => ({
        agent: r.toolUseResult!.agentId!,
        callId: blocks(r).find((b) => b.type === 'tool_result')!.tool_use_id!,
      }))
    expect(linked).toHaveLength(3)
    // The three Task calls are parallel calls of one answer: each branch starts where all three are answered
    // (a branch starting between them would leave calls without results, which no model API accepts).
    const issuer = raw.find((r) => blocks(r).some((b) => b.type === 'tool_use' && b.id === linked[0]!.callId))!
    const siblings = raw
      .filter((r) => r.message?.id === issuer.message!.id)
      .flatMap((r) =>
        blocks(r)
          .filter((b) => b.type === 'tool_use')
          .map((b) => b.id!),
      )
    expect(new Set(linked.map((l) => l.callId)).size).toBe(3)
    for (const { callId } of linked) expect(siblings).toContain(callId)
    const resultLines = raw.flatMap((r, i) =>
      blocks(r).some((b) => b.type === 'tool_result' && siblings.includes(b.tool_use_id!)) ? [i] : [],
    )
    const lastCall = blocks(raw[Math.max(...resultLines)]!).find((b) => b.type === 'tool_result')!.tool_use_id!
    for (const { agent, callId } of linked) {
      const callNode = tree
        .list()
        .find((n) => n.type === 'tool_call' && n.content?.some((p) => p.type === 'tool_call' && p.id === lastCall))!
      const children = tree.children(callNode.nodeId).map((id) => tree.get(id)!)
      // 2.0.x agent files start with the agent's answer: the branch starts with the call's prompt, then that answer.
      const first = rawLines(join(FIXTURES, 'subagents', `agent-${agent}.jsonl`))[0]!
      const prompt = children.find((child) => child.message?.content === tasks.find((t) => t.id === callId)!.prompt)
      expect(prompt, `agent ${agent} under call ${callId}`).toBeDefined()
      const answer = tree.children(prompt!.nodeId).map((id) => tree.get(id)!)
      expect(answer.map((n) => n.message?.content)).toEqual([
        blocks(first)
          .map((b) => b.text ?? '')
          .join(''),
      ])
    }
    // The model continues the main conversation: no subagent message is on its path.
    const view = dshModelView(outcome.sessionId!, events)
    for (const task of tasks) expect(view.some((m) => m.role === 'user' && m.text === task.prompt)).toBe(false)
  })

  it('a compaction (a new root naming its logical parent) becomes one node there; the model reads its summary, not what it replaced', async () => {
    const file = join(FIXTURES, 'compaction', '24a90d02-9724-4548-9f4f-97bcb9f93ef3.jsonl')
    const raw = rawLines(file)
    const { home, outcome } = await importFresh(file)
    expect(outcome.report).toMatchObject({ compactions: 1 })
    const { tree, events } = await loadTree(home, outcome.sessionId!)
    const summary = raw.find((r) => r.isCompactSummary)!
    const summaryText =
      typeof summary.message!.content === 'string'
        ? summary.message!.content
        : blocks(summary)
            .map((b) => b.text ?? '')
            .join('')
    const view = dshModelView(outcome.sessionId!, events)
    expect(view[0]).toEqual({ role: 'user', text: summaryText })
    const compaction = tree.list().find((n) => n.type === 'compaction')!
    const boundary = raw.find((r) => r.type === 'system' && r.logicalParentUuid)!
    const { readProvenance } = await import('../../../src/interchange/session/provenance.ts')
    const provenance = await readProvenance(new TreeSidecar(home.sidecarRoot).dirFor(outcome.sessionId!))
    const sourceOf = (nodeId: string) => provenance!.nodes.get(nodeId)?.id
    expect(sourceOf(compaction.nodeId)).toBe(boundary.uuid)
    expect(sourceOf(compaction.parentId!)).toBe(boundary.logicalParentUuid)
    // Thinking stays out of the DSH log (DSH replays reasoning to its model); the provenance keeps it.
    const thinking = raw.flatMap((r) =>
      blocks(r)
        .filter((b) => b.type === 'thinking')
        .map((b) => b.thinking!),
    )
    expect(thinking.length).toBeGreaterThan(0)
    for (const text of thinking)
      expect(JSON.stringify(events)).not.toContain(JSON.stringify(text.slice(0, 60)).slice(1, -1))
    // Nothing from before the boundary reaches the model.
    const before = raw
      .slice(0, raw.indexOf(boundary))
      .filter((r) => r.type === 'user' && typeof r.message?.content === 'string')
      .map((r) => r.message!.content as string)
    for (const text of before) expect(view.some((m) => m.text === text)).toBe(false)
  })

  it('exports the active path as a Claude Code transcript: one uuid chain, every tool_use answered, the same conversation when read back', async () => {
    const file = join(FIXTURES, '462ed189-a6a6-46ec-b100-ff1c3dcf390a.jsonl')
    const { home, outcome } = await importFresh(file)
    const { tree, events } = await loadTree(home, outcome.sessionId!)
    const exported = await exportTree(tree, {
      format: 'claude-code',
      sidecarDir: new TreeSidecar(home.sidecarRoot).dirFor(outcome.sessionId!),
      cwd: '/Users/pretor/Documents/PAI - TPOS',
    })
    const records = exported.lines.map((line) => JSON.parse(line) as Raw & { sessionId: string })
    let parent: string | null = null
    const open = new Set<string>()
    for (const record of records) {
      expect(record.parentUuid).toBe(parent)
      expect(record.sessionId).toBe(exported.fileSessionId)
      parent = record.uuid!
      for (const block of blocks(record)) {
        if (block.type === 'tool_use') open.add(block.id!)
        if (block.type === 'tool_result') expect(open.delete(block.tool_use_id!)).toBe(true)
      }
      if (record.type === 'assistant' && blocks(record).some((b) => b.type === 'text')) expect(open.size).toBe(0)
    }
    expect(open.size).toBe(0)
    const out = join(mkdtempSync(join(tmpdir(), 'claude-out-')), `${exported.fileSessionId}.jsonl`)
    writeNewFile(out, exported.lines)
    const again = await importSession({ path: out }, { persistence: home.persistence, sidecarRoot: home.sidecarRoot })
    const reread = await loadTree(home, again.sessionId!)
    expect(dshModelView(again.sessionId!, reread.events)).toEqual(dshModelView(outcome.sessionId!, events))
  })
})

// ---------------------------------------------------------------------------
// Transcripts written by the real Claude Code 2.1.197 (generated/NOTES.md; regenerate with dev/fixtures/claude-code.ts)

const GENERATED = join(FIXTURES, 'generated')
const GENERATED_SESSION = join(GENERATED, '7d0c1c2e-5b1a-4c1e-9a57-3f1f0d2b6a10.jsonl')
describe('Claude Code transcripts written by the real claude 2.1.197 (against a local fake of the Messages API)', () => {
  const requests = () =>
    readFileSync(join(GENERATED, 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { n: number; messages: ApiMessage[] })
  const promptOf = (messages: readonly ApiMessage[]) =>
    requestUnits(messages)
      .filter(([role]) => role === 'user')
      .at(-1)![1]

  it('every path the CLI sent to its model is a path of the imported tree, rewind branch and post-compaction context included', async () => {
    const raw = rawLines(GENERATED_SESSION)
    const { home, outcome } = await importFresh(GENERATED_SESSION)
    expect(outcome.report).toMatchObject({ format: 'claude-code', version: '2.1.197', compactions: 1, skipped: [] })
    const { tree, warnings } = await loadTree(home, outcome.sessionId!)
    expect(warnings).toEqual([])
    // Off the raw file: the rewind is a second prompt under the first turn's answer.
    const prompts = raw.filter(
      (r) =>
        r.type === 'user' &&
        typeof r.message?.content === 'string' &&
        !(r as { isMeta?: boolean }).isMeta &&
        !r.isCompactSummary,
    )
    const parents = new Map<string, number>()
    for (const p of prompts) parents.set(p.parentUuid!, (parents.get(p.parentUuid!) ?? 0) + 1)
    expect([...parents.values()].filter((n) => n > 1)).toEqual([2])
    // Each request of the main conversation ends with a prompt or a tool result; the tree path to that node holds the same context.
    // (The subagent's own request holds only its prompt: its branch hangs under the main conversation. The compaction request asks for the summary.)
    let compared = 0
    for (const request of requests()) {
      const units = requestUnits(request.messages)
      const [kind, text] = units.at(-1)!
      if (text.startsWith('Search this folder')) continue
      const matches = tree
        .list()
        .filter((n) =>
          kind === 'user'
            ? n.message?.role === 'user' && n.type === 'message' && n.message.content.trimEnd() === text
            : kind === 'result' && n.content?.some((p) => p.type === 'tool_result' && p.content.trimEnd() === text),
        )
      if (matches.length !== 1) continue
      expect(pathUnits(tree, matches[0]!.nodeId), `request ${request.n}`).toEqual(units)
      compared++
    }
    // Four prompts before the compaction, two tool-result continuations, the prompt after the compaction.
    expect(compared).toBe(7)
  })

  it('the tree holds the parallel calls, the fork, the subagent under its call, the compaction; the cursor is where the CLI continued', async () => {
    const { home, outcome } = await importFresh(GENERATED_SESSION)
    const { tree, events } = await loadTree(home, outcome.sessionId!)
    const all = requests()
    const final = all.at(-1)!
    // The cursor continues where the CLI's last request did: its context plus the answer the fake gave.
    const view = dshModelView(outcome.sessionId!, events)
    expect(view.filter((m) => m.role === 'user').at(-1)!.text).toBe(promptOf(final.messages))
    // The subagent: its own first request's prompt is the first message of a branch under the Agent call's result.
    const subagentRequest = all.find((r) => !r.messages.some((m) => m.role === 'assistant'))!
    const agentPrompt =
      all.filter((r) => r !== subagentRequest).length > 0
        ? promptOf(all.find((r) => promptOf(r.messages).startsWith('Search this folder'))!.messages)
        : ''
    const start = tree.list().find((n) => n.message?.content === agentPrompt)!
    expect(tree.get(start.parentId!)!.type).toBe('tool_call')
    expect(tree.get(start.parentId!)!.summary).toContain('Agent(')
    expect(tree.list().filter((n) => n.type === 'compaction')).toHaveLength(1)
    expect(outcome.report.notes).toEqual(
      expect.arrayContaining(['1 subagent conversation(s) linked to the tool call that started them']),
    )
  })
})
