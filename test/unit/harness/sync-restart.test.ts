/**
 * Restart through the sidecar, at the sync level (real files, real harness
 * sessions): the tree comes back exactly; a sidecar cut at any byte of its
 * last record still loads, reports the damage, and keeps every earlier
 * operation; a deleted sidecar leaves the tree the log alone can rebuild.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDirs } from '../../support/temp-each.ts'
import { SessionTreeStore } from '../../../src/tree/index.ts'
import { TreeSync } from '../../../src/harness/sync.ts'
import { TreeSidecar } from '../../../src/sidecar/index.ts'
import { LogBuilder } from '../../support/log-builder.ts'
import type { JournalActor } from '../../../src/sidecar/index.ts'

const PANEL: JournalActor = { kind: 'user', via: 'panel' }

const tempRoot = tempDirs('tree-restart-')

function session() {
  const log = new LogBuilder('restart-1')
    .userTurn('q1', 'a1')
    .userTurn('q2', 'a2', { tools: [{ name: 'read', args: {}, result: 'r' }] })
    .userTurn('q3', 'a3')
  return log
}

const shape = (sync: TreeSync, id: string) => {
  const tree = sync.get(id)!.projector.tree
  return { view: tree.view(), nav: tree.navigation(), summaries: tree.summaries() }
}

describe('restart through the sidecar', () => {
  it('jump, fork, label and summary come back exactly', () => {
    const root = tempRoot()
    const log = session()
    const first = new TreeSync(new SessionTreeStore(), new TreeSidecar(root))
    first.attach(log.session)
    const byText = (text: string) =>
      first
        .get('restart-1')!
        .projector.tree.list()
        .find((n) => n.message?.content === text)!.nodeId
    expect(first.mutate('restart-1', { kind: 'move', move: { kind: 'jump', nodeId: byText('a1') } }, PANEL).ok).toBe(
      true,
    )
    expect(
      first.mutate('restart-1', { kind: 'move', move: { kind: 'fork', nodeId: byText('q2'), branch: 'idea' } }, PANEL)
        .ok,
    ).toBe(true)
    expect(first.mutate('restart-1', { kind: 'label', nodeId: byText('a2'), label: 'keep' }, PANEL).ok).toBe(true)
    expect(first.mutate('restart-1', { kind: 'summary-text', branch: 'main', text: 'the main line' }, PANEL).ok).toBe(
      true,
    )
    const before = shape(first, 'restart-1')
    const second = new TreeSync(new SessionTreeStore(), new TreeSidecar(root))
    second.attach(log.session)
    expect(shape(second, 'restart-1')).toEqual(before)
    expect(second.get('restart-1')!.warnings).toEqual([])
  })

  it('a journal cut at every byte of its last record: loads, reports, loses nothing before it', () => {
    const root = tempRoot()
    const log = session()
    const first = new TreeSync(new SessionTreeStore(), new TreeSidecar(root))
    first.attach(log.session)
    const ids = first
      .get('restart-1')!
      .projector.tree.list()
      .map((n) => n.nodeId)
    expect(first.mutate('restart-1', { kind: 'label', nodeId: ids[1]!, label: 'one' }, PANEL).ok).toBe(true)
    expect(
      first.mutate('restart-1', { kind: 'move', move: { kind: 'fork', nodeId: ids[0]!, branch: 'two' } }, PANEL).ok,
    ).toBe(true)
    const committed = shape(first, 'restart-1')
    expect(first.mutate('restart-1', { kind: 'label', nodeId: ids[2]!, label: 'three' }, PANEL).ok).toBe(true)
    const journal = path.join(new TreeSidecar(root).dirFor('restart-1'), 'journal.jsonl')
    const bytes = fs.readFileSync(journal)
    const lastStart = bytes.subarray(0, bytes.length - 1).lastIndexOf(0x0a) + 1
    for (let cut = lastStart; cut < bytes.length; cut++) {
      fs.writeFileSync(journal, bytes.subarray(0, cut))
      const sync = new TreeSync(new SessionTreeStore(), new TreeSidecar(root))
      const state = sync.attach(log.session)
      expect(shape(sync, 'restart-1'), `cut at byte ${cut}`).toEqual(committed)
      if (cut > lastStart) expect(state.warnings.length, `cut at byte ${cut} is reported`).toBeGreaterThan(0)
      else expect(state.warnings, 'a cut at a record boundary is a clean file').toEqual([])
    }
  })

  it('a deleted sidecar: the tree is what the log alone holds', () => {
    const root = tempRoot()
    const log = session()
    const first = new TreeSync(new SessionTreeStore(), new TreeSidecar(root))
    const fromLog = JSON.stringify(first.attach(log.session).projector.tree.list())
    const ids = first
      .get('restart-1')!
      .projector.tree.list()
      .map((n) => n.nodeId)
    first.mutate('restart-1', { kind: 'label', nodeId: ids[1]!, label: 'gone' }, PANEL)
    fs.rmSync(root, { recursive: true, force: true })
    const sync = new TreeSync(new SessionTreeStore(), new TreeSidecar(root))
    const state = sync.attach(log.session)
    expect(JSON.stringify(state.projector.tree.list())).toBe(fromLog)
    expect(state.warnings).toEqual([])
  })
})
