import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { beforeEach, describe, expect, it } from 'vitest'
import { tempEach } from '../../support/temp-each.ts'
import { TreeSidecar, encodeSessionId } from '../../../src/sidecar/index.ts'

const HOSTILE = [
  '',
  '.',
  '..',
  '...',
  '../x',
  '../../etc',
  '/etc/passwd',
  'a/b',
  'a\\b',
  'C:\\x',
  'C:',
  '\\\\server\\share',
  'a\0b',
  '\0',
  '\n',
  'line\nbreak',
  '\r\n',
  ' ',
  ' x ',
  'x'.repeat(10_000),
  '../'.repeat(3000),
  '😀',
  '\ud800',
  '\udfff',
  '\ufffd',
  'é',
  'e\u0301',
  'ｓ',
  'A',
  'a',
  'sa',
  '%',
  '%41',
  '%u0041',
  '~',
  'a~b',
  'CON',
  'nul',
  'com1',
  'x'.repeat(149),
  'x'.repeat(150),
  'x'.repeat(151),
  'y'.repeat(255),
  '.'.repeat(100),
]

/** Decode a short (un-hashed) directory name back to its id: proves the encoding is injective. */
function decode(name: string): string {
  expect(name.startsWith('s')).toBe(true)
  let id = ''
  for (let i = 1; i < name.length;) {
    if (name[i] !== '%') {
      id += name[i]
      i += 1
    } else if (name[i + 1] === 'u') {
      id += String.fromCharCode(parseInt(name.slice(i + 2, i + 6), 16))
      i += 6
    } else {
      id += String.fromCharCode(parseInt(name.slice(i + 1, i + 3), 16))
      i += 3
    }
  }
  return id
}

const NAME = /^s(?:[a-z0-9_-]|%[0-9A-F]{2}|%u[0-9A-F]{4})*(?:~[0-9a-f]{64})?$/

/** Every file and directory under `dir`, relative to it. */
function walk(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const relative = path.join(prefix, name)
    return statSync(path.join(dir, name)).isDirectory()
      ? [relative + path.sep, ...walk(path.join(dir, name), relative)]
      : [relative]
  })
}

const temp = tempEach('sidecar-paths-')
let tmp: string
beforeEach(() => {
  tmp = temp()
})

describe('session directories', () => {
  it('every hostile id maps to one harmless name directly inside root', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    for (const id of HOSTILE) {
      const dir = sidecar.dirFor(id)
      const name = path.basename(dir)
      expect(path.dirname(dir)).toBe(sidecar.root)
      expect(path.resolve(dir).startsWith(sidecar.root + path.sep)).toBe(true)
      expect(name).toMatch(NAME)
      expect(name.length).toBeLessThanOrEqual(150)
      expect(sidecar.dirFor(id)).toBe(dir) // deterministic
      if (!name.includes('~')) expect(decode(name)).toBe(id)
    }
    // Distinct ids, distinct names, also where the file system ignores case.
    const names = HOSTILE.map(encodeSessionId)
    expect(new Set(names).size).toBe(HOSTILE.length)
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(HOSTILE.length)
    expect(new TreeSidecar('/').dirFor('..')).toBe('/s%2E%2E')
  })

  it('any UTF-16 string encodes injectively (decodable, or hashed when long)', () => {
    const units = fc
      .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 60 })
      .map((codes) => String.fromCharCode(...codes))
    const ids = fc.oneof(units, fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ maxLength: 200 }))
    fc.assert(
      fc.property(ids, ids, (a, b) => {
        const [nameA, nameB] = [encodeSessionId(a), encodeSessionId(b)]
        expect(nameA).toMatch(NAME)
        if (!nameA.includes('~')) expect(decode(nameA)).toBe(a)
        expect(nameA.toLowerCase() === nameB.toLowerCase()).toBe(a === b)
      }),
      { numRuns: 2000 },
    )
  })

  it('writes under hostile ids stay inside root, and each id reads back only its own records', () => {
    const parent = path.join(tmp, 'parent')
    const sidecar = new TreeSidecar(path.join(parent, 'root'))
    for (const [k, id] of HOSTILE.entries()) {
      const first = sidecar.append(id, { w: k, op: { k } })
      expect(first.ok).toBe(true)
      expect(sidecar.compact(id, { n: 1, w: k, state: { k } }).ok).toBe(true)
      expect(sidecar.append(id, { w: k, op: { k, second: true } }).ok).toBe(true)
    }
    // Nothing beside root in its parent, nothing beside the tmp dir's own entries.
    expect(readdirSync(tmp)).toEqual(['parent'])
    expect(readdirSync(parent)).toEqual(['root'])
    const expected = new Set(
      HOSTILE.flatMap((id) => {
        const name = path.basename(sidecar.dirFor(id))
        // The journal, its fold, and this process's claim as the one writer (`claim.ts`).
        return [
          name + path.sep,
          path.join(name, 'journal.jsonl'),
          path.join(name, 'overlay.json'),
          path.join(name, 'writer.json'),
        ]
      }),
    )
    expect(new Set(walk(sidecar.root))).toEqual(expected)

    const fresh = new TreeSidecar(sidecar.root)
    for (const [k, id] of HOSTILE.entries()) {
      const load = fresh.load(id)
      expect(load.problems).toEqual([])
      expect(load.fold).toEqual({ n: 1, w: k, state: { k } })
      expect(load.records).toEqual([expect.objectContaining({ n: 2, op: { k, second: true } })])
    }
    expect(fresh.load('never written')).toEqual({ exists: false, records: [], problems: [] })
    expect(fresh.load('x'.repeat(10_001))).toEqual({ exists: false, records: [], problems: [] })
  })
})
