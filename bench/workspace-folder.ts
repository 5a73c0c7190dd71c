/**
 * Bench section: workspace checkpoints in any folder, of any file (issue 24).
 *
 * - a shell call that changes one file in a plain 5,000-file folder (no `.git`:
 *   snapshots through the plugin's own git directory in the sidecar), next to
 *   the same call in a git work tree of the same files, in the same rounds
 *   (warm: the budget's figure; the cold first snapshots are printed beside it,
 *   and the git processes each one starts);
 * - a restore of 1,000 files (plan + restore);
 * - the checkpoint of an edit to a 1 MiB binary file (before- and after-image).
 * Budgets: ≤ 20 ms, ≤ 1 s, ≤ 20 ms (medians; printed even when over).
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { WorkspaceRegistry, type CallPoint, type SessionWorkspace } from '../src/workspace/index.ts'
import { fmt, median, type BenchConfig, type BenchSection, type Check, type Row } from './report.ts'
import { installSpawnMeter } from './spawns.ts'
import { installSyncMeter } from './syncs.ts'
import { content, git, makeWorkspace } from './workspace.ts'

const FILES = 5_000
const RESTORED = 1_000
const ROUNDS = 7
const SHELL_BUDGET_MS = 20
const RESTORE_BUDGET_MS = 1_000
const BINARY_BUDGET_MS = 20
const BINARY_BYTES = 1 << 20

interface Rig {
  readonly tmp: string
  readonly sidecarRoot: string
  readonly work: string
  readonly files: readonly string[]
  readonly ws: SessionWorkspace
  readonly shell: string
  seq: number
}

async function rig(gitWorkTree: boolean, watch = true): Promise<Rig> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-workspace-folder-')))
  const work = path.join(tmp, 'work')
  fs.mkdirSync(work)
  const files = makeWorkspace(work, FILES)
  if (gitWorkTree) {
    git(work, 'init', '-q')
    git(work, 'add', '-A')
    git(work, 'commit', '-qm', 'bench')
  }
  const sidecarRoot = path.join(tmp, 'sidecar')
  const ws = await open(sidecarRoot, work, watch)
  return { tmp, sidecarRoot, work, files, ws, shell: ws.status().shell, seq: 10 }
}

async function open(sidecarRoot: string, work: string, watch = true): Promise<SessionWorkspace> {
  const registry = new WorkspaceRegistry({
    sidecarRoot,
    enabled: true,
    maxFileBytes: 2 * BINARY_BYTES,
    shell: 'auto',
    watch,
  })
  const opened = await registry.get('bench', work)
  if (!opened.ok) throw new Error(opened.error.message)
  return opened.value
}

/** A cold first snapshot (ms, git processes): of this workspace, or of a new one on the same sidecar (a restarted process). */
async function firstSnapshot(r: Rig, reopen: boolean): Promise<{ ms: number; spawns: number }> {
  const ws = reopen ? await open(r.sidecarRoot, r.work) : r.ws
  const meter = installSpawnMeter()
  try {
    const t0 = performance.now()
    await ws.shellBefore()
    return { ms: performance.now() - t0, spawns: meter.count }
  } finally {
    meter.uninstall()
  }
}

function point(r: Rig, tool = 'bash'): CallPoint {
  r.seq += 10
  return { key: 2 * r.seq, node: `e${r.seq}`, call: `call-${r.seq}`, tool, w: r.seq + 1 }
}

interface ShellRound {
  readonly ms: number
  readonly spawns: number
  readonly syncs: number
  /** The after-snapshot walked only what the change feed named (not everything). */
  readonly narrowed: boolean
}

/** The floor of a snapshot here, timed in the same rounds: a bare git process, and the stat-cache walk of our index. */
function floors(r: Rig): { spawn: number; walk: number } {
  const index = fs
    .readdirSync(r.sidecarRoot, { recursive: true })
    .map(String)
    .find((p) => p.endsWith(path.join('git', 'snapshot-index')))
  if (index === undefined) throw new Error('bench: no snapshot index')
  const gitDir = path.dirname(path.join(r.sidecarRoot, index))
  const env = {
    ...process.env,
    GIT_DIR: gitDir,
    GIT_WORK_TREE: r.work,
    GIT_INDEX_FILE: path.join(gitDir, 'snapshot-index'),
  }
  const t0 = performance.now()
  execFileSync('git', ['--version'], { env, cwd: r.work })
  const t1 = performance.now()
  execFileSync('git', ['ls-files', '-z', '--others', '--modified', '--deleted', '--exclude-standard'], {
    env,
    cwd: r.work,
  })
  return { spawn: t1 - t0, walk: performance.now() - t1 }
}

/** One shell call that changes one file (or none): the snapshots before and after it (the command itself not counted). */
async function shellOnce(r: Rig, k: number | undefined): Promise<ShellRound> {
  const spawns = installSpawnMeter()
  const syncs = installSyncMeter()
  try {
    const t0 = performance.now()
    const before = (await r.ws.shellBefore())!
    const t1 = performance.now()
    if (k !== undefined) fs.writeFileSync(path.join(r.work, r.files[k]!), content(k, 100 + k))
    const t2 = performance.now()
    const recorded = await r.ws.shellAfter(point(r), before)
    if (!recorded.ok) throw new Error(recorded.error.message)
    if (recorded.value.length !== (k === undefined ? 0 : 1)) throw new Error('bench: the shell call was not recorded')
    const ms = t1 - t0 + (performance.now() - t2)
    return { ms, spawns: spawns.count, syncs: syncs.count, narrowed: r.ws.shellWatching()?.lastWalk?.kind === 'paths' }
  } finally {
    syncs.uninstall()
    spawns.uninstall()
  }
}

/**
 * 1,000 files changed by one shell call, then restored to before it (syncs
 * counted), then forward again with the syncs skipped (its CPU and page-cache part).
 */
async function restoreMany(r: Rig): Promise<{
  ms: number
  files: number
  syncs: number
  noSyncMs: number
  shellMs: number
  shellSyncs: number
  planMs: number
}> {
  const start = r.seq
  const first = fs.readFileSync(path.join(r.work, r.files[0]!), 'utf8')
  const before = (await r.ws.shellBefore())!
  for (let i = 0; i < RESTORED; i++) fs.writeFileSync(path.join(r.work, r.files[i]!), content(i, 9_999))
  const meter = installSyncMeter()
  try {
    const s0 = performance.now()
    const recorded = await r.ws.shellAfter(point(r), before)
    const shellMs = performance.now() - s0
    const shellSyncs = meter.count
    if (!recorded.ok) throw new Error(recorded.error.message)
    const changed = r.seq
    const t0 = performance.now()
    const plan = r.ws.plan(2 * start, null)
    const planMs = performance.now() - t0
    const done = await r.ws.restore(plan, () => 'keep', r.seq + 5)
    const ms = performance.now() - t0
    const syncs = meter.count - shellSyncs
    if (!done.ok) throw new Error(done.error.message)
    if (fs.readFileSync(path.join(r.work, r.files[0]!), 'utf8') !== first) throw new Error('bench: not restored')
    meter.skip = true
    const t1 = performance.now()
    const again = await r.ws.restore(r.ws.plan(2 * changed + 1, null), () => 'keep', r.seq + 6)
    const noSyncMs = performance.now() - t1
    meter.skip = false
    if (!again.ok) throw new Error(again.error.message)
    if (fs.readFileSync(path.join(r.work, r.files[0]!), 'utf8') !== content(0, 9_999))
      throw new Error('bench: not forward')
    r.ws.flush()
    return { ms, files: plan.entries.length, syncs, noSyncMs, shellMs, shellSyncs, planMs }
  } finally {
    meter.uninstall()
  }
}

/**
 * The disk's floor of a 1,000-file restore, timed in the same run on a folder
 * of its own: each file's temporary written, all fsynced at once, renamed
 * over its file (`atOnce` at a time: 4 as a restore does now, 1 as it did
 * before), the directories fsynced; no checks, no journal, no plan.
 */
async function restoreFloor(tmp: string, atOnce: number): Promise<number> {
  const dir = fs.mkdtempSync(path.join(tmp, 'floor-'))
  const files = makeWorkspace(dir, RESTORED)
  const abs = files.map((rel) => path.join(dir, rel))
  const t0 = performance.now()
  const fds = abs.map((file, i) => {
    const fd = fs.openSync(`${file}.tmp`, 'wx')
    fs.writeSync(fd, content(i, 7))
    return fd
  })
  await Promise.all(
    fds.map(
      (fd) =>
        new Promise<void>((resolve, reject) => fs.fsync(fd, (e) => (fs.closeSync(fd), e ? reject(e) : resolve()))),
    ),
  )
  let next = 0
  const worker = async () => {
    while (next < abs.length) {
      const file = abs[next++]!
      await fs.promises.rename(`${file}.tmp`, file)
    }
  }
  await Promise.all(Array.from({ length: atOnce }, worker))
  const dirs = [...new Set(abs.map((file) => path.dirname(file)))]
  await Promise.all(
    dirs.map((d) => {
      const fd = fs.openSync(d, 'r')
      return new Promise<void>((resolve, reject) => fs.fsync(fd, (e) => (fs.closeSync(fd), e ? reject(e) : resolve())))
    }),
  )
  const ms = performance.now() - t0
  fs.rmSync(dir, { recursive: true, force: true })
  return ms
}

/** The checkpoint of one tool edit to a 1 MiB binary file (before- and after-image), the write not counted. */
function binaryOnce(r: Rig, abs: string): number {
  const p = point(r, 'write')
  const t0 = performance.now()
  const outcome = r.ws.captureBefore(p, abs)
  const t1 = performance.now()
  const bytes = randomBytes(BINARY_BYTES)
  bytes[0] = 0 // a NUL in the first 8,000 bytes: binary
  fs.writeFileSync(abs, bytes)
  const t2 = performance.now()
  r.ws.captureAfter(p)
  const t3 = performance.now()
  if (outcome.kind !== 'captured') throw new Error(`bench: binary capture ${outcome.kind}`)
  return t1 - t0 + (t3 - t2)
}

export const workspaceFolderSection: BenchSection = {
  name: 'workspace-folder',
  async run(_config: BenchConfig) {
    const plain = await rig(false)
    const tree = await rig(true)
    const walked = await rig(false, false)
    try {
      if (fs.existsSync(path.join(plain.work, '.git'))) throw new Error('bench: a .git in the plain folder')
      const coldPlain = await firstSnapshot(plain, false)
      const coldTree = await firstSnapshot(tree, false)
      await firstSnapshot(walked, false)
      const plainRounds: ShellRound[] = []
      const walkedRounds: ShellRound[] = []
      const treeRounds: ShellRound[] = []
      const idleRounds: ShellRound[] = []
      const floorRounds: { spawn: number; walk: number }[] = []
      for (let k = 0; k < ROUNDS; k++) {
        floorRounds.push(floors(plain))
        plainRounds.push(await shellOnce(plain, k))
        treeRounds.push(await shellOnce(tree, k))
        walkedRounds.push(await shellOnce(walked, k))
        idleRounds.push(await shellOnce(plain, undefined))
      }
      const reopened = await firstSnapshot(plain, true)
      const plainMs = plainRounds.map((x) => x.ms)
      const treeMs = treeRounds.map((x) => x.ms)
      const per = (rounds: readonly ShellRound[]) =>
        `${median(rounds.map((x) => x.spawns))} git processes, ${median(rounds.map((x) => x.syncs))} syncs, ${rounds.filter((x) => x.narrowed).length}/${rounds.length} narrowed by the change feed`
      if (fs.existsSync(path.join(plain.work, '.git'))) throw new Error('bench: a .git in the plain folder')
      // Both floors before and after the restore, in alternating order (the disk's load drifts): the mean of each.
      const floorFourA = await restoreFloor(plain.tmp, 4)
      const floorOneA = await restoreFloor(plain.tmp, 1)
      const restored = await restoreMany(plain)
      const floorOneB = await restoreFloor(plain.tmp, 1)
      const floorFourB = await restoreFloor(plain.tmp, 4)
      const floorFour = (floorFourA + floorFourB) / 2
      const floorOne = (floorOneA + floorOneB) / 2
      const binaryFile = path.join(plain.work, 'blob.bin')
      fs.writeFileSync(binaryFile, Buffer.alloc(BINARY_BYTES))
      const binaryMs: number[] = []
      for (let k = 0; k < ROUNDS; k++) binaryMs.push(binaryOnce(plain, binaryFile))
      const shell = median(plainMs)
      const baseline = median(treeMs)
      const restore = restored.ms
      const binary = median(binaryMs)
      const rows: Row[] = [
        {
          measure: `shell call, one change, plain folder (${plain.shell}; warm: ${per(plainRounds)})`,
          ms: fmt(shell, 1),
          budget: `${SHELL_BUDGET_MS}`,
        },
        {
          measure: `shell call, one change, git work tree (${tree.shell}, baseline; ${per(treeRounds)})`,
          ms: fmt(baseline, 1),
          budget: '',
        },
        {
          measure: `shell call, one change, plain folder, change feed off (workspace.watch: false; ${per(walkedRounds)})`,
          ms: fmt(median(walkedRounds.map((x) => x.ms)), 1),
          budget: '',
        },
        {
          measure: `shell call, no change, plain folder (${per(idleRounds)})`,
          ms: fmt(median(idleRounds.map((x) => x.ms)), 1),
          budget: '',
        },
        {
          measure: 'floor: one bare git process (`git --version`), same rounds',
          ms: fmt(median(floorRounds.map((x) => x.spawn)), 1),
          budget: '',
        },
        {
          measure: `floor: one \`git ls-files -o -m -d\` of the ${FILES.toLocaleString('en-US')} files (the stat-cache walk a snapshot is)`,
          ms: fmt(median(floorRounds.map((x) => x.walk)), 1),
          budget: '',
        },
        {
          measure: `cold: first snapshot, plain folder, new sidecar (${coldPlain.spawns} git processes)`,
          ms: fmt(coldPlain.ms, 0),
          budget: '',
        },
        {
          measure: `cold: first snapshot, git work tree, new sidecar (${coldTree.spawns} git processes)`,
          ms: fmt(coldTree.ms, 0),
          budget: '',
        },
        {
          measure: `cold: first snapshot of a new process, plain folder, same sidecar (${reopened.spawns} git processes)`,
          ms: fmt(reopened.ms, 0),
          budget: '',
        },
        {
          measure: `restore ${restored.files.toLocaleString('en-US')} files (plan ${fmt(restored.planMs, 0)} ms + restore; ${restored.syncs} syncs)`,
          ms: fmt(restore, 0),
          budget: `${RESTORE_BUDGET_MS}`,
        },
        {
          measure: `floor: ${RESTORED.toLocaleString('en-US')} temporaries written, fsynced at once, renamed 4 at a time, directories fsynced (same run, mean of 2)`,
          ms: fmt(floorFour, 0),
          budget: '',
        },
        {
          measure: `baseline: the same floor with the renames one by one (the previous restore's order)`,
          ms: fmt(floorOne, 0),
          budget: '',
        },
        {
          measure: `shell call changing ${RESTORED.toLocaleString('en-US')} files, after-snapshot (${restored.shellSyncs} syncs)`,
          ms: fmt(restored.shellMs, 0),
          budget: '',
        },
        {
          measure: `restore ${restored.files.toLocaleString('en-US')} files, syncs skipped (${restored.syncs} counted above)`,
          ms: fmt(restored.noSyncMs, 0),
          budget: '',
        },
        { measure: '1 MiB binary edit checkpoint', ms: fmt(binary, 1), budget: `${BINARY_BUDGET_MS}` },
      ]
      const checks: Check[] = [
        {
          name: `a shell call's snapshots in a plain ${FILES.toLocaleString('en-US')}-file folder, one change <= ${SHELL_BUDGET_MS} ms (median of ${ROUNDS})`,
          pass: shell <= SHELL_BUDGET_MS,
          detail: `${fmt(shell, 1)} ms warm (${per(plainRounds)}; one bare git process costs ${fmt(median(floorRounds.map((x) => x.spawn)), 1)} ms here, one ls-files walk ${fmt(median(floorRounds.map((x) => x.walk)), 1)} ms); the same in a git work tree ${fmt(baseline, 1)} ms and with the change feed off ${fmt(median(walkedRounds.map((x) => x.ms)), 1)} ms in the same rounds; cold first snapshot ${fmt(coldPlain.ms, 0)} ms`,
        },
        {
          name: `restore of ${RESTORED.toLocaleString('en-US')} files <= ${RESTORE_BUDGET_MS} ms`,
          pass: restore <= RESTORE_BUDGET_MS && restored.files === RESTORED,
          detail: `${fmt(restore, 0)} ms for ${restored.files} files (plan ${fmt(restored.planMs, 0)} ms) with ${restored.syncs} fsyncs (each file, then each directory, in parallel rounds); the same restore with its syncs skipped ${fmt(restored.noSyncMs, 0)} ms; the disk's floor of it in the same run ${fmt(floorFour, 0)} ms (renames one by one: ${fmt(floorOne, 0)} ms)`,
        },
        {
          name: `a 1 MiB binary edit's checkpoint <= ${BINARY_BUDGET_MS} ms (median of ${ROUNDS})`,
          pass: binary <= BINARY_BUDGET_MS,
          detail: `${fmt(binary, 1)} ms (p-max ${fmt(Math.max(...binaryMs), 1)} ms)`,
        },
      ]
      return {
        title: `workspace in any folder, any file (${FILES.toLocaleString('en-US')} files)`,
        columns: ['measure', 'ms', 'budget'],
        rows,
        notes: [
          "shell call: the snapshots before and after one command that changed one file (git stat cache of our own index in the sidecar), the command not counted; warm: after the session's first snapshot (the budget judges this one); plain folder: no .git, the git dir is the sidecar's; baseline: the same files in a git work tree, same rounds; change feed: inotify events (src/workspace/watch.ts) name the paths a snapshot walks, off: every snapshot walks all 5,000 files.",
          'cold: the first snapshot of a process hashes what its stat cache does not cover (every file with a new sidecar) and reads the index back.',
          'binary: before-image + after-image of a 1 MiB file with a NUL in its first 8,000 bytes (read, SHA-256, journaled), the write not counted.',
        ],
        checks,
      }
    } finally {
      fs.rmSync(plain.tmp, { recursive: true, force: true })
      fs.rmSync(tree.tmp, { recursive: true, force: true })
      fs.rmSync(walked.tmp, { recursive: true, force: true })
    }
  },
}
