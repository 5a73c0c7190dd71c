/**
 * Property-based tests of the pure session tree (issue 2).
 *
 * A hand-rolled op generator (`tree-arbitraries.ts`) drives every mutating
 * API of `SessionTree` with valid and invalid inputs, against a small
 * independent model (`tree-model.ts`). After every operation the result is
 * checked against the model (an expected error code, or success and the
 * model's post-state), a failed operation must leave the snapshot
 * byte-identical, and periodically (and at the end) every structural
 * invariant is recomputed from `list()`, the snapshot must survive a JSON
 * round trip byte-identically, and snapshot + log replay must reproduce the
 * tree exactly (`tree-runner.ts`, `tree-invariants.ts`).
 *
 * Two shapes of run:
 * - long runs of exactly 10,000 operations (a few seeds, no shrinking: a
 *   failure names the op index and the op; the counterexample is the seed of
 *   the op list, and `PROP_SEED=<seed> npx vitest run test/property` replays
 *   exactly that run);
 * - many short runs with shrinking, so a failure comes with a minimal op list.
 *
 * Snapshot corruption is `snapshot.property.test.ts`; the defects these
 * properties found are pinned in `tree-regressions.test.ts`.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { opArb } from './tree-arbitraries.ts'
import { runOps } from './tree-runner.ts'

describe('SessionTree under random operation sequences', () => {
  const LONG = 10_000

  it(`keeps every invariant over ${LONG.toLocaleString('en')}-operation runs`, () => {
    const started = performance.now()
    let totals = { ops: 0, failed: 0, maxNodes: 0 }
    const codes = new Map<string, number>()
    fc.assert(
      // The counterexample is the seed of the op list (10,000 ops do not print usefully).
      fc.property(
        process.env.PROP_SEED ? fc.constant(Number(process.env.PROP_SEED)) : fc.noShrink(fc.integer()),
        (seed) => {
          const ops = fc.sample(opArb, { seed, numRuns: LONG })
          const runner = runOps(ops, { fullEvery: 1000, replayEvery: 2500, byteCheckBelow: 300, baseEvery: 997 })
          totals = {
            ops: totals.ops + ops.length,
            failed: totals.failed + runner.stats.failed,
            maxNodes: Math.max(totals.maxNodes, runner.tree.nodeCount),
          }
          for (const [code, n] of runner.stats.byCode) codes.set(code, (codes.get(code) ?? 0) + n)
        },
      ),
      // No shrinking of 10k-op runs (the short runs below shrink); the message names the op.
      { numRuns: process.env.PROP_SEED ? 1 : 3, endOnFailure: true },
    )
    // The runs must actually exercise failures of every kind the generator aims at.
    for (const code of [
      'NODE_NOT_FOUND',
      'BRANCH_NOT_FOUND',
      'BRANCH_EXISTS',
      'LABEL_EXISTS',
      'INVALID_ARGUMENT',
      'HISTORY_EMPTY',
    ] as const) {
      expect(codes.get(code) ?? 0, `no op failed with ${code}`).toBeGreaterThan(0)
    }
    expect(totals.ops).toBe((process.env.PROP_SEED ? 1 : 3) * LONG)
    expect(totals.maxNodes).toBeGreaterThan(1000)
    // eslint-disable-next-line no-console
    console.info(
      `[property] ${totals.ops} ops, ${totals.failed} expected failures, max ${totals.maxNodes} nodes, ${Math.round(performance.now() - started)} ms`,
    )
  }, 600_000)

  it('keeps every invariant over many short runs (shrinks to a minimal op list)', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 120 }), (ops) => {
        runOps(ops, { fullEvery: 1, replayEvery: 10, byteCheckBelow: Infinity, baseEvery: 17 })
      }),
      { numRuns: 250 },
    )
  }, 600_000)
})
