/**
 * Every sidecar journal record names who made it (`JournalActor`), as its
 * writer says: a person through the panel (a remote call) or `/tree`, the
 * model through a tree tool. Journals written before records carried an
 * actor still load. The loop half runs the published agent loop with a
 * scripted model (`test/support/tool-rig.ts`).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionTreeStore } from '../../../src/tree/index.ts'
import { TreeSync } from '../../../src/harness/sync.ts'
import { JOURNAL_FILE, TreeSidecar, type JournalActor } from '../../../src/sidecar/index.ts'
import { frameHeader, frameLine } from '../../../src/sidecar/framing.ts'
import { LogBuilder } from '../../support/log-builder.ts'
import { loopRig, type LoopRig } from '../../support/tool-rig.ts'

const roots: string[] = []
const rigs: LoopRig[] = []
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.dispose()
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
})

/** Writes session `sessionId`'s journal by hand: its header, then one framed line for each record. */
function writeJournal(sidecar: TreeSidecar, sessionId: string, records: readonly object[]): void {
  const dir = sidecar.dirFor(sessionId)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(
    path.join(dir, JOURNAL_FILE),
    Buffer.concat([frameHeader(sessionId, 0), ...records.map((record) => frameLine(record))]),
  )
}

const tempRoot = (): string => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tree-actor-'))
  roots.push(root)
  return root
}

describe('the sidecar journal records its actor', () => {
  it('writes the actor it is given and reads it back; a record without one loads without one', () => {
    const sidecar = new TreeSidecar(tempRoot())
    const model: JournalActor = { kind: 'model', callId: 'call_7' }
    expect(sidecar.append('s', { w: 1, op: { op: 'back' }, actor: model }).ok).toBe(true)
    expect(sidecar.append('s', { w: 2, op: { op: 'forward' }, actor: { kind: 'user', via: 'command' } }).ok).toBe(true)
    expect(sidecar.append('s', { w: 3, op: { op: 'back' } }).ok).toBe(true)
    const load = new TreeSidecar(sidecar.root).load('s')
    expect(load.problems).toEqual([])
    expect(load.records.map((r) => r.actor)).toEqual([model, { kind: 'user', via: 'command' }, undefined])
    expect(Object.keys(load.records[2]!)).toEqual(['n', 'w', 'at', 'op'])
  })

  it('refuses a malformed actor on write (nothing written) and reports one on load', () => {
    const sidecar = new TreeSidecar(tempRoot())
    for (const actor of [
      { kind: 'host' },
      { kind: 'user' },
      { kind: 'user', via: 'panel', extra: 1 },
      { kind: 'model', callId: 7 },
      'model',
    ]) {
      const written = sidecar.appendAll('s', [
        { w: 1, op: { op: 'back' } },
        { w: 1, op: { op: 'back' }, actor: actor as never },
      ])
      expect(written.ok ? 'ok' : written.error.code).toBe('INVALID_ARGUMENT')
    }
    expect(sidecar.load('s').exists).toBe(false)
    // A line written by hand with an actor this version does not know: reported, the records before it kept.
    const at = '2026-01-01T00:00:00.000Z'
    writeJournal(sidecar, 't', [
      { n: 1, w: 0, at, actor: { kind: 'user', via: 'panel' }, op: { op: 'back' } },
      { n: 2, w: 0, at, actor: { kind: 'robot' }, op: { op: 'back' } },
    ])
    const load = new TreeSidecar(sidecar.root).load('t')
    expect(load.records.map((r) => r.n)).toEqual([1])
    expect(load.problems).toHaveLength(1)
    expect(load.problems[0]!.message).toMatch(/actor/)
  })

  it('a journal written before records named their actor still rebuilds the tree', () => {
    const root = tempRoot()
    const log = new LogBuilder('old-1').userTurn('q1', 'a1').userTurn('q2', 'a2')
    const probe = new TreeSync(new SessionTreeStore())
    probe.attach(log.session)
    const a1 = probe
      .get('old-1')!
      .projector.tree.list()
      .find((n) => n.message?.content === 'a1')!.nodeId
    const sidecar = new TreeSidecar(root)
    const at = '2026-01-01T00:00:00.000Z'
    // The exact lines an earlier version wrote: { n, w, at, op }, no actor.
    writeJournal(sidecar, 'old-1', [
      { n: 1, w: log.session.seq - 1, at, op: { at, op: 'label', nodeId: a1, label: 'kept' } },
      { n: 2, w: log.session.seq - 1, at, op: { at, op: 'fork', target: a1, branch: 'idea' } },
    ])
    const sync = new TreeSync(new SessionTreeStore(), sidecar)
    const state = sync.attach(log.session)
    expect(state.warnings).toEqual([])
    expect(state.projector.tree.get(a1)?.label).toBe('kept')
    expect(state.projector.tree.branchHeadList()).toContainEqual(['idea', a1])
    // A change made now is journaled with its actor, after the old records.
    expect(sync.mutate('old-1', { kind: 'label', nodeId: a1, label: 'again' }, { kind: 'user', via: 'panel' }).ok).toBe(
      true,
    )
    expect(new TreeSidecar(root).load('old-1').records.map((r) => r.actor)).toEqual([
      undefined,
      undefined,
      { kind: 'user', via: 'panel' },
    ])
  })
})

describe('each caller journals as itself', () => {
  it('the model through a tool, a person through /tree, a person through the panel', async () => {
    const r = await loopRig([
      { text: 'A1' },
      { calls: [{ name: 'tree', args: { action: 'label', node: 'e12', text: 'first answer' }, id: 'call_label' }] },
      { calls: [{ name: 'tree', args: { action: 'fork', node: 'first answer', branch: 'retry' }, id: 'call_fork' }] },
      { text: 'ok' },
    ])
    rigs.push(r)
    await r.say('Q1')
    await r.say('Q2')
    const command = (line: string) => (r.ctx as any).commands.execute(r.agent, line, [], new AbortController().signal)
    await command('/tree label e12 by-hand')
    await r.service.label(r.sessionId, 'e12', 'from-panel')
    // `ctx.sessionTree` is a proxy of the service: acting as someone else goes through it too.
    await r.service.actingAs({ kind: 'model' }).label(r.sessionId, 'e12', null)
    const root = (r.service as unknown as { settings: { sidecarRoot: string } }).settings.sidecarRoot
    const records = new TreeSidecar(root).load(r.sessionId).records
    expect(records.map((record) => [record.op.op, record.actor])).toEqual([
      ['label', { kind: 'model', callId: 'call_label' }],
      ['fork', { kind: 'model', callId: 'call_fork' }],
      ['label', { kind: 'user', via: 'command' }],
      ['label', { kind: 'user', via: 'panel' }],
      ['label', { kind: 'model' }],
    ])
  })
})
