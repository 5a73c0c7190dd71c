/**
 * Read DSH session logs from disk:
 * `$DSH_HOME/sessions/--<cwd with '/' → '-'>--/<session id>/session.jsonl.zstd`
 * (or `_no-cwd/<session id>/…`).
 *
 * The file is a concatenation of zstd frames (one per flush). Node's
 * `zlib.zstdDecompressSync` stops after the first frame, so the frames are
 * split here (RFC 8878 framing) and decompressed one by one. The text is
 * JSONL: the first line is the header `{type: 'session', version, id, cwd, …}`,
 * every later line one event `{type, seq, time, data, surfaceOp?, sourceEventSeqs?}`.
 */
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'

const ZSTD_MAGIC = 0xfd2fb528
const SKIPPABLE_MASK = 0xfffffff0
const SKIPPABLE_MAGIC = 0x184d2a50

export interface SessionLogHeader {
  readonly type: 'session'
  readonly version: number
  readonly id: string
  readonly createdAt?: string
  readonly cwd?: string
  readonly [key: string]: unknown
}

export interface SessionLogEvent {
  readonly type: string
  readonly seq: number
  readonly time?: number | string
  readonly data?: unknown
  readonly surfaceOp?: 'append' | { readonly op: 'replace'; readonly start: number; readonly end: number }
  readonly sourceEventSeqs?: ReadonlyArray<number>
  readonly ignorable?: boolean
  readonly [key: string]: unknown
}

export interface SessionLog {
  readonly file: string
  readonly frames: number
  readonly header: SessionLogHeader
  readonly events: ReadonlyArray<SessionLogEvent>
}

/** Split concatenated zstd frames (skippable frames are dropped). */
export function splitZstdFrames(buffer: Buffer): Buffer[] {
  const frames: Buffer[] = []
  let offset = 0
  const need = (bytes: number): void => {
    if (offset + bytes > buffer.length) throw new Error(`truncated zstd frame at byte ${offset}`)
  }
  while (offset < buffer.length) {
    const start = offset
    need(4)
    const magic = buffer.readUInt32LE(offset)
    if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      need(8)
      offset += 8 + buffer.readUInt32LE(offset + 4)
      continue
    }
    if (magic !== ZSTD_MAGIC) throw new Error(`bad zstd magic 0x${magic.toString(16)} at byte ${offset}`)
    offset += 4
    need(1)
    const descriptor = buffer[offset++] as number
    const sizeFlag = descriptor >> 6
    const singleSegment = (descriptor >> 5) & 1
    const checksum = (descriptor >> 2) & 1
    const dictionaryFlag = descriptor & 3
    if (!singleSegment) offset += 1 // window descriptor
    offset += [0, 1, 2, 4][dictionaryFlag] as number
    offset += [singleSegment ? 1 : 0, 2, 4, 8][sizeFlag] as number
    for (;;) {
      need(3)
      const header =
        (buffer[offset] as number) | ((buffer[offset + 1] as number) << 8) | ((buffer[offset + 2] as number) << 16)
      offset += 3
      const last = header & 1
      const type = (header >> 1) & 3
      const size = header >>> 3
      if (type === 3) throw new Error(`reserved zstd block type at byte ${offset - 3}`)
      offset += type === 1 ? 1 : size // an RLE block carries one byte
      if (last) break
    }
    if (checksum) offset += 4
    need(0)
    frames.push(buffer.subarray(start, offset))
  }
  return frames
}

/** Decompress a whole multi-frame zstd buffer (or its frames, already split) to text. */
export function decompressZstd(buffer: Buffer, frames = splitZstdFrames(buffer)): string {
  return frames.map((frame) => zlib.zstdDecompressSync(frame).toString('utf8')).join('')
}

/** Parse one `session.jsonl.zstd`. */
export function readSessionLog(file: string): SessionLog {
  const buffer = fs.readFileSync(file)
  const frames = splitZstdFrames(buffer)
  const lines = decompressZstd(buffer, frames)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      try {
        return JSON.parse(line) as unknown
      } catch (error) {
        throw new Error(`${file}: line ${index + 1} is not JSON: ${String(error)}`)
      }
    })
  const [header, ...events] = lines as [SessionLogHeader, ...SessionLogEvent[]]
  if (header?.type !== 'session') throw new Error(`${file}: the first line is not a session header`)
  return { file, frames: frames.length, header, events }
}

/** Every session log under a DSH_HOME. */
export function findSessionLogs(home: string): string[] {
  const root = path.join(home, 'sessions')
  if (!fs.existsSync(root)) return []
  const out: string[] = []
  for (const group of fs.readdirSync(root)) {
    const groupDir = path.join(root, group)
    if (!fs.statSync(groupDir).isDirectory()) continue
    for (const id of fs.readdirSync(groupDir)) {
      const file = path.join(groupDir, id, 'session.jsonl.zstd')
      if (fs.existsSync(file)) out.push(file)
    }
  }
  return out.sort()
}

/** The log of one session id under a DSH_HOME (throws when there is none). */
export function readSessionById(home: string, sessionId: string): SessionLog {
  const file = findSessionLogs(home).find((f) => path.basename(path.dirname(f)) === sessionId)
  if (!file) throw new Error(`no session log for ${sessionId} under ${home}/sessions`)
  return readSessionLog(file)
}

/** Write a session log as the harness stores it: a zstd frame holding the header line, then one frame of event lines. */
export function writeSessionLog(file: string, header: SessionLogHeader, events: ReadonlyArray<SessionLogEvent>): void {
  const frame = (lines: readonly unknown[]) =>
    zlib.zstdCompressSync(Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join(''), 'utf8'))
  fs.writeFileSync(file, Buffer.concat([frame([header]), ...(events.length > 0 ? [frame(events)] : [])]))
}
