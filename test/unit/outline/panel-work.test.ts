/**
 * The panel's layout is linear, checked by counting work, not milliseconds
 * (`test/support/work.ts`: a deterministic count of the element operations
 * `indexTree` + `layoutTree` perform), so it cannot fail by chance on a loaded
 * machine. The paint-time budget in a real browser is a bench figure
 * (`npm run bench`, section "panel"), printed next to a baseline measured in
 * the same run.
 */
import { describe, expect, it } from 'vitest'
import { indexTree, layoutTree, type LayoutOptions, type TreeIndex } from '../../../src/outline/index.ts'
import type { SessionTreeOutline } from '../../../src/types.ts'
import { realBigView } from '../../support/client-fixtures.ts'
import { countWork } from '../../support/work.ts'

const SMALL = 2_000
const LARGE = 16_000
/** Linear work grows 8x from SMALL to LARGE (plus constant overhead); quadratic work 64x. */
const LINEAR_BOUND = 12

/** Plain data, as off the wire (the fixture's views come from a real tree, whose nodes are frozen). */
const wire = (view: SessionTreeOutline): SessionTreeOutline => JSON.parse(JSON.stringify(view)) as SessionTreeOutline

function chain(n: number): SessionTreeOutline {
  const nodes = Array.from({ length: n }, (_, i) => ({
    nodeId: `c${i}`,
    parentId: i === 0 ? null : `c${i - 1}`,
    type: 'message' as const,
    summary: `m${i}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    branch: 'main',
    message: { role: i % 2 ? ('assistant' as const) : ('user' as const), content: `m${i}` },
  }))
  return {
    sessionId: 's',
    cursor: `c${n - 1}`,
    activeBranch: 'main',
    nodes,
    branches: [{ name: 'main', headId: `c${n - 1}` }],
  }
}

function work(
  view: SessionTreeOutline,
  options: LayoutOptions,
  layout: (index: TreeIndex, options: LayoutOptions) => unknown = layoutTree,
): number {
  return countWork((watch) => layout(indexTree(watch(view)), options)).work
}

/** A deliberately quadratic layout (each row found again by scanning the order): what the check must catch. */
function quadraticLayout(index: TreeIndex): number[] {
  const rows: number[] = []
  for (const id of index.order) rows.push(index.order.indexOf(id))
  return rows
}

describe('panel layout work is linear in the tree size', () => {
  const shapes: [string, (n: number) => SessionTreeOutline][] = [
    ['a session with side branches and tool calls', (n) => wire(realBigView(n, Math.floor(n / 200)))],
    ['a fork-heavy session', (n) => wire(realBigView(n, Math.floor(n / 40)))],
    ['a linear chain', chain],
  ]
  const options: [string, LayoutOptions][] = [
    ['all', {}],
    ['no tools', { filter: 'no-tools' }],
    ['user prompts', { filter: 'user' }],
    ['a search', { query: 'part 1' }],
  ]
  for (const [shape, make] of shapes) {
    it(`${shape}: ${SMALL} → ${LARGE} nodes costs at most ${LINEAR_BOUND}x the work (filters and search too)`, () => {
      const [small, large] = [make(SMALL), make(LARGE)]
      const ratios: string[] = []
      for (const [name, option] of options) {
        const [a, b] = [work(small, option), work(large, option)]
        expect(a, `${name}: something was counted`).toBeGreaterThan(SMALL)
        ratios.push(`${name} ${(b / a).toFixed(2)}`)
        expect(b / a, `${name}: ${a} → ${b} operations`).toBeLessThan(LINEAR_BOUND)
      }
      console.info(`[work] ${shape}: ${ratios.join(', ')}`)
    })
  }

  it('the same count flags a quadratic layout', () => {
    const [small, large] = [chain(SMALL), chain(LARGE)]
    const ratio = work(large, {}, quadraticLayout) / work(small, {}, quadraticLayout)
    console.info(`[work] quadratic reference: ${ratio.toFixed(2)}`)
    expect(ratio).toBeGreaterThan(40)
  })
})
