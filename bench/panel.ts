/**
 * Bench section: the Tree panel's first paint in real Chromium (Debian
 * `/usr/bin/chromium`, or `CHROMIUM_PATH`) with the real bundle (`lib/client.js`,
 * `npm run build`), from mount to the first painted frame with rows, the
 * outline's JSON parsed and validated by the generated zod schemas inside the
 * measurement (`test/e2e/support/paint.ts`).
 *
 * Every figure is printed next to a baseline measured in the same page, in
 * the same run, interleaved run by run: parsing the same JSON and painting 30
 * plain React rows. A loaded machine shows as a slower baseline; the budget
 * (first paint of a 10,000-node tree, median) is judged on the figure itself
 * and printed with the ratio, so a FAIL says whether the panel or the machine
 * was slow. `npm test` judges no time: it counts the layout's work instead
 * (test/unit/client/panel-work.test.ts).
 */
import fs from 'node:fs'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { REPO_ROOT } from '../dev/harness.ts'
import { openPaintPage } from '../test/e2e/support/paint.ts'
import { realBigView } from '../test/support/client-fixtures.ts'
import { fmt, median, type BenchSection, type Check, type Row, type SectionResult } from './report.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]
/** First paint of a 10,000-node session with 50 side branches, median of the runs. */
export const FIRST_PAINT_BUDGET_MS = 300

function skipped(reason: string): SectionResult {
  return {
    title: 'panel first paint (Chromium)',
    columns: ['tree'],
    rows: [],
    notes: [reason],
    checks: [{ name: `first paint of 10,000 nodes < ${FIRST_PAINT_BUDGET_MS} ms`, pass: 'skip', detail: reason }],
  }
}

export const panelSection: BenchSection = {
  name: 'panel',
  async run({ runs }): Promise<SectionResult> {
    if (!fs.existsSync(CHROMIUM)) return skipped(`${CHROMIUM} is missing (apt-get install -y chromium)`)
    const bundleFile = path.join(REPO_ROOT, 'lib', 'client.js')
    if (!fs.existsSync(bundleFile)) return skipped('lib/client.js is missing (npm run build)')
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    try {
      const page = await openPaintPage(browser, fs.readFileSync(bundleFile, 'utf8'))
      const n = Math.max(7, runs)
      const trees = [
        { name: '10,000 nodes, 50 side branches', view: realBigView(10_000, 50) as Parameters<typeof page.measure>[1] },
        { name: '10,000 nodes, 250 branches', view: realBigView(10_000, 250) },
        { name: '100,000-deep chain', view: { chain: 100_000 } },
      ]
      await page.measure('warm', realBigView(2_000))
      await page.baseline(realBigView(2_000))
      const rows: Row[] = []
      let budgeted: { paint: number; base: number } | undefined
      for (const tree of trees) {
        const paints: number[] = []
        const bases: number[] = []
        const renders: number[] = []
        // The baseline of a chain is measured on a 10,000-node JSON (the chain is generated in the page).
        const baselineView = 'chain' in tree.view ? (trees[0]!.view as ReturnType<typeof realBigView>) : tree.view
        // One unmeasured run per tree and baseline (JIT, fonts), then the measured ones.
        await page.baseline(baselineView)
        await page.measure('warm', tree.view)
        for (let i = 0; i < n; i++) {
          bases.push(await page.baseline(baselineView))
          const run = await page.measure(`run-${i}`, tree.view)
          if (run.firstPaintMs === undefined) throw new Error(`${tree.name}: no first-paint mark`)
          paints.push(run.firstPaintMs)
          renders.push(run.renderMs ?? Number.NaN)
        }
        const paint = median(paints)
        const base = median(bases)
        if (budgeted === undefined) budgeted = { paint, base }
        rows.push({
          tree: tree.name,
          'first paint median ms': fmt(paint, 0),
          'best ms': fmt(Math.min(...paints), 0),
          'render median ms': fmt(median(renders), 0),
          'baseline median ms': fmt(base, 0),
          'paint / baseline': fmt(paint / base, 1),
        })
      }
      await page.close()
      const checks: Check[] = [
        {
          name: `first paint of 10,000 nodes < ${FIRST_PAINT_BUDGET_MS} ms (median of ${n})`,
          pass: budgeted!.paint < FIRST_PAINT_BUDGET_MS,
          detail: `${fmt(budgeted!.paint, 0)} ms; baseline of this run ${fmt(budgeted!.base, 0)} ms (${fmt(budgeted!.paint / budgeted!.base, 1)}x)`,
        },
      ]
      return {
        title: 'panel first paint (Chromium, real bundle)',
        columns: [
          'tree',
          'first paint median ms',
          'best ms',
          'render median ms',
          'baseline median ms',
          'paint / baseline',
        ],
        rows,
        notes: [
          `${n} runs each, interleaved with the baseline: parse the same outline JSON and paint 30 plain React rows in the same page.`,
          'first paint: mount → first frame with rows, the outline parsed and validated by the generated zod schemas inside it.',
        ],
        checks,
      }
    } finally {
      await browser.close()
    }
  },
}
