/**
 * Random interleavings against the service in a real Context: the published
 * agent loop, session store and tool runtime in process (`test/support/tool-rig.ts`, only
 * the model scripted), stock mode, the invariant companions mounted (they
 * check at every committed event that the tree path is the model history).
 *
 * A schedule is a list of batches; the calls of one batch (jumps, forks,
 * labels, back/forward, a prompt) are made concurrently, a restart is a batch
 * of its own. After every batch:
 * - every acknowledged effect is present and every refused one absent (a
 *   refused fork's branch does not exist, a refused label changed nothing,
 *   the cursor is where an acknowledged move or the prompt put it);
 * - every acknowledged move reported its own target;
 * - the tree is consistent, the sidecar has nothing to warn about, a restart
 *   brings back exactly the same tree;
 * - the model's next request holds exactly the path to the cursor.
 */
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { TypertLookupFailure } from '@deepseek-ai/dsh-typert-protocol'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import type { MoveResult } from '../../src/service/wire.ts'
import type { SessionTreeView, TreeNode } from '../../src/tree/index.ts'
import { loopRig, transcript, type LoopRig, type ScriptEntry } from '../support/tool-rig.ts'

type Action =
  | { readonly kind: 'jump'; readonly pick: number }
  | { readonly kind: 'fork'; readonly pick: number; readonly name: string }
  | { readonly kind: 'label'; readonly pick: number; readonly text: string | null }
  | { readonly kind: 'back' }
  | { readonly kind: 'forward' }
  | { readonly kind: 'prompt' }
type Batch = { readonly kind: 'restart' } | { readonly kind: 'calls'; readonly actions: readonly Action[] }

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('jump' as const), pick: fc.nat(40) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('fork' as const),
      pick: fc.nat(40),
      name: fc.constantFrom('f1', 'f2', 'f3', 'f4', 'main'),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('label' as const),
      pick: fc.nat(40),
      text: fc.constantFrom('l1', 'l2', 'l3', null),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('back' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forward' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('prompt' as const) }) },
)
const batch: fc.Arbitrary<Batch> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('calls' as const),
      actions: fc.array(action, { minLength: 1, maxLength: 6 }),
    }),
  },
)

/** The scripted model: every request gets an answer naming its number. */
const answers = (from: number): ScriptEntry[] => Array.from({ length: 400 }, (_, i) => ({ text: `answer ${from + i}` }))

const rigs: LoopRig[] = []
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.dispose()
})

const codeOf = (reason: unknown) =>
  reason instanceof TypertLookupFailure ? (reason.failure as { code: string }).code : `thrown: ${String(reason)}`

/** Messages from the root to `nodeId` as `role: text` lines (what a request shows). */
function pathLines(view: SessionTreeView, nodeId: string | null): string[] {
  const byId = new Map(view.nodes.map((n) => [n.nodeId, n]))
  const lines: string[] = []
  for (let id = nodeId; id !== null; id = byId.get(id)!.parentId) {
    const message = byId.get(id)!.message
    if (message) lines.unshift(`${message.role}: ${message.content}`)
  }
  return lines
}

/** Parents exist, the cursor and every head exist, labels are unique, no cycle. */
function expectConsistent(view: SessionTreeView): void {
  const byId = new Map(view.nodes.map((n) => [n.nodeId, n]))
  expect(byId.size).toBe(view.nodes.length)
  for (const node of view.nodes) {
    if (node.parentId !== null) expect(byId.has(node.parentId), `parent of ${node.nodeId}`).toBe(true)
    let steps = 0
    for (let id: string | null = node.nodeId; id !== null; id = byId.get(id)!.parentId)
      expect(++steps).toBeLessThanOrEqual(view.nodes.length)
  }
  if (view.cursor !== null) expect(byId.has(view.cursor)).toBe(true)
  for (const branch of view.branches) expect(byId.has(branch.headId), `head of ${branch.name}`).toBe(true)
  const labels = view.nodes.flatMap((n) => (n.label === undefined ? [] : [n.label]))
  expect(new Set(labels).size).toBe(labels.length)
}

/** Whether `ancestor` is on the path from the root to `nodeId`. */
function onPath(view: SessionTreeView, ancestor: string, nodeId: string): boolean {
  const byId = new Map(view.nodes.map((n) => [n.nodeId, n]))
  for (let id: string | null = nodeId; id !== null; id = byId.get(id)!.parentId) if (id === ancestor) return true
  return false
}

/** Where a move may end for a target (a node inside a tool exchange moves to its end: none here). */
const movable = (view: SessionTreeView): TreeNode[] =>
  view.nodes.filter((n) => n.message?.role === 'user' || n.message?.role === 'assistant')

async function state(r: LoopRig) {
  const tree = r.service.sync.get(r.sessionId)!.projector.tree
  return { view: await r.service.list(r.sessionId), navigation: tree.navigation(), summaries: tree.summaries() }
}

describe('random interleavings of moves, labels, forks, prompts and restarts', () => {
  it('keep every promise after every batch', async () => {
    let runs = 0
    const seen = { acked: 0, refused: 0, restarts: 0, prompts: 0 }
    // Always run once with every kind of call and conflict, besides the random schedules.
    const example: Batch[] = [
      {
        kind: 'calls',
        actions: [
          { kind: 'fork', pick: 1, name: 'f1' },
          { kind: 'fork', pick: 2, name: 'f1' },
          { kind: 'label', pick: 0, text: 'l1' },
          { kind: 'label', pick: 3, text: 'l1' },
          { kind: 'jump', pick: 0 },
        ],
      },
      { kind: 'restart' },
      {
        kind: 'calls',
        actions: [
          { kind: 'back' },
          { kind: 'forward' },
          { kind: 'forward' },
          { kind: 'jump', pick: 2 },
          { kind: 'prompt' },
          { kind: 'jump', pick: 1 },
        ],
      },
      { kind: 'restart' },
    ]
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 2, maxLength: 6 }), async (schedule) => {
        runs++
        let requests = 0
        let r = await loopRig(answers(0))
        rigs.push(r)
        await r.say('Q1')
        await r.say('Q2')
        requests = r.model.requests.length
        let probes = 0
        for (const step of schedule) {
          if (step.kind === 'restart') {
            const before = await state(r)
            requests += r.model.requests.length - requests
            const stopped = await r.stop()
            r = await loopRig(answers(1000 + probes), { resume: stopped })
            rigs.push(r)
            expect((await r.service.session(r.sessionId)).sidecarWarnings).toEqual([])
            expect(await state(r)).toEqual(before)
            seen.restarts++
            continue
          }
          const before = await r.service.list(r.sessionId)
          const nodes = movable(before)
          const target = (pick: number) => nodes[pick % nodes.length]!.nodeId
          const calls = step.actions.map((a) => {
            switch (a.kind) {
              case 'jump':
                return r.service.jump(r.sessionId, target(a.pick))
              case 'fork':
                return r.service.fork(r.sessionId, target(a.pick), a.name)
              case 'label':
                return r.service.label(r.sessionId, target(a.pick), a.text)
              case 'back':
                return r.service.back(r.sessionId)
              case 'forward':
                return r.service.forward(r.sessionId)
              case 'prompt':
                r.agent.followup(
                  createUserMessage({
                    content: [{ type: 'text', text: `prompt ${probes}` }],
                    source: { kind: 'user' },
                  }),
                )
                return Promise.resolve('prompted')
            }
          })
          const settled = await Promise.allSettled(calls)
          await r.settle()
          const after = await r.service.list(r.sessionId)
          expectConsistent(after)
          const byId = new Map(after.nodes.map((n) => [n.nodeId, n]))
          const prompted = step.actions.some((a) => a.kind === 'prompt')
          const acked: string[] = []
          settled.forEach((outcome, i) => {
            const a = step.actions[i]!
            seen[outcome.status === 'rejected' ? 'refused' : 'acked']++
            if (a.kind === 'prompt') seen.prompts++
            if (outcome.status === 'rejected') {
              // Refusals are typed and expected ones only; their effect is checked below.
              expect(
                ['AGENT_BUSY', 'BRANCH_EXISTS', 'HISTORY_EMPTY', 'LABEL_EXISTS'],
                `${JSON.stringify(a)}`,
              ).toContain(codeOf(outcome.reason))
              if (a.kind === 'fork' && !before.branches.some((b) => b.name === a.name)) {
                const twin = step.actions.some(
                  (other, k) =>
                    k !== i && other.kind === 'fork' && other.name === a.name && settled[k]!.status === 'fulfilled',
                )
                if (!twin)
                  expect(
                    after.branches.map((b) => b.name),
                    `refused fork ${a.name}`,
                  ).not.toContain(a.name)
              }
              if (a.kind === 'label') {
                const touched = step.actions.some(
                  (other, k) =>
                    k !== i &&
                    other.kind === 'label' &&
                    settled[k]!.status === 'fulfilled' &&
                    (target(other.pick) === target(a.pick) ||
                      other.text === before.nodes.find((n) => n.nodeId === target(a.pick))?.label),
                )
                if (!touched)
                  expect(byId.get(target(a.pick))!.label, `refused label ${JSON.stringify(a)}`).toBe(
                    before.nodes.find((n) => n.nodeId === target(a.pick))!.label,
                  )
              }
              return
            }
            if (a.kind === 'jump' || a.kind === 'fork') {
              const moved = outcome.value as MoveResult
              expect(moved.cursor, `${JSON.stringify(a)} reports its own target`).toBe(target(a.pick))
              acked.push(moved.cursor!)
              if (a.kind === 'fork') {
                expect(moved.branch).toBe(a.name)
                const head = after.branches.find((b) => b.name === a.name)
                expect(head, `acknowledged fork ${a.name}`).toBeDefined()
                expect(onPath(after, target(a.pick), head!.headId)).toBe(true)
              }
            } else if (a.kind === 'back' || a.kind === 'forward') {
              acked.push((outcome.value as MoveResult).cursor ?? 'null')
            } else if (a.kind === 'label') {
              const conflict = step.actions.some(
                (other, k) =>
                  k !== i && other.kind === 'label' && (target(other.pick) === target(a.pick) || other.text === a.text),
              )
              if (!conflict)
                expect(byId.get(target(a.pick))!.label, `acknowledged label ${JSON.stringify(a)}`).toBe(
                  a.text ?? undefined,
                )
            }
          })
          // The cursor is where an acknowledged move put it, or the prompt's turn, or unchanged.
          const created = after.nodes
            .filter((n) => !before.nodes.some((b) => b.nodeId === n.nodeId))
            .map((n) => n.nodeId)
          const allowed = new Set([
            ...acked,
            ...(prompted ? created : []),
            ...(acked.length === 0 && !prompted ? [before.cursor ?? 'null'] : []),
          ])
          expect(
            allowed.has(after.cursor ?? 'null'),
            `cursor ${after.cursor} after ${JSON.stringify(step.actions)}`,
          ).toBe(true)
          expect((await r.service.session(r.sessionId)).sidecarWarnings).toEqual([])
          // The model's next request holds exactly the path to the cursor.
          const probe = `probe ${probes++}`
          await r.say(probe)
          expect(transcript(r.model.requests.at(-1)!)).toEqual([...pathLines(after, after.cursor), `user: ${probe}`])
        }
        expect(r.invariantFailures).toEqual([])
        await r.dispose()
      }),
      { numRuns: 25, endOnFailure: true, examples: [[example]] },
    )
    expect(runs).toBeGreaterThanOrEqual(25)
    for (const [what, count] of Object.entries(seen)) expect(count, what).toBeGreaterThan(0)
    console.info(
      `[property] concurrency: ${runs} schedules, ${seen.acked} acknowledged and ${seen.refused} refused calls, ${seen.prompts} prompts, ${seen.restarts} restarts`,
    )
  }, 600_000)
})
