/**
 * Reading the fields of one harness event for the projector: a missing or
 * malformed field throws `MalformedEvent` (the event is quarantined).
 */
import type { NodeOrigin } from '../tree/types.ts'
import { isRecord } from '../tree/validate.ts'
import { MalformedEvent } from './content.ts'
import { SESSION_ORIGIN, type Event } from './surface-mirror.ts'

export function numberField(data: unknown, key: string): number {
  const value = isRecord(data) ? data[key] : undefined
  if (typeof value !== 'number') throw new MalformedEvent(`missing numeric ${key}`)
  return value
}

export function requireMessage(value: unknown): { id?: unknown; content: unknown; source?: unknown } {
  if (!isRecord(value)) throw new MalformedEvent('event without a message')
  return value as { id?: unknown; content: unknown; source?: unknown }
}

export function numericRecord(value: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const [key, v] of Object.entries(value)) if (typeof v === 'number' && Number.isFinite(v)) out[key] = v
  return out
}

export function origin(seq: number, ref: unknown, kind: string, injected: boolean): NodeOrigin {
  return {
    source: SESSION_ORIGIN,
    seq,
    ...(typeof ref === 'string' ? { ref } : {}),
    kind,
    ...(injected ? { injected: true } : {}),
  }
}

export function timeOf(event: Event): string {
  const time = typeof event.time === 'number' && Number.isFinite(event.time) ? event.time : 0
  return new Date(time).toISOString()
}
