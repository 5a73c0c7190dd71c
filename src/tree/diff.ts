/**
 * Word diffs (pure): texts are cut into tokens (runs of letters and digits, of whitespace, of other characters;
 * each CJK character alone, as those scripts put no spaces between words) and diffed with Myers' O(ND) algorithm
 * in its linear-space form (the middle snake), so the edit is minimal and the memory O(N + M). Bounded: past
 * `maxTokens` tokens a side once the common start and end are cut, `maxEdits` edits, or the caller's work budget,
 * the answer is an honest `whole` (both texts as they are), never a slow or partial diff.
 */
import type { TextDiff, TextDiffPart } from './compare-types.ts'
import { isSpace } from './text.ts'

export const MAX_DIFF_TOKENS = 20_000
export const MAX_DIFF_EDITS = 1_000

/** Work left for diffs (k-steps and snake steps of Myers' loops); shared by the diffs of one compare. */
export interface DiffBudget {
  left: number
}

const WORD = 1
const SPACE = 2
const OTHER = 3
const CJK = 4

function classOf(code: number): number {
  if (isSpace(code)) return SPACE
  if ((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95)
    return WORD
  if (code < 128) return OTHER
  if (
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xac00 && code <= 0xd7af) ||
    (code >= 0x20000 && code <= 0x3134f)
  )
    return CJK
  return LETTER.test(String.fromCodePoint(code)) ? WORD : OTHER
}

const LETTER = /[\p{L}\p{N}\p{M}]/u

/** The tokens of a text, in order; joined they are the text. */
export function tokenize(text: string): string[] {
  const out: string[] = []
  let start = 0
  let runClass = 0
  for (let i = 0; i < text.length;) {
    const code = text.codePointAt(i)!
    const width = code > 0xffff ? 2 : 1
    const cls = classOf(code)
    if (i > start && (cls !== runClass || cls === CJK)) {
      out.push(text.slice(start, i))
      start = i
    }
    runClass = cls
    i += width
  }
  if (start < text.length) out.push(text.slice(start))
  return out
}

/** Edit script entries: a kind and an index range of A (same, removed) or B (added). */
export type Run = { kind: TextDiffPart['kind']; from: number; to: number }

/** Thrown inside a diff that passed a bound. */
export class TooLarge {
  readonly reason: 'edits' | 'budget'
  constructor(reason: 'edits' | 'budget') {
    this.reason = reason
  }
}

/**
 * The minimal edit script of two id sequences (same, removed, added runs in
 * order), or TooLarge past `maxEdits` or the budget.
 */
export function diffIds(a: Int32Array, b: Int32Array, maxEdits: number, budget: DiffBudget): Run[] | TooLarge {
  const differ = new Differ(a, b, maxEdits, budget)
  try {
    differ.run(0, a.length, 0, b.length)
  } catch (error) {
    if (error instanceof TooLarge) return error
    throw error
  }
  return differ.out
}

/** Myers over interned ids; emits runs in order. */
class Differ {
  private readonly a: Int32Array
  private readonly b: Int32Array
  readonly out: Run[] = []
  private readonly maxHalf: number
  private readonly maxEdits: number
  private edits = 0
  private readonly budget: DiffBudget

  constructor(a: Int32Array, b: Int32Array, maxEdits: number, budget: DiffBudget) {
    this.a = a
    this.b = b
    this.maxHalf = Math.ceil(maxEdits / 2) + 1
    this.maxEdits = maxEdits
    this.budget = budget
  }

  private emit(kind: Run['kind'], from: number, to: number): void {
    if (from === to) return
    // The script is minimal, so its edits are the distance: past the bound, the answer is `whole`.
    if (kind !== 'same' && (this.edits += to - from) > this.maxEdits) throw new TooLarge('edits')
    const last = this.out.at(-1)
    if (last && last.kind === kind && last.to === from) last.to = to
    else this.out.push({ kind, from, to })
  }

  /** Diff a[aLo, aHi) against b[bLo, bHi). */
  run(aLo: number, aHi: number, bLo: number, bHi: number): void {
    const { a, b } = this
    let prefix = 0
    while (aLo + prefix < aHi && bLo + prefix < bHi && a[aLo + prefix] === b[bLo + prefix]) prefix++
    let suffix = 0
    while (aHi - suffix > aLo + prefix && bHi - suffix > bLo + prefix && a[aHi - suffix - 1] === b[bHi - suffix - 1])
      suffix++
    this.emit('same', aLo, aLo + prefix)
    const as = aLo + prefix
    const ae = aHi - suffix
    const bs = bLo + prefix
    const be = bHi - suffix
    if (as === ae) this.emit('added', bs, be)
    else if (bs === be) this.emit('removed', as, ae)
    else {
      const [x, y] = this.middle(as, ae, bs, be)
      if (x === -1) {
        // No token in common: the whole middle is replaced.
        this.emit('removed', as, ae)
        this.emit('added', bs, be)
      } else {
        this.run(as, x, bs, y)
        this.run(x, ae, y, be)
      }
    }
    this.emit('same', ae, aHi)
  }

  private spend(n: number): void {
    this.budget.left -= n
    if (this.budget.left < 0) throw new TooLarge('budget')
  }

  /**
   * A point of an optimal edit path through the middle of the edit graph
   * (forward and reverse searches meet on it), [-1, -1] when the two ranges
   * share nothing. Throws TooLarge past the edit bound.
   */
  private middle(aLo: number, aHi: number, bLo: number, bHi: number): [number, number] {
    const { a, b } = this
    const n = aHi - aLo
    const m = bHi - bLo
    const half = Math.ceil((n + m) / 2)
    const limit = Math.min(half, this.maxHalf)
    const offset = limit + 1
    const size = 2 * offset + 1
    // fwd[k]: furthest x on diagonal k = x - y from the start; bwd[k]: the same from the end.
    const fwd = new Int32Array(size).fill(-1)
    const bwd = new Int32Array(size).fill(-1)
    fwd[offset + 1] = 0
    bwd[offset + 1] = 0
    const delta = n - m
    const odd = (delta & 1) !== 0
    // Diagonals that ran off the grid are skipped from then on.
    let fStart = 0
    let fEnd = 0
    let bStart = 0
    let bEnd = 0
    for (let d = 0; d < limit; d++) {
      for (let k = -d + fStart; k <= d - fEnd; k += 2) {
        const i = offset + k
        let x = k === -d || (k !== d && fwd[i - 1]! < fwd[i + 1]!) ? fwd[i + 1]! : fwd[i - 1]! + 1
        let y = x - k
        const x0 = x
        while (x < n && y < m && a[aLo + x] === b[bLo + y]) {
          x++
          y++
        }
        this.spend(1 + x - x0)
        fwd[i] = x
        if (x > n) fEnd += 2
        else if (y > m) fStart += 2
        else if (odd) {
          const j = offset + delta - k
          if (j >= 0 && j < size && bwd[j] !== -1 && x >= n - bwd[j]!) return [aLo + x, bLo + y]
        }
      }
      for (let k = -d + bStart; k <= d - bEnd; k += 2) {
        const i = offset + k
        let x = k === -d || (k !== d && bwd[i - 1]! < bwd[i + 1]!) ? bwd[i + 1]! : bwd[i - 1]! + 1
        let y = x - k
        const x0 = x
        while (x < n && y < m && a[aHi - x - 1] === b[bHi - y - 1]) {
          x++
          y++
        }
        this.spend(1 + x - x0)
        bwd[i] = x
        if (x > n) bEnd += 2
        else if (y > m) bStart += 2
        else if (!odd) {
          const j = offset + delta - k
          if (j >= 0 && j < size && fwd[j] !== -1) {
            const fx = fwd[j]!
            const fy = fx - (j - offset)
            if (fx >= n - x) return [aLo + fx, bLo + fy]
          }
        }
      }
    }
    if (limit < half) throw new TooLarge('edits')
    return [-1, -1]
  }
}

/**
 * The word diff of two texts. `budget` is shared by the diffs of one compare
 * (a compare of many long messages stays bounded as a whole).
 */
export function diffWords(
  a: string,
  b: string,
  options: { readonly maxTokens?: number; readonly maxEdits?: number; readonly budget?: DiffBudget } = {},
): TextDiff {
  if (a === b) return { kind: 'words', parts: a === '' ? [] : [{ kind: 'same', text: a }], removed: 0, added: 0 }
  const ta = tokenize(a)
  const tb = tokenize(b)
  const ids = new Map<string, number>()
  const intern = (tokens: string[]) =>
    Int32Array.from(tokens, (token) => {
      let id = ids.get(token)
      if (id === undefined) ids.set(token, (id = ids.size))
      return id
    })
  const ia = intern(ta)
  const ib = intern(tb)
  let prefix = 0
  while (prefix < ia.length && prefix < ib.length && ia[prefix] === ib[prefix]) prefix++
  let suffix = 0
  while (
    suffix < ia.length - prefix &&
    suffix < ib.length - prefix &&
    ia[ia.length - 1 - suffix] === ib[ib.length - 1 - suffix]
  )
    suffix++
  const maxTokens = options.maxTokens ?? MAX_DIFF_TOKENS
  if (ia.length - prefix - suffix > maxTokens || ib.length - prefix - suffix > maxTokens)
    return { kind: 'whole', reason: 'size', a, b }
  const runs = diffIds(ia, ib, options.maxEdits ?? MAX_DIFF_EDITS, options.budget ?? { left: Number.POSITIVE_INFINITY })
  if (runs instanceof TooLarge) return { kind: 'whole', reason: runs.reason, a, b }
  let removed = 0
  let added = 0
  const parts: TextDiffPart[] = runs.map(({ kind, from, to }) => {
    if (kind === 'removed') removed += to - from
    if (kind === 'added') added += to - from
    return { kind, text: (kind === 'added' ? tb : ta).slice(from, to).join('') }
  })
  // `removed` and `added` stay the minimal edit; only the display is regrouped.
  return { kind: 'words', parts: regroup(parts), removed, added }
}

/**
 * Readable hunks: a common run of whitespace only, between two edits, joins
 * them (the words `a b` → `c d` read as one replacement, not as four edits
 * around two shared spaces), and each hunk is one removed then one added
 * part. Applying the parts still turns A into B.
 */
function regroup(parts: readonly TextDiffPart[]): TextDiffPart[] {
  const out: TextDiffPart[] = []
  let removed = ''
  let added = ''
  const flush = () => {
    if (removed !== '') out.push({ kind: 'removed', text: removed })
    if (added !== '') out.push({ kind: 'added', text: added })
    removed = added = ''
  }
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    if (part.kind === 'removed') removed += part.text
    else if (part.kind === 'added') added += part.text
    else if (i > 0 && i < parts.length - 1 && /^\s+$/.test(part.text) && (removed !== '' || added !== '')) {
      removed += part.text
      added += part.text
    } else {
      flush()
      out.push(part)
    }
  }
  flush()
  return out
}
