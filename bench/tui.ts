/**
 * Bench section: the dsh-TUI scene on a large tree, in Node (the scene is
 * node-side code inside the dsh process). Two figures per size, medians of
 * the runs:
 *
 * - open: indexing and laying out the outline (what a fresh outline costs:
 *   the scene's first frame and every reload after a change);
 * - key: one ↓ press as the scene handles it (the pure step, the relayout
 *   check, the frame's lines of a 160×48 terminal), the cost that decides
 *   whether scrolling lags.
 *
 * Each is printed next to a baseline of the same run: the same work on a
 * 200-node tree. The budgets are judged on the 20,000-node figures (key
 * < 16 ms: one frame at 60 Hz; open < 500 ms), with the ratio to the
 * baseline, so a FAIL says whether the scene or the machine was slow.
 */
import { indexTree, layoutTree } from '../src/outline/index.ts'
import { INITIAL_SCENE, press, settle, type SceneState, type SceneView } from '../src/tui/scene-state.ts'
import { outlineHeight, renderFrame } from '../src/tui/scene-view.ts'
import { realBigView } from '../test/support/client-fixtures.ts'
import { fmt, median, type BenchSection, type Check, type Row } from './report.ts'

export const KEY_BUDGET_MS = 16
export const OPEN_BUDGET_MS = 500
const COLUMNS = 160
const ROWS = 48
const BASELINE = 200
const KEYS = 200

function measure(n: number): { open: number; key: number } {
  const outline = realBigView(n)
  const t0 = performance.now()
  const index = indexTree(outline)
  const layout = layoutTree(index, {})
  const open = performance.now() - t0
  const view: SceneView = { index, layout, height: outlineHeight(COLUMNS, ROWS) }
  let state: SceneState = settle({ ...INITIAL_SCENE, selected: layout.rows[0]!.id }, view)
  const t1 = performance.now()
  for (let i = 0; i < KEYS; i++) {
    state = settle(press(state, view, '', { downArrow: true }).state, view)
    renderFrame({ index, layout, state, columns: COLUMNS, rows: ROWS, lang: 'en' })
  }
  return { open, key: (performance.now() - t1) / KEYS }
}

export const tuiSection: BenchSection = {
  name: 'tui scene',
  run({ runs, sizes }) {
    const wanted = [...new Set([BASELINE, 20_000, ...sizes.filter((n) => n >= 1000 && n <= 100_000)])].sort(
      (a, b) => a - b,
    )
    const figures = new Map<number, { open: number; key: number }>()
    // One discarded pass first: measured cold, the 200-node baseline was the JIT's warm-up (slower per key than 20,000).
    measure(BASELINE)
    for (const n of wanted) {
      const samples = Array.from({ length: Math.max(3, runs) }, () => measure(n))
      figures.set(n, { open: median(samples.map((s) => s.open)), key: median(samples.map((s) => s.key)) })
    }
    const base = figures.get(BASELINE)!
    const rows: Row[] = wanted.map((n) => {
      const f = figures.get(n)!
      return {
        nodes: n,
        'open ms': fmt(f.open, 2),
        'open vs baseline': `${fmt(f.open / Math.max(base.open, 1e-3), 1)}×`,
        'key ms': fmt(f.key, 3),
        'key vs baseline': `${fmt(f.key / Math.max(base.key, 1e-3), 1)}×`,
      }
    })
    const big = figures.get(20_000)!
    const checks: Check[] = [
      {
        name: `scene key press on 20,000 nodes < ${KEY_BUDGET_MS} ms`,
        pass: big.key < KEY_BUDGET_MS,
        detail: `${fmt(big.key, 3)} ms (baseline ${BASELINE} nodes: ${fmt(base.key, 3)} ms, ${fmt(big.key / Math.max(base.key, 1e-3), 1)}×)`,
      },
      {
        name: `scene open (index + layout) of 20,000 nodes < ${OPEN_BUDGET_MS} ms`,
        pass: big.open < OPEN_BUDGET_MS,
        detail: `${fmt(big.open, 1)} ms (baseline ${BASELINE} nodes: ${fmt(base.open, 2)} ms)`,
      },
    ]
    return {
      title: `dsh-TUI scene: open and one key press, ${COLUMNS}×${ROWS} (medians of ${Math.max(3, runs)} runs, baseline ${BASELINE} nodes)`,
      columns: ['nodes', 'open ms', 'open vs baseline', 'key ms', 'key vs baseline'],
      rows,
      notes: [
        `key: one ↓ press (state step, relayout check, the frame's ${ROWS} lines), averaged over ${KEYS} presses`,
      ],
      checks,
    }
  },
}
