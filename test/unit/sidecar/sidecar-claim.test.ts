/**
 * One writer per session directory across real processes (`claim.ts`): a
 * second process is refused naming the first (pid, host, kind), the claim
 * goes when its process exits, a claim of a process killed with SIGKILL or of
 * a reused pid is taken over, a claim of another host or a link at the claim
 * file is never taken, and many processes racing for one session lose no
 * acknowledged record and tear no line.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CLAIM_FILE, JOURNAL_FILE, TreeSidecar, WriterClaims } from '../../../src/sidecar/index.ts'
import { scanJournal } from '../../../src/sidecar/journal.ts'

const WRITER = fileURLToPath(new URL('../../support/claim-writer.ts', import.meta.url))
const ID = 'claim/session ✓'

interface Child {
  readonly process: ChildProcess
  readonly pid: number
  /** Every `n` whose append had returned, in order. */
  readonly acked: number[]
  /** Resolves on the first line equal to `line`. */
  saw(line: string): Promise<void>
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>
}

const children: ChildProcess[] = []

function writer(root: string, count: number, kind: string, hold = false): Child {
  const child = spawn(
    process.execPath,
    ['--no-warnings', WRITER, root, ID, String(count), kind, ...(hold ? ['hold'] : [])],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  )
  children.push(child)
  const acked: number[] = []
  let stdout = ''
  let stderr = ''
  const waiters: { line: string; resolve: () => void }[] = []
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    acked.splice(0, acked.length, ...[...stdout.matchAll(/^ok (\d+)$/gm)].map((m) => Number(m[1])))
    const lines = stdout.split('\n')
    for (const waiter of [...waiters])
      if (lines.some((l) => l === waiter.line || l.startsWith(`${waiter.line} `))) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
  })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  )
  return {
    process: child,
    pid: child.pid!,
    acked,
    exited,
    saw: (line) =>
      new Promise<void>((resolve, reject) => {
        if (stdout.split('\n').some((l) => l === line || l.startsWith(`${line} `))) return resolve()
        waiters.push({ line, resolve })
        void exited.then((end) =>
          reject(
            new Error(`the writer exited (${end.code ?? end.signal}) before "${line}": ${end.stdout}${end.stderr}`),
          ),
        )
      }),
  }
}

let tmp: string
let root: string
beforeEach(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'sidecar-claim-'))
  root = path.join(tmp, 'root')
})
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  rmSync(tmp, { recursive: true, force: true })
})

const claimOf = (sidecar: TreeSidecar) => path.join(sidecar.dirFor(ID), CLAIM_FILE)
const claimed = (sidecar: TreeSidecar) => JSON.parse(readFileSync(claimOf(sidecar), 'utf8')) as Record<string, unknown>
const code = (result: { ok: boolean; error?: { code: string } }) => (result.ok ? 'ok' : result.error!.code)
/** Records as loaded, as `pid:i`. */
const loadedOps = (sidecar: TreeSidecar) =>
  sidecar.load(ID).records.map((r) => `${(r.op as { pid: number }).pid}:${(r.op as { i: number }).i}`)

describe('one writer per session across processes', () => {
  it('a second process is refused naming the first; the claim goes when the first exits', async () => {
    const first = writer(root, 3, 'dsh web', true)
    await first.saw('holding')
    const here = new TreeSidecar(root, { claims: new WriterClaims('dsh-TUI') })
    expect(here.writer(ID)).toMatchObject({
      kind: 'other',
      holder: { pid: first.pid, host: hostname(), kind: 'dsh web' },
    })
    const refused = here.append(ID, { w: 9, op: { pid: process.pid, i: 0 } })
    expect(code(refused)).toBe('SIDECAR_CLAIMED')
    if (refused.ok) return
    expect(refused.error.message).toContain(`dsh web (pid ${first.pid} on ${hostname()}`)
    expect(refused.error.details).toMatchObject({ holder: { pid: first.pid, host: hostname(), kind: 'dsh web' } })
    // Refused means untouched: the journal holds the first process's three records only.
    expect(loadedOps(here)).toEqual([0, 1, 2].map((i) => `${first.pid}:${i}`))

    first.process.stdin!.end()
    expect((await first.exited).code).toBe(0)
    expect(existsSync(claimOf(here)), 'released on exit').toBe(false)
    expect(here.writer(ID)).toEqual({ kind: 'free' })
    expect(code(here.append(ID, { w: 9, op: { pid: process.pid, i: 0 } }))).toBe('ok')
    expect(claimed(here)).toMatchObject({ pid: process.pid, kind: 'dsh-TUI', host: hostname() })
    expect(here.writer(ID)).toEqual({ kind: 'mine' })
    here.release(ID)
    expect(existsSync(claimOf(here))).toBe(false)
  })

  it('the claim of a process killed with SIGKILL is taken over; what it had appended stays', async () => {
    const first = writer(root, 2, 'dsh web', true)
    await first.saw('holding')
    first.process.kill('SIGKILL')
    expect((await first.exited).signal).toBe('SIGKILL')
    const here = new TreeSidecar(root)
    expect(claimed(here)).toMatchObject({ pid: first.pid })
    expect(here.writer(ID)).toMatchObject({ kind: 'stale', why: 'its process is gone' })
    expect(code(here.append(ID, { w: 9, op: { pid: process.pid, i: 0 } }))).toBe('ok')
    expect(claimed(here)).toMatchObject({ pid: process.pid })
    expect(loadedOps(here)).toEqual([`${first.pid}:0`, `${first.pid}:1`, `${process.pid}:0`])
    // Nothing left behind: the journal and this process's claim.
    expect(readdirSync(here.dirFor(ID)).sort()).toEqual([JOURNAL_FILE, CLAIM_FILE].sort())
  })

  it('a process that loaded before another wrote is told to reload before it writes', async () => {
    const here = new TreeSidecar(root)
    expect(code(here.append(ID, { w: 0, op: { pid: process.pid, i: 0 } }))).toBe('ok')
    here.release(ID)
    // Loaded here (as a session whose tree this process shows), written there.
    here.load(ID)
    const other = writer(root, 2, 'dsh web')
    expect((await other.exited).code).toBe(0)
    const stale = here.append(ID, { w: 1, op: { pid: process.pid, i: 1 } })
    expect(stale.ok ? 'ok' : stale.error).toMatchObject({ code: 'SIDECAR_CLAIMED', details: { changed: true } })
    expect(loadedOps(here)).toEqual([`${process.pid}:0`, `${other.pid}:0`, `${other.pid}:1`])
    expect(code(here.append(ID, { w: 1, op: { pid: process.pid, i: 1 } }))).toBe('ok')
    expect(loadedOps(here).at(-1)).toBe(`${process.pid}:1`)
  })

  it('a claim whose pid now belongs to another process is stale; one of another host stands', () => {
    const here = new TreeSidecar(root)
    expect(code(here.append(ID, { w: 0, op: { pid: process.pid, i: 0 } }))).toBe('ok')
    const mine = claimed(here)
    here.release(ID)
    // This very pid, alive, but with another start time: the process that claimed is gone.
    writeFileSync(claimOf(here), JSON.stringify({ ...mine, start: '1', kind: 'dsh web' }))
    expect(here.writer(ID)).toMatchObject({ kind: 'stale', why: 'its pid belongs to another process now' })
    expect(code(here.append(ID, { w: 1, op: { pid: process.pid, i: 1 } }))).toBe('ok')
    here.release(ID)

    writeFileSync(claimOf(here), JSON.stringify({ ...mine, host: 'elsewhere.example', kind: 'dsh web' }))
    const refused = here.append(ID, { w: 2, op: { pid: process.pid, i: 2 } })
    expect(refused.ok ? 'ok' : refused.error.message).toContain(
      'on another host (elsewhere.example), so it cannot be checked from here',
    )
    expect(JSON.parse(readFileSync(claimOf(here), 'utf8'))).toMatchObject({ host: 'elsewhere.example' })

    // Damage that is ours (not a claim at all) is replaced; the journal is untouched.
    writeFileSync(claimOf(here), 'garbage')
    expect(code(here.append(ID, { w: 2, op: { pid: process.pid, i: 2 } }))).toBe('ok')
    expect(loadedOps(here)).toEqual([0, 1, 2].map((i) => `${process.pid}:${i}`))
  })

  it('a link at the claim file is never followed or replaced', () => {
    const here = new TreeSidecar(root)
    expect(code(here.append(ID, { w: 0, op: { pid: process.pid, i: 0 } }))).toBe('ok')
    here.release(ID)
    const target = path.join(tmp, 'elsewhere.json')
    writeFileSync(target, 'not yours')
    symlinkSync(target, claimOf(here))
    const refused = here.append(ID, { w: 1, op: { pid: process.pid, i: 1 } })
    expect(refused.ok ? 'ok' : refused.error).toMatchObject({ code: 'SIDECAR_IO' })
    expect(refused.ok ? '' : refused.error.message).toContain('is a symbolic link')
    expect(lstatSync(claimOf(here)).isSymbolicLink()).toBe(true)
    expect(readlinkSync(claimOf(here))).toBe(target)
    expect(readFileSync(target, 'utf8')).toBe('not yours')
    expect(loadedOps(here)).toEqual([`${process.pid}:0`])
  })

  it('six processes racing for one session, two of them killed: every acknowledged record is there once, no line torn', async () => {
    const racers = Array.from({ length: 6 }, (_, k) => writer(root, 25, `racer ${k}`))
    // Two are killed once they have written something (a claim held by a dead process, then taken over).
    const killed = racers.slice(0, 2)
    await Promise.all(
      killed.map(async (racer) => {
        await racer.saw('ok').catch(() => undefined)
        racer.process.kill('SIGKILL')
      }),
    )
    const ends = await Promise.all(racers.map((r) => r.exited))
    for (const [k, end] of ends.entries()) if (k >= 2) expect(end.code, `${end.stdout}${end.stderr}`).toBe(0)
    const journal = readFileSync(path.join(new TreeSidecar(root).dirFor(ID), JOURNAL_FILE))
    const scan = scanJournal(journal)
    expect(scan.bad, 'no torn or bad line').toBeUndefined()
    const numbers = scan.records.map((r) => r.n)
    expect(numbers).toEqual(numbers.map((_, k) => k + 1))
    const byN = new Map(scan.records.map((r) => [r.n, (r.op as { pid: number }).pid]))
    for (const racer of racers)
      for (const n of racer.acked) expect(byN.get(n), `record ${n} of ${racer.pid}`).toBe(racer.pid)
    // The four that ran to the end wrote all 25 of theirs.
    for (const racer of racers.slice(2)) expect(racer.acked).toHaveLength(25)
    expect(existsSync(path.join(new TreeSidecar(root).dirFor(ID), CLAIM_FILE)), 'the last writer released').toBe(false)
  })
})
