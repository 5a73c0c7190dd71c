/**
 * Content-addressed, deduplicated file contents, named by the SHA-256 of
 * their bytes, in one append-only pack per session (`blobs.pack`):
 *
 *   B <64 hex hash> <byte length>\n<bytes>\n     one entry per distinct content
 *
 * A put is one positioned write and one fsync (the pack's directory entry is
 * made durable once, when it is created), before anything refers to the
 * content; a content already stored costs nothing. The index (hash → offset)
 * is rebuilt on open by reading the entry headers; a torn last entry (a crash
 * during a put) is cut off before the next put. Every read checks the hash
 * again, so a damaged content is reported, never restored.
 */
import { createHash } from 'node:crypto'
import { closeSync, fstatSync, fsyncSync, ftruncateSync, readSync, writeSync } from 'node:fs'
import { openPrivate, probe } from './safe-fs.ts'

export type BlobRead =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly reason: string }

export function hashOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

const HASH = /^[0-9a-f]{64}$/
const HEADER = /^B ([0-9a-f]{64}) (\d+)$/
/** Longest header line: "B " + 64 + " " + up to 16 digits. */
const MAX_HEADER = 2 + 64 + 1 + 16

interface Entry {
  readonly offset: number
  readonly size: number
}

export class BlobStore {
  private readonly root: string
  private readonly file: string
  private index: Map<string, Entry> | undefined
  /** Where the next entry goes (the end of the valid entries). */
  private end = 0
  /** Bytes past `end` (a torn entry) to cut before the next put. */
  private torn = false
  /** Contents written but not fsynced yet (`put(…, false)`). */
  private readonly unsynced = new Set<string>()

  /** `root` is trusted; `file` is the pack's path relative to it (every directory below `root` is checked, never followed). */
  constructor(root: string, file: string) {
    this.root = root
    this.file = file
  }

  /** Read the pack's entry headers once. */
  private entries(): Map<string, Entry> {
    if (this.index) return this.index
    const index = new Map<string, Entry>()
    if (probe(this.root, this.file).kind === 'file') {
      const { fd } = openPrivate(this.root, this.file, false)
      try {
        const size = fstatSync(fd).size
        const header = Buffer.alloc(MAX_HEADER + 1)
        let offset = 0
        while (offset < size) {
          const n = readSync(fd, header, 0, header.length, offset)
          const newline = header.subarray(0, n).indexOf(0x0a)
          const match = newline < 0 ? null : HEADER.exec(header.toString('latin1', 0, newline))
          const length = match ? Number(match[2]) : 0
          const next = offset + newline + 1 + length + 1
          if (!match || next > size) break
          index.set(match[1] as string, { offset: offset + newline + 1, size: length })
          offset = next
        }
        this.end = offset
        this.torn = offset < size
      } finally {
        closeSync(fd)
      }
    }
    this.index = index
    return index
  }

  /**
   * Store `bytes` (a no-op when the content is stored); returns its hash once
   * it is durable — or, with `durable: false`, once it is written (the next
   * durable put or `sync` makes it durable: one fsync covers the pack).
   */
  put(bytes: Uint8Array, hash: string = hashOf(bytes), durable = true): string {
    const index = this.entries()
    if (index.has(hash)) {
      if (durable && this.unsynced.has(hash)) this.sync()
      return hash
    }
    const { fd } = openPrivate(this.root, this.file, true)
    try {
      if (this.torn) {
        ftruncateSync(fd, this.end)
        this.torn = false
      }
      const header = Buffer.from(`B ${hash} ${bytes.length}\n`, 'latin1')
      const entry = Buffer.concat([header, bytes, Buffer.of(0x0a)])
      let done = 0
      while (done < entry.length) done += writeSync(fd, entry, done, entry.length - done, this.end + done)
      if (durable) {
        fsyncSync(fd)
        this.unsynced.clear()
      } else {
        this.unsynced.add(hash)
      }
      index.set(hash, { offset: this.end + header.length, size: bytes.length })
      this.end += entry.length
    } catch (error) {
      // Whatever was written past `end` is cut off before the next put.
      this.torn = true
      throw error
    } finally {
      closeSync(fd)
    }
    return hash
  }

  /** Make every content written so far durable. */
  sync(): void {
    if (this.unsynced.size === 0) return
    const { fd } = openPrivate(this.root, this.file, false)
    try {
      fsyncSync(fd)
      this.unsynced.clear()
    } finally {
      closeSync(fd)
    }
  }

  /** The bytes of a stored content, checked against their hash. */
  get(hash: string, maxBytes: number): BlobRead {
    if (!HASH.test(hash)) return { ok: false, reason: `not a content hash: ${JSON.stringify(hash)}` }
    const entry = this.entries().get(hash)
    if (entry === undefined) return { ok: false, reason: `content ${hash} is missing from the store` }
    if (entry.size > maxBytes) return { ok: false, reason: `content ${hash} is over the size limit` }
    const bytes = Buffer.alloc(entry.size)
    try {
      const { fd } = openPrivate(this.root, this.file, false)
      try {
        let done = 0
        while (done < entry.size) {
          const n = readSync(fd, bytes, done, entry.size - done, entry.offset + done)
          if (n === 0) break
          done += n
        }
      } finally {
        closeSync(fd)
      }
    } catch (error) {
      return { ok: false, reason: `content ${hash} is unreadable: ${error instanceof Error ? error.message : String(error)}` }
    }
    if (hashOf(bytes) !== hash) return { ok: false, reason: `content ${hash} is damaged (it no longer matches its hash)` }
    return { ok: true, bytes }
  }

  has(hash: string): boolean {
    return this.entries().has(hash)
  }
}
