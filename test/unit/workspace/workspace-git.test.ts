/**
 * Shell changes in a real git work tree: snapshots before and after a
 * "command" (the test changes files itself, as a shell would), exact bytes
 * (CRLF under `text=auto`), .gitignore honoured, large files reported, and
 * the user's repository left byte-identical (index, refs, stash, config).
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { tempEach } from '../../support/temp-each.ts'
import { WorkspaceRegistry, type CallPoint } from '../../../src/workspace/index.ts'
import { value } from '../../support/messages.ts'

const temp = tempEach('workspace-git-')
let tmp: string
let repo: string
let sidecar: string

// The test's own `git status` must not refresh the user's index either (GIT_OPTIONAL_LOCKS=0).
const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GIT_OPTIONAL_LOCKS: '0',
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  }).toString()
const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')

/** Every file under .git with its content hash: the user's repository, byte for byte. */
function repositoryState(): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name)
      if (statSync(full).isDirectory()) walk(full)
      else out[path.relative(repo, full)] = sha(readFileSync(full))
    }
  }
  walk(path.join(repo, '.git'))
  return out
}

beforeEach(() => {
  tmp = temp()
  repo = path.join(tmp, 'repo')
  sidecar = path.join(tmp, 'sidecar')
  mkdirSync(repo)
  git('init', '-q')
  writeFileSync(path.join(repo, '.gitattributes'), '* text=auto\n')
  writeFileSync(path.join(repo, '.gitignore'), 'build/\n')
  writeFileSync(path.join(repo, 'crlf.txt'), 'one\r\ntwo\r\n')
  writeFileSync(path.join(repo, 'keep.txt'), 'keep\n')
  git('add', '-A')
  git('commit', '-qm', 'init')
  writeFileSync(path.join(repo, 'staged.txt'), 'staged\n')
  git('add', 'staged.txt')
})

describe('shell snapshots through git', () => {
  it('records what a command changed, with exact bytes, and leaves the user repository untouched', async () => {
    const registry = new WorkspaceRegistry({ sidecarRoot: sidecar, enabled: true, maxFileBytes: 64, shell: 'auto' })
    const ws = value(await registry.get('s', path.join(repo)))
    expect(ws.shell).toBe('git')
    const userRepo = repositoryState()
    const before = (await ws.shellBefore())!
    // "The command": edit a CRLF file, delete one, create one, write an ignored and a large file.
    writeFileSync(path.join(repo, 'crlf.txt'), 'one\r\nTWO\r\n')
    rmSync(path.join(repo, 'keep.txt'))
    mkdirSync(path.join(repo, 'src'))
    writeFileSync(path.join(repo, 'src', 'new.sh'), '#!/bin/sh\n', { mode: 0o755 })
    mkdirSync(path.join(repo, 'build'))
    writeFileSync(path.join(repo, 'build', 'out.js'), 'ignored\n')
    writeFileSync(path.join(repo, 'huge.log'), 'x'.repeat(100))
    const point: CallPoint = { key: 20, node: 'e10', call: 'call-1', tool: 'bash', w: 11 }
    const changes = value(await ws.shellAfter(point, before))
    expect(changes).toEqual([
      {
        path: 'crlf.txt',
        before: { kind: 'file', hash: sha('one\r\ntwo\r\n'), size: 10 },
        after: { kind: 'file', hash: sha('one\r\nTWO\r\n'), size: 10 },
      },
      { path: 'huge.log', before: { kind: 'absent' }, after: { kind: 'skipped', reason: 'too-large', size: 100 } },
      { path: 'keep.txt', before: { kind: 'file', hash: sha('keep\n'), size: 5 }, after: { kind: 'absent' } },
      {
        path: 'src/new.sh',
        before: { kind: 'absent' },
        after: { kind: 'file', hash: sha('#!/bin/sh\n'), size: 10, exec: true },
      },
    ])
    expect(repositoryState()).toEqual(userRepo)
    expect(git('status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).sort()).toEqual([
      ' D keep.txt',
      ' M crlf.txt',
      '?? huge.log',
      '?? src/new.sh',
      'A  staged.txt',
    ])
    expect(git('stash', 'list')).toBe('')
    // Restoring the point before the command brings the exact bytes back (CRLF kept), deletes what it created.
    value(await ws.restore(ws.plan(2 * 5, 'e5'), () => 'keep', 12))
    expect(readFileSync(path.join(repo, 'crlf.txt'))).toEqual(Buffer.from('one\r\ntwo\r\n'))
    expect(readFileSync(path.join(repo, 'keep.txt'), 'utf8')).toBe('keep\n')
    expect(existsSync(path.join(repo, 'src', 'new.sh'))).toBe(false)
    expect(existsSync(path.join(repo, 'huge.log'))).toBe(true)
    expect(readFileSync(path.join(repo, 'build', 'out.js'), 'utf8')).toBe('ignored\n')
    // Forward again: the script comes back executable.
    value(await ws.restore(ws.plan(2 * 11, 'e11'), () => 'keep', 13))
    expect(statSync(path.join(repo, 'src', 'new.sh')).mode & 0o111).not.toBe(0)
    expect(repositoryState()).toEqual(userRepo)
  })

  it('a second command only sees its own changes', async () => {
    const registry = new WorkspaceRegistry({ sidecarRoot: sidecar, enabled: true, maxFileBytes: 1024, shell: 'auto' })
    const ws = value(await registry.get('s', path.join(repo)))
    const first = (await ws.shellBefore())!
    writeFileSync(path.join(repo, 'a.txt'), 'a\n')
    value(await ws.shellAfter({ key: 20, node: 'e10', call: 'c1', tool: 'bash', w: 11 }, first))
    writeFileSync(path.join(repo, 'user.txt'), 'the user, between commands\n')
    const second = (await ws.shellBefore())!
    writeFileSync(path.join(repo, 'b.txt'), 'b\n')
    const changes = value(await ws.shellAfter({ key: 40, node: 'e20', call: 'c2', tool: 'bash', w: 21 }, second))
    expect(changes.map((c) => c.path)).toEqual(['b.txt'])
  })

  it('with shell: off nothing is snapshotted', async () => {
    const plain = path.join(tmp, 'plain')
    mkdirSync(plain)
    const registry = new WorkspaceRegistry({ sidecarRoot: sidecar, enabled: true, maxFileBytes: 1024, shell: 'off' })
    const ws = value(await registry.get('p', plain))
    expect(ws.shell).toBe('off')
    expect(await ws.shellBefore()).toBeUndefined()
  })
})

/** Every file and link under `dir` (relative path → content hash or link target): the folder as it is on disk. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = path.join(at, name)
      const stats = lstatSync(full)
      const rel = path.relative(dir, full)
      if (stats.isSymbolicLink()) out[rel] = `-> ${readlinkSync(full)}`
      else if (stats.isDirectory()) walk(full)
      else out[rel] = `${sha(readFileSync(full))}${stats.mode & 0o111 ? ' x' : ''}`
    }
  }
  walk(dir)
  return out
}

/** A binary file as a shell makes one (a NUL early, bytes that are not UTF-8). */
const DB = Buffer.from([0x53, 0, 0xff, 0xfe, 0x0d, 0x0a])

describe('shell snapshots in a plain folder', () => {
  let plain: string
  let outside: string
  beforeEach(() => {
    plain = path.join(tmp, 'plain')
    outside = path.join(tmp, 'outside')
    mkdirSync(plain)
    mkdirSync(outside)
    writeFileSync(path.join(outside, 'secret.txt'), 'outside the root\n')
    writeFileSync(path.join(plain, 'keep.txt'), 'keep\n')
    writeFileSync(path.join(plain, 'crlf.txt'), 'one\r\ntwo\r\n')
    writeFileSync(path.join(plain, '.gitignore'), 'cache/\n')
  })

  it('records what a command changed through a git directory of our own, and restores it both ways', async () => {
    const registry = new WorkspaceRegistry({ sidecarRoot: sidecar, enabled: true, maxFileBytes: 64, shell: 'auto' })
    const ws = value(await registry.get('p', plain))
    expect(ws.shell).toBe('folder')
    const outsideBefore = tree(outside)
    const at5 = tree(plain)
    const before = (await ws.shellBefore())!
    // "The command": edit, delete, create nested and executable, a link out of the root, an ignored and a large file.
    writeFileSync(path.join(plain, 'crlf.txt'), 'one\r\nTWO\r\n')
    rmSync(path.join(plain, 'keep.txt'))
    mkdirSync(path.join(plain, 'src', 'deep'), { recursive: true })
    writeFileSync(path.join(plain, 'src', 'deep', 'new.sh'), '#!/bin/sh\n', { mode: 0o755 })
    writeFileSync(path.join(plain, 'naïve ü.txt'), 'ü\n')
    symlinkSync(path.join(outside, 'secret.txt'), path.join(plain, 'link.txt'))
    mkdirSync(path.join(plain, 'cache'))
    writeFileSync(path.join(plain, 'cache', 'c.bin'), 'ignored\n')
    writeFileSync(path.join(plain, 'huge.log'), 'x'.repeat(100))
    writeFileSync(path.join(plain, 'data.db'), DB)
    const changes = value(await ws.shellAfter({ key: 20, node: 'e10', call: 'c1', tool: 'bash', w: 11 }, before))
    expect(changes).toEqual([
      {
        path: 'crlf.txt',
        before: { kind: 'file', hash: sha('one\r\ntwo\r\n'), size: 10 },
        after: { kind: 'file', hash: sha('one\r\nTWO\r\n'), size: 10 },
      },
      { path: 'data.db', before: { kind: 'absent' }, after: { kind: 'file', hash: sha(DB), size: 6, binary: true } },
      { path: 'huge.log', before: { kind: 'absent' }, after: { kind: 'skipped', reason: 'too-large', size: 100 } },
      { path: 'keep.txt', before: { kind: 'file', hash: sha('keep\n'), size: 5 }, after: { kind: 'absent' } },
      { path: 'link.txt', before: { kind: 'absent' }, after: { kind: 'skipped', reason: 'symlink' } },
      { path: 'naïve ü.txt', before: { kind: 'absent' }, after: { kind: 'file', hash: sha('ü\n'), size: 3 } },
      {
        path: 'src/deep/new.sh',
        before: { kind: 'absent' },
        after: { kind: 'file', hash: sha('#!/bin/sh\n'), size: 10, exec: true },
      },
    ])
    const at11 = tree(plain)
    expect(existsSync(path.join(plain, '.git'))).toBe(false)
    // Back to before the command: exact bytes, created files deleted, the link, ignored and large files left alone.
    value(await ws.restore(ws.plan(2 * 5, 'e5'), () => 'keep', 12))
    const { ['link.txt']: link, ['huge.log']: huge, ['cache/c.bin']: cache, ...restored } = tree(plain)
    expect(restored).toEqual(at5)
    expect([link, huge, cache]).toEqual([at11['link.txt'], at11['huge.log'], at11['cache/c.bin']])
    // And forward again: every file as the command left it.
    value(await ws.restore(ws.plan(2 * 11, 'e11'), () => 'keep', 13))
    expect(tree(plain)).toEqual(at11)
    expect(existsSync(path.join(plain, '.git'))).toBe(false)
    expect(tree(outside)).toEqual(outsideBefore)
    // The snapshots' git directory is in the sidecar.
    expect(
      readdirSync(sidecar, { recursive: true }).some((p) => String(p).endsWith(path.join('workspace', 'git', 'HEAD'))),
    ).toBe(true)
  })

  it('reads what git lists itself and writes our index in batches: every later call still sees exactly its own changes, after a restart too', async () => {
    const open = async () =>
      value(
        await new WorkspaceRegistry({ sidecarRoot: sidecar, enabled: true, maxFileBytes: 1024, shell: 'auto' }).get(
          'p',
          plain,
        ),
      )
    let ws = await open()
    let seq = 10
    const command = async (change: () => void) => {
      const before = (await ws.shellBefore())!
      change()
      seq += 10
      return value(
        await ws.shellAfter({ key: 2 * seq, node: `e${seq}`, call: `c${seq}`, tool: 'bash', w: seq + 1 }, before),
      )
    }
    const file = (i: number) => path.join(plain, 'many', `f${i}.txt`)
    // 40 new files: past FLUSH_AT, so our index is written in the middle of the session.
    mkdirSync(path.join(plain, 'many'))
    const created = await command(() => {
      for (let i = 0; i < 40; i++) writeFileSync(file(i), `v0 ${i}\n`)
    })
    expect(created).toHaveLength(40)
    // Changed again (their before-images are the contents read a call ago), one only made executable, one deleted.
    const changed = await command(() => {
      writeFileSync(file(1), 'v1 1\n')
      writeFileSync(file(2), 'v1 2\n')
      chmodSync(file(3), 0o755)
      rmSync(file(4))
    })
    expect(changed).toEqual([
      {
        path: 'many/f1.txt',
        before: { kind: 'file', hash: sha('v0 1\n'), size: 5 },
        after: { kind: 'file', hash: sha('v1 1\n'), size: 5 },
      },
      {
        path: 'many/f2.txt',
        before: { kind: 'file', hash: sha('v0 2\n'), size: 5 },
        after: { kind: 'file', hash: sha('v1 2\n'), size: 5 },
      },
      {
        path: 'many/f3.txt',
        before: { kind: 'file', hash: sha('v0 3\n'), size: 5 },
        after: { kind: 'file', hash: sha('v0 3\n'), size: 5, exec: true },
      },
      { path: 'many/f4.txt', before: { kind: 'file', hash: sha('v0 4\n'), size: 5 }, after: { kind: 'absent' } },
    ])
    // Rewritten with the same bytes: nothing changed.
    expect(await command(() => writeFileSync(file(1), 'v1 1\n'))).toEqual([])
    // A new process on the same sidecar: the first snapshot reads our index back.
    ws.flush()
    ws = await open()
    const later = await command(() => {
      writeFileSync(file(2), 'v2 2\n')
      writeFileSync(file(4), 'back\n')
    })
    expect(later).toEqual([
      {
        path: 'many/f2.txt',
        before: { kind: 'file', hash: sha('v1 2\n'), size: 5 },
        after: { kind: 'file', hash: sha('v2 2\n'), size: 5 },
      },
      { path: 'many/f4.txt', before: { kind: 'absent' }, after: { kind: 'file', hash: sha('back\n'), size: 5 } },
    ])
    // Back to before the 40 files: exact bytes, the created ones gone.
    value(await ws.restore(ws.plan(2 * 5, 'e5'), () => 'keep', seq + 5))
    expect(readdirSync(path.join(plain, 'many'))).toEqual([])
    expect(existsSync(path.join(plain, '.git'))).toBe(false)
  })

  it('keeps a sidecar inside the folder out of its snapshots', async () => {
    const inner = path.join(plain, '.dsh')
    const registry = new WorkspaceRegistry({ sidecarRoot: inner, enabled: true, maxFileBytes: 1024, shell: 'auto' })
    const ws = value(await registry.get('p', plain))
    const before = (await ws.shellBefore())!
    writeFileSync(path.join(plain, 'a.txt'), 'a\n')
    const changes = value(await ws.shellAfter({ key: 20, node: 'e10', call: 'c1', tool: 'bash', w: 11 }, before))
    expect(changes.map((c) => c.path)).toEqual(['a.txt'])
    const second = (await ws.shellBefore())!
    writeFileSync(path.join(plain, 'b.txt'), 'b\n')
    const next = value(await ws.shellAfter({ key: 40, node: 'e20', call: 'c2', tool: 'bash', w: 21 }, second))
    expect(next.map((c) => c.path)).toEqual(['b.txt'])
    expect(existsSync(path.join(plain, '.git'))).toBe(false)
  })
})
