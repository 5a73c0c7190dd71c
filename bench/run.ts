/**
 * `npm run bench` (= `node --expose-gc bench/run.ts`): a performance report,
 * not a test. Prints one table per section (medians of several runs) and the
 * budget checks as PASS/FAIL lines; exits 0 either way.
 *
 * Sections are a list: each returns its table and checks (the tree here; the
 * harness sync and the sidecar in `sync.ts`; imports in `interchange.ts`;
 * workspace checkpoints in `workspace.ts`, in any folder and of any file in
 * `workspace-folder.ts`; the panel's first paint in real
 * Chromium in `panel.ts`, next to a baseline measured in the same run; the
 * dsh-TUI scene's open and key press in `tui.ts`; the bytes the plugin adds
 * to every model request in `wire.ts`, next to the same loop without it; the
 * boot of a 1,000-session home in `dsh web` with and without the plugin in `home.ts`).
 *
 * Plain Node runs this file with type stripping: only erasable TypeScript
 * here (no enums, no parameter properties), and imports name their `.ts` files.
 *
 * Environment knobs (for quick local runs):
 *   BENCH_RUNS=5            runs per measurement (the median is printed)
 *   BENCH_SIZES=1000,10000,100000
 *   BENCH_SECTIONS=panel    only the sections whose printed name starts with one of these (comma-separated, e.g. panel,import,limits)
 */
import { SessionTree, type LlmMessage } from '../src/tree/index.ts'
import { fmt, median, type BenchSection, type Check, type Row, type SectionResult } from './report.ts'
import { syncSection } from './sync.ts'
import { workspaceSection } from './workspace.ts'
import { workspaceFolderSection } from './workspace-folder.ts'
import { interchangeSection } from './interchange.ts'
import { limitsSection } from './limits.ts'
import { panelSection } from './panel.ts'
import { tuiSection } from './tui.ts'
import { wireSection } from './wire.ts'
import { homeSection } from './home.ts'
import { longSection } from './long.ts'
import { liveSection } from './live.ts'
import { jumpSection } from './jump.ts'
import { memorySection } from './memory.ts'

// ----------------------------------------------------------------- framework

function collect(): void {
  const gc = globalThis.gc
  if (gc) {
    gc()
    gc()
  }
}

function printTable(result: SectionResult): void {
  const { columns, rows } = result
  const cells = rows.map((row) => columns.map((c) => String(row[c] ?? '')))
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)))
  const line = (values: readonly string[]) =>
    '| ' + values.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join(' | ') + ' |'
  console.log(`\n## ${result.title}\n`)
  console.log(line(columns))
  console.log('|' + widths.map((w, i) => (i === 0 ? ':' : '-') + '-'.repeat(w) + (i === 0 ? '-' : ':')).join('|') + '|')
  for (const row of cells) console.log(line(row))
  if (result.notes.length > 0) console.log('')
  for (const note of result.notes) console.log(`  ${note}`)
}

// ----------------------------------------------------------------- workload

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = (
  'the a tree node branch session model tool call result message user assistant summary label jump fork path ' +
  'history cursor compaction harness sidecar journal snapshot restore replay function returns value error file ' +
  'line test build change review refactor explain why because should could would maybe please thanks okay done'
).split(' ')

/** A fresh, flat ~200-character text (flat like a string decoded from the wire). */
function sentence(rand: () => number, length = 200): string {
  const words: string[] = []
  let size = 0
  while (size < length) {
    const word = WORDS[Math.floor(rand() * WORDS.length)]!
    words.push(word)
    size += word.length + 1
  }
  return words.join(' ').slice(0, length)
}

interface Built {
  readonly tree: SessionTree
  /** Total time of the appends counted in the measured window (the last `window` appends). */
  readonly windowMs: number
  readonly windowOps: number
  readonly buildMs: number
}

const BUILD_TIMEOUT_MS = 180_000

/**
 * Build a tree of `n` nodes through the public API, the way a session grows:
 * user/assistant turns of ~200 characters, a tool call with its result now and
 * then, usage on assistant turns, and every ~50 appends a retry from a few turns
 * back (60%) or a revisit of any earlier node (40%), which forks a branch.
 * The last `window` appends are timed (jumps are outside the timing), so the
 * per-op cost reflects a tree of size ~n.
 */
function buildTree(n: number, window: number, seed: number): Built {
  const rand = prng(seed)
  const tree = new SessionTree(`bench-${n}-${seed}`)
  let ids: string[] = []
  const parents = new Map<string, string | null>()
  let nextFork = 30 + Math.floor(rand() * 40)
  let turn = 0
  let windowMs = 0
  let windowOps = 0
  let calls = 0
  const measureFrom = n - window
  collect()
  const started = performance.now()
  while (ids.length < n) {
    if (nextFork-- <= 0 && ids.length > 1) {
      nextFork = 30 + Math.floor(rand() * 40)
      let target: string
      if (rand() < 0.6) {
        target = tree.cursor ?? ids[ids.length - 1]!
        for (let up = 1 + Math.floor(rand() * 10); up > 0; up--) target = parents.get(target) ?? target
      } else {
        target = ids[Math.floor(rand() * ids.length)]!
      }
      const moved = tree.jump(target)
      if (!moved.ok) throw new Error(`bench: jump failed: ${moved.error.message}`)
    }
    const timed = ids.length >= measureFrom
    const role = turn++ % 2 === 0 ? 'user' : 'assistant'
    const toolCall = role === 'assistant' && rand() < 0.07
    // Inputs are made before the clock starts: only the tree's work is timed.
    const message: LlmMessage | null = toolCall ? null : { role, content: sentence(rand) }
    const options = toolCall
      ? {
          type: 'tool_call' as const,
          content: [
            {
              type: 'tool_call' as const,
              id: `call-${++calls}`,
              name: 'read_file',
              arguments: { path: `src/file-${calls}.ts` },
            },
          ],
        }
      : role === 'assistant'
        ? {
            model: 'deepseek-chat',
            usage: { inputTokens: 1000 + Math.floor(rand() * 5000), outputTokens: Math.floor(rand() * 800) },
          }
        : {}
    const result = toolCall ? sentence(rand) : ''
    const t0 = timed ? performance.now() : 0
    const appended = tree.append(message, options)
    if (toolCall && appended.ok) tree.attachToolResult(`call-${calls}`, { content: result })
    if (timed) {
      windowMs += performance.now() - t0
      windowOps += toolCall ? 2 : 1
    }
    if (!appended.ok) throw new Error(`bench: append failed: ${appended.error.message}`)
    ids.push(appended.value.nodeId)
    parents.set(appended.value.nodeId, appended.value.parentId)
    if ((ids.length & 1023) === 0 && performance.now() - started > BUILD_TIMEOUT_MS) {
      throw new Error(
        `bench: building ${n} nodes took more than ${BUILD_TIMEOUT_MS / 1000} s (stopped at ${ids.length})`,
      )
    }
  }
  const buildMs = performance.now() - started
  ids = []
  return { tree, windowMs, windowOps, buildMs }
}

/** Node ids with their depth (path length in nodes), from `list()`. */
function depths(tree: SessionTree): { ids: string[]; depth: Map<string, number> } {
  const depth = new Map<string, number>()
  const ids: string[] = []
  for (const node of tree.list()) {
    depth.set(node.nodeId, node.parentId === null ? 1 : depth.get(node.parentId)! + 1)
    ids.push(node.nodeId)
  }
  return { ids, depth }
}

// ----------------------------------------------------------------- section: the pure tree

interface TreeMeasure {
  appendUs: number
  buildMs: number
  jumpUs: number
  avgDepth: number
  maxDepth: number
  viewMs: number
  snapshotMs: number
  restoreMs: number
  bytes: number
  branches: number
}

const JUMPS = 2000
const APPEND_SAMPLE = 5000

function measureTree(n: number, seed: number): TreeMeasure {
  // Time at least APPEND_SAMPLE appends per sample (GC pauses then weigh in
  // proportionally at every size): the last min(APPEND_SAMPLE, N/2) appends of
  // as many trees of size N as that takes.
  const window = Math.min(APPEND_SAMPLE, Math.floor(n / 2))
  const built = buildTree(n, window, seed)
  const tree = built.tree
  let windowMs = built.windowMs
  let windowOps = built.windowOps
  for (let extra = 1; windowOps < APPEND_SAMPLE; extra++) {
    const more = buildTree(n, window, seed + extra * 7919)
    windowMs += more.windowMs
    windowOps += more.windowOps
  }
  // Jumps to random nodes at every depth; jump() returns the messages the model would read.
  const rand = prng(seed ^ 0x9e3779b9)
  const { ids, depth } = depths(tree)
  const targets: string[] = []
  for (let i = 0; i < JUMPS; i++) targets.push(ids[Math.floor(rand() * ids.length)]!)
  let depthSum = 0
  let maxDepth = 0
  for (const id of targets) {
    const d = depth.get(id)!
    depthSum += d
    maxDepth = Math.max(maxDepth, d)
  }
  collect()
  let t0 = performance.now()
  let messages = 0
  for (const id of targets) {
    const view = tree.jump(id)
    if (!view.ok) throw new Error(`bench: jump failed: ${view.error.message}`)
    messages += view.value.messages.length
  }
  const jumpUs = ((performance.now() - t0) * 1000) / JUMPS
  if (messages === 0) throw new Error('bench: jumps read no messages')
  // view(): the panel's full read, after a change.
  tree.select(ids[ids.length - 1]!)
  collect()
  t0 = performance.now()
  const view = tree.view()
  const viewMs = performance.now() - t0
  if (view.nodes.length !== n) throw new Error('bench: view() lost nodes')
  // snapshot → JSON (what a sidecar writes) and JSON → tree (what a restart reads).
  collect()
  t0 = performance.now()
  const json = JSON.stringify(tree.snapshot())
  const snapshotMs = performance.now() - t0
  collect()
  t0 = performance.now()
  const restored = new SessionTree(tree.sessionId, JSON.parse(json))
  const restoreMs = performance.now() - t0
  if (restored.nodeCount !== n) throw new Error('bench: restore lost nodes')
  return {
    appendUs: (windowMs * 1000) / windowOps,
    buildMs: built.buildMs,
    jumpUs,
    avgDepth: depthSum / JUMPS,
    maxDepth,
    viewMs,
    snapshotMs,
    restoreMs,
    bytes: Buffer.byteLength(json),
    branches: tree.info().branchCount,
  }
}

interface HeapMeasure {
  perNode: number
  perNodeTrimmed: number
  perNodeRestored: number
  /** Message text per node (the part of a node no representation can drop). */
  textPerNode: number
}

/**
 * Retained heap of a held tree of `n` nodes, compared with the JSON size of its nodes.
 * Temporaries (the parsed snapshot, a serialized view) are made inside helper functions: a value
 * left in a register of this frame stays reachable through a collection and would be counted as
 * the tree's (it did: a restored tree read 1,140 B/node here while it retains ~650).
 */
function measureHeap(n: number, seed: number): HeapMeasure {
  collect()
  const before = process.memoryUsage().heapUsed
  const { tree } = buildTree(n, 0, seed)
  // Served once, as the panel and `export` do (nothing a read produces may stay behind).
  serve(tree)
  collect()
  const held = process.memoryUsage().heapUsed - before
  // Without the in-memory op log (a sidecar persisted it and trimmed).
  tree.trimLog(tree.logSeq)
  collect()
  const trimmed = process.memoryUsage().heapUsed - before
  const json = JSON.stringify(tree.snapshot())
  const textPerNode = messageText(tree) / n
  // A tree restored from its snapshot (what a restart holds), served once.
  collect()
  const beforeRestore = process.memoryUsage().heapUsed
  const restored = restoreFrom(tree.sessionId, json)
  serve(restored)
  collect()
  const restoredBytes = process.memoryUsage().heapUsed - beforeRestore
  if (tree.nodeCount !== n || restored.nodeCount !== n) throw new Error('bench: heap trees lost nodes')
  return { perNode: held / n, perNodeTrimmed: trimmed / n, perNodeRestored: restoredBytes / n, textPerNode }
}

function serve(tree: SessionTree): number {
  return JSON.stringify(tree.view()).length
}

function messageText(tree: SessionTree): number {
  let length = 0
  for (const node of tree.list()) length += node.message?.content.length ?? 0
  return length
}

function restoreFrom(sessionId: string, json: string): SessionTree {
  return new SessionTree(sessionId, JSON.parse(json))
}

const treeSection: BenchSection = {
  name: 'tree',
  run(config) {
    const { runs, sizes } = config
    // Warm the JIT (all tiers) so the first size is not charged for compilation.
    measureTree(20_000, 1)
    const rows: Row[] = []
    const byN = new Map<number, TreeMeasure>()
    for (const n of sizes) {
      const samples: TreeMeasure[] = []
      // Small trees are cheap: more runs make their medians as steady as the big ones'.
      const count = n >= 100_000 ? runs : runs * 3
      for (let r = 0; r < count; r++) samples.push(measureTree(n, 1000 + r))
      const m = (key: keyof TreeMeasure) => median(samples.map((s) => s[key]))
      const row: TreeMeasure = {
        appendUs: m('appendUs'),
        buildMs: m('buildMs'),
        jumpUs: m('jumpUs'),
        avgDepth: m('avgDepth'),
        maxDepth: m('maxDepth'),
        viewMs: m('viewMs'),
        snapshotMs: m('snapshotMs'),
        restoreMs: m('restoreMs'),
        bytes: m('bytes'),
        branches: m('branches'),
      }
      byN.set(n, row)
      rows.push({
        N: n.toLocaleString('en-US'),
        'append µs/op': fmt(row.appendUs, 2),
        'build ms': fmt(row.buildMs, 0),
        'jump+messages µs/op': fmt(row.jumpUs, 1),
        'avg depth': fmt(row.avgDepth, 0),
        'max depth': fmt(row.maxDepth, 0),
        branches: fmt(row.branches, 0),
        'view() ms': fmt(row.viewMs, 1),
        'snapshot ms': fmt(row.snapshotMs, 1),
        'restore ms': fmt(row.restoreMs, 1),
        'snapshot bytes': fmt(row.bytes, 0),
      })
    }
    const largest = sizes[sizes.length - 1]!
    const heapSamples: HeapMeasure[] = []
    for (let r = 0; r < Math.min(runs, 3); r++) heapSamples.push(measureHeap(largest, 2000 + r))
    const heap: HeapMeasure = {
      perNode: median(heapSamples.map((h) => h.perNode)),
      perNodeTrimmed: median(heapSamples.map((h) => h.perNodeTrimmed)),
      perNodeRestored: median(heapSamples.map((h) => h.perNodeRestored)),
      textPerNode: median(heapSamples.map((h) => h.textPerNode)),
    }
    const notes = [
      `medians of ${runs} runs (${runs * 3} below 100k); append = mean over >= ${APPEND_SAMPLE} timed calls per run: the last min(${APPEND_SAMPLE}, N/2) appends of each tree built to size N (a tool call counts its append and its attachToolResult; GC pauses included)`,
      `jump+messages = ${JUMPS} jumps to random nodes, each returning root→node messages; depth = path length in nodes`,
      `retained heap at N=${largest.toLocaleString('en-US')} (median of ${heapSamples.length}): ` +
        `${fmt(heap.perNode, 0)} B/node as built (with op log; served once), ${fmt(heap.perNodeTrimmed, 0)} B/node after trimLog, ` +
        `${fmt(heap.perNodeRestored, 0)} B/node restored from a snapshot (served once); message text ${fmt(heap.textPerNode, 0)} B/node (the budget on heap per node is in the limits section)`,
    ]
    const checks: Check[] = []
    const small = byN.get(1000)
    const big = byN.get(100_000)
    checks.push(
      small && big
        ? {
            name: 'append per-op cost at 100k within 2x of 1k',
            pass: big.appendUs <= 2 * small.appendUs,
            detail: `${fmt(big.appendUs, 2)} µs vs ${fmt(small.appendUs, 2)} µs (${fmt(big.appendUs / small.appendUs, 2)}x)`,
          }
        : { name: 'append per-op cost at 100k within 2x of 1k', pass: 'skip', detail: 'needs N=1000 and N=100000' },
    )
    checks.push(
      big
        ? {
            name: 'restore of 100k nodes < 1 s',
            pass: big.restoreMs < 1000,
            detail: `${fmt(big.restoreMs, 0)} ms (JSON.parse + new SessionTree)`,
          }
        : { name: 'restore of 100k nodes < 1 s', pass: 'skip', detail: 'needs N=100000' },
    )
    return {
      title: 'session tree (src/tree)',
      columns: [
        'N',
        'append µs/op',
        'build ms',
        'jump+messages µs/op',
        'avg depth',
        'max depth',
        'branches',
        'view() ms',
        'snapshot ms',
        'restore ms',
        'snapshot bytes',
      ],
      rows,
      notes,
      checks,
    }
  },
}

// ----------------------------------------------------------------- main

/** Bench sections in print order. */
const SECTIONS: BenchSection[] = [
  treeSection,
  syncSection,
  limitsSection,
  longSection,
  interchangeSection,
  workspaceSection,
  workspaceFolderSection,
  panelSection,
  liveSection,
  tuiSection,
  wireSection,
  homeSection,
  jumpSection,
  memorySection,
]

async function main(): Promise<void> {
  const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 5) || 5)
  const sizes = (process.env.BENCH_SIZES ?? '1000,10000,100000')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isSafeInteger(n) && n > 0)
    .sort((a, b) => a - b)
  console.log(
    `dsh-session-tree bench — node ${process.version}, ${process.platform}/${process.arch}, runs=${runs}, sizes=${sizes.join(',')}`,
  )
  if (!globalThis.gc)
    console.log('WARNING: run with --expose-gc (npm run bench) for heap numbers; they are unreliable without it')
  const checks: { section: string; check: Check }[] = []
  const only = process.env.BENCH_SECTIONS?.split(',')
    .map((name) => name.trim())
    .filter(Boolean)
  for (const section of SECTIONS.filter((s) => !only || only.some((name) => s.name.startsWith(name)))) {
    const started = performance.now()
    try {
      const result = await section.run({ runs, sizes })
      printTable(result)
      console.log(`  (${section.name}: ${fmt((performance.now() - started) / 1000, 1)} s)`)
      for (const check of result.checks) checks.push({ section: section.name, check })
    } catch (error) {
      console.log(`\n## ${section.name}\n\n  ERROR: ${(error as Error).stack ?? String(error)}`)
      checks.push({
        section: section.name,
        check: { name: 'section ran', pass: false, detail: (error as Error).message },
      })
    }
  }
  console.log('\n## budget\n')
  for (const { section, check } of checks) {
    const verdict = check.pass === 'skip' ? 'SKIP' : check.pass ? 'PASS' : 'FAIL'
    console.log(`${verdict}  [${section}] ${check.name}: ${check.detail}`)
  }
  const failed = checks.filter((c) => c.check.pass === false).length
  console.log(
    failed === 0 ? '\nall budgets met' : `\n${failed} budget check(s) FAILED (this is a report; exit code stays 0)`,
  )
}

await main()
