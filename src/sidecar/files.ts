/**
 * Reading a session's two files into what they validly say. Problems are
 * reported through a callback and never thrown: a damaged sidecar must not
 * block the session.
 */
import { ForeignEntry, readFile } from './durable.ts'
import { FORMAT_VERSION, decodeOverlay, toFold } from './framing.ts'
import { scanJournal } from './journal.ts'
import type { SidecarFold, SidecarProblem, SidecarRecord } from './types.ts'
import { errorMessage } from '../tree/errors.ts'

export type Report = (code: SidecarProblem['code'], message: string, offset?: number) => void

export interface OverlayRead {
  readonly present: boolean
  readonly fold?: SidecarFold
  /** Set when the file must not be overwritten: unreadable, or not ours to interpret. */
  readonly blocked?: string
  /** The bytes of a damaged overlay of ours: kept aside before the next fold replaces it. */
  readonly salvage?: Buffer
}

export interface JournalRead {
  readonly present: boolean
  /** Record number before the first record (0 without a valid header). */
  readonly base: number
  readonly records: readonly SidecarRecord[]
  readonly lineBytes: readonly number[]
  /** Byte length of the valid prefix. */
  readonly end: number
  /** What the file needs before a record can be appended at `end`. */
  readonly repair: 'none' | 'truncate' | 'rewrite'
  /** The whole file, when a rewrite would discard more than a torn last line. */
  readonly salvage?: Buffer
  readonly blocked?: string
}

type Read =
  | { readonly kind: 'missing' }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'data'; readonly data: Buffer }

export function describe(error: unknown): string {
  return errorMessage(error)
}

/** A file's bytes; a link, a directory or any other entry that is not one plain file is never read. */
function readIfPresent(file: string): Read {
  try {
    const data = readFile(file)
    return data === undefined ? { kind: 'missing' } : { kind: 'data', data }
  } catch (error) {
    return { kind: 'error', message: error instanceof ForeignEntry ? error.message : describe(error) }
  }
}

export function readOverlay(file: string, sessionId: string, report: Report): OverlayRead {
  const read = readIfPresent(file)
  if (read.kind === 'missing') return { present: false }
  if (read.kind === 'error') {
    report('SIDECAR_IO', `overlay not read: ${read.message}`)
    return { present: true, blocked: `overlay not read: ${read.message}` }
  }
  const body = decodeOverlay(read.data.toString('utf8'))
  if (!body.ok) {
    report('INVALID_SNAPSHOT', `overlay ignored: ${body.reason}`)
    return { present: true, salvage: read.data }
  }
  // A checksummed overlay of another session or version is intact, just not ours: keep it.
  const foreign =
    body.value.sessionId !== sessionId
      ? 'overlay belongs to another session'
      : body.value.version !== FORMAT_VERSION
        ? `overlay has unsupported version ${body.value.version}`
        : undefined
  if (foreign !== undefined) {
    report('INVALID_SNAPSHOT', `${foreign}; ignored`)
    return { present: true, blocked: foreign }
  }
  const fold = toFold(body.value)
  if (!fold.ok) {
    report('INVALID_SNAPSHOT', `overlay ignored: ${fold.reason}`)
    return { present: true, salvage: read.data }
  }
  return { present: true, fold: fold.value }
}

const NOTHING = { base: 0, records: [], lineBytes: [], end: 0 } as const

export function readJournal(file: string, sessionId: string, report: Report): JournalRead {
  const read = readIfPresent(file)
  if (read.kind === 'missing') return { present: false, ...NOTHING, repair: 'rewrite' }
  if (read.kind === 'error') {
    report('SIDECAR_IO', `journal not read: ${read.message}`)
    return { present: true, ...NOTHING, repair: 'rewrite', blocked: `journal not read: ${read.message}` }
  }
  const scan = scanJournal(read.data)
  const { header, bad } = scan
  const foreign =
    header === undefined
      ? undefined
      : header.sessionId !== sessionId
        ? 'journal belongs to another session'
        : header.v !== FORMAT_VERSION
          ? `journal has unsupported version ${header.v}`
          : undefined
  if (foreign !== undefined) {
    report('INVALID_SNAPSHOT', `${foreign}; ignored`)
    return { present: true, ...NOTHING, repair: 'rewrite', blocked: foreign }
  }
  if (bad !== undefined) {
    const what = bad.tail ? 'torn last line dropped' : 'read stopped at a bad line; later lines ignored'
    report('INVALID_SNAPSHOT', `${what}: ${bad.reason}`, bad.offset)
  }
  if (header === undefined) {
    if (bad === undefined) report('INVALID_SNAPSHOT', 'journal is empty (no header line)')
    return { present: true, ...NOTHING, repair: 'rewrite', ...(read.data.length > 0 ? { salvage: read.data } : {}) }
  }
  const journal = { present: true, base: header.base, records: scan.records, lineBytes: scan.lineBytes, end: scan.end }
  if (bad === undefined) return { ...journal, repair: 'none' }
  // A torn last line is an append that never returned: cut it. Anything else is kept aside.
  return bad.tail ? { ...journal, repair: 'truncate' } : { ...journal, repair: 'rewrite', salvage: read.data }
}
