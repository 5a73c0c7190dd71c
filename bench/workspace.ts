/**
 * Bench section: workspace checkpoints (src/workspace) on real files.
 *
 * For workspaces of 100, 1,000 and 5,000 text files (~2 KB each), per tool call:
 * - a single-file edit's checkpoint: the before-image (read, hash, one fsynced
 *   journal line carrying the content) plus the after-image when the call ends
 *   — what the `fs/*` gate and the call's end cost an `edit`. Next to it,
 *   measured in the same run on the same disk: the edit itself as dsh-fs-local
 *   makes it (temp file, fsync, rename), one fsync, the syncs the checkpoint
 *   made (counted), and the checkpoint with its syncs skipped (its CPU and
 *   page-cache part, which a busy shared disk does not inflate). Budget: ≤ 5 ms
 *   whatever the workspace size;
 * - a shell call in a git work tree: the snapshots before and after it (one
 *   file changed), next to `git status` on the same tree (what any git-aware
 *   tool pays), and the first snapshot of a session (every file hashed once);
 * - restore plan + restore of one file, and of 100 files.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { WorkspaceRegistry, type CallPoint, type SessionWorkspace } from '../src/workspace/index.ts'
import { fmt, median, type BenchConfig, type BenchSection, type Check, type Row } from './report.ts'
import { installSyncMeter, type SyncMeter } from './syncs.ts'

const SIZES = [100, 1_000, 5_000]
const EDITS = 60
const FILE_BYTES = 2_000
const BUDGET_MS = 5

export function content(i: number, version: number): string {
  const line = `export const value${i} = ${version} // file ${i}, version ${version}\n`
  return line.repeat(Math.ceil(FILE_BYTES / line.length)).slice(0, FILE_BYTES)
}

/** A workspace of `n` files in 50 directories. */
export function makeWorkspace(dir: string, n: number): string[] {
  const files: string[] = []
  for (let i = 0; i < n; i++) {
    const rel = `src/d${i % 50}/f${i}.ts`
    fs.mkdirSync(path.join(dir, path.dirname(rel)), { recursive: true })
    fs.writeFileSync(path.join(dir, rel), content(i, 0))
    files.push(rel)
  }
  return files
}

/** What dsh-fs-local does for an edit: temp file, fsync, rename (the baseline). */
function atomicWrite(file: string, text: string): void {
  const temp = `${file}.tmp-bench`
  const fd = fs.openSync(temp, 'w')
  fs.writeSync(fd, text)
  fs.fsyncSync(fd)
  fs.closeSync(fd)
  fs.renameSync(temp, file)
}

export const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    stdio: ['ignore', 'pipe', 'ignore'],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'b',
      GIT_AUTHOR_EMAIL: 'b@b',
      GIT_COMMITTER_NAME: 'b',
      GIT_COMMITTER_EMAIL: 'b@b',
    },
  })

interface Measure {
  readonly files: number
  /** The previous design's two-sync checkpoint (pack, then line), measured in the same rounds: edits only. */
  readonly twoSync: boolean
  readonly fsyncMs: number
  readonly editMs: number
  readonly checkpointMs: number
  readonly checkpointP10Ms: number
  readonly checkpointP90Ms: number
  readonly syncs: number
  readonly noSyncMs: number
  readonly shellFirstMs: number
  readonly shellMs: number
  readonly gitStatusMs: number
  readonly restore1Ms: number | undefined
  readonly restore100Ms: number | undefined
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!
}

/** One workspace of `n` files under test, with its own sidecar. */
interface Bench {
  readonly n: number
  readonly tmp: string
  readonly work: string
  readonly files: readonly string[]
  readonly ws: SessionWorkspace
  readonly twoSync: boolean
  seq: number
  readonly fsync: number[]
  readonly edit: number[]
  readonly checkpoint: number[]
  /** Syncs each checkpoint made. */
  readonly syncs: number[]
  /** The checkpoint with its syncs skipped. */
  readonly noSync: number[]
  readonly shell: number[]
  readonly status: number[]
  shellFirstMs: number
}

/** `twoSync`: every content synced to the pack before its line (the previous design, as a baseline). */
async function setUp(n: number, twoSync = false): Promise<Bench> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-workspace-')))
  const work = path.join(tmp, 'work')
  fs.mkdirSync(work)
  const files = makeWorkspace(work, n)
  git(work, 'init', '-q')
  git(work, 'add', '-A')
  git(work, 'commit', '-qm', 'bench')
  const registry = new WorkspaceRegistry({
    sidecarRoot: path.join(tmp, 'sidecar'),
    enabled: true,
    maxFileBytes: 1 << 20,
    shell: 'auto',
    ...(twoSync ? { inlineMaxBytes: -1 } : {}),
  })
  const opened = await registry.get('bench', work)
  if (!opened.ok) throw new Error(opened.error.message)
  return {
    n,
    tmp,
    work,
    files,
    ws: opened.value,
    twoSync,
    seq: 10,
    fsync: [],
    edit: [],
    checkpoint: [],
    syncs: [],
    noSync: [],
    shell: [],
    status: [],
    shellFirstMs: 0,
  }
}

function point(b: Bench): CallPoint {
  b.seq += 10
  return { key: 2 * b.seq, node: `e${b.seq}`, call: `call-${b.seq}`, tool: 'edit', w: b.seq + 1 }
}

/** What the disk charges for one small durable append right now (a checkpoint makes two). */
function fsyncOnce(b: Bench): number {
  const fd = fs.openSync(path.join(b.tmp, 'fsync-probe'), 'a')
  const t0 = performance.now()
  fs.writeSync(fd, 'x'.repeat(100))
  fs.fsyncSync(fd)
  const ms = performance.now() - t0
  fs.closeSync(fd)
  return ms
}

/**
 * One single-file edit: the edit itself (baseline) and its checkpoint, the
 * syncs the checkpoint made; with `noSync`, the checkpoint with its syncs skipped.
 */
function editOnce(b: Bench, k: number, meter: SyncMeter, mode: 'warm' | 'measure' | 'noSync'): void {
  const abs = path.join(b.work, b.files[(k * 7919) % b.files.length]!)
  const p = point(b)
  meter.skip = mode === 'noSync'
  const s0 = meter.count
  const t0 = performance.now()
  const outcome = b.ws.captureBefore(p, abs)
  const t1 = performance.now()
  const s1 = meter.count
  atomicWrite(abs, content(k, k + 1))
  const s2 = meter.count
  const t2 = performance.now()
  b.ws.captureAfter(p)
  const t3 = performance.now()
  const s3 = meter.count
  meter.skip = false
  if (outcome.kind !== 'captured') throw new Error(`bench: capture ${outcome.kind}`)
  if (mode === 'warm') return
  if (mode === 'noSync') {
    b.noSync.push(t1 - t0 + (t3 - t2))
    return
  }
  b.checkpoint.push(t1 - t0 + (t3 - t2))
  b.syncs.push(s1 - s0 + (s3 - s2))
  b.edit.push(t2 - t1)
  b.fsync.push(fsyncOnce(b))
}

/** One shell call that changes one file: the snapshots around it, and `git status` on the same tree. */
async function shellOnce(b: Bench, k: number): Promise<void> {
  const s0 = performance.now()
  git(b.work, 'status', '--porcelain')
  b.status.push(performance.now() - s0)
  const t0 = performance.now()
  const before = (await b.ws.shellBefore())!
  const mid = performance.now()
  fs.writeFileSync(path.join(b.work, b.files[k]!), content(k, 100 + k)) // "the command"
  const m1 = performance.now()
  const recorded = await b.ws.shellAfter(point(b), before)
  if (!recorded.ok) throw new Error(recorded.error.message)
  b.shell.push(mid - t0 + (performance.now() - m1))
}

/** Restores: one file back, then 100 files back. */
async function restores(b: Bench): Promise<{ restore1Ms: number; restore100Ms: number }> {
  const restoreTo = async (boundary: number) => {
    const plan = b.ws.plan(boundary, null)
    const done = await b.ws.restore(plan, () => 'keep', b.seq + 5)
    if (!done.ok) throw new Error(done.error.message)
    return plan.entries.length
  }
  const before100 = b.seq
  for (let k = 0; k < 100; k++) {
    const p = point(b)
    const abs = path.join(b.work, b.files[(k * 31) % b.files.length]!)
    b.ws.captureBefore(p, abs)
    fs.writeFileSync(abs, content(k, 1000 + k))
    b.ws.captureAfter(p)
  }
  const p1 = point(b)
  b.ws.captureBefore(p1, path.join(b.work, b.files[0]!))
  fs.writeFileSync(path.join(b.work, b.files[0]!), 'one more\n')
  b.ws.captureAfter(p1)
  let t0 = performance.now()
  await restoreTo(p1.key - 2)
  const restore1Ms = performance.now() - t0
  t0 = performance.now()
  const restored = await restoreTo(2 * before100)
  const restore100Ms = performance.now() - t0
  if (restored < 90) throw new Error(`bench: the 100-file restore planned ${restored} files`)
  return { restore1Ms, restore100Ms }
}

/**
 * Every workspace is measured in the same rounds, one edit each in turn, so a
 * disk that gets busy (fsyncs dominate) weighs on every size alike.
 */
async function measureAll(sizes: readonly number[]): Promise<Measure[]> {
  const benches: Bench[] = []
  try {
    for (const n of sizes) benches.push(await setUp(n))
    benches.push(await setUp(sizes.at(-1)!, true))
    const meter = installSyncMeter()
    try {
      for (let k = 0; k < EDITS + 3; k++) for (const b of benches) editOnce(b, k, meter, k < 3 ? 'warm' : 'measure')
      for (let k = EDITS + 3; k < 2 * EDITS + 3; k++) for (const b of benches) editOnce(b, k, meter, 'noSync')
      // The skipped syncs' data is made durable before anything else is measured.
      for (const b of benches) b.ws.flush()
      meter.skip = false
    } finally {
      meter.uninstall()
    }
    const full = benches.filter((b) => !b.twoSync)
    for (const b of full) {
      const t0 = performance.now()
      await b.ws.shellBefore()
      b.shellFirstMs = performance.now() - t0
    }
    for (let k = 0; k < 5; k++) for (const b of full) await shellOnce(b, k)
    const results: Measure[] = []
    for (const b of benches) {
      const r = b.twoSync ? { restore1Ms: undefined, restore100Ms: undefined } : await restores(b)
      results.push({
        files: b.n,
        twoSync: b.twoSync,
        fsyncMs: median(b.fsync),
        editMs: median(b.edit),
        checkpointMs: median(b.checkpoint),
        checkpointP10Ms: quantile(b.checkpoint, 0.1),
        checkpointP90Ms: quantile(b.checkpoint, 0.9),
        syncs: median(b.syncs),
        noSyncMs: median(b.noSync),
        shellFirstMs: b.shellFirstMs,
        shellMs: median(b.shell),
        gitStatusMs: median(b.status),
        ...r,
      })
    }
    return results
  } finally {
    for (const b of benches) fs.rmSync(b.tmp, { recursive: true, force: true })
  }
}

export const workspaceSection: BenchSection = {
  name: 'workspace',
  async run(_config: BenchConfig) {
    const all = await measureAll(SIZES)
    const results = all.filter((m) => !m.twoSync)
    const twoSync = all.find((m) => m.twoSync)!
    const opt = (value: number | undefined, digits: number) => (value === undefined ? '' : fmt(value, digits))
    const rows: Row[] = all.map((m) => ({
      files: m.twoSync ? `${m.files.toLocaleString('en-US')}, two syncs (baseline)` : m.files.toLocaleString('en-US'),
      'one fsync ms': fmt(m.fsyncMs, 2),
      'edit (baseline) ms': fmt(m.editMs, 2),
      'edit checkpoint ms': fmt(m.checkpointMs, 2),
      'checkpoint p10–p90 ms': `${fmt(m.checkpointP10Ms, 2)}–${fmt(m.checkpointP90Ms, 2)}`,
      'syncs per checkpoint': fmt(m.syncs, 0),
      'checkpoint without syncs ms': fmt(m.noSyncMs, 2),
      'shell call snapshots ms': m.twoSync ? '' : fmt(m.shellMs, 1),
      'git status ms': m.twoSync ? '' : fmt(m.gitStatusMs, 1),
      'first snapshot ms': m.twoSync ? '' : fmt(m.shellFirstMs, 0),
      'restore 1 file ms': opt(m.restore1Ms, 1),
      'restore 100 files ms': opt(m.restore100Ms, 1),
    }))
    const largest = results.at(-1)!
    const smallest = results[0]!
    const checks: Check[] = [
      {
        name: `a single-file edit's checkpoint <= ${BUDGET_MS} ms (${largest.files.toLocaleString('en-US')}-file workspace, median of ${EDITS})`,
        pass: largest.checkpointMs <= BUDGET_MS,
        detail: `${fmt(largest.checkpointMs, 2)} ms (p10–p90 ${fmt(largest.checkpointP10Ms, 2)}–${fmt(largest.checkpointP90Ms, 2)} ms); the edit itself ${fmt(largest.editMs, 2)} ms, one fsync ${fmt(largest.fsyncMs, 2)} ms on this disk now; without its syncs ${fmt(largest.noSyncMs, 2)} ms, so ${fmt(largest.noSyncMs, 2)} + ${fmt(largest.syncs, 0)} × ${fmt(largest.fsyncMs, 2)} = ${fmt(largest.noSyncMs + largest.syncs * largest.fsyncMs, 2)} ms expected from its parts; the two-sync baseline ${fmt(twoSync.checkpointMs, 2)} ms in the same rounds`,
      },
      {
        name: "one sync on the critical path of a single-file edit's checkpoint (counted, every size)",
        pass: results.every((m) => m.syncs === 1),
        detail: results.map((m) => `${m.files.toLocaleString('en-US')} files: ${fmt(m.syncs, 0)}`).join(', '),
      },
      {
        name: `the edit checkpoint does not grow with the workspace (${largest.files.toLocaleString('en-US')} files within 2x of ${smallest.files})`,
        pass: largest.checkpointMs <= 2 * Math.max(smallest.checkpointMs, 0.05),
        detail: `${fmt(largest.checkpointMs, 2)} ms vs ${fmt(smallest.checkpointMs, 2)} ms`,
      },
    ]
    return {
      title: 'workspace checkpoints (src/workspace), per tool call',
      columns: [
        'files',
        'one fsync ms',
        'edit (baseline) ms',
        'edit checkpoint ms',
        'checkpoint p10–p90 ms',
        'syncs per checkpoint',
        'checkpoint without syncs ms',
        'shell call snapshots ms',
        'git status ms',
        'first snapshot ms',
        'restore 1 file ms',
        'restore 100 files ms',
      ],
      rows,
      notes: [
        'edit checkpoint: before-image (read, SHA-256, one journal line carrying the content + fsync; the pack gets an unsynced copy) + after-image at the end of the call (read, SHA-256, an unsynced pack copy; it rides with the next line); baseline: the edit itself (temp, fsync, rename); one fsync: a 100-byte append + fsync, measured between the edits; syncs: fsync/fdatasync calls the checkpoint made (median); without syncs: the same checkpoints with fsync/fdatasync skipped (its CPU and page-cache part; a separate 60 edits per size).',
        `two syncs (baseline): the previous design on a second ${twoSync.files.toLocaleString('en-US')}-file workspace in the same rounds (every content fdatasynced to the pack, then its line fsynced): ${fmt(twoSync.syncs, 0)} syncs per checkpoint.`,
        'shell call snapshots: git ls-files/diff-files/update-index/write-tree before and after one command that changed one file, plus diff-tree and copying changed contents (own git dir and index).',
      ],
      checks,
    }
  },
}
