import { spawn } from 'node:child_process'
import { appendFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { JOURNAL_FILE, TreeSidecar } from '../../src/sidecar/index.ts'

const WRITER = fileURLToPath(new URL('../support/sidecar-writer.ts', import.meta.url))
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
 * Run the writer; with `killAfter`, SIGKILL it that many ms after spawn
 * (`from: 'spawn'`) or after it printed `ready` (`from: 'ready'`).
 */
function runWriter(
  args: readonly string[],
  options: { killAfter?: number; from?: 'spawn' | 'ready'; fileSizeBlocks?: number } = {},
): Promise<Run> {
  const node = [process.execPath, '--no-warnings', WRITER, ...args]
  const [command, ...argv] = options.fileSizeBlocks === undefined
    ? node
    : ['sh', '-c', `ulimit -f ${options.fileSizeBlocks} && exec "$0" "$@"`, ...node]
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, argv, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let timer: NodeJS.Timeout | undefined
    const arm = () => {
      if (options.killAfter !== undefined && timer === undefined) {
        timer = setTimeout(() => child.kill('SIGKILL'), options.killAfter)
      }
    }
    if (options.from === 'spawn') arm()
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      if (stdout.includes('\n')) arm()
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

/** Load as a fresh process would and check the fold + records are one contiguous run; returns the last n. */
function expectContiguous(root: string): { last: number; problems: readonly unknown[] } {
  const load = new TreeSidecar(root).load(ID)
  const base = load.fold?.n ?? 0
  // The writer folds with state { upTo: n }.
  if (load.fold !== undefined) expect(load.fold.state).toEqual({ upTo: base })
  expect(load.records.map((r) => r.n)).toEqual(load.records.map((_, k) => base + k + 1))
  return { last: load.records.at(-1)?.n ?? base, problems: load.problems }
}

let tmp: string
beforeEach(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'sidecar-crash-'))
})
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true })
})

describe('crash safety', () => {
  it('SIGKILL at random moments, 20 times on one directory, never loses a returned append', async () => {
    const root = path.join(tmp, 'root')
    const journal = path.join(new TreeSidecar(root).dirFor(ID), JOURNAL_FILE)
    let last = 0
    let killed = 0
    let torn = 0
    // An injected torn tail stays until a writer's first append cuts it off.
    let tornPending = false
    for (let round = 0; round < 20; round++) {
      // Every other round starts on a journal whose last append was torn mid-line.
      if (round % 2 === 1 && existsSync(journal) && !tornPending) {
        tornPending = true
        const size = statSync(journal).size
        appendFileSync(journal, `0123abcd {"n":${last + 1},"w":0,"at":"20`)
        const load = new TreeSidecar(root).load(ID)
        expect(load.problems).toEqual([expect.objectContaining({ code: 'INVALID_SNAPSHOT', offset: size })])
        torn++
      }
      const run = await runWriter([root, ID, '1000'], { killAfter: random(5, 300), from: 'ready' })
      if (run.signal === 'SIGKILL') killed++
      else expect(run.code, run.stderr).toBe(0)
      expect(run.ready, run.stderr).toBe(last)
      expect(run.returned).toEqual(run.returned.map((_, k) => last + k + 1))
      const maxReturned = run.returned.at(-1) ?? last
      const after = expectContiguous(root)
      // A killed process cannot tear a write; only an injected tail can remain, and only while
      // no writer has appended since (its first append cuts the torn line off).
      if (run.returned.length > 0) tornPending = false
      expect(after.problems).toEqual(tornPending ? [expect.objectContaining({ code: 'INVALID_SNAPSHOT' })] : [])
      // Every returned append is there; at most the one in flight when the kill came is extra.
      expect(after.last).toBeGreaterThanOrEqual(maxReturned)
      expect(after.last).toBeLessThanOrEqual(maxReturned + 1)
      last = after.last
    }
    expect(killed, `only ${killed} of 20 writers were killed mid-run`).toBeGreaterThan(5)
    expect(torn).toBeGreaterThan(5)
    expect(last).toBeGreaterThan(100) // some compactions happened
  }, 60_000)

  it('SIGKILL during start-up and the first appends of a fresh directory', async () => {
    // Start-up takes ~100-150 ms here: kills land before, during and after the directory is created.
    for (let round = 0; round < 8; round++) {
      const root = path.join(tmp, `fresh-${round}`)
      const run = await runWriter([root, ID, '1000'], { killAfter: random(80, 260), from: 'spawn' })
      const maxReturned = run.returned.at(-1) ?? 0
      const load = new TreeSidecar(root).load(ID)
      expect(load.problems).toEqual([])
      const { last } = expectContiguous(root)
      expect(last).toBeGreaterThanOrEqual(maxReturned)
      expect(last).toBeLessThanOrEqual(maxReturned + 1)
    }
  }, 30_000)

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
