/**
 * The three-way merge of a carry (src/workspace/merge.ts): merging into an
 * untouched file gives theirs, the same change on both sides merges to it,
 * edits apart from each other both survive, and every conflict is marked.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { merge3 } from '../../src/workspace/merge.ts'

const labels = { ours: 'mine', theirs: 'theirs' }
/** Few distinct lines, so diffs find real common runs; some without a final line break. */
const line = fc.constantFrom('a\n', 'b\n', 'c\n', 'd\n', 'e\r\n', 'ü\n', '\n')
const text = fc
  .tuple(fc.array(line, { maxLength: 14 }), fc.constantFrom('', 'end', 'ß'))
  .map(([lines, tail]) => lines.join('') + tail)

describe('merge3', () => {
  it('merge(base, base, y) = y and merge(base, x, base) = x', () => {
    fc.assert(
      fc.property(text, text, (base, y) => {
        expect(merge3(base, base, y, labels)).toEqual({ text: y, conflicts: 0 })
        expect(merge3(base, y, base, labels)).toEqual({ text: y, conflicts: 0 })
      }),
      { numRuns: 500 },
    )
  })

  it('merge(base, x, x) = x', () => {
    fc.assert(
      fc.property(text, text, (base, x) => {
        expect(merge3(base, x, x, labels)).toEqual({ text: x, conflicts: 0 })
      }),
      { numRuns: 500 },
    )
  })

  it('edits in separate parts of a file both survive', () => {
    // Base: a block of distinct lines, a fixed separator, another block; each side edits one block.
    const block = fc.array(fc.constantFrom('x\n', 'y\n', 'z\n'), { maxLength: 6 })
    fc.assert(
      fc.property(block, block, block, block, (top, bottom, newTop, newBottom) => {
        const sep = '=1=\n=2=\n'
        const base = top.join('') + sep + bottom.join('')
        const ours = newTop.join('') + sep + bottom.join('')
        const theirs = top.join('') + sep + newBottom.join('')
        expect(merge3(base, ours, theirs, labels)).toEqual({
          text: newTop.join('') + sep + newBottom.join(''),
          conflicts: 0,
        })
      }),
      { numRuns: 500 },
    )
  })

  it('a conflict keeps both sides between markers, and without markers the rest is the merge', () => {
    fc.assert(
      fc.property(text, text, text, (base, ours, theirs) => {
        const result = merge3(base, ours, theirs, labels)
        const opened = result.text.split('\n').filter((l) => l === '<<<<<<< mine').length
        const closedCount = result.text.split('\n').filter((l) => l === '>>>>>>> theirs').length
        // Inputs never hold marker lines, so every marker is the merge's own.
        expect(opened).toBe(result.conflicts)
        expect(closedCount).toBe(result.conflicts)
        if (result.conflicts === 0) {
          // A clean merge is symmetric in the sides.
          expect(merge3(base, theirs, ours, labels).text).toBe(result.text)
        }
      }),
      { numRuns: 800 },
    )
  })
})

describe('merge3 examples', () => {
  it('takes a change into an untouched file', () => {
    expect(merge3('1\n2\n3\n', '1\n2\n3\n', '1\nTWO\n3\n', labels)).toEqual({ text: '1\nTWO\n3\n', conflicts: 0 })
  })

  it('merges non-overlapping hunks of both sides', () => {
    const base = 'a\nb\nc\nd\ne\nf\n'
    expect(merge3(base, 'A\nb\nc\nd\ne\nf\n', 'a\nb\nc\nd\ne\nF\n', labels)).toEqual({
      text: 'A\nb\nc\nd\ne\nF\n',
      conflicts: 0,
    })
  })

  it('marks overlapping edits, a missing final line break closed before the marker', () => {
    expect(merge3('a\nb\nc', 'a\nB\nc', 'a\nβ\nc', labels)).toEqual({
      text: 'a\n<<<<<<< mine\nB\n=======\nβ\n>>>>>>> theirs\nc',
      conflicts: 1,
    })
    expect(merge3('x', 'y', 'z', labels)).toEqual({
      text: '<<<<<<< mine\ny\n=======\nz\n>>>>>>> theirs\n',
      conflicts: 1,
    })
  })

  it('counts touching edits as a conflict (no line is guessed)', () => {
    expect(merge3('a\nb\n', 'A\nb\n', 'a\nB\n', labels).conflicts).toBe(1)
  })

  it('keeps CRLF lines as they are', () => {
    expect(merge3('a\r\nb\r\nc\r\nd\r\n', 'A\r\nb\r\nc\r\nd\r\n', 'a\r\nb\r\nc\r\nD\r\n', labels).text).toBe(
      'A\r\nb\r\nc\r\nD\r\n',
    )
  })
})
