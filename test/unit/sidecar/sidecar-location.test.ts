/**
 * Where a session's sidecar lives, on real files and real links: one rule
 * (inside the session's own directory when the host names one, else under the
 * root) for the tree journal, lineage and workspace checkpoints; a session
 * directory that is a link is refused, its target untouched.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { encodeSessionId, SidecarLocator, TreeSidecar } from '../../../src/sidecar/index.ts'
import { LineageFiles } from '../../../src/sidecar/lineage.ts'
import { WorkspaceRegistry } from '../../../src/workspace/index.ts'

let tmp: string
let root: string
let sessions: string
beforeEach(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'sidecar-location-'))
  root = path.join(tmp, 'session-tree')
  sessions = path.join(tmp, 'sessions', '--work--')
  mkdirSync(sessions, { recursive: true })
})
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true })
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

const homeOf = (id: string) => path.join(sessions, id)
/** A locator whose host stores `stored` sessions in `sessions/--work--/<id>/`. */
function locator(stored: readonly string[]): SidecarLocator {
  return new SidecarLocator({ root, sessionDirOf: (id) => (stored.includes(id) ? homeOf(id) : undefined) })
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
      dir: path.join(root, encodeSessionId('other')),
      base: root,
      inSession: false,
    })
    expect(new SidecarLocator(root).dirFor('s-1')).toBe(path.join(root, encodeSessionId('s-1')))

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
    expect(existsSync(root), 'nothing under the fallback root').toBe(false)
    expect(new TreeSidecar(locator(['s-1'])).load('s-1').records.map((r) => r.op)).toEqual([
      { op: 'label', nodeId: 'e1', label: 'x' },
    ])
  })

  it('puts workspace checkpoints there too', async () => {
    const work = path.join(tmp, 'work')
    mkdirSync(work)
    const registry = new WorkspaceRegistry({
      sidecarRoot: root,
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
    expect(existsSync(path.join(root, encodeSessionId('s-1')))).toBe(false)
  })

  it('refuses a session directory that is a link', () => {
    const target = path.join(tmp, 'elsewhere')
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
