/**
 * The checkpoint timeline and the restore planner (src/workspace/timeline.ts,
 * planner.ts) against a simulated workspace: random tool calls write and
 * delete files, restores put earlier states back, the user edits files behind
 * the agent's back. Properties:
 * - the state the timeline gives for a node is exactly what the workspace held
 *   right after that node (as long as nobody else touched the file since);
 * - a plan to any node lists exactly the files that differ, and as conflicts
 *   exactly the files the user changed (and that are not already the target).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { planRestore } from '../../src/workspace/planner.ts'
import { Timeline } from '../../src/workspace/timeline.ts'
import type { SingleOp } from '../../src/workspace/types.ts'
import {
  afterOps,
  beforeOp,
  callStep,
  hex,
  PATHS,
  restoreBack,
  state,
  userStep,
  type World,
} from './workspace-world.ts'

const step = fc.oneof(
  { weight: 5, arbitrary: callStep },
  { weight: 2, arbitrary: restoreBack(30) },
  { weight: 1, arbitrary: userStep },
)

describe('timeline and planner against a simulated workspace', () => {
  it('the state at each node is what the workspace held right after it; plans list the differences and the user edits as conflicts', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 40 }),
        fc.dictionary(fc.constantFrom(...PATHS), hex),
        fc.boolean(),
        (drawn, initial, withUser) => {
          // Half the runs without any user edit: there every state and plan is exact.
          const steps = withUser ? drawn : drawn.filter((s) => s.kind !== 'user')
          const timeline = new Timeline()
          const world: World = new Map(PATHS.map((p) => [p, initial[p] ?? null]))
          /** Node seq → the workspace right after it. */
          const snapshots: { seq: number; world: World }[] = []
          /** What the agent (or a restore) last left in each file: a file that differs from it was changed by the user. */
          const lastWritten = new Map<string, string | null>()
          let seq = 0
          let n = 0
          let edited = false
          const apply = (op: SingleOp) => timeline.apply({ n: ++n, op })
          for (const s of steps) {
            if (s.kind === 'call') {
              seq += 2
              for (const [i, content] of s.writes) {
                const path = PATHS[i]!
                apply(beforeOp(seq, path, world))
                world.set(path, content)
                lastWritten.set(path, content)
              }
              for (const op of afterOps(seq, s, world)) apply(op)
              // The tool-call node itself (its boundary is its changes' key), then the node after it.
              snapshots.push({ seq, world: new Map(world) })
              seq += 1
              snapshots.push({ seq, world: new Map(world) })
            } else if (s.kind === 'user') {
              edited ||= world.get(PATHS[s.path]!) !== s.content
              world.set(PATHS[s.path]!, s.content)
            } else if (snapshots.length > 0) {
              const target = snapshots[Math.max(0, snapshots.length - 1 - s.back)]!
              const userTouched = new Set(timeline.paths().filter((p) => world.get(p) !== lastWritten.get(p)))
              const plan = planRestore({
                target: `e${target.seq}`,
                paths: timeline.paths(),
                targetOf: (p) => timeline.stateAt(p, 2 * target.seq),
                expectedOf: (p) => timeline.expected(p),
                currentOf: (p) => state(world.get(p)),
              })
              // Without user edits: exactly the files that differ from that node are written, and nothing conflicts.
              if (!edited) {
                expect(plan.entries.map((e) => e.path)).toEqual(
                  timeline.paths().filter((p) => world.get(p) !== target.world.get(p)),
                )
                expect(plan.conflicts).toEqual([])
              }
              // Always: a file the user changed is never written, and only such a file is a conflict.
              for (const entry of plan.entries) expect(userTouched.has(entry.path), entry.path).toBe(false)
              for (const conflict of plan.conflicts) expect(userTouched.has(conflict.path), conflict.path).toBe(true)
              // Restore everything planned (conflicts kept), as the restorer would journal it.
              const id = `r${seq}`
              apply({
                t: 'restore',
                key: 2 * seq + 1,
                id,
                target: `e${target.seq}`,
                files: plan.entries.map((e) => ({ path: e.path, before: e.current, after: e.target })),
              })
              for (const e of plan.entries) {
                const content =
                  e.target.kind === 'absent' ? null : (e.target as { hash: string }).hash.replace(/0+$/, '')
                world.set(e.path, content)
                lastWritten.set(e.path, content)
              }
              apply({ t: 'restored', id, kept: [] })
              seq += 1
              snapshots.push({ seq, world: new Map(world) })
            }
          }
          // Without user edits, every node's files are exactly what the workspace held right after it.
          if (!edited) {
            for (const { seq: at, world: then } of snapshots) {
              for (const path of timeline.paths())
                expect(timeline.stateAt(path, 2 * at), `${path} at ${at}`).toEqual(state(then.get(path)))
            }
          }
        },
      ),
      { numRuns: 1500 },
    )
  })
})
