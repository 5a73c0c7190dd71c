/**
 * The Tree tab's summary choice for Jump and Fork, pure (`src/client/summary/choice.ts`):
 * what it sends, and what keeps it from being sent (when it is offered, and the
 * rules themselves: test/unit/tree/summary-rules.test.ts). Its use in the real `dsh web` is proven at
 * the fake LLM in test/e2e/summary-choice.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { instructionsProblem, moveOptions, NO_SUMMARY } from '../../../src/client/summary/choice.ts'
import { MAX_SUMMARY_INSTRUCTIONS } from '../../../src/tree/summary-rules.ts'

describe('the summary choice of Jump and Fork', () => {
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

  it('only a custom choice is held back by its instructions (the rule is tree/summary-rules.ts)', () => {
    expect(instructionsProblem({ kind: 'custom', instructions: '   ' })).toBe('required')
    expect(instructionsProblem({ kind: 'custom', instructions: 'x'.repeat(MAX_SUMMARY_INSTRUCTIONS + 1) })).toBe(
      'tooLong',
    )
    expect(instructionsProblem({ kind: 'summarize', instructions: '' })).toBeUndefined()
    expect(moveOptions({ kind: 'custom', instructions: '' }, 'stock')).toBeUndefined()
  })
})
