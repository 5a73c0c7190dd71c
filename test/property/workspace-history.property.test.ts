/**
 * The files' own history of restores (src/workspace/timeline.ts, `undoing`
 * and `undoTargets`; docs/workspace.md, "Back and forward") against a
 * simulated workspace: random tool calls, user edits, restores to earlier
 * nodes, backs and forwards, every conflict overwritten. The oracle is a
 * plain undo stack of what each restore replaced. Property: a back puts back
 * exactly what the restore it undoes replaced and leaves every other file
 * alone; a forward does the same for the back it undoes; a new restore
 * clears what a forward could redo.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { planRestore } from '../../src/workspace/planner.ts'
import { Timeline } from '../../src/workspace/timeline.ts'
import type { FileState, RestoreStep, SingleOp } from '../../src/workspace/types.ts'
import {
  afterOps,
  beforeOp,
  callStep,
  contentOf,
  hex,
  PATHS,
  restoreBack,
  state,
  userStep,
  type CallStep,
  type RestoreBack,
  type UserStep,
  type World,
} from './workspace-world.ts'

type Step = CallStep | UserStep | RestoreBack | { readonly kind: 'step'; readonly step: RestoreStep }

const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: callStep },
    { weight: 2, arbitrary: userStep },
    { weight: 2, arbitrary: restoreBack(20) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('step' as const),
        step: fc.constantFrom<RestoreStep>('back', 'forward'),
      }),
    },
  ),
  { minLength: 1, maxLength: 40 },
)

describe("the files' history of restores", () => {
  it('back and forward put back exactly what the restore they undo replaced, and nothing else', () => {
    fc.assert(
      fc.property(steps, fc.dictionary(fc.constantFrom(...PATHS), hex), (drawn, initial) => {
        const timeline = new Timeline()
        const world: World = new Map(PATHS.map((p) => [p, initial[p] ?? null]))
        const nodes: number[] = []
        /** The oracle: what each restore replaced (path → content), on the side a back or a forward undoes. */
        const done: Map<string, string | null>[] = []
        const undone: Map<string, string | null>[] = []
        let seq = 0
        let n = 0
        const apply = (op: SingleOp) => timeline.apply({ n: ++n, op })
        /** Carry out a plan, every conflict overwritten, as the restorer journals it; what it replaced. */
        const carryOut = (
          targetOf: (p: string) => FileState | undefined,
          paths: readonly string[],
          step: RestoreStep | undefined,
        ) => {
          const of = step === undefined ? [] : timeline.undoing(step)
          const plan = planRestore({
            target: null,
            paths,
            targetOf,
            expectedOf: (p) => timeline.expected(p),
            currentOf: (p) => state(world.get(p)),
          })
          const chosen = [...plan.entries, ...plan.conflicts]
          const id = `r${++seq}`
          apply({
            t: 'restore',
            key: 2 * seq + 1,
            id,
            target: null,
            files: chosen.map((e) => ({ path: e.path, before: e.current, after: e.target })),
            ...(step === undefined ? {} : { step, of }),
          })
          const replaced = new Map<string, string | null>()
          for (const e of chosen) {
            replaced.set(e.path, world.get(e.path) ?? null)
            world.set(e.path, contentOf(e.target))
          }
          apply({ t: 'restored', id, kept: [] })
          return replaced
        }
        for (const s of drawn) {
          if (s.kind === 'call') {
            seq += 1
            for (const [i, content] of s.writes) {
              const path = PATHS[i]!
              if (!timeline.isOpen(2 * seq, `call-${seq}`, path)) apply(beforeOp(seq, path, world))
              world.set(path, content)
            }
            for (const op of afterOps(seq, s, world)) apply(op)
            nodes.push(seq)
          } else if (s.kind === 'user') {
            world.set(PATHS[s.path]!, s.content)
          } else if (s.kind === 'restore') {
            if (nodes.length === 0) continue
            const at = nodes[Math.max(0, nodes.length - 1 - s.back)]!
            done.push(carryOut((p) => timeline.stateAt(p, 2 * at), timeline.paths(), undefined))
            undone.length = 0
          } else {
            const [from, to] = s.step === 'back' ? [done, undone] : [undone, done]
            const expected = from.pop()
            const group = timeline.undoing(s.step)
            expect(group.length > 0, 'the timeline has a restore to undo exactly when the oracle has').toBe(
              expected !== undefined,
            )
            if (expected === undefined) continue
            const before = new Map(world)
            const targets = timeline.undoTargets(group)
            to.push(carryOut((p) => targets.get(p), [...targets.keys()].sort(), s.step))
            for (const path of PATHS) {
              const want = expected.has(path) ? expected.get(path) : before.get(path)
              expect(world.get(path) ?? null, `${s.step}: ${path}`).toBe(want ?? null)
            }
          }
        }
      }),
      { numRuns: 1500 },
    )
  })
})
