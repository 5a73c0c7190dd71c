/**
 * No plain ok for what was not made durable, and bounded answers for any
 * input. The sidecar is broken the way a disk breaks it (the journal replaced
 * by a directory, or by a link), in a real Context with the harness
 * `SessionStore` (projection mode) and in a real in-process agent loop
 * (stock mode, `test/support/tool-rig.ts`):
 *
 * - sidecar-only operations (labels, summaries, every projection-mode move,
 *   a stock move whose switch changes nothing in the log) fail with
 *   `SIDECAR_IO` and change nothing;
 * - a stock move that switched the history is durable in the harness log
 *   (its marker names target and branch): ok, but its result says
 *   `notDurable`, and a restart brings it back from the log;
 * - a 10 MB id is echoed clipped, with its length.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@deepseek-ai/dsh-session'
import { afterEach, describe, expect, it } from 'vitest'
import SessionTreeService from '../../../src/index.ts'
import { JOURNAL_FILE, TreeSidecar } from '../../../src/sidecar/index.ts'
import { LogBuilder } from '../../support/log-builder.ts'
import { loopRig, transcript, type LoopRig } from '../../support/tool-rig.ts'
import { remoteFailure } from '../../support/remote-failure.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function projectionService() {
  const root = mkdtempSync(join(tmpdir(), 'tree-durability-'))
  const ctx = new Context()
  ctx.plugin(SessionStore)
  await ctx.plugin(SessionTreeService, { sidecarRoot: root, surfaceMode: 'projection' })
  await new Promise((r) => setTimeout(r, 0))
  cleanups.push(async () => {
    await ctx.fiber.dispose()
    rmSync(root, { recursive: true, force: true })
  })
  const service = (ctx as unknown as { sessionTree: SessionTreeService }).sessionTree
  const session = ctx.sessions.create()
  new LogBuilder(session).userTurn('q1', 'a1').userTurn('q2', 'a2')
  return { root, service, id: session.id }
}

/** Break the session's journal: a directory, or a link to a file outside the sidecar, where the file belongs. */
function breakJournal(root: string, id: string, how: 'directory' | 'link') {
  const journal = join(new TreeSidecar(root).dirFor(id), JOURNAL_FILE)
  rmSync(journal, { force: true })
  if (how === 'directory') mkdirSync(journal)
  else {
    const outside = join(root, '..', `outside-${Math.random().toString(36).slice(2)}`)
    writeFileSync(outside, 'not the journal\n')
    cleanups.push(() => rmSync(outside, { force: true }))
    symlinkSync(outside, journal)
  }
}

describe('an operation the sidecar cannot make durable never answers a plain ok', () => {
  for (const how of ['directory', 'link'] as const) {
    it(`projection mode, journal as a ${how}: labels, summaries and moves fail with SIDECAR_IO and change nothing`, async () => {
      const { root, service, id } = await projectionService()
      const nodes = (await service.list(id)).nodes
      const [q1, a1] = [nodes[0]!.nodeId, nodes[1]!.nodeId]
      await service.label(id, q1, 'saved first') // the sidecar exists and works
      breakJournal(root, id, how)
      const before = await service.list(id)
      const revision = (await service.session(id)).revision
      for (const [what, call] of [
        ['label', () => service.label(id, a1, 'lost?')],
        ['label clear', () => service.label(id, q1, null)],
        ['summarize', () => service.summarize(id, 'main')],
        ['jump', () => service.jump(id, a1)],
        ['jump null', () => service.jump(id, null)],
        ['fork', () => service.fork(id, a1, 'alt')],
      ] as const) {
        const error = await remoteFailure(call())
        expect(error.code, `${what}: ${error.message}`).toBe('SIDECAR_IO')
        expect(await service.list(id), `${what} changed the tree`).toEqual(before)
      }
      expect((await service.session(id)).revision).toBe(revision)
      expect(await remoteFailure(service.back(id))).toMatchObject({ code: 'HISTORY_EMPTY' })
    })
  }

  it('stock mode: a switch is durable in the log (ok, marked notDurable, back after a restart); sidecar-only parts fail', async () => {
    let r: LoopRig = await loopRig([{ text: 'A1' }, { text: 'A2' }, { text: 'A3' }, { text: 'A4' }])
    cleanups.push(() => r.dispose())
    await r.say('Q1')
    await r.say('Q2')
    const view = await r.service.list(r.sessionId)
    const a1 = view.nodes.find((n) => n.message?.content === 'A1')!.nodeId
    const a2 = view.nodes.find((n) => n.message?.content === 'A2')!.nodeId
    await r.service.label(r.sessionId, a1, 'ok before')
    const root = (r.service as unknown as { settings: { sidecarRoot: string } }).settings.sidecarRoot
    breakJournal(root, r.sessionId, 'directory')

    // Sidecar-only: refused, nothing changed.
    const before = await r.service.list(r.sessionId)
    expect(await remoteFailure(r.service.label(r.sessionId, a2, 'lost?'))).toMatchObject({ code: 'SIDECAR_IO' })
    expect(await remoteFailure(r.service.summarize(r.sessionId, 'main'))).toMatchObject({ code: 'SIDECAR_IO' })
    // A fork at the cursor switches nothing in the log: only the sidecar would hold the branch.
    expect(await remoteFailure(r.service.fork(r.sessionId, a2, 'here'))).toMatchObject({ code: 'SIDECAR_IO' })
    expect(await r.service.list(r.sessionId)).toEqual(before)

    // A real switch: in the log, so it happened and says what was not saved.
    const forked = await r.service.fork(r.sessionId, a1, 'alt')
    expect(forked).toMatchObject({ cursor: a1, branch: 'alt', notDurable: { code: 'SIDECAR_IO' } })
    expect(forked.notDurable!.message).toMatch(/harness log/)
    await r.say('on alt')
    expect(transcript(r.model.requests.at(-1)!)).toEqual(['user: Q1', 'assistant: A1', 'user: on alt'])
    const kept = await r.service.list(r.sessionId)

    // The log rebuilds cursor and branch (the broken journal is reported once).
    const stopped = await r.stop()
    r = await loopRig([{ text: 'A5' }], { resume: stopped })
    const status = await r.service.session(r.sessionId)
    expect(status.sidecarWarnings).toEqual([
      expect.objectContaining({ code: 'SIDECAR_IO', message: expect.stringMatching(/is a directory/) }),
    ])
    const after = await r.service.list(r.sessionId)
    expect(after.cursor).toBe(kept.cursor)
    expect(after.branches.map((b) => [b.name, b.headId])).toEqual(kept.branches.map((b) => [b.name, b.headId]))
  }, 600_000)
})

describe('errors echo huge input clipped, with its length', () => {
  it('a 10 MB agentId, nodeId, branch or label answers a bounded error', async () => {
    const { service, id } = await projectionService()
    const huge = 'x'.repeat(10 * 1024 * 1024)
    const a1 = (await service.list(id)).nodes[1]!.nodeId
    const calls: [string, () => Promise<unknown>][] = [
      ['list agentId', () => service.list(huge)],
      ['session agentId', () => service.session(huge)],
      ['jump agentId', () => service.jump(huge, a1)],
      ['jump nodeId', () => service.jump(id, huge)],
      ['fork nodeId', () => service.fork(id, huge, 'b')],
      ['fork branch', () => service.fork(id, a1, huge)],
      ['label nodeId', () => service.label(id, huge, 'l')],
      ['label text', () => service.label(id, a1, huge)],
      ['summarize branch', () => service.summarize(id, huge)],
    ]
    let echoed = 0
    for (const [what, call] of calls) {
      const error = await remoteFailure(call())
      const size = JSON.stringify(error).length
      expect(size, `${what}: ${size} bytes`).toBeLessThan(2_000)
      // Echoed input is clipped and counted; refusals that do not echo it are fine as they are.
      if (JSON.stringify(error).includes('x'.repeat(20))) {
        echoed++
        expect(error.message, what).toMatch(/… \(10485760 characters\)/)
      }
    }
    expect(echoed, 'the agentId and nodeId refusals quote what was sent').toBeGreaterThanOrEqual(5)
  })
})
