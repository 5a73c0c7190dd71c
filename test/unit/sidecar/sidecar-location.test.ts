/**
 * Where a session's sidecar lives, and the move from the old layout, on real
 * files, real links and (when /dev/shm is another file system) a real
 * cross-device move:
 *
 * - one rule: inside the session's own directory when the host names one,
 *   else under the root; the tree journal, lineage and workspace checkpoints
 *   all land there;
 * - an old-layout sidecar moves in on first use, by rename or by the copy
 *   path, and loads the same; a second run does nothing;
 * - a crash before each step (a hook that throws) leaves one complete copy,
 *   and the next run finishes the move with the same bytes;
 * - a link at the old place, the new place, inside the tree, or as the
 *   session directory is refused and reported, its target untouched;
 * - both places holding a sidecar is a conflict: reported, both kept;
 * - the start-up sweep moves only known sessions; the rest stay orphans.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempHome } from '../../support/temp-each.ts'
import { encodeSessionId, SidecarLocator, TreeSidecar, type MigrationStep } from '../../../src/sidecar/index.ts'
import { collectOrphans } from '../../../src/sidecar/gc.ts'
import { LineageFiles } from '../../../src/sidecar/lineage.ts'
import { MIGRATED_FROM_FILE, MIGRATING_PREFIX, migrateSidecar } from '../../../src/sidecar/migrate.ts'
import { sweepOldLayout } from '../../../src/sidecar/sweep.ts'
import { WorkspaceRegistry } from '../../../src/workspace/index.ts'

const home = tempHome('sidecar-location-', {
  folders: { sessions: 'sessions/--work--' },
  paths: { root: 'session-tree' },
})

/** Every file below `dir` with its bytes (directories as entries too): what "the same tree" means here. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (at: string, rel: string): void => {
    for (const name of readdirSync(at).sort()) {
      const full = path.join(at, name)
      const key = rel ? `${rel}/${name}` : name
      if (lstatSync(full).isDirectory()) {
        out[`${key}/`] = ''
        walk(full, key)
      } else out[key] = readFileSync(full, 'utf8')
    }
  }
  walk(dir, '')
  return out
}

const homeOf = (id: string) => path.join(home.sessions, id)
/** A locator whose host stores `stored` sessions in `sessions/--work--/<id>/`. */
function locator(stored: readonly string[]): SidecarLocator {
  return new SidecarLocator({ root: home.root, sessionDirOf: (id) => (stored.includes(id) ? homeOf(id) : undefined) })
}

/** An old-layout sidecar: two journal records, a lineage file and a nested workspace file. */
function oldSidecar(id: string): { dir: string; before: Record<string, string> } {
  const sidecar = new TreeSidecar(home.root)
  expect(
    sidecar.appendAll(id, [
      { w: 1, op: { op: 'label', nodeId: 'e1', label: 'first' } },
      { w: 2, op: { op: 'label', nodeId: 'e2', label: 'second' } },
    ]).ok,
  ).toBe(true)
  expect(
    new LineageFiles(home.root).setForkedFrom(id, {
      session: 'parent',
      node: 'e1',
      time: '2026-01-01T00:00:00.000Z',
      by: 'host',
    }).ok,
  ).toBe(true)
  const dir = sidecar.dirFor(id)
  mkdirSync(path.join(dir, 'workspace', 'git'), { recursive: true })
  writeFileSync(path.join(dir, 'workspace', 'blobs.pack'), 'blob bytes')
  writeFileSync(path.join(dir, 'workspace', 'git', 'HEAD'), 'ref: refs/heads/main\n')
  mkdirSync(homeOf(id), { recursive: true })
  writeFileSync(path.join(homeOf(id), 'session.jsonl.zstd'), "the host's log")
  return { dir, before: snapshot(dir) }
}

/** A migration hook that stops before `at`, as a crash there would. */
const crash = (at: MigrationStep) => (step: MigrationStep) => {
  if (step === at) throw new Error(`crash before ${at}`)
}

describe('the resolver', () => {
  it("puts every sidecar file in the session's directory when the host names one, else under the root", () => {
    const located = locator(['s-1'])
    expect(located.place('s-1')).toEqual({
      dir: path.join(homeOf('s-1'), 'session-tree'),
      base: homeOf('s-1'),
      inSession: true,
    })
    expect(located.place('other')).toEqual({
      dir: path.join(home.root, encodeSessionId('other')),
      base: home.root,
      inSession: false,
    })
    expect(new SidecarLocator(home.root).dirFor('s-1')).toBe(path.join(home.root, encodeSessionId('s-1')))

    const sidecar = new TreeSidecar(located)
    expect(sidecar.append('s-1', { w: 0, op: { op: 'label', nodeId: 'e1', label: 'x' } }).ok).toBe(true)
    expect(
      new LineageFiles(located).addForkedTo('s-1', {
        session: 'child',
        node: 'e1',
        time: '2026-01-01T00:00:00.000Z',
        by: 'tree',
      }).ok,
    ).toBe(true)
    expect(Object.keys(snapshot(homeOf('s-1')))).toEqual([
      'session-tree/',
      'session-tree/journal.jsonl',
      'session-tree/lineage.json',
      // This process writes the session's tree: its claim sits beside the journal while it does.
      'session-tree/writer.json',
    ])
    expect(existsSync(home.root), 'nothing under the fallback root').toBe(false)
    expect(new TreeSidecar(locator(['s-1'])).load('s-1').records.map((r) => r.op)).toEqual([
      { op: 'label', nodeId: 'e1', label: 'x' },
    ])
  })

  it('puts workspace checkpoints there too', async () => {
    const work = path.join(home.tmp, 'work')
    mkdirSync(work)
    const registry = new WorkspaceRegistry({
      sidecarRoot: home.root,
      sidecars: locator(['s-1']),
      enabled: true,
      maxFileBytes: 1024,
      shell: 'off',
    })
    const opened = await registry.get('s-1', work)
    expect(opened.ok).toBe(true)
    if (!opened.ok) return
    const point = { key: 6, node: 'e3', call: 'call-3', tool: 'write', w: 4 }
    expect(opened.value.captureBefore(point, path.join(work, 'a.txt')).kind).toBe('captured')
    writeFileSync(path.join(work, 'a.txt'), 'hello\n')
    opened.value.captureAfter(point)
    opened.value.flush()
    const files = Object.keys(snapshot(homeOf('s-1')))
    expect(files).toContain('session-tree/workspace/blobs.pack')
    expect(files.some((f) => f.startsWith('session-tree/workspace/') && f.endsWith('journal.jsonl'))).toBe(true)
    expect(existsSync(path.join(home.root, encodeSessionId('s-1')))).toBe(false)
  })

  it('refuses a session directory that is a link', () => {
    const target = path.join(home.tmp, 'elsewhere')
    mkdirSync(target)
    symlinkSync(target, homeOf('s-1'))
    const written = new TreeSidecar(locator(['s-1'])).append('s-1', {
      w: 0,
      op: { op: 'label', nodeId: 'e1', label: 'x' },
    })
    expect(written).toMatchObject({
      ok: false,
      error: { code: 'SIDECAR_IO', message: expect.stringMatching(/symbolic link/) },
    })
    expect(readdirSync(target)).toEqual([])
  })
})

describe('moving an old-layout sidecar', () => {
  it('by rename, once: the tree loads the same from the new place; a second run does nothing', () => {
    const { dir, before } = oldSidecar('s-1')
    const first = new TreeSidecar(new SidecarLocator(home.root)).load('s-1')
    const located = locator(['s-1'])
    const to = located.dirFor('s-1')
    expect(located.migrations()).toEqual([{ sessionId: 's-1', kind: 'moved', from: dir, to, how: 'rename' }])
    expect(existsSync(dir)).toBe(false)
    expect(snapshot(to)).toEqual(before)
    expect(new TreeSidecar(locator(['s-1'])).load('s-1')).toEqual({ ...first, problems: [] })
    expect(migrateSidecar(dir, to)).toEqual({ kind: 'none' })
    expect(snapshot(to)).toEqual(before)
  })

  it('by the copy path (as across file systems): same bytes, no leftovers', () => {
    const { dir, before } = oldSidecar('s-1')
    const to = path.join(homeOf('s-1'), 'session-tree')
    expect(migrateSidecar(dir, to, { copy: true })).toEqual({ kind: 'moved', from: dir, to, how: 'copy' })
    expect(snapshot(to)).toEqual(before)
    expect(readdirSync(home.root).filter((n) => n.startsWith('s'))).toEqual([])
    expect(readdirSync(home.root).filter((n) => n.startsWith('.'))).toEqual([])
    expect(readdirSync(homeOf('s-1')).sort()).toEqual(['session-tree', 'session.jsonl.zstd'])
  })

  // The one rule for what a test needs (test/support/prerequisites.ts): missing, the test fails naming it.
  it('across a real file-system boundary (/dev/shm, a tmpfs on Debian)', () => {
    const shm = mkdtempSync('/dev/shm/sidecar-location-')
    try {
      expect(statSync(shm).dev, "/dev/shm must be a file system of its own (tmpfs), not the temp dir's").not.toBe(
        statSync(home.tmp).dev,
      )
      const { dir, before } = oldSidecar('s-1')
      const to = path.join(shm, 'session-tree')
      expect(migrateSidecar(dir, to)).toEqual({ kind: 'moved', from: dir, to, how: 'copy' })
      expect(snapshot(to)).toEqual(before)
      expect(existsSync(dir)).toBe(false)
    } finally {
      rmSync(shm, { recursive: true, force: true })
    }
  })

  for (const [step, copy] of [
    ['rename', false],
    ['mark', true],
    ['copy', true],
    ['publish', true],
    ['remove', true],
  ] as const) {
    it(`a crash before "${step}" leaves one complete copy, and the next run finishes the move`, () => {
      const { dir, before } = oldSidecar('s-1')
      const to = path.join(homeOf('s-1'), 'session-tree')
      const marked = path.join(home.root, MIGRATING_PREFIX + path.basename(dir))
      expect(migrateSidecar(dir, to, { copy, hook: crash(step) })).toMatchObject({
        kind: 'failed',
        message: expect.stringContaining(`crash before ${step}`),
      })
      // One complete copy, under a name the next run knows (after the publish: the new place, which names its leftover).
      const partial = path.join(homeOf('s-1'), '.session-tree.partial')
      const where = { rename: dir, mark: dir, copy: marked, publish: marked, remove: to }[step]
      for (const place of [dir, marked, to])
        if (place !== where && !(step === 'remove' && place === marked)) expect(existsSync(place), place).toBe(false)
      const found = snapshot(where)
      if (step === 'remove') expect(found[MIGRATED_FROM_FILE]).toBe(`${marked}\n`)
      expect({ ...found, [MIGRATED_FROM_FILE]: undefined }).toEqual({ ...before, [MIGRATED_FROM_FILE]: undefined })
      expect(existsSync(partial)).toBe(step === 'publish')
      // The resolver never hands out the new place before the move is done: a fresh process finishes it.
      const located = locator(['s-1'])
      expect(located.dirFor('s-1')).toBe(to)
      expect(located.migrations()).toEqual([expect.objectContaining({ kind: 'moved' })])
      expect(snapshot(to)).toEqual(before)
      expect(existsSync(dir) || existsSync(marked)).toBe(false)
      expect(readdirSync(homeOf('s-1')).sort()).toEqual(['session-tree', 'session.jsonl.zstd'])
      expect(migrateSidecar(dir, to)).toEqual({ kind: 'none' })
    })
  }

  it('a stale partial copy is not trusted: the copy starts over from the marked directory', () => {
    const { dir, before } = oldSidecar('s-1')
    const to = path.join(homeOf('s-1'), 'session-tree')
    expect(migrateSidecar(dir, to, { copy: true, hook: crash('publish') }).kind).toBe('failed')
    const partial = path.join(homeOf('s-1'), '.session-tree.partial')
    writeFileSync(path.join(partial, 'journal.jsonl'), 'torn')
    expect(migrateSidecar(dir, to, { copy: true }).kind).toBe('moved')
    expect(snapshot(to)).toEqual(before)
    expect(existsSync(partial)).toBe(false)
  })

  it('refuses links at either end and inside, touching neither the link nor its target', () => {
    const target = path.join(home.tmp, 'target')
    mkdirSync(target)
    writeFileSync(path.join(target, 'keep.txt'), 'not ours')
    // The old place is a link.
    mkdirSync(home.root, { recursive: true })
    symlinkSync(target, path.join(home.root, encodeSessionId('s-1')))
    mkdirSync(homeOf('s-1'), { recursive: true })
    const linked = locator(['s-1'])
    linked.dirFor('s-1')
    expect(linked.migrations()).toEqual([
      expect.objectContaining({ sessionId: 's-1', kind: 'refused', message: expect.stringMatching(/symbolic link/) }),
    ])
    expect(lstatSync(path.join(home.root, encodeSessionId('s-1'))).isSymbolicLink()).toBe(true)
    expect(existsSync(path.join(homeOf('s-1'), 'session-tree'))).toBe(false)
    // The new place is a link.
    const { dir, before } = oldSidecar('s-2')
    symlinkSync(target, path.join(homeOf('s-2'), 'session-tree'))
    expect(migrateSidecar(dir, path.join(homeOf('s-2'), 'session-tree'))).toMatchObject({
      kind: 'refused',
      message: expect.stringMatching(/symbolic link/),
    })
    expect(snapshot(dir)).toEqual(before)
    // A link inside the tree: nothing moves (by rename or copy).
    const inner = oldSidecar('s-3')
    symlinkSync(path.join(target, 'keep.txt'), path.join(inner.dir, 'workspace', 'planted'))
    for (const copy of [false, true]) {
      expect(migrateSidecar(inner.dir, path.join(homeOf('s-3'), 'session-tree'), { copy })).toMatchObject({
        kind: 'refused',
        message: expect.stringMatching(/planted is a symbolic link/),
      })
      expect(existsSync(path.join(homeOf('s-3'), 'session-tree'))).toBe(false)
      expect(lstatSync(path.join(inner.dir, 'workspace', 'planted')).isSymbolicLink()).toBe(true)
    }
    expect(readdirSync(target)).toEqual(['keep.txt'])
    expect(readFileSync(path.join(target, 'keep.txt'), 'utf8')).toBe('not ours')
  })

  it('both places holding a sidecar is a conflict: reported, both kept as they are', () => {
    const { dir, before } = oldSidecar('s-1')
    const to = path.join(homeOf('s-1'), 'session-tree')
    mkdirSync(to)
    writeFileSync(path.join(to, 'journal.jsonl'), 'the new one')
    const located = locator(['s-1'])
    expect(located.dirFor('s-1')).toBe(to)
    expect(located.migrations()).toEqual([expect.objectContaining({ kind: 'conflict', from: dir, to })])
    expect(snapshot(dir)).toEqual(before)
    expect(snapshot(to)).toEqual({ 'journal.jsonl': 'the new one' })
    // A marked leftover next to a new place that is not its copy: a conflict too, never a removal.
    const again = oldSidecar('s-2')
    const marked = path.join(home.root, MIGRATING_PREFIX + path.basename(again.dir))
    const to2 = path.join(homeOf('s-2'), 'session-tree')
    expect(migrateSidecar(again.dir, to2, { copy: true, hook: crash('copy') }).kind).toBe('failed')
    mkdirSync(to2)
    expect(migrateSidecar(again.dir, to2)).toMatchObject({ kind: 'conflict', from: marked })
    expect(snapshot(marked)).toEqual(again.before)
  })
})

describe('the start-up sweep', () => {
  it('moves the sidecars of known sessions (also an interrupted move); the others stay, as orphans', () => {
    const kept = oldSidecar('s-1')
    const interrupted = oldSidecar('s-2')
    const orphan = oldSidecar('gone')
    const to2 = path.join(homeOf('s-2'), 'session-tree')
    expect(migrateSidecar(interrupted.dir, to2, { copy: true, hook: crash('copy') }).kind).toBe('failed')
    const located = locator(['s-1', 's-2'])
    expect(sweepOldLayout(located, new Set(['s-1', 's-2'])).sort()).toEqual(['s-1', 's-2'])
    expect(snapshot(path.join(homeOf('s-1'), 'session-tree'))).toEqual(kept.before)
    expect(snapshot(to2)).toEqual(interrupted.before)
    expect(
      collectOrphans(home.root, { known: new Set(['s-1', 's-2']), graceMs: 0 }).orphans.map((o) => o.sessionId),
    ).toEqual(['gone'])
    expect(snapshot(orphan.dir)).toEqual(orphan.before)
  })
})
