/**
 * Hostile sequences of file operations (a review's attempts to break the change feed): after each, the fed
 * snapshot must equal a full walk, and where the feed is expected to keep narrowing, it does.
 */
import { execSync } from 'node:child_process'
import { mkdirSync, readdirSync, readlinkSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import type { GitWorkTree } from '../../../src/workspace/git.ts'
import { WorkspaceRegistry } from '../../../src/workspace/registry.ts'
import type { FeedLimits } from '../../../src/workspace/watch.ts'
import { feedPair, PATIENT, plainSnapshot, workFolderEach } from '../../support/feed-pair.ts'

const folder = workFolderEach('workspace-watch-hostile-')
let tmp: string
let root: string
beforeEach(() => ({ tmp, root } = folder()))

const pair = (tree: GitWorkTree = { toplevel: root, excluded: [] }, limits: FeedLimits = PATIENT, tag = '') =>
  feedPair(tmp, tree, limits, tag)
const plain = plainSnapshot

/** A shell command, as an agent's tool would run it (the loop is blocked meanwhile: events queue in the kernel). */
function sh(cmd: string, cwd = root): void {
  execSync(cmd, { cwd, shell: '/bin/bash', stdio: 'pipe' })
}

type Pair = ReturnType<typeof pair>
async function same(p: Pair, label: string): Promise<string> {
  const a = await p.fed.snapshot()
  const b = await p.walked.snapshot()
  const walk = p.fed.watching().lastWalk
  const how = walk?.kind === 'paths' ? `paths ${JSON.stringify(walk.paths)}` : `all (${walk?.why})`
  expect(plain(a), `${label}: fed walked ${how}`).toEqual(plain(b))
  return how
}

async function started(p: Pair): Promise<void> {
  await same(p, 'first')
  await same(p, 'second')
  expect(p.fed.watching().lastWalk).toEqual({ kind: 'paths', paths: [] })
}

/** `setup` run in the folder, then a pair of it, started. */
async function startedAfter(setup: string): Promise<Pair> {
  sh(setup)
  const p = pair()
  await started(p)
  return p
}

/** Each step: its shell command, then `same` under its label; returns what the fed snapshots walked, in order. */
async function steps(p: Pair, each: readonly (readonly [cmd: string, label: string])[]): Promise<string[]> {
  const hows: string[] = []
  for (const [cmd, label] of each) {
    sh(cmd)
    hows.push(await same(p, label))
  }
  return hows
}

/** inotify watches this process holds (all its inotify instances). */
function inotifyWatches(): number {
  let n = 0
  for (const fd of readdirSync('/proc/self/fd')) {
    let link = ''
    try {
      link = readlinkSync(`/proc/self/fd/${fd}`)
    } catch {
      continue
    }
    if (link !== 'anon_inode:inotify') continue
    n += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('inotify wd:')).length
  }
  return n
}

describe('feed review', () => {
  it('a directory holding only ignored files is not watched: a file that is not ignored written there later', async () => {
    sh(
      'echo "*.log" > .gitignore && mkdir -p logs out/sub && echo a > logs/a.log && echo x > out/sub/x.log && echo k > keep.txt',
    )
    const p = pair()
    await started(p)
    sh('echo hi > logs/readme.txt && echo o > out/sub/notes.md')
    await same(p, 'a tracked-kind file next to the ignored ones')
  })

  it('two feeds on the same folder (libuv shares one inotify watch per directory)', async () => {
    sh('mkdir -p a/b c && echo 1 > a/b/f')
    const p = pair()
    const q = pair({ toplevel: root, excluded: [] }, PATIENT, '-2')
    await started(p)
    await started(q)
    for (const op of [
      'mv a z',
      'echo 2 > z/b/f',
      'mv z/b c/b',
      'echo 3 > c/b/f',
      'rm -rf c && mkdir -p c/b && echo 4 > c/b/f',
      'echo 5 > c/b/f',
    ]) {
      sh(op)
      await same(p, `p: ${op}`)
      await same(q, `q: ${op}`)
    }
    p.fed.close()
    sh('echo 6 > c/b/f && mv c/b c/b2 && echo 7 > c/b2/g')
    await same(q, 'q after p closed')
  })

  it('the sidecar inside a git work tree is kept out: a quiet interval names nothing, nothing of it is snapshotted', async () => {
    sh('git init -q -b main . && echo a > a')
    const registry = new WorkspaceRegistry({
      sidecarRoot: path.join(root, 'side'),
      enabled: true,
      maxFileBytes: 4096,
      shell: 'auto',
    })
    const opened = await registry.get('s', root)
    if (!opened.ok) throw new Error(opened.error.message)
    const ws = opened.value
    expect(ws.shell).toBe('git')
    await ws.shellBefore()
    await ws.shellBefore()
    const third = await ws.shellBefore()
    expect(ws.shellWatching()?.lastWalk).toEqual({ kind: 'paths', paths: [] })
    expect([...third!.entries.keys()]).toEqual(['a'])
    registry.closeAll()
  })

  it('a snapshot that fails after the feed was read loses the interval', async () => {
    const p = await startedAfter('echo a > a.txt && echo b > b.txt')
    sh('echo a2 > a.txt')
    // One transient git failure (fork EAGAIN, OOM kill, …) in the narrowed listing.
    const fed = p.fed as unknown as { git: (args: readonly string[], input?: string) => Promise<Buffer> }
    const real = fed.git.bind(p.fed)
    let failOnce = true
    fed.git = (args, input) => {
      if (failOnce && args.includes('ls-files')) {
        failOnce = false
        return Promise.reject(new Error('git ls-files: transient failure'))
      }
      return real(args, input)
    }
    await expect(p.fed.snapshot()).rejects.toThrow(/transient/)
    await same(p, 'the next snapshot')
  })

  it('hard link inside the folder: writing one name changes the other', async () => {
    const p = await startedAfter('echo a > a.txt')
    sh('ln a.txt b.txt')
    await same(p, 'after ln')
    // Enough other changes that the paths read so far are written into our index (FLUSH_AT): b.txt is no longer re-read every time.
    sh('for i in $(seq 1 40); do echo $i > f$i; done')
    await same(p, 'flush')
    await same(p, 'quiet')
    sh('echo more >> a.txt')
    await same(p, 'after append to a.txt')
  })

  it('hard link to a file outside the folder, changed there', async () => {
    sh('echo a > ../outside.txt && ln ../outside.txt in.txt')
    const p = pair()
    await same(p, 'first')
    // A file with two names is named in every interval: its other name's writes raise no event here.
    expect(await same(p, 'second')).toBe('paths ["in.txt"]')
    sh('echo more >> ../outside.txt')
    await same(p, 'after append outside')
  })

  it('the root replaced by a new directory of the same name', async () => {
    const p = await startedAfter('echo a > a.txt')
    sh(`mv ${root} ${root}.old && mkdir ${root} && echo x > ${root}/new.txt`, tmp)
    await same(p, 'after root replaced')
    sh('echo y > later.txt')
    await same(p, 'a later change in the new root')
  })

  it('a directory carrying its .gitignore moved away, its name reused', async () => {
    const p = await startedAfter(
      'mkdir -p sub/gen && echo "gen/" > sub/.gitignore && echo i > sub/gen/i.txt && echo k > sub/k.txt',
    )
    await steps(p, [
      ['mv sub sub2 && mkdir -p sub/gen', 'after mv'],
      ['echo new > sub/gen/new.txt', 'write in sub/gen'],
    ])
  })

  it('another feed of the process overflows the shared inotify queue', async () => {
    const other = path.join(tmp, 'other')
    mkdirSync(other)
    sh('echo a > keep.txt')
    const p = pair()
    const q = pair({ toplevel: other, excluded: [] }, PATIENT, '-other')
    await started(p)
    await started(q)
    sh(
      `cd ${other} && for i in $(seq 1 10000); do echo $i >> x1; echo $i >> x2; done && cd ${root} && echo changed > keep.txt`,
    )
    await new Promise((r) => setTimeout(r, 100))
    await same(q, 'busy folder')
    await same(p, 'quiet folder')
  }, 180_000)

  it('a big directory moved out and removed: its events are dropped uncounted, the queue overflowed', async () => {
    const p = await startedAfter('mkdir big && echo a > keep.txt')
    sh(
      'mv big ../out && for i in $(seq 1 10000); do echo $i >> ../out/x1; echo $i >> ../out/x2; done && echo changed > keep.txt',
    )
    // The loop reads the queue before the snapshot (as it does while a shell call runs): the overflow is drained, the cookie comes.
    await new Promise((r) => setTimeout(r, 100))
    await same(p, 'after mv big out, rm, change keep.txt')
  }, 180_000)

  it('a directory replaced by a link to itself moved (write first)', async () => {
    const p = await startedAfter('mkdir d && echo a > d/f')
    await steps(p, [
      ['echo b > d/f && mv d d.real && ln -s d.real d', 'after replace by link'],
      ['echo c > d.real/g && echo c2 >> d/f', 'writes through the link'],
    ])
  })

  it('a directory replaced by a link to an outside directory is never followed', async () => {
    const p = await startedAfter('mkdir d ../outdir && echo a > d/f && echo o > ../outdir/o')
    sh('rm -rf d && ln -s ../outdir d')
    await same(p, 'after link')
    sh('echo new > ../outdir/x && mkdir ../outdir/sub && echo s > ../outdir/sub/s')
    const how = await same(p, 'outside writes')
    expect(how).toBe('paths []')
  })

  it('rm -rf and recreate, mkdir -p deep and write, cp -r in, mv -T over a dir', async () => {
    const p = await startedAfter(
      'mkdir -p a/b/c t/u && echo 1 > a/b/c/f && echo t > t/u/v && mkdir -p ../src/x/y && echo s > ../src/x/y/z',
    )
    await steps(p, [
      ['rm -rf a && mkdir -p a/b/c && echo 2 > a/b/c/f', 'rm -rf + recreate'],
      ['echo 3 > a/b/c/f', 'write in recreated'],
      ['mkdir -p q/w/e/r/t/y && echo deep > q/w/e/r/t/y/f && echo deep2 > q/w/e/r/f', 'mkdir -p'],
      ['echo deep3 > q/w/e/r/t/y/f', 'later write deep'],
      ['cp -r ../src ./copied && echo more > copied/x/y/z2', 'cp -r'],
      ['echo later > copied/x/y/z3', 'write in copy'],
      ['mkdir empty && mv -T t empty', 'mv -T over'],
      ['echo w > empty/u/w', 'write in moved-over'],
      ['mv empty/u a/b/c/u2 && echo z > a/b/c/u2/zz', 'nested mv'],
      ['echo zz > a/b/c/u2/zzz', 'after nested mv'],
    ])
  })

  it('names with glob characters, spaces, newlines, a leading dash', async () => {
    const p = pair()
    await started(p)
    sh(
      `mkdir -p '*' '[ab]' ':(top)' 'sp ace' && echo 1 > '*/?' && echo 2 > '[ab]/a' && echo 3 > ':(top)/x' && echo 4 > -n && echo 5 > $'new\\nline' && echo 6 > 'sp ace/:(glob)*' && echo 7 > a`,
    )
    await same(p, 'made')
    sh(
      `echo 1b > '*/?' && echo 2b > '[ab]/a' && echo 3b > ':(top)/x' && echo 4b > ./-n && echo 5b > $'new\\nline' && echo 6b > 'sp ace/:(glob)*'`,
    )
    const how = await same(p, 'changed')
    expect(how).toMatch(/^paths/)
    sh(`rm -r '*' '[ab]' && echo 7b > a`)
    await same(p, 'removed')
  })

  it('many paths, many events, and events during a snapshot', async () => {
    const p = pair()
    await started(p)
    await steps(p, [
      ['mkdir m && for i in $(seq 1 300); do echo $i > m/f$i; done', '300 files'],
      ['for i in $(seq 1 300); do echo $i > g$i; done', '300 top files'],
      ['for i in $(seq 1 200); do echo x$i > m/f1; done', '1200 events'],
    ])
    sh(
      '(for i in $(seq 1 400); do echo $i > bg$((i % 37)); mkdir -p bgd$((i % 11))/x; echo $i > bgd$((i % 11))/x/f; done; touch ../bg-done) >/dev/null 2>&1 &',
    )
    for (let i = 0; i < 20; i++) await p.fed.snapshot()
    sh('while [ ! -e ../bg-done ]; do sleep 0.05; done')
    await same(p, 'after background writes')
  }, 180_000)

  it('a nested git repository', async () => {
    const p = pair()
    await started(p)
    await steps(p, [
      ['mkdir n && echo f > n/f && echo g > n/g', 'dir'],
      ['cd n && git init -q . && echo h > h && echo f2 > f', 'now a repo'],
      ['echo f3 > n/f && rm n/g', 'changes in repo'],
    ])
  })

  it('a git work tree with commits, checkouts and stash', async () => {
    sh(
      'git init -q -b main . && git config user.email a@b && git config user.name a && echo a > a && mkdir s && echo b > s/b && echo "*.log" > .gitignore && git add -A && git commit -qm one',
    )
    const common = path.join(root, '.git')
    const p = pair({ toplevel: root, commonDir: common })
    await started(p)
    await steps(p, [
      [
        'git checkout -qb x && echo c > s/c && echo b2 > s/b && git add -A && git commit -qm two && git checkout -q main',
        'branch and back',
      ],
      ['echo dirty > a && git stash -q', 'stash'],
      ['git stash pop -q && echo l > x.log', 'pop'],
      ['git checkout -q x', 'checkout x'],
    ])
  })

  it('a child named like the root, chmod of the root: still narrowed (the root is the same directory)', async () => {
    const p = pair()
    await started(p)
    sh(`echo x > ${path.basename(root)}`)
    expect(await same(p, 'child named like the root')).toBe(`paths ${JSON.stringify([path.basename(root)])}`)
    sh('chmod 755 .')
    expect(await same(p, 'chmod .')).toMatch(/^paths /)
  })

  it('a new ignored directory (npm install) is watched in full and stops the feed', async () => {
    sh('echo "node_modules/" > .gitignore && echo a > a.txt')
    const p = pair({ toplevel: root, excluded: [] }, { ...PATIENT, maxDirs: 50 })
    await started(p)
    sh('mkdir -p node_modules && cd node_modules && for i in $(seq 1 60); do mkdir -p p$i/lib; done')
    await same(p, 'npm install')
    expect(p.fed.watching().off).toBeUndefined()
  })

  it('close() before the first snapshot reached the feed leaks its watches', async () => {
    sh('mkdir -p a/b c')
    const before = inotifyWatches()
    const p = pair()
    const pending = p.fed.snapshot()
    p.fed.close()
    await pending
    expect(inotifyWatches() - before).toBe(0)
  })

  it('very long names and a deep path', async () => {
    const p = pair()
    await started(p)
    const long = 'x'.repeat(250)
    await steps(p, [
      [`mkdir -p ${Array(18).fill(long).join('/')} && echo deep > ${Array(16).fill(long).join('/')}/f`, 'deep'],
      [`echo deep2 > ${Array(16).fill(long).join('/')}/f && echo k > k`, 'deep later'],
    ])
    sh(`cd ${Array(8).fill(long).join('/')} && rm -rf ${long}`)
  })
})
