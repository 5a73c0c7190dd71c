/**
 * Reading `journal.jsonl`: a header line, then records numbered
 * `base + 1, base + 2, ...`. Scanning stops at the first line that fails its
 * checksum, its shape or its numbering: later records may depend on it.
 */
import { FORMAT_VERSION, type JournalHeader, toHeader, toRecord, unframeLine } from './framing.ts'
import type { SidecarRecord } from './types.ts'

/** The first line that stopped the scan. */
export interface BadLine {
  readonly offset: number
  readonly reason: string
  /** The bad line is the file's last line and fails its framing: a torn append, cut off by truncation. */
  readonly tail: boolean
}

export interface JournalScan {
  /** Absent when the file is empty or its first line is bad. */
  readonly header?: JournalHeader
  /** Valid records, contiguous from `header.base + 1`. */
  readonly records: readonly SidecarRecord[]
  /** Byte length of each record's line. */
  readonly lineBytes: readonly number[]
  /** Byte length of the valid prefix (header and records). */
  readonly end: number
  readonly bad?: BadLine
}

const NEWLINE = 0x0a

export function scanJournal(buf: Buffer): JournalScan {
  const records: SidecarRecord[] = []
  const lineBytes: number[] = []
  let header: JournalHeader | undefined
  let offset = 0
  while (offset < buf.length) {
    const newline = buf.indexOf(NEWLINE, offset)
    const last = newline === -1 || newline === buf.length - 1
    // Only a framing failure on the last line looks like a torn append; a
    // checksummed line with a wrong shape or number was written that way.
    const stop = (reason: string, torn = false): JournalScan => ({
      header,
      records,
      lineBytes,
      end: offset,
      bad: { offset, reason, tail: torn && last },
    })
    if (newline === -1) return stop('incomplete line (no newline)', true)
    const line = unframeLine(buf, offset, newline)
    if (!line.ok) return stop(line.reason, true)
    if (header === undefined) {
      const parsed = toHeader(line.value)
      if (!parsed.ok) return stop(parsed.reason)
      header = parsed.value
      // Records of an unknown format version are not ours to interpret.
      if (header.v !== FORMAT_VERSION) return stop(`unsupported journal version ${header.v}`)
    } else {
      const parsed = toRecord(line.value)
      if (!parsed.ok) return stop(parsed.reason)
      const expected = (records.at(-1)?.n ?? header.base) + 1
      if (parsed.value.n !== expected) return stop(`record number ${parsed.value.n}, expected ${expected}`)
      records.push(parsed.value)
      lineBytes.push(newline + 1 - offset)
    }
    offset = newline + 1
  }
  return { header, records, lineBytes, end: offset }
}
