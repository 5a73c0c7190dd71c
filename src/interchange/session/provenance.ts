/**
 * Provenance of an imported session (`<sidecar dir>/interchange.jsonl.gz`):
 * which source record every DSH node came from, verbatim, holding what the log
 * does not (thinking, image bytes, usage, source ids), so an export loses
 * nothing. A multi-member gzip of JSON lines (header, raw records as met, one
 * line per node), so an import spools records and never holds them. Written at
 * import, read only by exports.
 */
import { closeSync, createReadStream, existsSync, openSync, readSync } from 'node:fs'
import path from 'node:path'
import { createGunzip, gzipSync } from 'node:zlib'
import type { RawSink } from '../builder.ts'
import { readJsonl } from '../lines.ts'
import type { SessionMeta } from '../model.ts'
import type { JsonValue } from '../../tree/types.ts'
import { isJsonObject } from '../../tree/validate.ts'
import { writeAll } from '../../sidecar/durable.ts'

export const PROVENANCE_FILE = 'interchange.jsonl.gz'
export const PROVENANCE_VERSION = 2

export interface ProvenanceHeader {
  readonly v: typeof PROVENANCE_VERSION
  readonly kind: 'header'
  readonly meta: SessionMeta
  readonly importedAt: string
  /** Source node id of the cursor at import time. */
  readonly cursor: string | null
}

/** The node table of the provenance: a DSH node and the source node it came from. */
export interface ProvenanceEntry {
  /** DSH node id. */
  readonly node: string
  /** Source node id. */
  readonly id: string
  readonly parentId: string | null
  readonly line: number
  readonly time: number
}

/** A node table entry as read back, with its verbatim source records. */
export interface ProvenanceNode extends ProvenanceEntry {
  readonly raw: readonly JsonValue[]
}

export interface Provenance {
  readonly header: ProvenanceHeader
  /** By DSH node id. */
  readonly nodes: ReadonlyMap<string, ProvenanceNode>
}

/** Bytes of JSON text gathered before they are compressed and written as one gzip member. */
const MEMBER_BYTES = 1 << 20

/**
 * Gzip members written straight to a file, synchronously (a reader's `add`
 * is synchronous). Memory: one member's text.
 */
class GzipMembers {
  private readonly fd: number
  private pending: string[] = []
  private pendingBytes = 0
  private closed = false

  constructor(file: string) {
    this.fd = openSync(file, 'wx', 0o600)
  }

  line(value: unknown): void {
    const text = JSON.stringify(value) + '\n'
    this.pending.push(text)
    this.pendingBytes += text.length
    if (this.pendingBytes >= MEMBER_BYTES) this.flush()
  }

  /** Append the bytes of another file (gzip members themselves). */
  copyFrom(file: string): void {
    this.flush()
    const from = openSync(file, 'r')
    try {
      const buffer = Buffer.allocUnsafe(1 << 20)
      for (let n; (n = readSync(from, buffer, 0, buffer.length, null)) > 0;) writeAll(this.fd, buffer.subarray(0, n))
    } finally {
      closeSync(from)
    }
  }

  flush(): void {
    if (this.pending.length === 0) return
    // The fastest level: the file is written once per import and read only by exports, so time beats size.
    writeAll(this.fd, gzipSync(this.pending.join(''), { level: 1 }))
    this.pending = []
    this.pendingBytes = 0
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    try {
      this.flush()
    } finally {
      closeSync(this.fd)
    }
  }
}

/** The source records of an import, spooled to a file as they are read. */
export class RawSpool {
  readonly file: string
  private readonly out: GzipMembers

  constructor(file: string) {
    this.file = file
    this.out = new GzipMembers(file)
  }

  readonly sink: RawSink = (id, raw) => {
    if (raw.length > 0) this.out.line({ kind: 'raw', id, raw })
  }

  close(): void {
    this.out.close()
  }
}

/** Write the provenance file (a new file in `dir`): header, the spooled records, the node table. */
export function writeProvenance(
  dir: string,
  header: ProvenanceHeader,
  spool: RawSpool | undefined,
  nodes: Iterable<ProvenanceEntry>,
): void {
  spool?.close()
  const out = new GzipMembers(path.join(dir, PROVENANCE_FILE))
  try {
    out.line(header)
    if (spool) out.copyFrom(spool.file)
    for (const node of nodes) out.line({ kind: 'node', ...node })
  } finally {
    out.close()
  }
}

/** Read a session's provenance; undefined when the session was not imported (or the file is gone). */
export async function readProvenance(dir: string): Promise<Provenance | undefined> {
  const file = path.join(dir, PROVENANCE_FILE)
  if (!existsSync(file)) return undefined
  let header: ProvenanceHeader | undefined
  const nodes = new Map<string, ProvenanceNode>()
  const raws = new Map<string, JsonValue[]>()
  const table: ProvenanceEntry[] = []
  const stream = createReadStream(file).pipe(createGunzip())
  for await (const record of readJsonl(stream)) {
    if (record.kind !== 'record' || !isJsonObject(record.value)) continue
    const value = record.value
    if (header === undefined) {
      if (value.kind !== 'header' || value.v !== PROVENANCE_VERSION) return undefined
      header = value as unknown as ProvenanceHeader
      continue
    }
    if (value.kind === 'raw' && typeof value.id === 'string' && Array.isArray(value.raw)) {
      const list = raws.get(value.id)
      if (list) list.push(...value.raw)
      else raws.set(value.id, [...value.raw])
    } else if (value.kind === 'node' && typeof value.node === 'string' && typeof value.id === 'string') {
      table.push(value as unknown as ProvenanceEntry)
    }
  }
  for (const entry of table) nodes.set(entry.node, { ...entry, raw: raws.get(entry.id) ?? [] })
  return header === undefined ? undefined : { header, nodes }
}
