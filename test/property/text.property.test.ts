/**
 * Node summaries (src/tree/text.ts). `oneLine` skips its whitespace rewrite for text that is already
 * one line (so the summary can be the message's own string); these properties pin that the shortcut
 * never changes a result, and that a restored tree holds a one-line message and its summary as one string.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SessionTree } from '../../src/tree/index.ts'
import { oneLine } from '../../src/tree/text.ts'

/** The definition: collapse every whitespace run to one space, trim, cut to `max` with an ellipsis. */
function reference(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

// Text biased toward whitespace of every kind (ASCII, no-break, line/paragraph separators, ideographic).
const whitespaceHeavy = fc
  .array(fc.constantFrom('a', 'b', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\u3000', '\ufeff', 'é', '日'), {
    maxLength: 300,
  })
  .map((parts) => parts.join(''))

describe('oneLine', () => {
  it('equals the whitespace-collapsing definition for any text and width', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 200 }), whitespaceHeavy),
        fc.integer({ min: 1, max: 200 }),
        (text, max) => {
          expect(oneLine(text, max)).toBe(reference(text, max))
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('returns one-line text itself, and collapses what is not one line', () => {
    expect(oneLine('already one line')).toBe('already one line')
    expect(oneLine(' leading')).toBe('leading')
    expect(oneLine('trailing ')).toBe('trailing')
    expect(oneLine('two  spaces\tand\na\u00a0break')).toBe('two spaces and a break')
    expect(oneLine('x'.repeat(130))).toBe(`${'x'.repeat(119)}…`)
  })
})

describe('restored summaries', () => {
  it('a restored tree serializes exactly as the original, whatever the message text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(whitespaceHeavy, fc.string({ maxLength: 200 })), { minLength: 1, maxLength: 20 }),
        (texts) => {
          const tree = new SessionTree('s')
          texts.forEach((content, i) => {
            const r = tree.append({ role: i % 2 ? 'assistant' : 'user', content })
            expect(r.ok).toBe(true)
          })
          const json = JSON.stringify(tree.snapshot())
          const restored = new SessionTree('s', JSON.parse(json))
          expect(JSON.stringify(restored.snapshot())).toBe(json)
          for (const node of restored.list()) expect(node.summary).toBe(reference(node.message!.content))
        },
      ),
      { numRuns: 300 },
    )
  })
})
