/**
 * Orphaned sidecars and lineage files, on real files and real links:
 *
 * - a session directory name decodes back to its id (any string, property);
 *   a long id's hashed name is identified from its own files;
 * - an orphan is reported by the scan that finds it, removed by a later scan
 *   once its grace period is over, at once with `force`, never by a dry run;
 *   sidecars of known sessions and entries that are not session sidecars
 *   (exports, import staging) are never touched;
 * - nothing is followed through a link: a sidecar directory that is a link is
 *   reported and left alone (its target too); a link inside an orphan is
 *   removed as a link, its target stays;
 * - a removal a crash interrupted (a `.gc-` directory) is finished;
 * - lineage.json: both ends recorded durably, once; a damaged or linked file is
 *   reported, never overwritten.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { tempHome } from '../../support/temp-each.ts'
import { encodeSessionId, TreeSidecar } from '../../../src/sidecar/index.ts'
import { collectOrphans, decodeSessionDir, ORPHANS_FILE } from '../../../src/sidecar/gc.ts'
import { LINEAGE_FILE, LineageFiles } from '../../../src/sidecar/lineage.ts'

const home = tempHome('sidecar-gc-', {
  folders: { root: 'root', outside: 'outside' },
  files: { kept: ['outside/keep.txt', "not the sidecar's\n"] },
})

/** A real sidecar for a session: one journal record. */
function sidecarFor(id: string): string {
  const sidecar = new TreeSidecar(home.root)
  const written = sidecar.append(id, { w: 0, op: { op: 'label', nodeId: 'e1', label: 'x' } })
  expect(written.ok).toBe(true)
  return sidecar.dirFor(id)
}

const T0 = Date.parse('2026-01-01T00:00:00Z')
const DAY = 24 * 60 * 60 * 1000

describe('session directory names', () => {
  it('decode back to the id for every short name, and never to a wrong id', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (id) => {
        const name = encodeSessionId(id)
        const decoded = decodeSessionDir(name)
        if (name.includes('~')) expect(decoded).toBeUndefined()
        else expect(decoded).toBe(id)
      }),
      { numRuns: 500 },
    )
    expect(decodeSessionDir('exports')).toBeUndefined()
    expect(decodeSessionDir('s%zz')).toBeUndefined()
    expect(decodeSessionDir('sABC'), 'uppercase is never literal in a produced name').toBeUndefined()
  })
})

describe('collectOrphans', () => {
  it('reports an orphan first, removes it after the grace period; known sessions and other entries stay', () => {
    const known = sidecarFor('session-known')
    const orphan = sidecarFor('session-gone')
    mkdirSync(path.join(home.root, 'exports'))
    mkdirSync(path.join(home.root, '.import-abc'))
    const options = { known: new Set(['session-known']), graceMs: 7 * DAY }

    const first = collectOrphans(home.root, { ...options, now: T0 })
    expect(first.orphans.map((o) => [o.sessionId, o.since])).toEqual([['session-gone', new Date(T0).toISOString()]])
    expect(first.removed).toEqual([])
    expect(existsSync(orphan)).toBe(true)
    expect(JSON.parse(readFileSync(path.join(home.root, ORPHANS_FILE), 'utf8')).orphans).toEqual({
      'session-gone': new Date(T0).toISOString(),
    })

    const early = collectOrphans(home.root, { ...options, now: T0 + 7 * DAY - 1 })
    expect(early.removed).toEqual([])
    expect(early.orphans[0]?.since, 'the first sighting is kept').toBe(new Date(T0).toISOString())
    expect(existsSync(orphan)).toBe(true)

    const due = collectOrphans(home.root, { ...options, now: T0 + 7 * DAY })
    expect(due.removed.map((o) => o.sessionId)).toEqual(['session-gone'])
    expect(due.orphans).toEqual([])
    expect(existsSync(orphan)).toBe(false)
    for (const kept of [known, path.join(home.root, 'exports'), path.join(home.root, '.import-abc')])
      expect(existsSync(kept), kept).toBe(true)
    expect(JSON.parse(readFileSync(path.join(home.root, ORPHANS_FILE), 'utf8')).orphans).toEqual({})
  })

  it('a session that comes back is no orphan any more, and its grace period starts over', () => {
    sidecarFor('session-back')
    collectOrphans(home.root, { known: new Set(), graceMs: DAY, now: T0 })
    expect(collectOrphans(home.root, { known: new Set(['session-back']), graceMs: DAY, now: T0 + 1 }).orphans).toEqual(
      [],
    )
    const again = collectOrphans(home.root, { known: new Set(), graceMs: DAY, now: T0 + 2 * DAY })
    expect(again.removed).toEqual([])
    expect(again.orphans[0]?.since).toBe(new Date(T0 + 2 * DAY).toISOString())
  })

  it('with no grace period an orphan is still reported once before a later scan removes it', () => {
    const orphan = sidecarFor('session-gone')
    const first = collectOrphans(home.root, { known: new Set(), graceMs: 0, now: T0 })
    expect(first.removed).toEqual([])
    expect(first.orphans.map((o) => o.sessionId)).toEqual(['session-gone'])
    expect(existsSync(orphan)).toBe(true)
    expect(
      collectOrphans(home.root, { known: new Set(), graceMs: 0, now: T0 }).removed.map((o) => o.sessionId),
    ).toEqual(['session-gone'])
    expect(existsSync(orphan)).toBe(false)
  })

  it('force removes at once; a dry run removes and records nothing', () => {
    const orphan = sidecarFor('session-gone')
    const dry = collectOrphans(home.root, { known: new Set(), graceMs: 0, force: true, dryRun: true, now: T0 })
    expect(dry.orphans.map((o) => o.sessionId)).toEqual(['session-gone'])
    expect(existsSync(orphan)).toBe(true)
    expect(existsSync(path.join(home.root, ORPHANS_FILE))).toBe(false)
    const forced = collectOrphans(home.root, { known: new Set(), graceMs: 365 * DAY, force: true, now: T0 })
    expect(forced.removed.map((o) => o.sessionId)).toEqual(['session-gone'])
    expect(existsSync(orphan)).toBe(false)
  })

  it('identifies a long id (hashed directory name) from its own files', () => {
    const id = `session-${'x'.repeat(300)}`
    const dir = sidecarFor(id)
    expect(path.basename(dir)).toContain('~')
    const report = collectOrphans(home.root, { known: new Set(), graceMs: 0, force: true, now: T0 })
    expect(report.removed.map((o) => o.sessionId)).toEqual([id])
    expect(existsSync(dir)).toBe(false)
  })

  it('never follows a link: a linked sidecar directory is left alone; a link inside an orphan goes, its target stays', () => {
    const linked = path.join(home.root, encodeSessionId('session-linked'))
    symlinkSync(home.outside, linked)
    const orphan = sidecarFor('session-gone')
    symlinkSync(home.kept, path.join(orphan, 'planted'))
    symlinkSync(home.outside, path.join(orphan, 'planted-dir'))
    const report = collectOrphans(home.root, { known: new Set(), graceMs: 0, force: true, now: T0 })
    expect(report.removed.map((o) => o.sessionId)).toEqual(['session-gone'])
    expect(report.problems.map((p) => [p.dir, p.message])).toEqual([
      [linked, expect.stringContaining('is a symbolic link')],
    ])
    expect(existsSync(linked)).toBe(true)
    expect(readFileSync(home.kept, 'utf8')).toBe("not the sidecar's\n")
    expect(existsSync(orphan)).toBe(false)
  })

  it('finishes a removal a crash interrupted', () => {
    const trash = path.join(home.root, '.gc-sold-123')
    mkdirSync(path.join(trash, 'workspace'), { recursive: true })
    writeFileSync(path.join(trash, 'journal.jsonl'), 'x')
    collectOrphans(home.root, { known: new Set(), graceMs: 0, now: T0 })
    expect(existsSync(trash)).toBe(false)
  })
})

describe('LineageFiles', () => {
  const link = { session: 'session-child', node: 'e12', time: '2026-01-01T00:00:00.000Z', by: 'tree' as const }

  it('records both ends durably, each fork once, the origin once', () => {
    const files = new LineageFiles(home.root)
    expect(files.addForkedTo('session-parent', link).ok).toBe(true)
    expect(files.addForkedTo('session-parent', link).ok).toBe(true)
    expect(files.setForkedFrom('session-child', { ...link, session: 'session-parent' }).ok).toBe(true)
    expect(files.setForkedFrom('session-child', { ...link, session: 'session-other' }).ok).toBe(true)
    const again = new LineageFiles(home.root)
    expect(again.read('session-parent')).toEqual({ ok: true, lineage: { forkedTo: [link] } })
    expect(again.read('session-child')).toEqual({
      ok: true,
      lineage: { forkedFrom: { ...link, session: 'session-parent' }, forkedTo: [] },
    })
    expect(again.read('session-none')).toEqual({ ok: true, lineage: { forkedTo: [] } })
  })

  it('a damaged file is reported and kept; a linked file is never read or written through', () => {
    const files = new LineageFiles(home.root)
    const damaged = files.fileFor('session-damaged')
    mkdirSync(path.dirname(damaged))
    writeFileSync(damaged, '{"v":1,"sessionId":"session-damaged","to":[{"session":1}]}')
    const read = files.read('session-damaged')
    expect(read.ok).toBe(false)
    const refused = files.addForkedTo('session-damaged', link)
    expect(refused.ok ? undefined : refused.error.code).toBe('SIDECAR_IO')
    expect(readFileSync(damaged, 'utf8')).toContain('"session":1')

    const linked = files.fileFor('session-linked')
    mkdirSync(path.dirname(linked))
    symlinkSync(home.kept, linked)
    expect(files.read('session-linked')).toEqual({ ok: false, problem: expect.stringContaining('symbolic link') })
    const written = files.setForkedFrom('session-linked', link)
    expect(written.ok ? undefined : written.error.code).toBe('SIDECAR_IO')
    expect(readFileSync(home.kept, 'utf8')).toBe("not the sidecar's\n")
    expect(path.basename(linked)).toBe(LINEAGE_FILE)
  })
})
