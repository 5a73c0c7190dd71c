/**
 * Every error leaving the service is bounded again (message and details), whatever layer made it; how a
 * caller's input is quoted in the first place is the tree's (`tree/errors.ts` `quoted`, `clipped`).
 */
import { clipped, QUOTED, type TreeError } from '../tree/errors.ts'

/** Longest message an error leaves the service with. */
const MAX_MESSAGE = 1_000
/** How deep and how wide details are kept. */
const MAX_DEPTH = 4
const MAX_ENTRIES = 20

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
