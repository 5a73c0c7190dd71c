/**
 * Provenance of an imported session: which source record every DSH node came
 * from, verbatim. The harness log holds what the DSH model may read; this
 * file holds the rest (thinking and its signatures, image bytes, usage and
 * costs, source ids and timestamps, extension data), so an export to the
 * source's format loses nothing. It sits in the session's sidecar directory:
 *
 *   <sidecarRoot>/<encoded session id>/interchange.jsonl.gz
 *
 * line 1 the header, then one line per node, in source order. Written once,
 * at import; read only by exports (streamed, gunzipped).
 */
import { createReadStream, createWriteStream, existsSync } from 'node:fs'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Readable } from 'node:stream'
import { createGunzip, createGzip } from 'node:zlib'
import { readJsonl } from '../lines.ts'
import type { InterchangeNode, Json, SessionMeta } from '../model.ts'
import { isObject } from '../values.ts'

export const PROVENANCE_FILE = 'interchange.jsonl.gz'
export const PROVENANCE_VERSION = 1

export interface ProvenanceHeader {
  readonly v: typeof PROVENANCE_VERSION
  readonly kind: 'header'
  readonly meta: SessionMeta
  readonly importedAt: string
  /** Source node id of the cursor at import time. */
  readonly cursor: string | null
}

export interface ProvenanceNode {
  /** DSH node id. */
  readonly node: string
  /** Source node id. */
  readonly id: string
  readonly parentId: string | null
  readonly line: number
  readonly time: number
  readonly raw: readonly Json[]
}

export interface Provenance {
  readonly header: ProvenanceHeader
  /** By DSH node id. */
  readonly nodes: ReadonlyMap<string, ProvenanceNode>
}

/** Write the provenance file (a new file in `dir`). */
export async function writeProvenance(dir: string, header: ProvenanceHeader, nodes: readonly InterchangeNode[], dshIds: ReadonlyMap<string, string>): Promise<void> {
  async function* lines(): AsyncGenerator<string> {
    yield JSON.stringify(header) + '\n'
    for (const node of nodes) {
      const dsh = dshIds.get(node.id)
      if (dsh === undefined) continue
      const record: ProvenanceNode = { node: dsh, id: node.id, parentId: node.parentId, line: node.line, time: node.time, raw: node.raw ?? [] }
      yield JSON.stringify(record) + '\n'
    }
  }
  await pipeline(Readable.from(lines()), createGzip(), createWriteStream(path.join(dir, PROVENANCE_FILE), { flags: 'wx' }))
}

/** Read a session's provenance; undefined when the session was not imported (or the file is gone). */
export async function readProvenance(dir: string): Promise<Provenance | undefined> {
  const file = path.join(dir, PROVENANCE_FILE)
  if (!existsSync(file)) return undefined
  let header: ProvenanceHeader | undefined
  const nodes = new Map<string, ProvenanceNode>()
  const stream = createReadStream(file).pipe(createGunzip())
  for await (const record of readJsonl(stream)) {
    if (record.kind !== 'record' || !isObject(record.value)) continue
    const value = record.value
    if (header === undefined) {
      if (value.kind !== 'header' || value.v !== PROVENANCE_VERSION) return undefined
      header = value as unknown as ProvenanceHeader
      continue
    }
    if (typeof value.node === 'string' && typeof value.id === 'string' && Array.isArray(value.raw)) nodes.set(value.node, value as unknown as ProvenanceNode)
  }
  return header === undefined ? undefined : { header, nodes }
}
