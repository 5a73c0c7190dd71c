/**
 * The Tree tab's summary choice for Jump and Fork, pure (`src/client/summary/choice.ts`):
 * when it is offered (the move leaves part of the path), what it sends, and
 * what keeps it from being sent. Its use in the real `dsh web` is proven at
 * the fake LLM in test/e2e/summary-choice.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { indexTree } from '../../../src/outline/index.ts'
import { instructionsProblem, leavesPath, moveOptions, NO_SUMMARY } from '../../../src/client/summary/choice.ts'
import { MAX_SUMMARY_INSTRUCTIONS } from '../../../src/tree/validate.ts'
import { smallTree } from '../../support/client-fixtures.ts'

describe('the summary choice of Jump and Fork', () => {
  it('is offered when the move leaves part of the path: not for the cursor, its descendants or nothing', () => {
    const { tree, ids } = smallTree()
    const index = indexTree(tree.outline())
    expect(leavesPath(index, ids.a2)).toBe(false)
    expect(leavesPath(index, ids.a1)).toBe(true)
    expect(leavesPath(index, ids.q1)).toBe(true)
    tree.jump(ids.a1)
    const back = indexTree(tree.outline())
    // From a1, the nodes after it on the same line leave nothing behind.
    expect(leavesPath(back, ids.a2)).toBe(false)
    expect(leavesPath(back, ids.q1)).toBe(true)
  })

  it('sends nothing for "none", a carried summary by default, and a panel-only one in projection mode', () => {
    expect(moveOptions(NO_SUMMARY, 'stock')).toBeUndefined()
    expect(moveOptions({ kind: 'summarize', instructions: 'kept aside' }, 'stock')).toEqual({
      summary: { kind: 'summarize', carry: true },
    })
    expect(moveOptions({ kind: 'custom', instructions: '  name the files ' }, 'native')).toEqual({
      summary: { kind: 'custom', instructions: 'name the files', carry: true },
    })
    expect(moveOptions({ kind: 'summarize', instructions: '' }, 'projection')).toEqual({
      summary: { kind: 'summarize' },
    })
  })

  it("custom instructions must be given and within the service's bound (never cut)", () => {
    expect(instructionsProblem({ kind: 'custom', instructions: '   ' })).toBe('required')
    expect(instructionsProblem({ kind: 'custom', instructions: 'x'.repeat(MAX_SUMMARY_INSTRUCTIONS + 1) })).toBe(
      'tooLong',
    )
    expect(instructionsProblem({ kind: 'custom', instructions: 'x'.repeat(MAX_SUMMARY_INSTRUCTIONS) })).toBeUndefined()
    expect(instructionsProblem({ kind: 'summarize', instructions: '' })).toBeUndefined()
    expect(moveOptions({ kind: 'custom', instructions: '' }, 'stock')).toBeUndefined()
  })
})
