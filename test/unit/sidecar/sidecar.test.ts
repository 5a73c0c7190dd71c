import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeEach, describe, expect, it } from 'vitest'
import { tempEach } from '../../support/temp-each.ts'
import {
  CLAIM_FILE,
  JOURNAL_FILE,
  OVERLAY_FILE,
  TreeSidecar,
  type SidecarLoad,
  type SidecarRecord,
} from '../../../src/sidecar/index.ts'
import { replaceFile } from '../../../src/sidecar/durable.ts'
import { encodeOverlay, frameHeader, frameLine, frameRecord } from '../../../src/sidecar/framing.ts'
import type { TreeResult } from '../../../src/tree/index.ts'
import { value } from '../../support/messages.ts'

const temp = tempEach('sidecar-')
let tmp: string
beforeEach(() => {
  tmp = temp()
})

const flip = (bytes: Buffer, at: number) => bytes.writeUInt8(bytes.readUInt8(at) ^ 0x04, at)
const ns = (load: SidecarLoad) => load.records.map((r) => r.n)
const journalOf = (sidecar: TreeSidecar, id: string) => path.join(sidecar.dirFor(id), JOURNAL_FILE)
const overlayOf = (sidecar: TreeSidecar, id: string) => path.join(sidecar.dirFor(id), OVERLAY_FILE)

/**
 * The code of one append, made by a user the file modes bind: root writes whatever a mode says, so
 * under root the append runs in a child process as `nobody`, who then owns the files.
 */
function appendAsUser(root: string, id: string): string {
  if (process.getuid?.() !== 0) {
    const appended = new TreeSidecar(root).append(id, { w: 0, op: {} })
    return appended.ok ? 'ok' : appended.error.code
  }
  const nobody = 65534
  const own = (dir: string): void => {
    chownSync(dir, nobody, nobody)
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) own(path.join(dir, entry.name))
      else chownSync(path.join(dir, entry.name), nobody, nobody)
  }
  own(tmp)
  const module = pathToFileURL(path.join(import.meta.dirname, '..', '..', '..', 'src', 'sidecar', 'index.ts')).href
  const script = `const { TreeSidecar } = await import(${JSON.stringify(module)})
const appended = new TreeSidecar(${JSON.stringify(root)}).append(${JSON.stringify(id)}, { w: 0, op: {} })
process.stdout.write(appended.ok ? 'ok' : appended.error.code)`
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    uid: nobody,
    gid: nobody,
    encoding: 'utf8',
  })
  if (child.status !== 0) throw new Error(`the append as nobody exited ${child.status}: ${child.stderr}`)
  return child.stdout
}

/** Append records w = 1..count with op { i }. */
function fill(sidecar: TreeSidecar, id: string, count: number): SidecarRecord[] {
  return Array.from({ length: count }, (_, k) => value(sidecar.append(id, { w: k + 1, op: { i: k + 1 } })))
}

describe('round trip', () => {
  it('a session that never wrote has no files and no problems', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    expect(sidecar.load('s')).toEqual({ exists: false, records: [], problems: [] })
    expect(sidecar.needsCompaction('s')).toBe(false)
    expect(existsSync(sidecar.root)).toBe(false)
  })

  it('appends number records from 1 and load returns them unchanged', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    const first = value(
      sidecar.append('s', {
        w: 0,
        op: { kind: 'label', text: 'héllo 🌳 \ud800 \n "q"', nested: { a: [1, null, true, -0.5, 1e21] } },
      }),
    )
    const second = value(sidecar.append('s', { w: 7, op: { kind: 'jump' }, at: '2026-01-02T03:04:05.000Z' }))
    expect(first).toMatchObject({ n: 1, w: 0 })
    expect(new Date(first.at).toISOString()).toBe(first.at)
    expect(second).toEqual({ n: 2, w: 7, at: '2026-01-02T03:04:05.000Z', op: { kind: 'jump' } })
    // A fresh instance reads only the disk.
    expect(new TreeSidecar(sidecar.root).load('s')).toEqual({ exists: true, records: [first, second], problems: [] })
    expect(sidecar.load('s').records).toEqual([first, second])
  })

  it('compaction folds a prefix, keeps the rest, and numbering continues', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    const records = fill(sidecar, 's', 5)
    value(sidecar.compact('s', { n: 3, w: 3, state: { folded: [1, 2, 3] } }))
    let load = new TreeSidecar(sidecar.root).load('s')
    expect(load.fold).toEqual({ n: 3, w: 3, state: { folded: [1, 2, 3] } })
    expect(load.records).toEqual(records.slice(3))
    expect(load.problems).toEqual([])
    // The journal really shrank: header + records 4 and 5.
    expect(readFileSync(journalOf(sidecar, 's'), 'utf8').trimEnd().split('\n')).toHaveLength(3)

    expect(value(sidecar.append('s', { w: 6, op: {} })).n).toBe(6)
    // Another instance continues the numbering from the disk.
    const other = new TreeSidecar(sidecar.root)
    expect(value(other.append('s', { w: 7, op: {} })).n).toBe(7)
    value(other.compact('s', { n: 7, w: 7, state: { all: true } }))
    load = sidecar.load('s')
    expect(load).toMatchObject({ fold: { n: 7 }, records: [], problems: [] })
    expect(value(sidecar.append('s', { w: 8, op: {} })).n).toBe(8)
    expect(ns(new TreeSidecar(sidecar.root).load('s'))).toEqual([8])
  })

  it('compacts a session with no journal yet, and may re-fold to the same point', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    value(sidecar.compact('s', { n: 0, w: 4, state: { cursor: 'x' } }))
    expect(sidecar.load('s')).toEqual({
      exists: true,
      fold: { n: 0, w: 4, state: { cursor: 'x' } },
      records: [],
      problems: [],
    })
    fill(sidecar, 's', 2)
    value(sidecar.compact('s', { n: 2, w: 2, state: { v: 1 } }))
    value(sidecar.compact('s', { n: 2, w: 2, state: { v: 2 } }))
    expect(sidecar.load('s')).toMatchObject({ fold: { n: 2, state: { v: 2 } }, records: [], problems: [] })
  })

  it('rejects folds that would skip or invent records, and malformed input, without writing', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    fill(sidecar, 's', 4)
    value(sidecar.compact('s', { n: 2, w: 2, state: {} }))
    const before = readFileSync(journalOf(sidecar, 's'))
    const code = (result: TreeResult<unknown>) => (result.ok ? 'ok' : result.error.code)
    expect(code(sidecar.compact('s', { n: 5, w: 0, state: {} }))).toBe('INVALID_ARGUMENT') // past the last record
    expect(code(sidecar.compact('s', { n: 1, w: 0, state: {} }))).toBe('INVALID_ARGUMENT') // records 3, 4 would dangle
    expect(code(sidecar.compact('s', { n: -1, w: 0, state: {} }))).toBe('INVALID_ARGUMENT')
    expect(code(sidecar.compact('s', { n: 3, w: 0.5, state: {} }))).toBe('INVALID_ARGUMENT')
    expect(code(sidecar.compact('s', { n: 3, w: 0, state: [] as never }))).toBe('INVALID_ARGUMENT')
    expect(code(sidecar.append('s', { w: -1, op: {} }))).toBe('INVALID_ARGUMENT')
    expect(code(sidecar.append('s', { w: 1, op: null as never }))).toBe('INVALID_ARGUMENT')
    expect(code(sidecar.append('s', { w: 1, op: { big: 1n } as never }))).toBe('INVALID_ARGUMENT')
    expect(code(sidecar.append('s', { w: 1, op: {}, at: 5 as never }))).toBe('INVALID_ARGUMENT')
    expect(readFileSync(journalOf(sidecar, 's'))).toEqual(before)
    expect(sidecar.load('s')).toMatchObject({ fold: { n: 2 }, problems: [] })
    expect(ns(sidecar.load('s'))).toEqual([3, 4])
  })

  it('needsCompaction trips past the record and byte thresholds, and clears on compaction', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'), { compactRecords: 3, compactBytes: 10_000 })
    fill(sidecar, 's', 3)
    expect(sidecar.needsCompaction('s')).toBe(false)
    fill(sidecar, 's', 1)
    expect(sidecar.needsCompaction('s')).toBe(true)
    // A fresh instance learns the same from the disk.
    expect(new TreeSidecar(sidecar.root, { compactRecords: 3 }).needsCompaction('s')).toBe(true)
    value(sidecar.compact('s', { n: 4, w: 4, state: {} }))
    expect(sidecar.needsCompaction('s')).toBe(false)

    const bytes = new TreeSidecar(path.join(tmp, 'bytes'), { compactRecords: 1000, compactBytes: 1000 })
    value(bytes.append('b', { w: 0, op: { text: 'x'.repeat(900) } }))
    expect(bytes.needsCompaction('b')).toBe(false)
    value(bytes.append('b', { w: 0, op: { text: 'x'.repeat(100) } }))
    expect(bytes.needsCompaction('b')).toBe(true)
    value(bytes.compact('b', { n: 1, w: 0, state: {} }))
    expect(bytes.needsCompaction('b')).toBe(false) // record 2 alone is small
  })
})

describe('truncation', () => {
  it('a cut anywhere in the last record loses only that record, and the next append repairs the file', () => {
    const source = new TreeSidecar(path.join(tmp, 'source'))
    const records = [
      ...fill(source, 's', 4),
      value(source.append('s', { w: 5, op: { text: 'multi-byte: ü 中 🌳', list: [1, 2, 3] } })),
    ]
    const full = readFileSync(journalOf(source, 's'))
    const lastStart = full.lastIndexOf(0x0a, full.length - 2) + 1
    expect(full.length - lastStart).toBeGreaterThan(60)
    for (let cut = lastStart; cut < full.length; cut++) {
      const sidecar = new TreeSidecar(path.join(tmp, `cut-${cut}`))
      mkdirSync(sidecar.dirFor('s'), { recursive: true })
      writeFileSync(journalOf(sidecar, 's'), full.subarray(0, cut))

      const load = sidecar.load('s')
      expect(load.records).toEqual(records.slice(0, 4))
      if (cut === lastStart) expect(load.problems).toEqual([])
      else
        expect(load.problems).toEqual([
          expect.objectContaining({ code: 'INVALID_SNAPSHOT', offset: lastStart, file: journalOf(sidecar, 's') }),
        ])

      // Half the cuts append right after that load, half from a fresh instance that never loaded.
      const writer = cut % 2 === 0 ? sidecar : new TreeSidecar(sidecar.root)
      expect(value(writer.append('s', { w: 9, op: { after: cut } })).n).toBe(5)
      const reloaded = new TreeSidecar(sidecar.root).load('s')
      expect(reloaded.problems).toEqual([])
      expect(reloaded.records.slice(0, 4)).toEqual(records.slice(0, 4))
      expect(reloaded.records.slice(4)).toEqual([expect.objectContaining({ n: 5, w: 9, op: { after: cut } })])
      // A torn tail is an unfinished append, not evidence worth keeping.
      expect(readdirSync(sidecar.dirFor('s')).sort()).toEqual([JOURNAL_FILE, CLAIM_FILE])
    }
  })

  it('a complete last line with a flipped byte is treated as torn', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    const records = fill(sidecar, 's', 3)
    const file = journalOf(sidecar, 's')
    const bytes = readFileSync(file)
    const lastStart = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1
    flip(bytes, bytes.length - 5)
    writeFileSync(file, bytes)
    const load = new TreeSidecar(sidecar.root).load('s')
    expect(load.records).toEqual(records.slice(0, 2))
    expect(load.problems).toEqual([
      expect.objectContaining({
        code: 'INVALID_SNAPSHOT',
        offset: lastStart,
        message: expect.stringMatching(/checksum/),
      }),
    ])
    expect(value(new TreeSidecar(sidecar.root).append('s', { w: 0, op: {} })).n).toBe(3)
    expect(ns(new TreeSidecar(sidecar.root).load('s'))).toEqual([1, 2, 3])
  })

  it('a failed append is invisible to the next append of the same instance', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    fill(sidecar, 's', 2)
    // Someone (a crashed earlier writer) left half a line; the cached state must not trust the old size.
    // Longer than the next record, so writing over it would leave a tail behind.
    writeFileSync(journalOf(sidecar, 's'), `0badc0de {"n":3,"w":0,"op":{"text":"${'x'.repeat(300)}`, { flag: 'a' })
    expect(value(sidecar.append('s', { w: 0, op: {} })).n).toBe(3)
    expect(new TreeSidecar(sidecar.root).load('s')).toMatchObject({ problems: [] })
    expect(ns(sidecar.load('s'))).toEqual([1, 2, 3])
  })
})

describe('corruption', () => {
  it('a flipped byte in a middle record stops the load there; the next append keeps the damaged file aside', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    const records = fill(sidecar, 's', 5)
    const file = journalOf(sidecar, 's')
    const bytes = readFileSync(file)
    const lines = bytes.toString('utf8').split('\n')
    const thirdStart = Buffer.byteLength(lines.slice(0, 3).join('\n') + '\n') // header, 1, 2
    flip(bytes, thirdStart + 20)
    writeFileSync(file, bytes)

    // The writer's load at session start is what tells it the file changed under it.
    const load = sidecar.load('s')
    expect(load.records).toEqual(records.slice(0, 2))
    expect(load.problems).toEqual([
      expect.objectContaining({
        code: 'INVALID_SNAPSHOT',
        offset: thirdStart,
        message: expect.stringMatching(/later lines ignored/),
      }),
    ])

    expect(value(sidecar.append('s', { w: 0, op: { fresh: true } })).n).toBe(3)
    expect(ns(new TreeSidecar(sidecar.root).load('s'))).toEqual([1, 2, 3])
    const kept = readdirSync(sidecar.dirFor('s')).filter((name) => name.startsWith(`${JOURNAL_FILE}.corrupt-`))
    expect(kept).toHaveLength(1)
    expect(readFileSync(path.join(sidecar.dirFor('s'), kept[0] as string))).toEqual(bytes)
  })

  it('a record numbered out of order stops the load, also as the last line', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    mkdirSync(sidecar.dirFor('s'), { recursive: true })
    const record = (n: number) => frameRecord({ n, w: 0, at: 'then', op: { n } })
    const header = frameHeader('s', 0)
    for (const numbers of [
      [1, 2, 2, 3],
      [1, 2, 4],
      [2, 3],
    ]) {
      const lines = [header, ...numbers.map(record)]
      writeFileSync(journalOf(sidecar, 's'), Buffer.concat(lines))
      const valid = numbers.findIndex((n, k) => n !== k + 1)
      const offset = Buffer.concat(lines.slice(0, valid + 1)).length
      const load = new TreeSidecar(sidecar.root).load('s')
      expect(ns(load)).toEqual(numbers.slice(0, valid))
      expect(load.problems).toEqual([
        expect.objectContaining({ offset, message: expect.stringMatching(/record number \d+, expected \d+/) }),
      ])
    }
  })

  it('a damaged overlay is ignored and reported, and the journal still loads from its start', () => {
    const id = 's'
    const damages: Record<string, (sidecar: TreeSidecar) => void> = {
      'bad json': (sidecar) => writeFileSync(overlayOf(sidecar, id), '{"version":1,'),
      'bad checksum': (sidecar) => {
        const text = readFileSync(overlayOf(sidecar, id), 'utf8')
        writeFileSync(overlayOf(sidecar, id), text.replace('"upTo":2', '"upTo":3'))
      },
      'another session': (sidecar) =>
        replaceFile(
          overlayOf(sidecar, id),
          encodeOverlay({
            version: 1,
            sessionId: 'other',
            n: 2,
            w: 2,
            writtenAt: 'now',
            state: { upTo: 2 },
          }),
        ),
      'another version': (sidecar) =>
        replaceFile(
          overlayOf(sidecar, id),
          encodeOverlay({
            version: 2,
            sessionId: id,
            n: 2,
            w: 2,
            writtenAt: 'now',
            state: { upTo: 2 },
          }),
        ),
      'malformed fold': (sidecar) =>
        replaceFile(
          overlayOf(sidecar, id),
          encodeOverlay({
            version: 1,
            sessionId: id,
            n: -2,
            w: 2,
            writtenAt: 'now',
            state: { upTo: 2 },
          }),
        ),
    }
    for (const [name, damage] of Object.entries(damages)) {
      const sidecar = new TreeSidecar(path.join(tmp, name.replaceAll(' ', '-')))
      fill(sidecar, id, 4)
      value(sidecar.compact(id, { n: 2, w: 2, state: { upTo: 2 } }))
      expect(sidecar.load(id)).toMatchObject({ fold: { n: 2 }, problems: [] })
      damage(sidecar)
      const load = new TreeSidecar(sidecar.root).load(id)
      expect(load.fold, name).toBeUndefined()
      expect(ns(load), name).toEqual([3, 4])
      // One damage, one problem: the overlay's, saying the gap it leaves (records 1..2 existed only in the lost fold).
      expect(load.problems, name).toEqual([
        expect.objectContaining({
          code: 'INVALID_SNAPSHOT',
          file: overlayOf(sidecar, id),
          message: expect.stringMatching(/the records 1\.\.2 it folded are lost/),
        }),
      ])
    }
  })

  it('never overwrites an intact file of another session or version', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    mkdirSync(sidecar.dirFor('s'), { recursive: true })
    const foreign = Buffer.concat([frameHeader('t', 0), frameRecord({ n: 1, w: 0, at: 'then', op: {} })])
    writeFileSync(journalOf(sidecar, 's'), foreign)
    const load = sidecar.load('s')
    expect(load).toMatchObject({
      exists: true,
      records: [],
      problems: [{ code: 'INVALID_SNAPSHOT', message: expect.stringMatching(/another session/) }],
    })
    const appended = sidecar.append('s', { w: 0, op: {} })
    expect(appended.ok ? 'ok' : appended.error.code).toBe('SIDECAR_IO')
    const compacted = sidecar.compact('s', { n: 0, w: 0, state: {} })
    expect(compacted.ok ? 'ok' : compacted.error.code).toBe('SIDECAR_IO')
    expect(readFileSync(journalOf(sidecar, 's'))).toEqual(foreign)
    expect(existsSync(overlayOf(sidecar, 's'))).toBe(false)

    writeFileSync(journalOf(sidecar, 's'), frameLine({ v: 2, sessionId: 's', base: 0 }))
    expect(sidecar.load('s').problems).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/unsupported version 2/) }),
    ])
    expect(sidecar.append('s', { w: 0, op: {} }).ok).toBe(false)
  })

  it('an empty or headerless journal is reported and rebuilt on the next append', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    mkdirSync(sidecar.dirFor('s'), { recursive: true })
    writeFileSync(journalOf(sidecar, 's'), '')
    expect(sidecar.load('s')).toMatchObject({
      exists: true,
      records: [],
      problems: [{ code: 'INVALID_SNAPSHOT', message: expect.stringMatching(/no header/) }],
    })
    expect(value(sidecar.append('s', { w: 0, op: {} })).n).toBe(1)
    expect(new TreeSidecar(sidecar.root).load('s')).toMatchObject({ problems: [], records: [{ n: 1 }] })
  })

  it('unreadable files are SIDECAR_IO problems, never exceptions', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    mkdirSync(journalOf(sidecar, 's'), { recursive: true }) // the journal path is a directory
    const load = sidecar.load('s')
    expect(load).toMatchObject({
      exists: true,
      records: [],
      problems: [{ code: 'SIDECAR_IO', file: journalOf(sidecar, 's') }],
    })
    const appended = sidecar.append('s', { w: 0, op: {} })
    expect(appended.ok ? 'ok' : appended.error.code).toBe('SIDECAR_IO')
    expect(sidecar.needsCompaction('s')).toBe(false)

    mkdirSync(overlayOf(sidecar, 'o'), { recursive: true })
    expect(sidecar.load('o')).toMatchObject({
      exists: true,
      problems: [{ code: 'SIDECAR_IO', file: overlayOf(sidecar, 'o') }],
    })
    const compacted = sidecar.compact('o', { n: 0, w: 0, state: {} })
    expect(compacted.ok ? 'ok' : compacted.error.code).toBe('SIDECAR_IO')
  })

  it('a root that is a file fails writes with SIDECAR_IO', () => {
    const rootFile = path.join(tmp, 'root-file')
    writeFileSync(rootFile, 'not a directory')
    const sidecar = new TreeSidecar(rootFile)
    const appended = sidecar.append('s', { w: 0, op: {} })
    expect(appended.ok ? 'ok' : appended.error.code).toBe('SIDECAR_IO')
    const compacted = sidecar.compact('s', { n: 0, w: 0, state: {} })
    expect(compacted.ok ? 'ok' : compacted.error.code).toBe('SIDECAR_IO')
    const { problems } = sidecar.load('s')
    expect(problems.length).toBeGreaterThan(0)
    expect(problems.every((problem) => problem.code === 'SIDECAR_IO')).toBe(true)
    expect(readFileSync(rootFile, 'utf8')).toBe('not a directory')
  })

  it('a read-only journal fails the append and keeps earlier records', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    fill(sidecar, 's', 2)
    // The append comes from another process: this one lets go of the session first.
    sidecar.release('s')
    chmodSync(journalOf(sidecar, 's'), 0o400)
    try {
      expect(appendAsUser(sidecar.root, 's')).toBe('SIDECAR_IO')
    } finally {
      chmodSync(journalOf(sidecar, 's'), 0o600)
    }
    expect(ns(sidecar.load('s'))).toEqual([1, 2])
  })
})

describe('compaction crash windows', () => {
  it('overlay renamed, journal not yet rewritten: folded records are skipped, the rest load once', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    const records = fill(sidecar, 's', 6)
    // compact() step 1 only.
    replaceFile(
      overlayOf(sidecar, 's'),
      encodeOverlay({ version: 1, sessionId: 's', n: 4, w: 4, writtenAt: 'now', state: { upTo: 4 } }),
    )
    const load = new TreeSidecar(sidecar.root).load('s')
    expect(load).toEqual({
      exists: true,
      fold: { n: 4, w: 4, state: { upTo: 4 } },
      records: records.slice(4),
      problems: [],
    })
    expect(value(new TreeSidecar(sidecar.root).append('s', { w: 7, op: {} })).n).toBe(7)
    expect(ns(new TreeSidecar(sidecar.root).load('s'))).toEqual([5, 6, 7])
    // Finishing the compaction later is also fine.
    value(sidecar.compact('s', { n: 6, w: 6, state: { upTo: 6 } }))
    expect(new TreeSidecar(sidecar.root).load('s')).toMatchObject({ fold: { n: 6 }, records: [{ n: 7 }], problems: [] })
  })

  it('a compaction that fails at either step leaves a sidecar that loads the same', () => {
    // A directory squatting on a temp path makes that step of the real compact() fail.
    for (const step of ['overlay', 'journal'] as const) {
      const sidecar = new TreeSidecar(path.join(tmp, step))
      const records = fill(sidecar, 's', 6)
      value(sidecar.compact('s', { n: 2, w: 2, state: { upTo: 2 } }))
      mkdirSync((step === 'overlay' ? overlayOf(sidecar, 's') : journalOf(sidecar, 's')) + '.tmp')
      const failed = sidecar.compact('s', { n: 5, w: 5, state: { upTo: 5 } })
      expect(failed.ok ? 'ok' : failed.error.code).toBe('SIDECAR_IO')
      const load = new TreeSidecar(sidecar.root).load('s')
      expect(load.problems).toEqual([])
      const upTo = step === 'overlay' ? 2 : 5 // the journal step fails after the overlay was replaced
      expect(load.fold).toEqual({ n: upTo, w: upTo, state: { upTo } })
      expect(load.records).toEqual(records.slice(upTo))
      expect(value(sidecar.append('s', { w: 7, op: {} })).n).toBe(7)
    }
  })

  it('stale temp files of an interrupted write are ignored', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    const records = fill(sidecar, 's', 3)
    writeFileSync(overlayOf(sidecar, 's') + '.tmp', '{"version":1,"sessi')
    writeFileSync(journalOf(sidecar, 's') + '.tmp', frameHeader('s', 3))
    expect(new TreeSidecar(sidecar.root).load('s')).toEqual({ exists: true, records, problems: [] })
    value(sidecar.compact('s', { n: 3, w: 3, state: {} }))
    expect(readdirSync(sidecar.dirFor('s')).sort()).toEqual([JOURNAL_FILE, OVERLAY_FILE, CLAIM_FILE])
  })

  it('an overlay ahead of the journal makes the next append continue after the fold', () => {
    const sidecar = new TreeSidecar(path.join(tmp, 'root'))
    fill(sidecar, 's', 3)
    replaceFile(
      overlayOf(sidecar, 's'),
      encodeOverlay({ version: 1, sessionId: 's', n: 8, w: 8, writtenAt: 'now', state: {} }),
    )
    expect(new TreeSidecar(sidecar.root).load('s')).toMatchObject({ fold: { n: 8 }, records: [], problems: [] })
    expect(value(new TreeSidecar(sidecar.root).append('s', { w: 9, op: {} })).n).toBe(9)
    expect(new TreeSidecar(sidecar.root).load('s')).toMatchObject({ fold: { n: 8 }, records: [{ n: 9 }], problems: [] })
  })
})
