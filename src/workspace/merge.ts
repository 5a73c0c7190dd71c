/**
 * Three-way text merge (pure), line by line: what each side changed against
 * the common base is found with the line diff (`diff.ts`); changes whose base
 * ranges are apart are both applied, changes that overlap or touch are merged
 * only when both sides made the same change, else they are a conflict. A
 * conflict is written with git's markers (`<<<<<<<`, `=======`, `>>>>>>>`).
 * Touching changes count as overlapping (as in git): no line is guessed.
 */
import { lineOps, splitLines } from './diff.ts'

/** A run of base lines `[start, end)` one side replaced with `lines`. */
interface Hunk {
  readonly start: number
  readonly end: number
  readonly lines: readonly string[]
}

export interface MergeLabels {
  readonly ours: string
  readonly theirs: string
}

export interface MergeResult {
  /** The merged text; with conflict markers around each conflicting region when `conflicts > 0`. */
  readonly text: string
  /** Conflicting regions (0: a clean merge). */
  readonly conflicts: number
}

/** The hunks of `base` → `other`, in base order (maximal runs of changed lines). */
function hunks(base: readonly string[], other: readonly string[]): Hunk[] {
  const out: Hunk[] = []
  let i = 0
  let open: { start: number; lines: string[] } | undefined
  for (const op of lineOps(base, other)) {
    if (op.kind === ' ') {
      if (open) out.push({ start: open.start, end: i, lines: open.lines })
      open = undefined
      i++
      continue
    }
    open ??= { start: i, lines: [] }
    if (op.kind === '-') i++
    else open.lines.push(op.line)
  }
  if (open) out.push({ start: open.start, end: i, lines: open.lines })
  return out
}

/** One side's text of the base range `[start, end)` with its hunks (inside the range, in order) applied. */
function sideText(base: readonly string[], start: number, end: number, side: readonly Hunk[]): string[] {
  const out: string[] = []
  let pos = start
  for (const hunk of side) {
    out.push(...base.slice(pos, hunk.start), ...hunk.lines)
    pos = hunk.end
  }
  out.push(...base.slice(pos, end))
  return out
}

/** Lines ready to sit before a marker line (the last one gets a line break if it has none). */
function closed(lines: readonly string[]): string[] {
  const last = lines.at(-1)
  return last === undefined || last.endsWith('\n') ? [...lines] : [...lines.slice(0, -1), `${last}\n`]
}

/** Merge `theirs` into `ours`, both descended from `base`. */
export function merge3(base: string, ours: string, theirs: string, labels: MergeLabels): MergeResult {
  const b = splitLines(base)
  const mine = hunks(b, splitLines(ours))
  const other = hunks(b, splitLines(theirs))
  const out: string[] = []
  let conflicts = 0
  let pos = 0
  let im = 0
  let io = 0
  while (im < mine.length || io < other.length) {
    // The next change in base order starts a region; every change of either side that overlaps or touches it joins.
    const nextMine = mine[im]
    const nextOther = other[io]
    const first = nextOther === undefined || (nextMine !== undefined && nextMine.start <= nextOther.start)
    const seed = (first ? nextMine : nextOther) as Hunk
    const start = seed.start
    let end = seed.end
    const groupMine: Hunk[] = []
    const groupOther: Hunk[] = []
    for (;;) {
      const m = mine[im]
      const o = other[io]
      if (m !== undefined && m.start <= end) {
        groupMine.push(m)
        end = Math.max(end, m.end)
        im++
      } else if (o !== undefined && o.start <= end) {
        groupOther.push(o)
        end = Math.max(end, o.end)
        io++
      } else break
    }
    out.push(...b.slice(pos, start))
    if (groupOther.length === 0) out.push(...sideText(b, start, end, groupMine))
    else if (groupMine.length === 0) out.push(...sideText(b, start, end, groupOther))
    else {
      const a = sideText(b, start, end, groupMine)
      const t = sideText(b, start, end, groupOther)
      if (a.length === t.length && a.every((line, k) => line === t[k])) out.push(...a)
      else {
        conflicts++
        out.push(`<<<<<<< ${labels.ours}\n`, ...closed(a), '=======\n', ...closed(t), `>>>>>>> ${labels.theirs}\n`)
      }
    }
    pos = end
  }
  out.push(...b.slice(pos))
  return { text: out.join(''), conflicts }
}
