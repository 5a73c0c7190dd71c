/**
 * After an import, every request DSH sends is one a strict chat-completions API accepts, and it
 * is what the source tool itself would send its provider — while the tree and the exports keep
 * everything the source had (docs/interchange.md, "What the model sees").
 *
 * - Pi is judged by its own provider layer: pi-ai's `convertMessages` for `openai-completions`
 *   (it runs `transform-messages`) over what Pi's `buildSessionContext` gives, in the real
 *   published packages; the sessions are written by Pi's own `SessionManager`.
 * - What DSH sends is built by DSH's own code: the harness log, `deriveMessages()`, the
 *   published DeepSeek adapter's serializer (`test/support/dsh-wire.ts`); continuing a session
 *   runs the published agent loop (`test/support/tool-rig.ts`), whose model refuses what a
 *   strict provider refuses (`test/support/provider-contract.ts`).
 * - Every real fixture (test/fixtures) continues from every one of its nodes.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { exportTree } from '../../../src/interchange/session/export.ts'
import { NO_RESULT_CODE } from '../../../src/interchange/session/provider-view.ts'
import { TreeSidecar } from '../../../src/sidecar/index.ts'
import { contractViolations } from '../../support/provider-contract.ts'
import { logWireBody } from '../../support/dsh-wire.ts'
import { continueImport, dshNodes, importFresh, loadTree, type Continued } from '../../support/interchange.ts'
import {
  assistant,
  newPiSession,
  piProviderMessages,
  SessionManager,
  toolResult,
  user,
  wireUnits,
  type WireUnit,
} from '../../support/pi.ts'
import {
  CLAUDE_INTERRUPTED_SENT,
  claudeInterruptedTranscript,
  codexPatchInput,
  codexPatchRollout,
  piAbortedAfterCommand,
  piInterruptedEdits,
} from '../../support/interrupted-sessions.ts'

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures')

/** `path` imported fresh, and the tree it became. */
async function imported(path: string) {
  const { home, outcome } = await importFresh(path)
  const { tree, events, warnings } = await loadTree(home, outcome.sessionId!)
  return { home, outcome, sessionId: outcome.sessionId!, tree, events, warnings }
}

/** A continuation's request without its last message (the prompt the test typed). */
function sentBefore(continued: Continued): WireUnit[] {
  expect(continued.failure, `continued from ${continued.nodeId}`).toBeUndefined()
  const units = wireUnits(continued.body!.messages)
  expect(units.at(-1)).toEqual(['user', `go on from ${continued.nodeId ?? 'here'}`, [], ''])
  return units.slice(0, -1)
}

/** Every continuation had a request, and a strict API accepts each one. */
function expectAccepted(continued: readonly Continued[]): void {
  for (const c of continued) {
    expect(c.failure, `continued from ${c.nodeId}`).toBeUndefined()
    expect(c.violations, `the request after a prompt at ${c.nodeId ?? 'the cursor'}`).toEqual([])
  }
}

/** The Pi export of an imported Pi session is the file it came from, byte for byte. */
async function expectPiFileBack(session: Awaited<ReturnType<typeof imported>>, pi: SessionManager): Promise<void> {
  const exported = await exportTree(session.tree, {
    format: 'pi',
    sidecarDir: new TreeSidecar(session.home.sidecarRoot).dirFor(session.sessionId),
  })
  expect(exported.lines.join('\n') + '\n').toBe(readFileSync(pi.getSessionFile()!, 'utf8'))
}

/** Pi's leaves (entries with no child). */
function leaves(pi: SessionManager): string[] {
  const entries = pi.getEntries()
  const parents = new Set(entries.map((e) => e.parentId))
  return entries.filter((e) => !parents.has(e.id)).map((e) => e.id)
}

/** Import a Pi session; at its cursor and at every leaf, DSH sends what Pi's provider layer sends. */
async function expectPiSends(pi: SessionManager) {
  const session = await imported(pi.getSessionFile()!)
  expect(session.warnings).toEqual([])
  // Where the import leaves it, straight from the stored log: exactly what Pi sends for its leaf.
  const next = await logWireBody(session.events)
  expect(contractViolations(next)).toEqual([])
  expect(wireUnits(next.messages)).toEqual(wireUnits(piProviderMessages(pi)))
  // Continued in the agent loop: at the cursor, then after a jump to each leaf.
  const dshOf = await dshNodes(session.home, session.sessionId)
  const continued = await continueImport(
    session.home,
    session.sessionId,
    leaves(pi).map((leaf) => dshOf.get(leaf)!),
  )
  expectAccepted(continued)
  expect(sentBefore(continued[0]!)).toEqual(wireUnits(piProviderMessages(pi)))
  leaves(pi).forEach((leaf, i) => {
    expect(sentBefore(continued[i + 1]!), `after a jump to Pi's leaf ${leaf}`).toEqual(
      wireUnits(piProviderMessages(pi, leaf)),
    )
  })
  return session
}

/** The call ids of a log's `tool/call` events that an earlier one already named, in log order. */
function repeatedCallIds(events: readonly unknown[]): string[] {
  const seen = new Set<string>()
  return events.flatMap((e) => {
    const event = e as { type: string; data: { callId?: string } }
    if (event.type !== 'tool/call') return []
    const id = event.data.callId!
    if (!seen.has(id)) return seen.add(id) && []
    return [id]
  })
}

describe("Pi: DSH sends what Pi's own provider layer sends (pi-ai, real package)", () => {
  it('an answer aborted after a command is left out as Pi leaves it out; the tree and the Pi export keep it', async () => {
    const { pi, aborted, errored } = piAbortedAfterCommand()
    const session = await expectPiSends(pi)
    expect(piProviderMessages(pi).some((m) => m.role === 'assistant' && m.content === 'Lint')).toBe(false)
    // Both answers stay in the tree, as nodes the model never reads, with what they said.
    const dshOf = await dshNodes(session.home, session.sessionId)
    for (const [id, reason] of [
      [aborted, 'aborted'],
      [errored, 'error'],
    ] as const) {
      const node = session.tree.get(dshOf.get(id)!)!
      expect(node).toMatchObject({ type: 'custom', metadata: { customType: 'answer-not-sent' } })
      expect(node.summary).toContain(`stopped with ${reason}`)
      expect(node.message).toBeUndefined()
    }
    expect(session.tree.get(dshOf.get(errored)!)!.content).toEqual([{ type: 'text', text: 'Lint' }])
    expect(session.outcome.report.notes).toContain(
      '2 answer(s) the model is not sent (aborted, errored or empty) kept as tree-only nodes',
    )
    // Pi → DSH → Pi: the same file, byte for byte (the aborted answers included).
    await expectPiFileBack(session, pi)
  })

  it('a user interrupt during 8 edit calls: each call is answered "No result provided", as Pi sends it; the Pi export holds no such result', async () => {
    const pi = piInterruptedEdits()
    const session = await expectPiSends(pi)
    const sent = piProviderMessages(pi).filter((m) => m.role === 'tool')
    expect(sent.map((m) => m.content)).toEqual(Array(8).fill('No result provided'))
    // In the tree: one tool exchange per call, with the synthetic error result, then the prompt.
    const synthetic = session.tree.list().filter((n) => n.error === NO_RESULT_CODE)
    expect(synthetic).toHaveLength(8)
    for (const node of synthetic)
      expect(node.content?.find((p) => p.type === 'tool_result')).toMatchObject({
        content: 'No result provided',
        isError: true,
      })
    expect(session.outcome.report.notes).toContain(
      '8 call(s) left without a result answered "No result provided", as the source tool does before it sends them',
    )
    await expectPiFileBack(session, pi)
    // Claude Code's transcript keeps every tool_use answered.
    const claude = await exportTree(session.tree, { format: 'claude-code' })
    const results = claude.lines.flatMap((line) => {
      const record = JSON.parse(line) as { message?: { content?: { type: string; content?: unknown }[] } }
      return Array.isArray(record.message?.content)
        ? record.message.content.filter((b) => b.type === 'tool_result').map((b) => b.content)
        : []
    })
    expect(results).toHaveLength(8)
  })

  it('branches from an answer whose calls are half answered, and from before its results: every leaf sends what Pi sends; the log repeats just the ids answered on two branches, and says so', async () => {
    const pi = newPiSession()
    pi.appendMessage(user('read a and b'))
    const both = pi.appendMessage(
      assistant('Reading both.', {
        calls: [
          { id: 'call_a', name: 'read', args: { path: 'a.txt' } },
          { id: 'call_b', name: 'read', args: { path: 'b.txt' } },
        ],
      }),
    )
    const ra = pi.appendMessage(toolResult('call_a', 'read', 'A'))
    pi.appendMessage(toolResult('call_b', 'read', 'B'))
    pi.appendMessage(assistant('A and B.'))
    pi.branch(ra)
    pi.appendMessage(user('stop after a'))
    pi.appendMessage(assistant('Stopped after a.'))
    pi.branch(both)
    pi.appendMessage(user('never mind'))
    pi.appendMessage(assistant('OK.'))
    const session = await expectPiSends(pi)
    // call_b is answered by its result on one branch and "No result provided" on the other; so are both calls
    // on the branch that starts at the answer itself.
    expect(repeatedCallIds(session.events)).toEqual(['call_b', 'call_a', 'call_b'])
    expect(session.outcome.report.notes).toContain(
      '3 of them answered on another branch too: the log repeats their call ids (REPEATED_CALL_IDS)',
    )
    // The tree keeps Pi's shape: every Pi entry has its node, every leaf its path.
    const dshOf = await dshNodes(session.home, session.sessionId)
    expect(new Set(dshOf.keys())).toEqual(new Set(pi.getEntries().map((e) => e.id)))
  })
})

describe('Codex: a freeform tool call (custom_tool_call apply_patch)', () => {
  it('is sent as JSON arguments, {"input": <the patch>}, as Codex calls apply_patch as a function; the raw input stays in the tree and the exports', async () => {
    const raw = codexPatchInput()
    expect(raw).toMatch(/^\*\*\* Begin Patch\n/)
    const session = await imported(codexPatchRollout())
    const next = await logWireBody(session.events)
    expect(contractViolations(next)).toEqual([])
    const call = next.messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.function.name === 'apply_patch')!
    expect(JSON.parse(call.function.arguments)).toEqual({ input: raw })
    expectAccepted(await continueImport(session.home, session.sessionId))
    // The tree shows the call with the patch text itself; the exports carry it.
    const node = session.tree
      .list()
      .find((n) => n.content?.some((p) => p.type === 'tool_call' && p.name === 'apply_patch'))!
    expect(node.content!.find((p) => p.type === 'tool_call')).toMatchObject({ arguments: { input: raw } })
    for (const format of ['pi', 'claude-code', 'markdown'] as const) {
      const exported = await exportTree(session.tree, {
        format,
        sidecarDir: new TreeSidecar(session.home.sidecarRoot).dirFor(session.sessionId),
      })
      expect(exported.lines.join('\n'), format).toContain(format === 'markdown' ? 'Begin Patch' : JSON.stringify(raw))
    }
  })
})

describe('Claude Code: interrupted tool uses and interrupt markers', () => {
  it('every request a strict API accepts; the markers and the interrupted results stay in the tree; a call left open is answered in Claude Code words', async () => {
    const file = claudeInterruptedTranscript()
    const session = await imported(file)
    expect(session.warnings).toEqual([])
    const next = await logWireBody(session.events)
    expect(contractViolations(next)).toEqual([])
    expect(wireUnits(next.messages)).toEqual(CLAUDE_INTERRUPTED_SENT)
    expectAccepted(await continueImport(session.home, session.sessionId))
    const nodes = session.tree.list()
    expect(nodes.filter((n) => n.message?.content === '[Request interrupted by user]')).toHaveLength(2)
    expect(nodes.find((n) => n.metadata?.customType === 'answer-not-sent')?.summary).toContain(
      'nothing to send once thinking is left out',
    )
    // The Claude Code export keeps the markers, the interrupted result and an answer for every tool_use.
    const exported = (await exportTree(session.tree, { format: 'claude-code' })).lines.map(
      (l) => JSON.parse(l) as { message?: { content?: unknown } },
    )
    const blocks = exported.flatMap((r) => (Array.isArray(r.message?.content) ? r.message.content : [])) as {
      type: string
      id?: string
      tool_use_id?: string
    }[]
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id)
    expect(new Set(blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id))).toEqual(new Set(uses))
    expect(JSON.stringify(exported).split('[Request interrupted by user]').length - 1).toBe(2)
  })
})

const fixtureFiles = [
  join(FIXTURES, 'claude-code', '462ed189-a6a6-46ec-b100-ff1c3dcf390a.jsonl'),
  join(FIXTURES, 'claude-code', 'compaction', '24a90d02-9724-4548-9f4f-97bcb9f93ef3.jsonl'),
  join(FIXTURES, 'claude-code', 'subagents', 'd6a37ffc-384d-4d2a-832a-78cdd493af69.jsonl'),
  join(FIXTURES, 'codex', 'synthetic-rollout.jsonl'),
  ...['generated', 'generated-rollback'].flatMap((dir) =>
    readdirSync(join(FIXTURES, 'codex', dir))
      .filter((name) => name.startsWith('rollout-'))
      .map((name) => join(FIXTURES, 'codex', dir, name)),
  ),
]

describe('every real fixture continues, from where it stands and from each of its nodes, with requests a strict API accepts', () => {
  for (const file of fixtureFiles) {
    it(file.slice(FIXTURES.length + 1), async () => {
      const session = await imported(file)
      expect(contractViolations(await logWireBody(session.events))).toEqual([])
      const continued = await continueImport(session.home, session.sessionId)
      expect(continued.length).toBe(session.tree.nodeCount + 1)
      expectAccepted(continued)
    })
  }
})

describe('the transcript the real Claude Code 2.1.197 wrote (a compaction keeping a preserved segment)', () => {
  const file = join(FIXTURES, 'claude-code', 'generated', '7d0c1c2e-5b1a-4c1e-9a57-3f1f0d2b6a10.jsonl')

  it('continues from where it stands and from every node but the compaction, with requests a strict API accepts', async () => {
    const session = await imported(file)
    expect(contractViolations(await logWireBody(session.events))).toEqual([])
    const nodes = session.tree.list().filter((n) => n.type !== 'compaction')
    expect(nodes.length).toBe(session.tree.nodeCount - 1)
    const continued = await continueImport(
      session.home,
      session.sessionId,
      nodes.map((n) => n.nodeId),
    )
    expect(continued.length).toBe(nodes.length + 1)
    expectAccepted(continued)
  })

  // Once a known fault: the history of a compaction ends with the messages it kept (nodes before
  // it in the tree), so a stock switch to it settled the cursor on the last of them, the tree no
  // longer matched the model history and the invariant vetoed the switch's turn end.
  it('a jump to the compaction node itself settles', async () => {
    const session = await imported(file)
    const compaction = session.tree.list().find((n) => n.type === 'compaction')!
    expectAccepted(await continueImport(session.home, session.sessionId, [compaction.nodeId]))
  })
})

describe('a Pi compaction that keeps messages', () => {
  it('a jump to the compaction node settles (as above)', async () => {
    const pi = newPiSession()
    pi.appendMessage(user('first'))
    const kept = pi.appendMessage(assistant('first answer'))
    pi.appendMessage(user('second'))
    pi.appendMessage(assistant('second answer'))
    pi.appendCompaction('We talked twice.', kept, 1000)
    pi.appendMessage(user('third'))
    pi.appendMessage(assistant('third answer'))
    const session = await imported(pi.getSessionFile()!)
    const compaction = session.tree.list().find((n) => n.type === 'compaction')!
    expectAccepted(await continueImport(session.home, session.sessionId, [compaction.nodeId]))
  })
})
