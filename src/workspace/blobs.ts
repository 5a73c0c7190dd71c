/**
 * Content-addressed file contents (SHA-256), deduplicated, in one append-only
 * pack per session (`blobs.pack`: `B <hash> <length>\n<bytes>\n` per entry).
 * `put` syncs the pack; `putJournaled` leaves the durable copy to the journal
 * line (`writer.ts`) and keeps the pack as a cache `adopt` repairs. Every read
 * checks the hash. Why: docs/workspace.md, "Crash safety".
 */
import { createHash } from 'node:crypto'
import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, readSync, writeSync } from 'node:fs'
import { openPrivate, probe } from './safe-fs.ts'
import { errorMessage } from '../tree/errors.ts'

export type BlobRead = { readonly ok: true; readonly bytes: Buffer } | { readonly ok: false; readonly reason: string }

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
  /** Contents written but durable nowhere yet (`put(…, false)`, or a journal line that failed). */
  private readonly unsynced = new Set<string>()
  /** Entries known good: written by this process, or hashed since it opened the pack. */
  private readonly checked = new Set<string>()

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
      if (this.unsynced.has(hash)) {
        if (durable) this.sync()
        return hash
      }
      // A damaged copy leaves the index: a good one is written below.
      if (this.verified(hash)) return hash
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
      // fdatasync is enough: it flushes the data and the new length, not the times.
      if (durable) {
        fdatasyncSync(fd)
        this.unsynced.clear()
      } else {
        this.unsynced.add(hash)
      }
      index.set(hash, { offset: this.end + header.length, size: bytes.length })
      this.checked.add(hash)
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

  /**
   * Store a content whose durable copy is the journal line about to be
   * written (the caller puts `bytes` in it): a pack write, no sync. Until the
   * line is durable nothing else may refer to the hash; if it fails, call
   * `unjournaled`.
   */
  putJournaled(bytes: Uint8Array, hash: string): void {
    this.put(bytes, hash, false)
    this.unsynced.delete(hash)
  }

  /** The journal line carrying these contents was not written: they are durable nowhere. */
  unjournaled(hashes: Iterable<string>): void {
    for (const hash of hashes) if (this.has(hash)) this.unsynced.add(hash)
  }

  /**
   * True when a record may not refer to `hash` alone: the content is not
   * stored, is stored but not durable yet, or is stored damaged (an entry not
   * checked in this process is hashed once; a damaged one leaves the index,
   * so the next put writes a good copy).
   */
  needsHome(hash: string): boolean {
    if (!this.entries().has(hash) || this.unsynced.has(hash)) return true
    return !this.verified(hash)
  }

  /** A stored entry is good (hashed once per process); a damaged one is dropped from the index. */
  private verified(hash: string): boolean {
    if (this.checked.has(hash)) return true
    if (this.get(hash, Number.MAX_SAFE_INTEGER).ok) {
      this.checked.add(hash)
      return true
    }
    this.entries().delete(hash)
    return false
  }

  /**
   * At open: the contents the journal carries (`putJournaled` copies). Each
   * pack copy is checked and rewritten when missing or damaged, then the pack
   * is synced once, so from here on every entry it holds is durable (a copy a
   * killed process left in the page cache included). Returns how many were
   * rewritten.
   */
  adopt(contents: ReadonlyMap<string, Buffer>): number {
    let rewritten = 0
    for (const [hash, bytes] of contents) {
      if (this.entries().has(hash) && this.verified(hash)) continue
      this.put(bytes, hash, false)
      rewritten++
    }
    if (probe(this.root, this.file).kind === 'file') this.fsyncPack()
    return rewritten
  }

  /** Make every content written so far durable. */
  sync(): void {
    if (this.unsynced.size === 0) return
    this.fsyncPack()
  }

  private fsyncPack(): void {
    const { fd } = openPrivate(this.root, this.file, false)
    try {
      fdatasyncSync(fd)
      this.unsynced.clear()
    } finally {
      closeSync(fd)
    }
  }

  /** The pack opened once for a run of reads (`reading`), else undefined: each read opens it. */
  private reader: number | undefined

  /** Run `read` with the pack opened once for all its `get`s (a plan or a restore reads a content per file). */
  reading<T>(read: () => T): T {
    if (this.reader !== undefined || probe(this.root, this.file).kind !== 'file') return read()
    let fd: number
    try {
      fd = openPrivate(this.root, this.file, false).fd
    } catch {
      return read()
    }
    this.reader = fd
    try {
      return read()
    } finally {
      this.reader = undefined
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
      const fd = this.reader ?? openPrivate(this.root, this.file, false).fd
      try {
        let done = 0
        while (done < entry.size) {
          const n = readSync(fd, bytes, done, entry.size - done, entry.offset + done)
          if (n === 0) break
          done += n
        }
      } finally {
        if (fd !== this.reader) closeSync(fd)
      }
    } catch (error) {
      return {
        ok: false,
        reason: `content ${hash} is unreadable: ${errorMessage(error)}`,
      }
    }
    if (hashOf(bytes) !== hash)
      return { ok: false, reason: `content ${hash} is damaged (it no longer matches its hash)` }
    return { ok: true, bytes }
  }

  has(hash: string): boolean {
    return this.entries().has(hash)
  }
}
