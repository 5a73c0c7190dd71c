/**
 * Crash safety of a file tool's checkpoint (docs/workspace.md, "Crash
 * safety"), one crash point at a time, on real files. A crash is simulated by
 * putting the sidecar's files back into the state a power cut at that point
 * can leave (the line or the pack copy not on disk, torn, or damaged) and
 * opening the workspace again in a fresh registry (a new process: nothing of
 * the old one's memory survives). Each case then checks that nothing is lost
 * (every recorded state restores to its exact bytes) and nothing is
 * misattributed (a call whose checkpoint never became durable changed
 * nothing, because the tool body writes only after the capture returns).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { callPoint, workspaceFiles } from '../../support/workspace-files.ts'
import type { SessionWorkspace } from '../../../src/workspace/index.ts'
import { INLINE_MAX_BYTES } from '../../../src/workspace/session-workspace.ts'
import { value } from '../../support/messages.ts'

const { sha, file, write, read, workspaceDir, open } = workspaceFiles('workspace-crash-')
const packFile = () => path.join(workspaceDir(), 'blobs.pack')
const journalFile = () => {
  const dir = workspaceDir()
  const session = readdirSync(dir).find((name) => name !== 'blobs.pack' && name !== 'git')!
  return path.join(dir, session, 'journal.jsonl')
}
const sizeOf = (p: string) => (existsSync(p) ? readFileSync(p).length : 0)

/** A whole tool call: capture, the tool's write, the call's end, journaled. */
function call(ws: SessionWorkspace, seq: number, rel: string, text: string): void {
  const p = callPoint(seq)
  expect(ws.captureBefore(p, file(rel)).kind).toBe('captured')
  write(rel, text)
  ws.captureAfter(p)
  ws.flush()
}

/** a.txt written as a0, then changed to a1 by a call at e10. */
async function a1AtE10(): Promise<SessionWorkspace> {
  write('a.txt', 'a0\n')
  const ws = await open()
  call(ws, 10, 'a.txt', 'a1\n')
  return ws
}

/**
 * The user's own edit (a2) captured by a call at e20 whose journal line never reached the disk (the tool
 * never wrote: it runs after the capture returns), its orphan pack copy surviving but damaged (same length,
 * a flipped byte). Returns where in the pack the damaged copy starts.
 */
function damagedOrphanA2(ws: SessionWorkspace): number {
  const journalBefore = readFileSync(journalFile())
  write('a.txt', 'a2\n')
  const packStart = sizeOf(packFile())
  ws.captureBefore(callPoint(20), file('a.txt'))
  writeFileSync(journalFile(), journalBefore)
  const pack = readFileSync(packFile())
  const at = pack.indexOf('a2\n', packStart)
  pack[at] = 'z'.charCodeAt(0)
  writeFileSync(packFile(), pack)
  return at
}

/** Restore to the point before `seq` and back, checking exact bytes both ways. */
async function roundTrip(
  ws: SessionWorkspace,
  rel: string,
  atSeq: number,
  expected: string,
  tip: string,
  w: number,
): Promise<void> {
  const plan = ws.plan(2 * atSeq, `e${atSeq}`)
  expect(plan.blocked).toEqual([])
  expect(plan.conflicts).toEqual([])
  value(await ws.restore(plan, () => 'keep', w))
  expect(read(rel)).toBe(expected)
  value(await ws.restore(ws.plan(2 * w, `e${w}`), () => 'keep', w + 1))
  expect(read(rel)).toBe(tip)
}

describe('a file-tool checkpoint is one journal line carrying the content', () => {
  it('a small before-image travels in its journal line; the pack gets a copy; a stored content is referred to by hash', async () => {
    write('a.txt', 'a0\n')
    const ws = await open()
    const p = callPoint(10)
    ws.captureBefore(p, file('a.txt'))
    const line = readFileSync(journalFile(), 'utf8').trim().split('\n').at(-1)!
    // The line names the content and carries its bytes.
    expect(line).toContain(sha('a0\n'))
    expect(line).toContain(Buffer.from('a0\n').toString('base64'))
    expect(readFileSync(packFile(), 'latin1')).toBe(`B ${sha('a0\n')} 3\na0\n\n`)
    // A content stored already is referred to by hash only.
    write('b.txt', 'a0\n')
    ws.captureBefore(p, file('b.txt'))
    const second = readFileSync(journalFile(), 'utf8').trim().split('\n').at(-1)!
    expect(second).toContain('"b.txt"')
    expect(second).not.toContain(Buffer.from('a0\n').toString('base64'))
  })
})

describe('crash points of a checkpoint: nothing lost, nothing misattributed', () => {
  it('the pack copy is written, the journal line never is: the call changed nothing, and a damaged orphan copy is never trusted', async () => {
    const ws = await a1AtE10()
    // Crash: the line did not reach the disk; the orphan pack copy of a2 survived, but damaged.
    expect(damagedOrphanA2(ws)).toBeGreaterThan(0)
    const reopened = await open()
    expect([...reopened.changedByNode()]).toEqual([['e10', ['a.txt']]])
    expect(reopened.status().interrupted).toEqual([])
    expect(read('a.txt')).toBe('a2\n')
    // The same content captured again must get a good durable copy, not lean on the damaged orphan.
    call(reopened, 30, 'a.txt', 'a3\n')
    const later = await open()
    await roundTrip(later, 'a.txt', 25, 'a2\n', 'a3\n', 40)
    await roundTrip(later, 'a.txt', 5, 'a0\n', 'a3\n', 50)
  })

  it('a restore that replaces a file whose only pack copy is a damaged orphan stores a good copy first, so it can be undone', async () => {
    damagedOrphanA2(await a1AtE10())
    const reopened = await open()
    const plan = reopened.plan(2 * 5, 'e5')
    expect(plan.conflicts.map((c) => c.path)).toEqual(['a.txt'])
    value(await reopened.restore(plan, () => 'overwrite', 30))
    expect(read('a.txt')).toBe('a0\n')
    const undo = reopened.plan(2 * 30, 'e30')
    expect(undo.blocked).toEqual([])
    value(await reopened.restore(undo, () => 'keep', 31))
    expect(read('a.txt')).toBe('a2\n')
  })

  it('a torn journal line (a crash during its write) is cut off: the call changed nothing, the next one journals normally', async () => {
    const ws = await a1AtE10()
    const journalBefore = sizeOf(journalFile())
    ws.captureBefore(callPoint(20), file('a.txt'))
    const full = sizeOf(journalFile())
    truncateSync(journalFile(), journalBefore + Math.floor((full - journalBefore) / 2))
    const reopened = await open()
    expect([...reopened.changedByNode()]).toEqual([['e10', ['a.txt']]])
    expect(read('a.txt')).toBe('a1\n')
    call(reopened, 30, 'a.txt', 'a3\n')
    const later = await open()
    expect([...later.changedByNode()]).toEqual([
      ['e10', ['a.txt']],
      ['e30', ['a.txt']],
    ])
    await roundTrip(later, 'a.txt', 25, 'a1\n', 'a3\n', 40)
    await roundTrip(later, 'a.txt', 5, 'a0\n', 'a3\n', 50)
  })

  it('the journal line is durable, its pack copy is missing: the next open rewrites it from the line', async () => {
    const ws = await a1AtE10()
    call(ws, 20, 'a.txt', 'a2\n')
    // Crash: none of the pack's unsynced copies reached the disk.
    rmSync(packFile())
    const reopened = await open()
    expect(reopened.problems).toEqual([])
    expect(readFileSync(packFile(), 'latin1')).toContain(`B ${sha('a0\n')} 3\n`)
    await roundTrip(reopened, 'a.txt', 5, 'a0\n', 'a2\n', 30)
    await roundTrip(reopened, 'a.txt', 15, 'a1\n', 'a2\n', 40)
  })

  it('the journal line is durable, its pack copy torn or damaged: the next open replaces it', async () => {
    const ws = await a1AtE10()
    const packStart = sizeOf(packFile())
    call(ws, 20, 'a.txt', 'a2\n')
    // a0's copy damaged in place, a2's (the last entry) torn.
    const pack = readFileSync(packFile())
    pack[pack.indexOf('a0\n')] = 'z'.charCodeAt(0)
    writeFileSync(packFile(), pack.subarray(0, pack.indexOf('a2\n', packStart) + 1))
    const reopened = await open()
    await roundTrip(reopened, 'a.txt', 5, 'a0\n', 'a2\n', 30)
    await roundTrip(reopened, 'a.txt', 15, 'a1\n', 'a2\n', 40)
  })

  it('a large content is durable in the pack before its line: a pack that cannot be written fails the capture and journals nothing', async () => {
    const big = 'b'.repeat(INLINE_MAX_BYTES + 1)
    write('big.txt', big)
    await a1AtE10()
    const line = readFileSync(journalFile(), 'utf8')
    // The pack is replaced by something it cannot be written through.
    rmSync(packFile())
    mkdirSync(packFile())
    const reopened = await open()
    expect(reopened.captureBefore(callPoint(20), file('big.txt'))).toMatchObject({ kind: 'failed', path: 'big.txt' })
    expect(readFileSync(journalFile(), 'utf8')).toBe(line)
    rmSync(packFile(), { recursive: true })
    // Written normally, the large content is in the pack only (the line refers to it by hash).
    const fine = await open()
    call(fine, 30, 'big.txt', 'small now\n')
    expect(readFileSync(journalFile(), 'utf8')).not.toContain(Buffer.from(big).toString('base64').slice(0, 100))
    expect(readFileSync(packFile(), 'latin1')).toContain(`B ${sha(big)} ${big.length}\n`)
    const later = await open()
    await roundTrip(later, 'big.txt', 25, big, 'small now\n', 40)
  })
})

describe("a shell call's checkpoint is one journal line carrying its small contents", () => {
  /** A fresh process that snapshots shell calls (a plain folder: through our own git directory). */
  const openShell = () => open({ shell: 'auto' })

  it('the line names and carries both sides; a pack whose unsynced copies were lost still restores them, back and forward', async () => {
    write('a.txt', 'a0\n')
    const ws = await openShell()
    expect(ws.status().shell).toBe('folder')
    const before = (await ws.shellBefore())!
    write('a.txt', 'a1\n')
    write('b.txt', 'b1\n')
    const changed = value(await ws.shellAfter({ ...callPoint(10), tool: 'bash' }, before))
    expect(changed.map((c) => c.path)).toEqual(['a.txt', 'b.txt'])
    const line = readFileSync(journalFile(), 'utf8').trim().split('\n').at(-1)!
    for (const text of ['a0\n', 'a1\n', 'b1\n']) {
      expect(line).toContain(sha(text))
      expect(line).toContain(Buffer.from(text).toString('base64'))
    }
    // Crash: the pack never synced (the line was the only fsync).
    rmSync(packFile())
    const reopened = await openShell()
    expect(reopened.problems).toEqual([])
    const plan = reopened.plan(2 * 5, 'e5')
    expect(plan.blocked).toEqual([])
    value(await reopened.restore(plan, () => 'keep', 20))
    expect(read('a.txt')).toBe('a0\n')
    expect(read('b.txt')).toBe(null)
    value(await reopened.restore(reopened.plan(2 * 20, 'e20'), () => 'keep', 21))
    expect(read('a.txt')).toBe('a1\n')
    expect(read('b.txt')).toBe('b1\n')
  })
})
