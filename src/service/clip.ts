/**
 * What an error may echo of a caller's input. Any input gets a bounded
 * answer: a value is quoted clipped, with its length, and every error leaving
 * the service is bounded again (message and details), whatever layer made it.
 */
import type { TreeError } from '../tree/errors.ts'

/** Characters of a caller's string an error message quotes. */
const QUOTED = 80
/** Longest message an error leaves the service with. */
const MAX_MESSAGE = 1_000
/** Longest string kept in error details; how deep and how wide details are kept. */
const MAX_DETAIL = 200
const MAX_DEPTH = 4
const MAX_ENTRIES = 20

/** `"abc"`, or `"abcd…" (10485760 characters)` for a long string; non-strings by their type. */
export function quoted(value: unknown): string {
  if (typeof value !== 'string')
    return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`
  if (value.length <= QUOTED) return JSON.stringify(value)
  return `${JSON.stringify(value.slice(0, QUOTED))}… (${value.length} characters)`
}

/** A string clipped for error details: short strings as they are, long ones shortened and counted. */
export function clipped(value: string, max = MAX_DETAIL): string {
  return value.length <= max ? value : `${value.slice(0, max)}… (${value.length} characters)`
}

/** Details with every string clipped and nesting, arrays and objects bounded. */
function boundedValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return clipped(value)
  if (value === null || typeof value !== 'object') return value
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? `[array of ${value.length}]` : '[object]'
  if (Array.isArray(value)) {
    const kept = value.slice(0, MAX_ENTRIES).map((item) => boundedValue(item, depth + 1))
    return value.length > MAX_ENTRIES ? [...kept, `… ${value.length - MAX_ENTRIES} more`] : kept
  }
  const entries = Object.entries(value)
  const out: Record<string, unknown> = {}
  for (const [key, item] of entries.slice(0, MAX_ENTRIES)) out[clipped(key, QUOTED)] = boundedValue(item, depth + 1)
  if (entries.length > MAX_ENTRIES) out['…'] = `${entries.length - MAX_ENTRIES} more`
  return out
}

/** An error as it leaves the service: same code, message and details bounded. */
export function bounded(error: TreeError): TreeError {
  const message = clipped(error.message, MAX_MESSAGE)
  if (error.details === undefined) return { code: error.code, message }
  return { code: error.code, message, details: boundedValue(error.details, 0) as TreeError['details'] & object }
}
