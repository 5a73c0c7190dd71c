/**
 * Content-addressed, deduplicated file contents: `<dir>/<2 hex>/<62 hex>`,
 * named by the SHA-256 of the bytes. A blob is written once, durably (temp,
 * fsync, rename, fsync the directory), before anything refers to it, and is
 * never changed; reading checks the hash again, so a damaged blob is reported,
 * never restored.
 */
import { createHash, randomBytes } from 'node:crypto'
import { readNoFollow, createFile, probe } from './safe-fs.ts'

export type BlobRead =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly reason: string }

export function hashOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

const HASH = /^[0-9a-f]{64}$/

export class BlobStore {
  private readonly root: string
  private readonly dir: string
  /** Hashes known to be on disk (written or seen by this process). */
  private readonly known = new Set<string>()

  /** `root` is trusted; `dir` is relative to it (every directory below `root` is checked, never followed). */
  constructor(root: string, dir: string) {
    this.root = root
    this.dir = dir
  }

  private relOf(hash: string): string {
    return `${this.dir}/${hash.slice(0, 2)}/${hash.slice(2)}`
  }

  /** Store `bytes` (a no-op when the blob exists); returns its hash once it is durable. */
  put(bytes: Uint8Array, hash: string = hashOf(bytes)): string {
    if (this.known.has(hash)) return hash
    const rel = this.relOf(hash)
    const found = probe(this.root, rel)
    if (found.kind !== 'file' || found.size !== bytes.length) {
      createFile(this.root, rel, bytes, `.${hash.slice(2, 18)}.${randomBytes(4).toString('hex')}.tmp`)
    }
    this.known.add(hash)
    return hash
  }

  /** The bytes of a blob, checked against their hash. */
  get(hash: string, maxBytes: number): BlobRead {
    if (!HASH.test(hash)) return { ok: false, reason: `not a blob hash: ${JSON.stringify(hash)}` }
    const read = readNoFollow(this.root, this.relOf(hash), maxBytes)
    // Binary content is never stored, so "binary" here means damage too.
    if (read.kind !== 'file') return { ok: false, reason: read.kind === 'absent' ? `blob ${hash} is missing` : `blob ${hash} is unreadable (${read.reason})` }
    if (hashOf(read.bytes) !== hash) return { ok: false, reason: `blob ${hash} is damaged (its content no longer matches its hash)` }
    return { ok: true, bytes: read.bytes }
  }

  has(hash: string): boolean {
    return this.known.has(hash) || probe(this.root, this.relOf(hash)).kind === 'file'
  }
}
