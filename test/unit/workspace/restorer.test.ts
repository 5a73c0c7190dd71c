/**
 * The restore's writer on real files: a round's renames run a few at a time,
 * yet every file is checked right before its own rename and the outcome is
 * reported in the files' order, as one by one.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempEach } from '../../support/temp-each.ts'
import { writeRestore, type RestoreWrite } from '../../../src/workspace/restorer.ts'
import { probe } from '../../../src/workspace/safe-fs.ts'

const temp = tempEach('restorer-')

describe('writeRestore', () => {
  it('writes 100 files over seven rounds, keeps the ones changed before their turn, in order; no temporary file stays', async () => {
    const root = temp()
    const rels = Array.from({ length: 100 }, (_, i) => `d${i % 7}/f${String(i).padStart(3, '0')}.txt`)
    for (const rel of rels) {
      mkdirSync(path.join(root, path.dirname(rel)), { recursive: true })
      writeFileSync(path.join(root, rel), `old ${rel}\n`)
    }
    const writes: RestoreWrite[] = rels.map((rel, i) => {
      const found = probe(root, rel)
      if (found.kind !== 'file') throw new Error('no file')
      const bytes = i % 10 === 9 ? undefined : Buffer.from(`new ${rel}\n`)
      return {
        path: rel,
        bytes,
        target: bytes === undefined ? { kind: 'absent' } : { kind: 'file', hash: 'x', size: bytes.length },
        expect: found.signature,
      }
    })
    // Changed by the user after the plan: a file replaced by a link, one rewritten, one removed.
    const link = rels[37]!
    rmSync(path.join(root, link))
    symlinkSync('/etc/hostname', path.join(root, link))
    writeFileSync(path.join(root, rels[64]!), 'the user wrote this one, longer\n')
    rmSync(path.join(root, rels[90]!))
    const outcome = await writeRestore(root, 'abcdef0123456789', writes)
    const changed = [rels[37]!, rels[64]!, rels[90]!]
    expect(outcome.kept).toEqual(changed)
    expect(outcome.refused).toEqual([])
    expect(outcome.written).toEqual(rels.filter((rel) => !changed.includes(rel)))
    for (const [i, rel] of rels.entries()) {
      if (changed.includes(rel)) continue
      const found = probe(root, rel)
      if (i % 10 === 9) expect(found.kind).toBe('absent')
      else expect(readFileSync(path.join(root, rel), 'utf8')).toBe(`new ${rel}\n`)
    }
    expect(probe(root, link)).toMatchObject({ kind: 'skipped', reason: 'symlink' })
    expect(readFileSync(path.join(root, rels[64]!), 'utf8')).toBe('the user wrote this one, longer\n')
    const leftovers = readdirSync(root, { recursive: true })
      .map(String)
      .filter((n) => n.includes('dsh-restore'))
    expect(leftovers).toEqual([])
  })

  it('an I/O failure stops the round: the files after it are left as they were', async () => {
    const root = temp()
    const rels = Array.from({ length: 8 }, (_, i) => `f${i}.txt`)
    for (const rel of rels) writeFileSync(path.join(root, rel), `old ${rel}\n`)
    const writes: RestoreWrite[] = rels.map((rel) => {
      const found = probe(root, rel)
      if (found.kind !== 'file') throw new Error('no file')
      const bytes = Buffer.from(`new ${rel}\n`)
      return { path: rel, bytes, target: { kind: 'file', hash: 'x', size: bytes.length }, expect: found.signature }
    })
    // Files 1, 2-3, 4-7 in rounds; the hook (one rename at a time, in order) fails at the 6th.
    await expect(
      writeRestore(root, 'abcdef0123456789', writes, (index) => {
        if (index === 6) throw new Error('disk gone')
      }),
    ).rejects.toThrow('disk gone')
    expect(rels.map((rel) => readFileSync(path.join(root, rel), 'utf8'))).toEqual(
      rels.map((rel, i) => `${i < 5 ? 'new' : 'old'} ${rel}\n`),
    )
  })
})
