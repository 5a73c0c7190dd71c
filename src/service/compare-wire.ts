/**
 * `compare` as the service answers it: the tree's comparison, bounded. Long
 * paths keep their first rows (the rest are counted), long texts their start
 * (with their length), long common runs of a diff their start and end (with
 * what was left out), large argument values their JSON start. The edits
 * themselves are kept as far as the text bound allows.
 */
import type {
  ArgumentChange,
  CompareNode,
  CompareRow,
  CompareSide,
  Comparison,
  TextDiff,
  TextDiffPart,
  ToolCallDiff,
  ToolResultDiff,
} from '../tree/compare-types.ts'
import type { JsonValue } from '../tree/types.ts'
import { clipped } from '../tree/errors.ts'

/** Rows a compare answer holds; node ids per side path. */
export const COMPARE_MAX_ROWS = 200
export const COMPARE_MAX_PATH = 1_000
/** Characters of a node text, of one diff's edits, of a JSON value. */
export const COMPARE_MAX_TEXT = 4_000
const MAX_SAME = 240
const KEEP_SAME = 100
const MAX_JSON = 1_000
const MAX_CHANGES = 50

/** The service's answer: a `Comparison` (computed with `maxRows: COMPARE_MAX_ROWS`) with its texts and paths bounded. */
export interface CompareResult extends Comparison {
  /** Whole path lengths after the common ancestor (`a.path` / `b.path` may hold fewer ids). */
  readonly pathLengths: { readonly a: number; readonly b: number }
}

function json(value: JsonValue): JsonValue {
  if (typeof value === 'string') return clipped(value, MAX_JSON)
  if (value === null || typeof value !== 'object') return value
  const text = JSON.stringify(value)
  return text.length <= MAX_JSON ? value : clipped(text, MAX_JSON)
}

function textDiff(diff: TextDiff): TextDiff {
  if (diff.kind === 'whole')
    return { ...diff, a: clipped(diff.a, COMPARE_MAX_TEXT), b: clipped(diff.b, COMPARE_MAX_TEXT) }
  let left = COMPARE_MAX_TEXT
  const parts: TextDiffPart[] = []
  for (const part of diff.parts) {
    if (part.kind === 'same') {
      parts.push(
        part.text.length <= MAX_SAME
          ? part
          : {
              kind: 'same',
              text: `${part.text.slice(0, KEEP_SAME)}…${part.text.slice(-KEEP_SAME)}`,
              elided: part.text.length - 2 * KEEP_SAME,
            },
      )
    } else {
      if (left <= 0) continue
      parts.push({ kind: part.kind, text: clipped(part.text, left) })
      left -= part.text.length
    }
  }
  return { ...diff, parts }
}

function node(n: CompareNode): CompareNode {
  return {
    ...n,
    text: clipped(n.text, COMPARE_MAX_TEXT),
    ...(n.toolCalls
      ? { toolCalls: n.toolCalls.map((call) => ({ name: clipped(call.name), arguments: json(call.arguments) })) }
      : {}),
    ...(n.toolResults
      ? {
          toolResults: n.toolResults.map((result) => ({
            ...result,
            content: clipped(result.content, COMPARE_MAX_TEXT),
          })),
        }
      : {}),
  }
}

function change(c: ArgumentChange): ArgumentChange {
  const path = clipped(c.path)
  switch (c.kind) {
    case 'removed':
      return { kind: 'removed', path, a: json(c.a) }
    case 'added':
      return { kind: 'added', path, b: json(c.b) }
    case 'changed':
      return { kind: 'changed', path, a: json(c.a), b: json(c.b), ...(c.text ? { text: textDiff(c.text) } : {}) }
  }
}

function call(c: ToolCallDiff): ToolCallDiff {
  if (c.kind === 'changed') return { ...c, arguments: c.arguments.slice(0, MAX_CHANGES).map(change) }
  if (c.kind === 'same') return c
  return { ...c, arguments: json(c.arguments) }
}

function result(r: ToolResultDiff): ToolResultDiff {
  if (r.kind === 'changed') return { ...r, text: textDiff(r.text) }
  if (r.kind === 'same') return r
  return { ...r, content: clipped(r.content, COMPARE_MAX_TEXT) }
}

function row(r: CompareRow): CompareRow {
  switch (r.kind) {
    case 'pair':
      return {
        kind: 'pair',
        a: node(r.a),
        b: node(r.b),
        diff: {
          same: r.diff.same,
          text: textDiff(r.diff.text),
          toolCalls: r.diff.toolCalls.map(call),
          toolResults: r.diff.toolResults.map(result),
        },
      }
    case 'only_a':
      return { kind: 'only_a', a: node(r.a) }
    case 'only_b':
      return { kind: 'only_b', b: node(r.b) }
  }
}

function side(s: CompareSide): CompareSide {
  return s.path.length <= COMPARE_MAX_PATH ? s : { ...s, path: s.path.slice(0, COMPARE_MAX_PATH) }
}

/** A comparison bounded for the wire. */
export function boundedComparison(c: Comparison): CompareResult {
  return {
    ...c,
    a: side(c.a),
    b: side(c.b),
    rows: c.rows.slice(0, COMPARE_MAX_ROWS).map(row),
    omittedRows: c.omittedRows + Math.max(0, c.rows.length - COMPARE_MAX_ROWS),
    pathLengths: { a: c.a.path.length, b: c.b.path.length },
  }
}
