/**
 * Nothing in the sidecar is followed through a link (real files, real links):
 * a journal, an overlay, a temp file or a session directory that is a
 * symbolic link, or a file with a second hard link, is reported as such,
 * never read, never written through, never copied into a `.corrupt-<n>` file;
 * a directory or a FIFO where a file belongs is reported as what it is. The
 * configured root itself may be a link (it is configuration, see README).
 */
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempHome } from '../../support/temp-each.ts'
import { JOURNAL_FILE, OVERLAY_FILE, TreeSidecar } from '../../../src/sidecar/index.ts'
import { value } from '../../support/messages.ts'

const SECRET = 'root:x:0:0:SECRET-OUTSIDE-THE-SIDECAR:/root:/bin/sh\n'

const home = tempHome('sidecar-links-', {
  folders: { outside: 'outside' },
  files: { secret: ['outside/passwd', SECRET] },
})

/** Every regular file under `dir` (links not followed), with its content. */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = path.join(at, name)
      const st = lstatSync(full)
      if (st.isDirectory()) walk(full)
      else if (st.isFile()) out.set(full, readFileSync(full, 'utf8'))
    }
  }
  walk(dir)
  return out
}

/**
 * The outside world is untouched: same single file, same bytes, and no sidecar file holds its
 * bytes (`planted`: a hard link put there by the test, which is the outside file itself).
 */
function expectOutsideUntouched(root: string, planted?: string) {
  expect(readdirSync(home.outside)).toEqual(['passwd'])
  expect(readFileSync(home.secret, 'utf8')).toBe(SECRET)
  for (const [file, text] of files(root)) {
    if (file !== planted) expect(text, `${file} holds bytes from outside`).not.toContain('SECRET-OUTSIDE')
  }
}

const code = (result: { ok: boolean; error?: { code: string } }) => (result.ok ? 'ok' : result.error!.code)

/** A sidecar with a valid session 's' (two records), for planting links into. */
function seeded(): TreeSidecar {
  const sidecar = new TreeSidecar(path.join(home.tmp, 'root'))
  value(sidecar.append('s', { w: 1, op: { i: 1 } }))
  value(sidecar.append('s', { w: 2, op: { i: 2 } }))
  return sidecar
}

/**
 * The seeded sidecar with session 's''s `file` replaced by what `put` makes at its path, and a
 * fresh sidecar (a new process) over the same root.
 */
function replaced(file: string, put: (at: string) => void) {
  const sidecar = seeded()
  const target = path.join(sidecar.dirFor('s'), file)
  rmSync(target, { force: true })
  put(target)
  return { root: sidecar.root, target, fresh: new TreeSidecar(sidecar.root) }
}

describe('links in the sidecar are never followed', () => {
  for (const file of [JOURNAL_FILE, OVERLAY_FILE]) {
    it(`${file} as a symbolic link to a file outside: reported as a link, never read, never written, never copied`, () => {
      const { root, target, fresh } = replaced(file, (at) => symlinkSync(home.secret, at))
      const load = fresh.load('s')
      expect(load.problems).toEqual([
        expect.objectContaining({ code: 'SIDECAR_IO', file: target, message: expect.stringMatching(/symbolic link/) }),
      ])
      // The journal's records are never read through a link (a linked overlay leaves them readable).
      if (file === JOURNAL_FILE) expect(load.records).toEqual([])
      else expect(load.records.map((r) => r.n)).toEqual([1, 2])
      expect(code(fresh.append('s', { w: 3, op: {} }))).toBe('SIDECAR_IO')
      expect(code(fresh.compact('s', { n: 0, w: 3, state: {} }))).toBe('SIDECAR_IO')
      expect(lstatSync(target).isSymbolicLink(), 'the link itself is left for a person to look at').toBe(true)
      expectOutsideUntouched(root)
    })

    it(`${file} with a second hard link: reported, never read or written`, () => {
      const { root, target, fresh } = replaced(file, (at) => linkSync(home.secret, at))
      const load = fresh.load('s')
      expect(load.problems).toEqual([
        expect.objectContaining({ code: 'SIDECAR_IO', file: target, message: expect.stringMatching(/hard links/) }),
      ])
      expect(code(fresh.append('s', { w: 3, op: {} }))).toBe('SIDECAR_IO')
      expect(code(fresh.compact('s', { n: 0, w: 3, state: {} }))).toBe('SIDECAR_IO')
      expect(statSync(target).nlink).toBe(2)
      expectOutsideUntouched(root, target)
    })
  }

  it('a dangling link is a link too (not a missing file)', () => {
    const { root, fresh } = replaced(JOURNAL_FILE, (at) => symlinkSync(path.join(home.outside, 'would-be-created'), at))
    expect(fresh.load('s').problems).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/symbolic link/) }),
    ])
    expect(code(fresh.append('s', { w: 3, op: {} }))).toBe('SIDECAR_IO')
    expect(existsSync(path.join(home.outside, 'would-be-created'))).toBe(false)
    expectOutsideUntouched(root)
  })

  it('a session directory that is a symbolic link: reported, nothing written through it', () => {
    const root = path.join(home.tmp, 'root')
    const sidecar = new TreeSidecar(root)
    mkdirSync(root)
    symlinkSync(home.outside, sidecar.dirFor('s'))
    const load = sidecar.load('s')
    expect(load.problems).toEqual([
      expect.objectContaining({
        code: 'SIDECAR_IO',
        file: sidecar.dirFor('s'),
        message: expect.stringMatching(/symbolic link/),
      }),
    ])
    expect(code(sidecar.append('s', { w: 0, op: {} }))).toBe('SIDECAR_IO')
    expect(code(sidecar.compact('s', { n: 0, w: 0, state: {} }))).toBe('SIDECAR_IO')
    expectOutsideUntouched(root)
  })

  it('a planted temp-file link is replaced, never written through', () => {
    for (const file of [JOURNAL_FILE, OVERLAY_FILE]) {
      const sidecar = seeded()
      const tmpFile = path.join(sidecar.dirFor('s'), `${file}.tmp`)
      symlinkSync(home.secret, tmpFile)
      // Compaction writes both files through their temp names.
      value(sidecar.compact('s', { n: 2, w: 2, state: { upTo: 2 } }))
      expect(new TreeSidecar(sidecar.root).load('s')).toMatchObject({ fold: { n: 2 }, records: [], problems: [] })
      expectOutsideUntouched(sidecar.root)
      rmSync(sidecar.root, { recursive: true })
    }
  })

  it('a garbage journal is kept aside as .corrupt-<n>; a linked one is not', () => {
    const sidecar = seeded()
    const journal = path.join(sidecar.dirFor('s'), JOURNAL_FILE)
    writeFileSync(journal, 'garbage, not a journal\n')
    value(new TreeSidecar(sidecar.root).append('s', { w: 3, op: {} }))
    const corrupt = readdirSync(sidecar.dirFor('s')).filter((name) => name.includes('.corrupt-'))
    expect(corrupt).toHaveLength(1)
    expect(readFileSync(path.join(sidecar.dirFor('s'), corrupt[0]!), 'utf8')).toBe('garbage, not a journal\n')
    expectOutsideUntouched(sidecar.root)
  })
})

describe('what is not a file is reported as what it is', () => {
  it('a directory in place of the journal: reported as a directory; writes fail with SIDECAR_IO', () => {
    const { target: journal, fresh } = replaced(JOURNAL_FILE, (at) => mkdirSync(at))
    expect(fresh.load('s').problems).toEqual([
      expect.objectContaining({ code: 'SIDECAR_IO', file: journal, message: expect.stringMatching(/is a directory/) }),
    ])
    expect(code(fresh.append('s', { w: 3, op: {} }))).toBe('SIDECAR_IO')
    expect(statSync(journal).isDirectory()).toBe(true)
  })

  it('a FIFO in place of the journal: reported, never opened for a blocking read', () => {
    const { target: journal, fresh } = replaced(JOURNAL_FILE, (at) => execFileSync('mkfifo', [at]))
    expect(fresh.load('s').problems).toEqual([
      expect.objectContaining({
        code: 'SIDECAR_IO',
        file: journal,
        message: expect.stringMatching(/not a regular file/),
      }),
    ])
    expect(code(fresh.append('s', { w: 3, op: {} }))).toBe('SIDECAR_IO')
  })
})

describe('the configured root', () => {
  it('may itself be a symbolic link (configuration): it is followed; below it nothing is', () => {
    const real = path.join(home.tmp, 'real-root')
    mkdirSync(real)
    const linked = path.join(home.tmp, 'linked-root')
    symlinkSync(real, linked)
    const sidecar = new TreeSidecar(linked)
    value(sidecar.append('s', { w: 0, op: { i: 1 } }))
    expect(new TreeSidecar(linked).load('s')).toMatchObject({ records: [{ n: 1 }], problems: [] })
    expect(readdirSync(real)).toEqual([path.basename(sidecar.dirFor('s'))])
  })
})
