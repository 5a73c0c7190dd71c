import { spawn } from 'node:child_process'
import { appendFileSync, existsSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeEach, describe, expect, it } from 'vitest'
import { tempEach } from '../../support/temp-each.ts'
import { JOURNAL_FILE, TreeSidecar } from '../../../src/sidecar/index.ts'

const WRITER = fileURLToPath(new URL('../../support/sidecar-writer.ts', import.meta.url))
const ID = 'crash/session ✓'

interface Run {
  /** `n` the child had loaded before writing. */
  readonly ready: number
  /** Every `n` whose append had returned. */
  readonly returned: readonly number[]
  readonly signal: NodeJS.Signals | null
  readonly code: number | null
  readonly stderr: string
}

/**
 * Run the writer. `kill`: SIGKILL it `ms` after spawn or after it printed
 * `ready`, or right after it reported its `n`-th append (the kill then lands
 * somewhere in a later append: the writer does not wait for it).
 */
function runWriter(
  args: readonly string[],
  options: {
    kill?: { readonly after: 'spawn' | 'ready'; readonly ms: number } | { readonly afterAppends: number }
    fileSizeBlocks?: number
  } = {},
): Promise<Run> {
  const node = [process.execPath, '--no-warnings', WRITER, ...args]
  const [command, ...argv] =
    options.fileSizeBlocks === undefined
      ? node
      : ['sh', '-c', `ulimit -f ${options.fileSizeBlocks} && exec "$0" "$@"`, ...node]
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, argv, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let timer: NodeJS.Timeout | undefined
    let killed = false
    const kill = options.kill
    const arm = (ms: number) => {
      if (timer === undefined) timer = setTimeout(() => child.kill('SIGKILL'), ms)
    }
    if (kill && 'after' in kill && kill.after === 'spawn') arm(kill.ms)
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      if (!kill || killed) return
      if ('after' in kill) {
        if (kill.after === 'ready' && stdout.includes('\n')) arm(kill.ms)
      } else if (stdout.split('\n').filter((line) => /^\d+$/.test(line)).length >= kill.afterAppends) {
        killed = true
        child.kill('SIGKILL')
      }
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      // Only complete lines count: a line cut by the kill was never fully reported.
      const lines = stdout.split('\n').slice(0, -1)
      const ready = lines[0]?.startsWith('ready ') ? Number(lines[0].slice(6)) : -1
      const returned = lines.filter((line) => /^\d+$/.test(line)).map(Number)
      resolve({ ready, returned, signal, code, stderr })
    })
  })
}

const random = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1))
/** A count of appends no writer reaches before it is killed. */
const FOREVER = String(Number.MAX_SAFE_INTEGER)

/** Load as a fresh process would and check the fold + records are one contiguous run; returns the last n. */
function expectContiguous(root: string): { last: number; problems: readonly unknown[] } {
  const load = new TreeSidecar(root).load(ID)
  const base = load.fold?.n ?? 0
  // The writer folds with state { upTo: n }.
  if (load.fold !== undefined) expect(load.fold.state).toEqual({ upTo: base })
  expect(load.records.map((r) => r.n)).toEqual(load.records.map((_, k) => base + k + 1))
  return { last: load.records.at(-1)?.n ?? base, problems: load.problems }
}

const temp = tempEach('sidecar-crash-')
let tmp: string
beforeEach(() => {
  tmp = temp()
})

describe('crash safety', () => {
  it('SIGKILL at random moments, 20 times on one directory, never loses a returned append', async () => {
    const root = path.join(tmp, 'root')
    const journal = path.join(new TreeSidecar(root).dirFor(ID), JOURNAL_FILE)
    let last = 0
    let torn = 0
    // An injected torn tail stays until a writer's first append cuts it off.
    let tornAt: number | undefined
    const endings = { tailKept: 0, cutUnreported: 0, appended: 0 }
    for (let round = 0; round < 20; round++) {
      // Every other round starts on a journal whose last append was torn mid-line, and kills the
      // writer at a random moment after start-up: before, during or after it cuts that line off.
      // The other rounds kill it after a random number of reported appends. Writers never finish
      // on their own (FOREVER appends), so every round ends in a kill.
      const odd = round % 2 === 1
      if (odd && tornAt === undefined && existsSync(journal)) {
        tornAt = statSync(journal).size
        appendFileSync(journal, `0123abcd {"n":${last + 1},"w":0,"at":"20`)
        const load = new TreeSidecar(root).load(ID)
        expect(load.problems).toEqual([expect.objectContaining({ code: 'INVALID_SNAPSHOT', offset: tornAt })])
        torn++
      }
      const run = await runWriter([root, ID, FOREVER], {
        kill: odd ? { after: 'ready', ms: random(0, 8) } : { afterAppends: random(20, 200) },
      })
      expect(run.signal, run.stderr).toBe('SIGKILL')
      expect(run.ready, run.stderr).toBe(last)
      expect(run.returned).toEqual(run.returned.map((_, k) => last + k + 1))
      const maxReturned = run.returned.at(-1) ?? last
      const after = expectContiguous(root)
      if (tornAt !== undefined) {
        if (run.returned.length > 0) expect(after.problems, 'an append returned, so the torn line was cut').toEqual([])
        else if (after.problems.length > 0) {
          // Killed before its first append cut the line: the tail is still there, nothing was added.
          expect(after.problems).toEqual([expect.objectContaining({ code: 'INVALID_SNAPSHOT', offset: tornAt })])
          expect(after.last).toBe(last)
        }
        // Otherwise it was killed after cutting the line, before reporting the append (or before making it).
        if (odd)
          endings[run.returned.length > 0 ? 'appended' : after.problems.length > 0 ? 'tailKept' : 'cutUnreported']++
        if (after.problems.length === 0) tornAt = undefined
      } else {
        // A killed process cannot tear a write: only an injected tail can remain.
        expect(after.problems).toEqual([])
      }
      // Every returned append is there; at most the one in flight when the kill came is extra.
      expect(after.last).toBeGreaterThanOrEqual(maxReturned)
      expect(after.last).toBeLessThanOrEqual(maxReturned + 1)
      last = after.last
    }
    // Every odd round found the tail of the previous round's appends clean (an even round always reports appends).
    expect(torn).toBe(10)
    console.info(
      `[crash] torn-tail rounds: ${endings.tailKept} killed before the cut, ${endings.cutUnreported} after the cut but before reporting, ${endings.appended} after reporting appends`,
    )
    // Ten even rounds of at least 20 reported appends each: compactions (every 100th) happened.
    expect(last).toBeGreaterThanOrEqual(200)
  }, 600_000)

  it('SIGKILL during start-up and the first appends of a fresh directory', async () => {
    // Start-up takes ~100-150 ms here: kills land before, during and after the directory is created.
    for (let round = 0; round < 8; round++) {
      const root = path.join(tmp, `fresh-${round}`)
      const run = await runWriter([root, ID, '1000'], { kill: { after: 'spawn', ms: random(80, 260) } })
      const maxReturned = run.returned.at(-1) ?? 0
      const load = new TreeSidecar(root).load(ID)
      expect(load.problems).toEqual([])
      const { last } = expectContiguous(root)
      expect(last).toBeGreaterThanOrEqual(maxReturned)
      expect(last).toBeLessThanOrEqual(maxReturned + 1)
    }
  }, 600_000)

  it('a write cut short by the file-size limit fails with SIDECAR_IO and leaves earlier records loadable', async () => {
    const root = path.join(tmp, 'root')
    // 2 KiB limit, ~400-byte records: the sixth or so append hits EFBIG half-way.
    const run = await runWriter([root, ID, '50', '300'], { fileSizeBlocks: 4 })
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/append failed: SIDECAR_IO/)
    expect(run.returned.length).toBeGreaterThan(0)
    const load = new TreeSidecar(root).load(ID)
    expect(load.problems).toEqual([]) // the half-written line was cut off again
    expect(load.records.map((r) => r.n)).toEqual(run.returned)
    const next = new TreeSidecar(root).append(ID, { w: 0, op: {} })
    expect(next.ok && next.value.n).toBe(run.returned.length + 1)
  })
})
