/**
 * The rules on the summary a move may take along (`src/tree/summary-rules.ts`), each in one place: which
 * moves summarize, what a move leaves (read alike by the panel's outline and the service's tree), what
 * custom instructions must be, where a summary can be carried, and the texts these rules fail with.
 */
import { describe, expect, it } from 'vitest'
import {
  canCarry,
  CARRY_REFUSALS,
  checkInstructions,
  INSTRUCTIONS_REFUSALS,
  instructionsProblem,
  leavesPath,
  leftBehind,
  MAX_SUMMARY_INSTRUCTIONS,
  SUMMARIZING_MOVES,
} from '../../../src/tree/summary-rules.ts'
import { indexTree, leavesPath as outlineLeavesPath } from '../../../src/outline/index.ts'
import { checkSummaryChoice, leftPart } from '../../../src/service/branch-summary.ts'
import { smallTree } from '../../support/client-fixtures.ts'
import { assistant, user, value } from '../../support/messages.ts'

/** smallTree, then a side line forked at a1 (s1 → s2), the cursor back at a2. */
function forkedTree() {
  const { tree, ids } = smallTree()
  value(tree.fork(ids.a1, 'side'))
  const s1 = value(tree.append(user('side question'))).nodeId
  const s2 = value(tree.append(assistant('side answer'))).nodeId
  value(tree.jump(ids.a2))
  const parentOf = (id: string) => tree.get(id)?.parentId
  return { tree, ids: { ...ids, s1, s2 }, parentOf }
}

/** Membership of root → `cursor`. */
function pathOf(cursor: string | null, parentOf: (id: string) => string | null | undefined) {
  const path = new Set<string>()
  for (let id = cursor; id !== null; id = parentOf(id) ?? null) path.add(id)
  return (id: string) => path.has(id)
}

describe('the summary rules of a move (tree/summary-rules.ts)', () => {
  it('only a jump or a fork summarizes: back and forward go to a recorded position', () => {
    expect(SUMMARIZING_MOVES).toEqual({ jump: true, fork: true, back: false, forward: false })
  })

  it('a move leaves the cursor path after the last node it shares with the target path', () => {
    const { tree, ids, parentOf } = forkedTree()
    const path = [ids.a2, ids.call, ids.q2]
    expect(leftBehind(tree.cursor, ids.s2, parentOf)).toEqual({ left: path, from: ids.a1 })
    expect(leftBehind(tree.cursor, ids.a1, parentOf)).toEqual({ left: path, from: ids.a1 })
    // Before the first node: the whole path, from the root.
    expect(leftBehind(tree.cursor, null, parentOf)).toEqual({ left: [...path, ids.a1, ids.q1], from: null })
    // The cursor on the target path (the cursor itself, or after it): nothing.
    expect(leavesPath(tree.cursor, ids.a2, parentOf)).toBe(false)
    expect(leavesPath(null, ids.q1, parentOf)).toBe(false)
    expect(leavesPath(tree.cursor, ids.q1, parentOf)).toBe(true)
  })

  it('a cyclic parent chain ends the walk instead of hanging', () => {
    const parentOf = (id: string) => (id === 'x' ? null : id === 'a' ? 'b' : 'a')
    expect(leftBehind('a', 'x', parentOf)).toEqual({ left: ['a', 'b'], from: null })
    expect(leftBehind('x', 'a', parentOf)).toEqual({ left: ['x'], from: null })
    expect(leavesPath('x', 'a', parentOf)).toBe(true)
    expect(leavesPath('b', 'a', parentOf)).toBe(false)
    const ring = (id: string) => String((Number(id) + 1) % 7)
    expect(leavesPath('x', '0', ring)).toBe(true)
  })

  it('whether a move leaves the path is whether it leaves a part behind, for every cursor and target', () => {
    const { tree, ids, parentOf } = forkedTree()
    const nodes = [null, ...Object.values(ids)]
    for (const cursor of nodes)
      for (const target of nodes)
        for (const onCursorPath of [undefined, pathOf(cursor, parentOf)])
          expect(leavesPath(cursor, target, parentOf, onCursorPath), `${cursor} → ${target}`).toBe(
            leftBehind(cursor, target, parentOf).left.length > 0,
          )
    expect(tree.nodeCount).toBe(nodes.length - 1)
  })

  it("the panel's outline and the service's tree read the same rule for every target", () => {
    const { tree, ids } = forkedTree()
    const index = indexTree(tree.outline())
    for (const id of Object.values(ids)) {
      const service = leftPart(tree, id)
      expect(outlineLeavesPath(index, id), id).toBe(service !== undefined)
    }
    value(tree.jump(ids.s2))
    const moved = indexTree(tree.outline())
    for (const id of Object.values(ids)) expect(outlineLeavesPath(moved, id), id).toBe(leftPart(tree, id) !== undefined)
  })

  it('custom instructions must be given (not only spaces) and at most the limit, counted as typed', () => {
    expect(MAX_SUMMARY_INSTRUCTIONS).toBe(2_000)
    expect(instructionsProblem(undefined)).toBe('required')
    expect(instructionsProblem(42)).toBe('required')
    expect(instructionsProblem(' \n ')).toBe('required')
    expect(instructionsProblem('x'.repeat(MAX_SUMMARY_INSTRUCTIONS))).toBeUndefined()
    expect(instructionsProblem('x'.repeat(MAX_SUMMARY_INSTRUCTIONS + 1))).toBe('tooLong')
    expect(instructionsProblem(' ' + 'x'.repeat(MAX_SUMMARY_INSTRUCTIONS))).toBe('tooLong')
  })

  it('refused instructions fail INVALID_ARGUMENT with their text; the service answers with it', () => {
    expect(INSTRUCTIONS_REFUSALS).toEqual({
      required: 'summary.instructions must be a non-empty string for kind "custom"',
      tooLong: 'summary.instructions is longer than 2000 characters',
    })
    expect(checkInstructions('name the files')).toEqual({ ok: true, value: 'name the files' })
    expect(checkInstructions('')).toEqual({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', message: INSTRUCTIONS_REFUSALS.required },
    })
    expect(checkSummaryChoice({ kind: 'custom', instructions: 'x'.repeat(2_001) })).toEqual({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', message: INSTRUCTIONS_REFUSALS.tooLong },
    })
    expect(checkSummaryChoice({ kind: 'custom', instructions: ' keep ', carry: true })).toEqual({
      ok: true,
      value: { kind: 'custom', instructions: ' keep ', carry: true },
    })
  })

  it('a summary is carried into the model history in every mode but projection', () => {
    expect(canCarry('projection')).toBe(false)
    expect(canCarry('stock')).toBe(true)
    expect(canCarry('native')).toBe(true)
    expect(canCarry(undefined)).toBe(true)
    expect(CARRY_REFUSALS).toEqual({
      move: 'a summary cannot be carried into the model history in projection mode (nothing changes what the model reads there); keep it for the panel instead',
      carry:
        'a summary cannot be carried into the model history in projection mode; carry without it, or keep it for the panel (carry: false)',
    })
  })
})
