/** Small readers for untrusted JSON values: content is data only. */
import type { JsonValue } from '../tree/types.ts'

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/** Milliseconds from an ISO string or an epoch number (seconds or milliseconds); `fallback` when neither. */
export function timeOf(value: unknown, fallback: number): number {
  if (typeof value === 'number' && Number.isFinite(value))
    return value < 1e11 ? Math.round(value * 1000) : Math.round(value)
  if (typeof value === 'string') {
    const t = Date.parse(value)
    if (!Number.isNaN(t)) return t
  }
  return fallback
}

/** Parse tool arguments: JSON when they are JSON text, the text itself otherwise. */
export function parseArgs(value: unknown): JsonValue {
  if (typeof value !== 'string') return (value ?? null) as JsonValue
  try {
    return JSON.parse(value) as JsonValue
  } catch {
    return value
  }
}
