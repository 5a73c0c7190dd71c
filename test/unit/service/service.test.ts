/**
 * The service in a real cordis Context with the real `SessionStore` of the
 * published harness: sessions, events and lifecycle are the harness's own.
 * (Stock-mode switches need a live agent loop: see stock-switch.test.ts for
 * the switch on a real Session, and test/e2e for the real `dsh`.)
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@deepseek-ai/dsh-session'
import { afterEach, describe, expect, it } from 'vitest'
import SessionTreeService from '../../../src/index.ts'
import { LogBuilder } from '../../support/log-builder.ts'
import { remoteFailure } from '../../support/remote-failure.ts'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

async function boot(sidecarRoot?: string, surfaceMode: 'auto' | 'native' | 'stock' | 'projection' = 'auto') {
  const root = sidecarRoot ?? mkdtempSync(join(tmpdir(), 'tree-sidecar-'))
  roots.push(root)
  const ctx = new Context()
  ctx.plugin(SessionStore)
  const fiber = ctx.plugin(SessionTreeService, { sidecarRoot: root, surfaceMode })
  await fiber
  await new Promise((r) => setTimeout(r, 0))
  const service = (ctx as unknown as { sessionTree: SessionTreeService }).sessionTree
  return { ctx, service, root, fiber }
}

describe('SessionTreeService in a real Context', () => {
  it('projects live events incrementally and serves list/session', async () => {
    const { ctx, service } = await boot()
    const session = ctx.sessions.create()
    const log = new LogBuilder(session)
      .userTurn('q1', 'a1')
      .userTurn('q2', 'a2', { tools: [{ name: 'read', args: { file_path: 'f' }, result: 'text' }] })
    const view = await service.list(session.id)
    // The assistant message that issued the call, then the call node with its result folded in.
    expect(view.nodes.map((n) => n.summary)).toEqual([
      'q1',
      'a1',
      'q2',
      'read({"file_path":"f"})',
      'read({"file_path":"f"}) → text',
      'a2',
    ])
    expect(view.nodes.map((n) => n.type)).toEqual(['message', 'message', 'message', 'message', 'tool_call', 'message'])
    const status = await service.session(session.id)
    expect(status).toMatchObject({
      sessionId: session.id,
      nodeCount: 6,
      messageCount: 6,
      branchCount: 1,
      surfaceMode: 'projection',
      quarantine: [],
      sidecarWarnings: [],
    })
    expect(status.watermark).toBe(log.session.seq - 1)
    log.userTurn('q3', 'a3')
    expect((await service.session(session.id)).nodeCount).toBe(8)
    expect(service.sync.get(session.id)?.projector.tree.nodeCount).toBe(8)
  })

  it('export keeps the tool calls of the active path and digests an unsummarized branch (issue 14 §5)', async () => {
    const { ctx, service } = await boot()
    const session = ctx.sessions.create()
    new LogBuilder(session)
      .userTurn('Plan the trip', 'Day one: the castle.')
      .userTurn('Check notes.txt', 'The budget is 300 EUR.', {
        tools: [{ name: 'read', args: { file_path: 'notes.txt' }, result: 'budget: 300 EUR' }],
      })
    const nodes = (await service.list(session.id)).nodes
    const first = nodes.find((n) => n.summary === 'Day one: the castle.')!.nodeId
    await service.fork(session.id, first, 'alt')
    const exported = await service.export(session.id)
    // The off-path branch "main" holds the tool exchange; the active path is the fork point's.
    expect(exported.messages.map((m) => m.content)).toEqual(['Plan the trip', 'Day one: the castle.'])
    const main = exported.branches.find((b) => b.branch === 'main')!
    expect(main.summary).not.toMatch(/unsummarized/)
    expect(main.summary).toContain('Check notes.txt')
    expect(main).toMatchObject({ model: 'extractive' })
    await service.jump(session.id, nodes.at(-1)!.nodeId)
    const back = await service.export(session.id)
    const request = back.messages.find((m) => m.role === 'assistant' && m.toolCalls !== undefined)
    expect(request?.toolCalls).toEqual([
      { id: expect.any(String), name: 'read', arguments: { file_path: 'notes.txt' } },
    ])
    const result = back.messages[back.messages.indexOf(request!) + 1]
    expect(result).toMatchObject({ role: 'tool', content: 'budget: 300 EUR', toolCallId: request!.toolCalls![0]!.id })
  })

  it('reads have no side effects: same snapshot, no sidecar written', async () => {
    const { ctx, service, root } = await boot()
    const session = ctx.sessions.create()
    new LogBuilder(session).userTurn('q1', 'a1')
    const before = JSON.stringify(service.sync.get(session.id)?.projector.tree.snapshot())
    await service.list(session.id)
    await service.session(session.id)
    await service.export(session.id)
    expect(JSON.stringify(service.sync.get(session.id)?.projector.tree.snapshot())).toBe(before)
    expect(readdirSync(root)).toEqual([])
  })

  it('projection mode: a jump moves the tree, not the model history, and says so', async () => {
    const { ctx, service } = await boot()
    const session = ctx.sessions.create()
    const log = new LogBuilder(session).userTurn('q1', 'a1').userTurn('q2', 'a2')
    const history = log.modelTexts()
    const a1 = (await service.list(session.id)).nodes.find((n) => n.summary === 'a1')!.nodeId
    const moved = await service.jump(session.id, a1)
    expect(moved).toMatchObject({ cursor: a1, mode: 'projection' })
    expect(moved.messages.map((m) => m.content)).toEqual(['q1', 'a1'])
    expect(log.modelTexts()).toEqual(history)
    expect((await service.session(session.id)).surfaceNote).toMatch(/tree and the panel only/)
    // The harness continues its own history; the tree follows the truth.
    log.userTurn('q3', 'a3')
    const q3 = (await service.list(session.id)).nodes.find((n) => n.summary === 'q3')!
    expect(q3.parentId).toBe((await service.list(session.id)).nodes.find((n) => n.summary === 'a2')!.nodeId)
  })

  it('keeps error codes end to end', async () => {
    const { ctx, service } = await boot()
    const session = ctx.sessions.create()
    new LogBuilder(session).userTurn('q1', 'a1')
    expect(await remoteFailure(service.list('no-such-session'))).toMatchObject({ code: 'SESSION_NOT_FOUND' })
    expect(await remoteFailure(service.jump(session.id, 'ghost'))).toMatchObject({ code: 'NODE_NOT_FOUND' })
    expect(
      await remoteFailure(service.fork(session.id, (await service.list(session.id)).nodes[0]!.nodeId, '  ')),
    ).toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect(await remoteFailure(service.label(session.id, 'ghost', 'x'))).toMatchObject({ code: 'NODE_NOT_FOUND' })
    // An id that can never name a node is a bad argument (issue 14 §5), for moves and labels alike.
    expect(await remoteFailure(service.jump(session.id, ''))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect(await remoteFailure(service.fork(session.id, '', 'b'))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect(await remoteFailure(service.jump(session.id, ' padded '))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect(await remoteFailure(service.label(session.id, '', 'x'))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    // Direction overrides would make a label display as something else.
    const first = (await service.list(session.id)).nodes[0]!.nodeId
    expect(await remoteFailure(service.label(session.id, first, 'evil\u202etxt.exe'))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/bidirectional/),
    })
    expect(await remoteFailure(service.fork(session.id, first, 'b\u2066x'))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect(await remoteFailure(service.summarize(session.id, 'nope'))).toMatchObject({ code: 'BRANCH_NOT_FOUND' })
    expect(await remoteFailure(service.back(session.id))).toMatchObject({ code: 'HISTORY_EMPTY' })
    expect(await remoteFailure(service.list(42 as never))).toMatchObject({ code: 'INVALID_ARGUMENT' })
  })

  it('labels, forks, summaries and history survive a restart through the sidecar', async () => {
    const first = await boot()
    const session = first.ctx.sessions.create()
    const log = new LogBuilder(session).userTurn('q1', 'a1').userTurn('q2', 'a2')
    const nodes = (await first.service.list(session.id)).nodes
    const a1 = nodes.find((n) => n.summary === 'a1')!.nodeId
    await first.service.label(session.id, a1, 'good answer')
    await first.service.fork(session.id, a1, 'experiment')
    await first.service.summarize(session.id, 'main')
    const before = await first.service.list(session.id)
    const events = [...log.session.events]
    await first.fiber.dispose()

    const second = await boot(first.root)
    const resumed = second.ctx.sessions.create(session.id as never, { seed: events as never })
    const after = await second.service.list(resumed.id)
    expect(after).toEqual(before)
    expect((await second.service.session(resumed.id)).sidecarWarnings).toEqual([])
    expect((await second.service.back(resumed.id)).cursor).toBe(nodes.find((n) => n.summary === 'a2')!.nodeId)
  })

  it('a deleted sidecar rebuilds the tree from the log; a corrupt one is reported, never blocking', async () => {
    const first = await boot()
    const session = first.ctx.sessions.create()
    const log = new LogBuilder(session).userTurn('q1', 'a1')
    const a1 = (await first.service.list(session.id)).nodes.find((n) => n.summary === 'a1')!.nodeId
    await first.service.label(session.id, a1, 'keep')
    const events = [...log.session.events]
    await first.fiber.dispose()
    const dir = readdirSync(first.root)
    expect(dir).toHaveLength(1)
    const journal = join(first.root, dir[0]!, 'journal.jsonl')
    const { writeFileSync } = await import('node:fs')
    writeFileSync(journal, 'garbage\n')

    const second = await boot(first.root)
    const resumed = second.ctx.sessions.create(session.id as never, { seed: events as never })
    const status = await second.service.session(resumed.id)
    expect(status.nodeCount).toBe(2)
    expect(status.sidecarWarnings!.length).toBeGreaterThan(0)
    expect(status.labelCount).toBe(0)
  })

  it('disposing the plugin removes every listener', async () => {
    const { ctx, service, fiber } = await boot()
    const session = ctx.sessions.create()
    const log = new LogBuilder(session).userTurn('q1', 'a1')
    expect((await service.session(session.id)).nodeCount).toBe(2)
    await fiber.dispose()
    expect(service.sync.get(session.id)).toBeUndefined()
    log.userTurn('q2', 'a2')
    expect(service.sync.get(session.id)).toBeUndefined()
  })

  it('a malformed event is quarantined; later events still project', async () => {
    const { ctx, service } = await boot()
    const session = ctx.sessions.create()
    const log = new LogBuilder(session).userTurn('q1', 'a1')
    ;(session.append as (t: string, d: unknown, i?: unknown) => void)(
      'user/message',
      { id: 'bad', role: 'user', content: 'not an array', source: { kind: 'user' } },
      { surfaceOp: 'append' },
    )
    log.userTurn('q2', 'a2')
    const status = await service.session(session.id)
    expect(status.quarantine).toHaveLength(1)
    expect(status.quarantine![0]).toMatchObject({ type: 'user/message' })
    expect(status.nodeCount).toBe(4)
  })
})
