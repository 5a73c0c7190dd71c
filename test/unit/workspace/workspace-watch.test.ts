/**
 * The change feed (src/workspace/watch.ts) only narrows where a shell
 * snapshot walks: after any sequence of file operations, a snapshot that
 * trusted the feed holds exactly what a snapshot that walked everything holds.
 * Each case also checks that the feed was used (so the comparison is not
 * between two full walks), and the fallbacks answer `all` with a reason.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import type { FeedLimits } from '../../../src/workspace/watch.ts'
import { feedPair, PATIENT, plainSnapshot, workFolderEach } from '../../support/feed-pair.ts'

const folder = workFolderEach('workspace-watch-')
let tmp: string
let root: string
beforeEach(() => ({ tmp, root } = folder()))

const pair = (limits: FeedLimits = PATIENT) => feedPair(tmp, { toplevel: root, excluded: [] }, limits)
const plain = plainSnapshot

/** A small deterministic generator (xorshift32), so a failing sequence can be replayed by its seed. */
function generator(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1
  return (n) => {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    return x % n
  }
}

/** Every directory and file below the root (not `.git`, not through links), root-relative. */
function listing(): { dirs: string[]; files: string[] } {
  const dirs: string[] = []
  const files: string[] = []
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`
      if (entry.isDirectory()) {
        dirs.push(child)
        walk(child)
      } else files.push(child)
    }
  }
  walk('')
  return { dirs, files }
}

/** One random operation a shell command could do; its name, for the failure message. */
function operate(pick: (n: number) => number, step: number): string {
  const { dirs, files } = listing()
  const anyDir = () => (dirs.length === 0 || pick(4) === 0 ? '' : (dirs[pick(dirs.length)] as string))
  const at = (dir: string, name: string) => (dir === '' ? name : `${dir}/${name}`)
  const abs = (rel: string) => path.join(root, rel)
  const file = files.length > 0 ? (files[pick(files.length)] as string) : undefined
  const dir = dirs.length > 0 ? (dirs[pick(dirs.length)] as string) : undefined
  switch (pick(13)) {
    case 0: {
      const rel = at(anyDir(), `new-${step}.txt`)
      writeFileSync(abs(rel), `made at ${step}\n`)
      return `write ${rel}`
    }
    case 1: {
      const rel = at(anyDir(), `d${step}/e${step}/f.txt`)
      mkdirSync(path.dirname(abs(rel)), { recursive: true })
      writeFileSync(abs(rel), `nested ${step}`)
      return `mkdir -p + write ${rel}`
    }
    case 2:
      if (file === undefined || lstatSync(abs(file)).isSymbolicLink()) return 'nothing'
      writeFileSync(abs(file), `changed at ${step}\r\n`)
      return `modify ${file}`
    case 3:
      if (file === undefined) return 'nothing'
      unlinkSync(abs(file))
      return `rm ${file}`
    case 4: {
      if (file === undefined) return 'nothing'
      const to = at(anyDir(), `moved-${step}`)
      if (existsSync(abs(to))) return 'nothing'
      renameSync(abs(file), abs(to))
      return `mv ${file} ${to}`
    }
    case 5: {
      if (dir === undefined) return 'nothing'
      const to = at(anyDir(), `dmoved-${step}`)
      if (to === dir || to.startsWith(`${dir}/`) || existsSync(abs(to))) return 'nothing'
      renameSync(abs(dir), abs(to))
      return `mv ${dir}/ ${to}/`
    }
    case 6:
      if (dir === undefined) return 'nothing'
      rmSync(abs(dir), { recursive: true })
      return `rm -r ${dir}`
    case 7: {
      const rel = at(anyDir(), `empty-${step}`)
      mkdirSync(abs(rel))
      return `mkdir ${rel}`
    }
    case 8:
      if (file === undefined || lstatSync(abs(file)).isSymbolicLink()) return 'nothing'
      chmodSync(abs(file), lstatSync(abs(file)).mode & 0o100 ? 0o644 : 0o755)
      return `chmod ${file}`
    case 9: {
      const rel = at(anyDir(), `link-${step}`)
      symlinkSync(pick(2) === 0 ? 'somewhere' : '../outside', abs(rel))
      return `ln -s ${rel}`
    }
    case 10: {
      mkdirSync(abs('ignored/deep'), { recursive: true })
      writeFileSync(abs(`ignored/deep/x-${step}.txt`), 'ignored')
      writeFileSync(abs(at(anyDir(), `trace-${step}.log`)), 'ignored too')
      return 'write ignored files'
    }
    case 11: {
      // Out of the folder and back in: its watches go and come back.
      if (dir === undefined) return 'nothing'
      const out = path.join(tmp, `out-${step}`)
      renameSync(abs(dir), out)
      writeFileSync(path.join(out, `while-out-${step}.txt`), 'changed outside')
      renameSync(out, abs(dir))
      return `mv ${dir} out, change, back`
    }
    default: {
      // A file replaced by a directory of the same name.
      if (file === undefined) return 'nothing'
      rmSync(abs(file))
      mkdirSync(abs(file))
      writeFileSync(abs(`${file}/inside.txt`), `was a file ${step}`)
      return `file → dir ${file}`
    }
  }
}

describe('the change feed narrows shell snapshots without changing them', () => {
  for (const seed of [1, 7, 42, 2026]) {
    it(`random operations (seed ${seed}): the fed snapshot equals the full walk after every round`, async () => {
      writeFileSync(path.join(root, '.gitignore'), 'ignored/\n*.log\n')
      mkdirSync(path.join(root, 'src/lib'), { recursive: true })
      writeFileSync(path.join(root, 'src/a.ts'), 'a')
      writeFileSync(path.join(root, 'src/lib/b.ts'), 'b')
      const { fed, walked } = pair()
      const pick = generator(seed)
      const history: string[] = []
      let narrowed = 0
      for (let round = 0; round < 30; round++) {
        const ops = pick(4)
        for (let k = 0; k < ops; k++) history.push(operate(pick, round * 10 + k))
        history.push(`-- snapshot ${round}`)
        const a = await fed.snapshot()
        const b = await walked.snapshot()
        expect(plain(a), history.join('\n')).toEqual(plain(b))
        const walk = fed.watching().lastWalk
        if (walk?.kind === 'paths') narrowed++
        else history.push(`   walked all: ${walk?.why}`)
      }
      // Only the feed's first intervals walk everything: at the start, and after each change to a .gitignore.
      const restarts = history.filter((op) => /\.gitignore/.test(op)).length
      expect(narrowed, history.join('\n')).toBeGreaterThanOrEqual(29 - restarts)
      fed.close()
    })
  }

  it('an unchanged folder is not walked; a change is walked alone; ignored and .git directories are not watched', async () => {
    writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n')
    mkdirSync(path.join(root, 'node_modules/pkg'), { recursive: true })
    mkdirSync(path.join(root, '.git'))
    writeFileSync(path.join(root, 'kept.txt'), 'one')
    const { fed } = pair()
    await fed.snapshot()
    expect(fed.watching().lastWalk).toMatchObject({ kind: 'all', why: 'the first interval' })
    await fed.snapshot()
    expect(fed.watching().lastWalk).toEqual({ kind: 'paths', paths: [] })
    writeFileSync(path.join(root, 'node_modules/pkg/index.js'), 'ignored')
    writeFileSync(path.join(root, '.git/HEAD'), 'not ours')
    await fed.snapshot()
    expect(fed.watching().lastWalk).toEqual({ kind: 'paths', paths: [] })
    writeFileSync(path.join(root, 'kept.txt'), 'two')
    const after = await fed.snapshot()
    expect(fed.watching().lastWalk).toEqual({ kind: 'paths', paths: ['kept.txt'] })
    expect(after.entries.get('kept.txt')?.oid).toBe('64c5e5885a4b06010b3a0c20edb7900dd0311025') // `printf two | git hash-object --stdin`
    // The cookies are gone once their events came.
    expect(readdirSync(path.join(tmp, 'fed-git', 'watch'))).toEqual([])
    fed.close()
  })

  it('a file name that is not UTF-8 makes the interval a walk of everything', async () => {
    const { fed } = pair()
    await fed.snapshot()
    writeFileSync(Buffer.concat([Buffer.from(`${root}/bad-`), Buffer.from([0xff, 0xfe])]), 'x')
    await fed.snapshot()
    expect(fed.watching().lastWalk).toEqual({ kind: 'all', why: 'a file name that is not UTF-8' })
    fed.close()
  })

  it('past its limits the feed answers all, with the reason, and the snapshot is still exact', async () => {
    for (let i = 0; i < 5; i++) mkdirSync(path.join(root, `d${i}`))
    const { fed, walked } = pair({ ...PATIENT, maxDirs: 3 })
    writeFileSync(path.join(root, 'd4/x.txt'), 'x')
    expect(plain(await fed.snapshot())).toEqual(plain(await walked.snapshot()))
    expect(fed.watching()).toMatchObject({ mode: 'events', off: 'more than 3 directories' })
    writeFileSync(path.join(root, 'd3/y.txt'), 'y')
    expect(plain(await fed.snapshot())).toEqual(plain(await walked.snapshot()))
    expect(fed.watching().lastWalk).toEqual({ kind: 'all', why: 'more than 3 directories' })

    const busy = pair({ ...PATIENT, maxEvents: 4 })
    await busy.fed.snapshot()
    for (let i = 0; i < 6; i++) writeFileSync(path.join(root, `d0/e${i}.txt`), 'e')
    expect(plain(await busy.fed.snapshot())).toEqual(plain(await busy.walked.snapshot()))
    expect(busy.fed.watching().lastWalk).toMatchObject({
      kind: 'all',
      why: expect.stringMatching(/^\d+ change events$/),
    })
    await busy.fed.snapshot()
    expect(busy.fed.watching().lastWalk).toEqual({ kind: 'paths', paths: [] })
    busy.fed.close()
  })

  it('turned off, every snapshot walks everything', async () => {
    const { walked } = pair()
    await walked.snapshot()
    await walked.snapshot()
    expect(walked.watching()).toEqual({
      mode: 'walk',
      off: 'turned off (workspace.watch: false)',
      lastWalk: { kind: 'all', why: 'turned off (workspace.watch: false)' },
    })
  })
})
