/**
 * On-disk framing. Every journal line and the overlay carry a CRC-32, so a torn
 * write or a flipped bit is detected instead of loaded. Validators return the
 * value or a reason string; they never throw.
 */
import { crc32 } from 'node:zlib'
import type { JsonObject } from '../tree/types.ts'
import type { JournalActor, SidecarFold, SidecarRecord } from './types.ts'
import { isRecord } from '../tree/validate.ts'

export const FORMAT_VERSION = 1

/** First journal line: whose journal this is, and the record number before its first record. */
export interface JournalHeader {
  readonly v: number
  readonly sessionId: string
  readonly base: number
}

/** `overlay.json` without its checksum. */
export interface OverlayBody {
  readonly version: number
  readonly sessionId: string
  readonly n: number
  readonly w: number
  readonly writtenAt: string
  readonly state: JsonObject
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string }

const NEWLINE = 0x0a
const SPACE = 0x20
const CRC_CHARS = 8
const CRC_TEXT = /^[0-9a-f]{8}$/

const parsed = <T>(value: T): Parsed<T> => ({ ok: true, value })
const rejected = <T>(reason: string): Parsed<T> => ({ ok: false, reason })

export function crcHex(data: string | Uint8Array): string {
  return crc32(data).toString(16).padStart(CRC_CHARS, '0')
}

export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0
}

/** One journal line: `<crc32 hex of the JSON bytes> <JSON>\n`. */
export function frameLine(value: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(value), 'utf8')
  return Buffer.concat([Buffer.from(crcHex(json) + ' ', 'latin1'), json, Buffer.of(NEWLINE)])
}

/** Decode the line `buf[start, end)` (`end` is the newline's offset). */
export function unframeLine(buf: Buffer, start: number, end: number): Parsed<unknown> {
  const crc = buf.toString('latin1', start, start + CRC_CHARS)
  if (end - start <= CRC_CHARS || buf[start + CRC_CHARS] !== SPACE || !CRC_TEXT.test(crc)) {
    return rejected('no checksum prefix')
  }
  const json = buf.subarray(start + CRC_CHARS + 1, end)
  if (crcHex(json) !== crc) return rejected('checksum mismatch')
  try {
    return parsed(JSON.parse(json.toString('utf8')))
  } catch {
    return rejected('unparsable JSON')
  }
}

export function toHeader(value: unknown): Parsed<JournalHeader> {
  if (!isRecord(value) || !isCount(value.v) || typeof value.sessionId !== 'string' || !isCount(value.base)) {
    return rejected('malformed journal header')
  }
  return parsed({ v: value.v, sessionId: value.sessionId, base: value.base })
}

export function toRecord(value: unknown): Parsed<SidecarRecord> {
  if (!isRecord(value)) return rejected('record is not an object')
  const { n, w, at, op } = value
  if (!isCount(n) || n < 1) return rejected('record number is not a positive integer')
  if (!isCount(w)) return rejected('record watermark is not a non-negative integer')
  if (typeof at !== 'string') return rejected('record time is not a string')
  if (!isRecord(op)) return rejected('record op is not an object')
  if (value.actor === undefined) return parsed({ n, w, at, op: op as JsonObject })
  const actor = actorProblem(value.actor)
  if (actor !== undefined) return rejected(actor)
  return parsed({ n, w, at, actor: value.actor as JournalActor, op: op as JsonObject })
}

/** What is wrong with a record's actor, if anything. */
export function actorProblem(actor: unknown): string | undefined {
  if (!isRecord(actor)) return 'record actor is not an object'
  if (actor.kind === 'user') {
    return Object.keys(actor).length === 2 && (actor.via === 'panel' || actor.via === 'command')
      ? undefined
      : 'record actor (user) needs via "panel" or "command"'
  }
  if (actor.kind === 'model') {
    const keys = Object.keys(actor).length
    return keys === 1 || (keys === 2 && typeof actor.callId === 'string')
      ? undefined
      : 'record actor (model) may only name a string callId'
  }
  return 'record actor kind is not "user" or "model"'
}

export function frameRecord(record: SidecarRecord): Buffer {
  return frameLine({
    n: record.n,
    w: record.w,
    at: record.at,
    ...(record.actor ? { actor: record.actor } : {}),
    op: record.op,
  })
}

export function frameHeader(sessionId: string, base: number): Buffer {
  return frameLine({ v: FORMAT_VERSION, sessionId, base })
}

// The checksum covers the body serialized in this fixed key order; parsing
// and re-serializing JSON reproduces the same text, so no canonicalizer is needed.
function ordered(body: OverlayBody): OverlayBody {
  const { version, sessionId, n, w, writtenAt, state } = body
  return { version, sessionId, n, w, writtenAt, state }
}

function bodyText(body: OverlayBody): string {
  return JSON.stringify(ordered(body))
}

export function encodeOverlay(body: OverlayBody): Buffer {
  return Buffer.from(JSON.stringify({ ...ordered(body), crc: crcHex(bodyText(body)) }) + '\n', 'utf8')
}

/**
 * Check the framing of `overlay.json`. A body with a valid checksum is
 * returned even when its version is unknown, so the caller can tell "not
 * ours" from "damaged".
 */
export function decodeOverlay(text: string): Parsed<OverlayBody> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return rejected('unparsable JSON')
  }
  if (!isRecord(value) || typeof value.crc !== 'string') return rejected('no checksum')
  const body = value as unknown as OverlayBody
  if (crcHex(bodyText(body)) !== value.crc) return rejected('checksum mismatch')
  if (typeof body.version !== 'number' || typeof body.sessionId !== 'string') return rejected('malformed overlay')
  return parsed(body)
}

/** The fold an overlay of the current version holds. */
export function toFold(body: OverlayBody): Parsed<SidecarFold> {
  if (!isCount(body.n) || !isCount(body.w) || !isRecord(body.state) || typeof body.writtenAt !== 'string') {
    return rejected('malformed overlay')
  }
  return parsed({ n: body.n, w: body.w, state: body.state })
}
