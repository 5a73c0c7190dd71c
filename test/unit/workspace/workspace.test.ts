/**
 * The workspace layer on real files in temp directories: capture before and
 * after a call, the files at a conversation point, plans with conflicts,
 * restores that can be undone, an interrupted restore that is repeated, and
 * the symlink and size rules.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { callPoint, workspaceFiles } from '../../support/workspace-files.ts'
import type { CallPoint, SessionWorkspace } from '../../../src/workspace/index.ts'
import { INLINE_MAX_BYTES } from '../../../src/workspace/session-workspace.ts'
import { pathProblem, relativeTo } from '../../../src/workspace/paths.ts'
import { readNoFollow } from '../../../src/workspace/safe-fs.ts'
import { value } from '../../support/messages.ts'

const { tmp, work, sha, file, write, read, workspaceDir, open } = workspaceFiles('workspace-')

/** A tool call at event seq `seq` that writes `files` (path → text, null deletes). */
function call(ws: SessionWorkspace, seq: number, files: Record<string, string | null>, w = seq + 1): CallPoint {
  const point = callPoint(seq, w)
  for (const [rel, text] of Object.entries(files)) {
    const outcome = ws.captureBefore(point, file(rel))
    expect(outcome.kind).toBe('captured')
    if (text === null) rmSync(file(rel))
    else write(rel, text)
  }
  ws.captureAfter(point)
  return point
}

describe('paths', () => {
  it('accepts only normalized relative paths inside the root, never .git', () => {
    expect(pathProblem('a/b.txt')).toBeUndefined()
    for (const bad of ['', '/a', 'a//b', 'a/./b', '../a', 'a/..', 'a\\b', 'a\0b', '.git/config'])
      expect(pathProblem(bad)).toBeDefined()
    expect(relativeTo('/w', '/w/a/b')).toBe('a/b')
    expect(relativeTo('/w', '/w')).toBeUndefined()
    expect(relativeTo('/w', '/wx/a')).toBeUndefined()
    expect(relativeTo('/w', '/w/.git/HEAD')).toBeUndefined()
  })
})

describe('reading without following links', () => {
  it('reports a link, a link on the way and a large file instead of reading them; a binary file is read', () => {
    write('real/a.txt', 'a')
    symlinkSync(file('real'), file('linked'))
    symlinkSync(file('real/a.txt'), file('link.txt'))
    write('big.txt', 'x'.repeat(100))
    writeFileSync(file('bin.dat'), Buffer.from([1, 0, 2]))
    expect(readNoFollow(work(), 'real/a.txt', 50).kind).toBe('file')
    expect(readNoFollow(work(), 'linked/a.txt', 50)).toEqual({ kind: 'skipped', reason: 'symlink-on-path' })
    expect(readNoFollow(work(), 'link.txt', 50)).toEqual({ kind: 'skipped', reason: 'symlink' })
    expect(readNoFollow(work(), 'big.txt', 50)).toEqual({ kind: 'skipped', reason: 'too-large', size: 100 })
    expect(readNoFollow(work(), 'bin.dat', 50)).toMatchObject({ kind: 'file', bytes: Buffer.from([1, 0, 2]) })
    expect(readNoFollow(work(), 'missing/x', 50)).toEqual({ kind: 'absent' })
  })
})

describe('checkpoints and restores', () => {
  it('records before- and after-images; the files at each point are what they were then', async () => {
    write('a.txt', 'a0\n')
    const ws = await open()
    call(ws, 10, { 'a.txt': 'a1\n', 'b.txt': 'b1\n' })
    call(ws, 20, { 'a.txt': 'a2\n' })
    call(ws, 30, { 'b.txt': null })
    const at = (seq: number) => Object.fromEntries(ws.filesAt(2 * seq).map((f) => [f.path, f.state]))
    expect(at(5)).toEqual({ 'a.txt': { kind: 'file', hash: sha('a0\n'), size: 3 }, 'b.txt': { kind: 'absent' } })
    expect(at(10)).toEqual({
      'a.txt': { kind: 'file', hash: sha('a1\n'), size: 3 },
      'b.txt': { kind: 'file', hash: sha('b1\n'), size: 3 },
    })
    expect(at(25)['a.txt']).toEqual({ kind: 'file', hash: sha('a2\n'), size: 3 })
    expect(at(40)).toEqual({ 'a.txt': { kind: 'file', hash: sha('a2\n'), size: 3 }, 'b.txt': { kind: 'absent' } })
    expect([...ws.changedByNode()]).toEqual([
      ['e10', ['a.txt', 'b.txt']],
      ['e20', ['a.txt']],
      ['e30', ['b.txt']],
    ])
  })

  it('plans, restores, and a second restore brings back exactly what the first replaced', async () => {
    write('a.txt', 'one\ntwo\nthree\n')
    const ws = await open()
    call(ws, 10, { 'a.txt': 'one\nTWO\nthree\n', 'new.txt': 'new\n' })
    const plan = ws.plan(2 * 5, 'e5')
    expect(plan.conflicts).toEqual([])
    expect(plan.entries.map((e) => [e.path, e.action, e.insertions, e.deletions])).toEqual([
      ['a.txt', 'update', 1, 1],
      ['new.txt', 'delete', 0, 1],
    ])
    expect(plan.stat).toMatchObject({ files: 2, updated: 1, deleted: 1, insertions: 1, deletions: 2 })
    const diff = value(ws.diff(2 * 5, 'a.txt')).diff
    expect(diff).toBe('--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-TWO\n+two\n three\n')
    const report = value(await ws.restore(plan, () => 'keep', 12))
    expect(report).toMatchObject({ updated: ['a.txt'], deleted: ['new.txt'], kept: [] })
    expect(read('a.txt')).toBe('one\ntwo\nthree\n')
    expect(read('new.txt')).toBeNull()
    // Back to the tip (seq 12, before the restore's key 25): the files the restore replaced.
    const back = ws.plan(2 * 12, 'e12')
    expect(back.conflicts).toEqual([])
    value(await ws.restore(back, () => 'keep', 13))
    expect(read('a.txt')).toBe('one\nTWO\nthree\n')
    expect(read('new.txt')).toBe('new\n')
    // No temporary file is left anywhere.
    expect(readdirSync(work()).sort()).toEqual(['a.txt', 'new.txt'])
  })

  it("a user's edit since the checkpoint is a conflict: kept unless overwritten, and an overwrite can be undone", async () => {
    write('a.txt', 'v0\n')
    const ws = await open()
    call(ws, 10, { 'a.txt': 'v1\n', 'b.txt': 'b1\n' })
    write('a.txt', 'mine\n') // the user's own edit
    const plan = ws.plan(2 * 5, 'e5')
    expect(plan.entries.map((e) => e.path)).toEqual(['b.txt'])
    expect(plan.conflicts).toMatchObject([
      { path: 'a.txt', reason: 'changed-outside', action: 'update', expected: { kind: 'file', hash: sha('v1\n') } },
    ])
    const kept = value(await ws.restore(plan, () => 'keep', 11))
    expect(kept).toMatchObject({ deleted: ['b.txt'], kept: ['a.txt'] })
    expect(read('a.txt')).toBe('mine\n')
    // Overwriting stores the user's version first; going back to the tip brings it back.
    const again = ws.plan(2 * 5, 'e5')
    expect(again.conflicts.map((c) => c.path)).toEqual(['a.txt'])
    value(await ws.restore(again, () => 'overwrite', 12))
    expect(read('a.txt')).toBe('v0\n')
    const undo = ws.plan(2 * 11, 'e11')
    expect(undo.conflicts).toEqual([])
    value(await ws.restore(undo, () => 'keep', 13))
    expect(read('a.txt')).toBe('mine\n')
  })

  it("back and forward undo restores exactly, and the files' history survives a restart", async () => {
    write('a.txt', 'a0\n')
    const ws = await open()
    call(ws, 10, { 'a.txt': 'a1\n', 'b.txt': 'b1\n' })
    ws.flush()
    expect(ws.canStep('back')).toBe(false)
    value(await ws.restore(ws.plan(2 * 5, 'e5'), () => 'keep', 11))
    write('a.txt', 'mine\n') // the user's edit after the restore
    value(await ws.restore(ws.plan(2 * 5, 'e5'), () => 'overwrite', 12))
    expect([read('a.txt'), read('b.txt')]).toEqual(['a0\n', null])
    // A back undoes the latest restore: the user's edit comes back, not the agent's a1 the first restore replaced.
    const back = ws.plan(2 * 11, 'e11', 'back')
    expect(back.entries.map((e) => [e.path, e.action])).toEqual([['a.txt', 'update']])
    value(await ws.restore(back, () => 'keep', 13, 'back'))
    expect(read('a.txt')).toBe('mine\n')
    // A fresh process reads the history from the journal: forward undoes that back, back again undoes it.
    const reopened = await open()
    expect(reopened.canStep('forward')).toBe(true)
    value(await reopened.restore(reopened.plan(2 * 5, 'e5', 'forward'), () => 'keep', 14, 'forward'))
    expect(read('a.txt')).toBe('a0\n')
    value(await reopened.restore(reopened.plan(2 * 11, 'e11', 'back'), () => 'keep', 15, 'back'))
    value(await reopened.restore(reopened.plan(2 * 11, 'e11', 'back'), () => 'keep', 16, 'back'))
    expect([read('a.txt'), read('b.txt')]).toEqual(['a1\n', 'b1\n'])
    expect(reopened.canStep('back')).toBe(false)
  })

  it('an interrupted restore leaves every file old or new, no temporary file after a reopen, and repeats to the same result', async () => {
    write('a.txt', 'a0\n')
    write('b.txt', 'b0\n')
    write('c.txt', 'c0\n')
    const first = await open()
    call(first, 10, { 'a.txt': 'a1\n', 'b.txt': 'b1\n', 'c.txt': 'c1\n' })
    first.flush() // a second instance reads the journal: the after-images must be in it
    // Stop (by throwing, as a crash would) right before the second file is renamed into place.
    const stopping = await open({
      hook: (index) => {
        if (index === 2) throw new Error('killed')
      },
    })
    const failed = await stopping.restore(stopping.plan(2 * 5, 'e5'), () => 'keep', 11)
    expect(!failed.ok && failed.error.code).toBe('WORKSPACE_IO')
    expect([read('a.txt'), read('b.txt'), read('c.txt')]).toEqual(['a0\n', 'b1\n', 'c1\n'])
    // The stopped file was staged (with the rest of its round) next to its target.
    const temps = readdirSync(work()).filter((n) => n.includes('dsh-restore'))
    expect(temps.some((n) => n.startsWith('.b.txt.dsh-restore-'))).toBe(true)
    // After a restart: the interruption is reported and its leftover removed; the repeat completes it.
    const reopened = await open()
    expect(reopened.status().interrupted).toHaveLength(1)
    expect(readdirSync(work()).sort()).toEqual(['a.txt', 'b.txt', 'c.txt'])
    const repeat = reopened.plan(2 * 5, 'e5')
    expect(repeat.conflicts).toEqual([])
    expect(repeat.entries.map((e) => e.path)).toEqual(['b.txt', 'c.txt'])
    value(await reopened.restore(repeat, () => 'keep', 12))
    expect([read('a.txt'), read('b.txt'), read('c.txt')]).toEqual(['a0\n', 'b0\n', 'c0\n'])
  })

  it('checkpoints a binary file byte for byte, shows it by size and hash, never as a text diff', async () => {
    const ws = await open({ maxFileBytes: 4096 })
    // A NUL early, every byte value, and bytes that are not UTF-8: any decoding would change them.
    const v1 = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80, 0x0d, 0x0a, ...Array.from({ length: 256 }, (_, i) => i)])
    const v2 = Buffer.concat([v1, Buffer.from([0xc3, 0x28, 0])])
    const binSha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
    const point = (seq: number): CallPoint => ({
      key: 2 * seq,
      node: `e${seq}`,
      call: `c${seq}`,
      tool: 'write',
      w: seq + 1,
    })
    const p10 = point(10)
    ws.captureBefore(p10, file('img.bin'))
    writeFileSync(file('img.bin'), v1)
    ws.captureAfter(p10)
    const p20 = point(20)
    ws.captureBefore(p20, file('img.bin'))
    writeFileSync(file('img.bin'), v2)
    ws.captureAfter(p20)
    expect(ws.stateAt('img.bin', 2 * 10)).toEqual({ kind: 'file', hash: binSha(v1), size: v1.length, binary: true })
    const plan = ws.plan(2 * 10, 'e10')
    expect(plan.entries).toEqual([
      {
        path: 'img.bin',
        action: 'update',
        current: { kind: 'file', hash: binSha(v2), size: v2.length, binary: true },
        target: { kind: 'file', hash: binSha(v1), size: v1.length, binary: true },
        insertions: 0,
        deletions: 0,
      },
    ])
    expect(value(ws.diff(2 * 10, 'img.bin'))).toMatchObject({ diff: '', target: { binary: true } })
    value(await ws.restore(plan, () => 'keep', 21))
    expect(readFileSync(file('img.bin'))).toEqual(v1)
    // Before the first write: the file did not exist; and forward again to the tip, byte for byte.
    value(await ws.restore(ws.plan(2 * 5, 'e5'), () => 'keep', 22))
    expect(existsSync(file('img.bin'))).toBe(false)
    value(await ws.restore(ws.plan(2 * 20, 'e20'), () => 'keep', 23))
    expect(readFileSync(file('img.bin'))).toEqual(v2)
    // A fresh process reads the binary flag back from the journal.
    const reopened = await open({ maxFileBytes: 4096 })
    expect(reopened.stateAt('img.bin', 2 * 20)).toEqual({
      kind: 'file',
      hash: binSha(v2),
      size: v2.length,
      binary: true,
    })
  })

  it('compares two points: exactly the files whose checkpointed states differ, each with its diff on demand', async () => {
    write('same.txt', 's\n')
    write('a.txt', 'a0\n')
    const ws = await open()
    call(ws, 10, { 'a.txt': 'a1\n', 'same.txt': 's\n', 'new.txt': 'n\n' })
    call(ws, 20, { 'a.txt': 'a2\n', 'new.txt': null })
    call(ws, 30, { 'same.txt': 's2\n' })
    call(ws, 40, { 'same.txt': 's\n' })
    // e10 vs e40: same.txt changed and changed back (equal hashes), new.txt deleted, a.txt changed.
    expect(ws.compareFiles(2 * 10, 2 * 40)).toEqual([
      {
        path: 'a.txt',
        a: { kind: 'file', hash: sha('a1\n'), size: 3 },
        b: { kind: 'file', hash: sha('a2\n'), size: 3 },
      },
      { path: 'new.txt', a: { kind: 'file', hash: sha('n\n'), size: 2 }, b: { kind: 'absent' } },
    ])
    expect(ws.compareFiles(2 * 40, 2 * 40)).toEqual([])
    expect(ws.compareFiles(2 * 5, 2 * 30).map((f) => f.path)).toEqual(['a.txt', 'same.txt'])
    expect(value(ws.compareDiff(2 * 10, 2 * 40, 'a.txt')).diff).toBe(
      '--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-a1\n+a2\n',
    )
    expect(value(ws.compareDiff(2 * 10, 2 * 40, 'same.txt')).diff).toBe('')
    expect(ws.compareDiff(2 * 10, 2 * 40, '../x')).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } })
  })

  it('skips large files with a clear reason, and never restores through a link', async () => {
    const ws = await open({ maxFileBytes: 10 })
    const point: CallPoint = { key: 20, node: 'e10', call: 'c', tool: 'write', w: 11 }
    write('big.txt', 'x'.repeat(50))
    const outcome = ws.captureBefore(point, file('big.txt'))
    expect(outcome).toMatchObject({ kind: 'captured', state: { kind: 'skipped', reason: 'too-large', size: 50 } })
    expect(ws.skipText({ kind: 'skipped', reason: 'too-large', size: 50 })).toBe(
      'not checkpointed: 50 bytes is over the 10-byte limit (maxFileBytes)',
    )
    write('big.txt', 'small')
    write('dir/a.txt', 'a0')
    ws.captureBefore(point, file('dir/a.txt'))
    write('dir/a.txt', 'a1')
    ws.captureAfter(point)
    // The user swaps the directory for a link to somewhere else.
    rmSync(file('dir'), { recursive: true })
    mkdirSync(path.join(tmp(), 'elsewhere'))
    writeFileSync(path.join(tmp(), 'elsewhere', 'a.txt'), 'untouched')
    symlinkSync(path.join(tmp(), 'elsewhere'), file('dir'))
    const plan = ws.plan(2 * 5, 'e5')
    expect(plan.blocked.map((b) => [b.path, b.reason])).toEqual([
      ['big.txt', 'target-not-checkpointed'],
      ['dir/a.txt', 'current-not-replaceable'],
    ])
    value(await ws.restore(plan, () => 'overwrite', 12))
    expect(readFileSync(path.join(tmp(), 'elsewhere', 'a.txt'), 'utf8')).toBe('untouched')
    expect(ws.captureBefore(point, path.join(tmp(), 'elsewhere', 'a.txt'))).toMatchObject({ kind: 'outside' })
  })

  it('an after-image lost in a crash (it waits for the next journal line) makes that change unknown: a conflict, never a silent overwrite', async () => {
    write('a.txt', 'a0\n')
    const ws = await open()
    call(ws, 10, { 'a.txt': 'a1\n' })
    // "Crash": a second process reads the journal before the after-image was journaled. (Its 50 ms timer
    // cannot fire in between: nothing here leaves the current macrotask, `open` only chains promises.)
    const crashed = await open()
    const plan = crashed.plan(2 * 5, 'e5')
    expect(plan.conflicts.map((c) => [c.path, c.reason])).toEqual([['a.txt', 'unknown-since-checkpoint']])
    expect(plan.entries).toEqual([])
    // The next capture journals it (one line, one fsync for both): now nothing is unknown.
    call(ws, 20, { 'b.txt': 'b1\n' })
    ws.flush()
    const later = await open()
    expect(later.plan(2 * 5, 'e5').conflicts).toEqual([])
    expect(later.stateAt('a.txt', 2 * 10)).toEqual({ kind: 'file', hash: sha('a1\n'), size: 3 })
  })

  it('stores each content once', async () => {
    write('a.txt', 'same\n')
    const ws = await open()
    call(ws, 10, { 'a.txt': 'other\n', 'b.txt': 'same\n' })
    call(ws, 20, { 'a.txt': 'same\n' })
    const pack = readFileSync(path.join(workspaceDir(), 'blobs.pack'), 'latin1')
    const stored = [...pack.matchAll(/^B ([0-9a-f]{64}) \d+$/gm)].map((m) => m[1])
    expect(stored.sort()).toEqual([sha('other\n'), sha('same\n')].sort())
  })

  it('a torn last content (a crash during a put) is cut off; a damaged one is never restored', async () => {
    // a1 is over INLINE_MAX_BYTES: its only copy is the pack's (small contents are repaired from the journal: workspace-crash.test.ts).
    const a1 = 'a1\n' + 'x'.repeat(INLINE_MAX_BYTES)
    write('a.txt', 'a0\n')
    const ws = await open()
    call(ws, 10, { 'a.txt': a1 })
    ws.flush()
    const packFile = path.join(workspaceDir(), 'blobs.pack')
    writeFileSync(packFile, Buffer.concat([readFileSync(packFile), Buffer.from(`B ${sha('torn')} 400\npartial`)]))
    const reopened = await open()
    call(reopened, 20, { 'a.txt': 'a2\n' })
    reopened.flush()
    expect(value(await reopened.restore(reopened.plan(2 * 5, 'e5'), () => 'keep', 21))).toMatchObject({
      updated: ['a.txt'],
    })
    expect(read('a.txt')).toBe('a0\n')
    expect(readFileSync(packFile, 'latin1')).not.toContain('partial')
    // Flip a byte of the stored a1: restoring e10 refuses that file instead of writing damage.
    const bytes = readFileSync(packFile)
    const at = bytes.indexOf('a1\n')
    bytes[at] = 'z'.charCodeAt(0)
    writeFileSync(packFile, bytes)
    const damaged = await open()
    const report = value(await damaged.restore(damaged.plan(2 * 10, 'e10'), () => 'keep', 22))
    expect(report.blocked.map((b) => [b.path, b.reason])).toEqual([['a.txt', 'content-damaged']])
    expect(read('a.txt')).toBe('a0\n')
  })
})
