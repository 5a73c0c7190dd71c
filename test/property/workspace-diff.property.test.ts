/**
 * Restore previews' diffs (src/workspace/diff.ts): for any two texts, the
 * unified diff applied to the first yields the second, and the counts are a
 * minimal edit (n + m − 2·LCS lines) whenever the edit is within MAX_EDITS.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { diffCounts, splitLines, unifiedDiff } from '../../src/workspace/diff.ts'
import { lcs } from '../support/lcs.ts'

/** Apply a unified diff (as `patch` would, no fuzz). */
function apply(before: string, diff: string): string {
  if (diff === '') return before
  const source = splitLines(before)
  const out: string[] = []
  const lines = diff.split('\n')
  let at = 0
  let i = 2
  while (i < lines.length && lines[i]!.startsWith('@@')) {
    const [, oldStart, oldCount] = /^@@ -(\d+),(\d+)/.exec(lines[i]!)!
    const start = Number(oldCount) === 0 ? Number(oldStart) : Number(oldStart) - 1
    while (at < start) out.push(source[at++]!)
    i++
    while (i < lines.length && !lines[i]!.startsWith('@@') && lines[i] !== '') {
      const kind = lines[i]![0]
      let text = lines[i]!.slice(1)
      const noNewline = lines[i + 1] === '\\ No newline at end of file'
      text = noNewline ? text : `${text}\n`
      if (kind === ' ') {
        out.push(text)
        at++
      } else if (kind === '-') at++
      else out.push(text)
      i += noNewline ? 2 : 1
    }
  }
  while (at < source.length) out.push(source[at++]!)
  return out.join('')
}

const text = fc
  .array(fc.constantFrom('a\n', 'b\n', 'c\n', 'd\n', '\n', 'e'), { maxLength: 40 })
  .map((parts) => parts.join(''))

describe('line diffs', () => {
  it('a unified diff turns the old text into the new one', () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        expect(apply(before, unifiedDiff('f', before, after))).toBe(after)
      }),
      { numRuns: 2000 },
    )
  })

  it('counts a minimal edit', () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        const a = splitLines(before)
        const b = splitLines(after)
        const { insertions, deletions } = diffCounts(before, after)
        expect(insertions + deletions).toBe(a.length + b.length - 2 * lcs(a, b))
        expect(insertions - deletions).toBe(b.length - a.length)
      }),
      { numRuns: 2000 },
    )
  })

  it('counts a minimal edit when the texts share a start and an end (trimmed before the split)', () => {
    fc.assert(
      fc.property(text, text, text, text, (start, x, y, end) => {
        const a = splitLines(start + x + end)
        const b = splitLines(start + y + end)
        const { insertions, deletions } = diffCounts(start + x + end, start + y + end)
        expect(insertions + deletions).toBe(a.length + b.length - 2 * lcs(a, b))
        expect(insertions - deletions).toBe(b.length - a.length)
      }),
      { numRuns: 2000 },
    )
  })

  it('headers name created and deleted files /dev/null', () => {
    expect(unifiedDiff('x', null, 'a\n')).toBe('--- /dev/null\n+++ b/x\n@@ -0,0 +1,1 @@\n+a\n')
    expect(unifiedDiff('x', 'a\n', null)).toBe('--- a/x\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n')
    expect(unifiedDiff('x', 'same\n', 'same\n')).toBe('')
  })
})
