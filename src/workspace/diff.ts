/**
 * Line diffs (pure): counts for a diff stat and a unified diff for one file.
 * Common leading and trailing lines are trimmed first, then the rest's line
 * ids go through the word diff's Myers (`tree/diff.ts` `diffIds`, linear
 * space); past `MAX_EDITS` differing lines the middle is reported as
 * replaced wholesale, so a diff stays bounded whatever the files.
 */
import { diffIds, TooLarge } from '../tree/diff.ts'

/** Edits beyond which the middle is treated as one replacement. */
export const MAX_EDITS = 1000
const CONTEXT = 3

/** One line of an edit script: kept, removed or added. */
export type LineOp = { readonly kind: ' ' | '-' | '+'; readonly line: string }

/** Lines with their line breaks (the last one may have none). */
export function splitLines(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/)
}

/** The line kinds of a minimal edit of `a` into `b` (Myers, `tree/diff.ts`); undefined past `max` edits. */
function myers(a: readonly number[], b: readonly number[], max: number): LineOp['kind'][] | undefined {
  // No line in common (a file rewritten throughout): every line goes, every line comes, no search needed.
  const inA = new Set(a)
  if (!b.some((id) => inA.has(id)))
    return [...new Array<LineOp['kind']>(a.length).fill('-'), ...new Array<LineOp['kind']>(b.length).fill('+')]
  const runs = diffIds(Int32Array.from(a), Int32Array.from(b), max, { left: Infinity })
  if (runs instanceof TooLarge) return undefined
  const kinds: LineOp['kind'][] = []
  // Between two unchanged lines, a unified diff lists what goes before what comes.
  let removed = 0
  let added = 0
  const flush = () => {
    kinds.push(...new Array<LineOp['kind']>(removed).fill('-'), ...new Array<LineOp['kind']>(added).fill('+'))
    removed = added = 0
  }
  for (const run of runs) {
    if (run.kind === 'removed') removed += run.to - run.from
    else if (run.kind === 'added') added += run.to - run.from
    else {
      flush()
      kinds.push(...new Array<LineOp['kind']>(run.to - run.from).fill(' '))
    }
  }
  flush()
  return kinds
}

/** The edit script from `before` to `after` (lines with their breaks): what `unifiedDiff` and `merge.ts` read. */
export function lineOps(before: readonly string[], after: readonly string[]): LineOp[] {
  let start = 0
  while (start < before.length && start < after.length && before[start] === after[start]) start++
  let endA = before.length
  let endB = after.length
  while (endA > start && endB > start && before[endA - 1] === after[endB - 1]) {
    endA--
    endB--
  }
  const ids = new Map<string, number>()
  const id = (line: string): number => {
    let value = ids.get(line)
    if (value === undefined) {
      value = ids.size
      ids.set(line, value)
    }
    return value
  }
  const a = before.slice(start, endA).map(id)
  const b = after.slice(start, endB).map(id)
  const kinds = myers(a, b, MAX_EDITS) ?? [...a.map((): LineOp['kind'] => '-'), ...b.map((): LineOp['kind'] => '+')]
  const ops: LineOp[] = before.slice(0, start).map((line) => ({ kind: ' ', line }))
  let i = start
  let j = start
  for (const kind of kinds) {
    if (kind === ' ') {
      ops.push({ kind, line: before[i++] as string })
      j++
    } else if (kind === '-') {
      ops.push({ kind, line: before[i++] as string })
    } else {
      ops.push({ kind, line: after[j++] as string })
    }
  }
  for (let t = endA; t < before.length; t++) ops.push({ kind: ' ', line: before[t] as string })
  return ops
}

/**
 * The part of `before` and `after` between the whole lines they share at the
 * start and at the end (found on the strings, before any split: a restore
 * counts a thousand files); `lineOps` of it counts as `lineOps` of the whole.
 */
function differingMiddle(before: string, after: string): [string, string] {
  const n = Math.min(before.length, after.length)
  let p = 0
  while (p < n && before.charCodeAt(p) === after.charCodeAt(p)) p++
  const head = p === 0 ? 0 : before.lastIndexOf('\n', p - 1) + 1
  let s = 0
  while (s < n - head && before.charCodeAt(before.length - 1 - s) === after.charCodeAt(after.length - 1 - s)) s++
  // The shared end starts after a line break that is itself shared: lines there line up in both.
  const q = s === 0 ? -1 : before.indexOf('\n', before.length - s)
  if (q < 0 || q + 1 > before.length) return [before.slice(head), after.slice(head)]
  const cut = before.length - (q + 1)
  return [before.slice(head, before.length - cut), after.slice(head, after.length - cut)]
}

/** Lines added and removed going from `before` to `after`. */
export function diffCounts(before: string, after: string): { insertions: number; deletions: number } {
  let insertions = 0
  let deletions = 0
  if (before === after) return { insertions, deletions }
  const [a, b] = differingMiddle(before, after)
  for (const op of lineOps(splitLines(a), splitLines(b))) {
    if (op.kind === '+') insertions++
    else if (op.kind === '-') deletions++
  }
  return { insertions, deletions }
}

function withBreak(line: string): string {
  return line.endsWith('\n') ? line : `${line}\n\\ No newline at end of file\n`
}

/** A unified diff (`---`/`+++` headers, 3 lines of context); empty when the texts are equal. */
export function unifiedDiff(path: string, before: string | null, after: string | null): string {
  const ops = lineOps(splitLines(before ?? ''), splitLines(after ?? ''))
  if (!ops.some((op) => op.kind !== ' ')) return ''
  const out = [
    `--- ${before === null ? '/dev/null' : `a/${path}`}\n`,
    `+++ ${after === null ? '/dev/null' : `b/${path}`}\n`,
  ]
  // Hunks: runs of changes with CONTEXT lines around them, merged when close.
  let i = 0
  while (i < ops.length) {
    while (i < ops.length && (ops[i] as LineOp).kind === ' ') i++
    if (i >= ops.length) break
    let start = Math.max(0, i - CONTEXT)
    let end = i
    for (;;) {
      while (end < ops.length && (ops[end] as LineOp).kind !== ' ') end++
      let gap = end
      while (gap < ops.length && (ops[gap] as LineOp).kind === ' ' && gap - end < 2 * CONTEXT) gap++
      if (gap < ops.length && (ops[gap] as LineOp).kind !== ' ') end = gap
      else break
    }
    const stop = Math.min(ops.length, end + CONTEXT)
    let oldStart = 1
    let newStart = 1
    for (let t = 0; t < start; t++) {
      if ((ops[t] as LineOp).kind !== '+') oldStart++
      if ((ops[t] as LineOp).kind !== '-') newStart++
    }
    let oldCount = 0
    let newCount = 0
    const body: string[] = []
    for (let t = start; t < stop; t++) {
      const op = ops[t] as LineOp
      if (op.kind !== '+') oldCount++
      if (op.kind !== '-') newCount++
      body.push(op.kind + withBreak(op.line))
    }
    out.push(
      `@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@\n`,
      ...body,
    )
    i = stop
    start = stop
  }
  return out.join('')
}
