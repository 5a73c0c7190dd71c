/**
 * A session's lineage (`<sidecar dir>/lineage.json`): the session it was
 * forked from and those forked from it, each at a node, a time, by whom.
 * Replaced atomically, never through a link; a damaged or foreign file is
 * reported, never overwritten.
 */
import path from 'node:path'
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import { isRecord } from '../tree/validate.ts'
import { ForeignEntry, readFile, replaceFile } from './durable.ts'
import { describe } from './files.ts'
import { SidecarLocator } from './location.ts'

export const LINEAGE_FILE = 'lineage.json'
const LINEAGE_VERSION = 1

/** Who made a fork: this plugin ("Open as new session"), or the host (its fork button). */
export type ForkMaker = 'tree' | 'host'

/** One edge of the lineage: the other session, the node of the SOURCE session the fork was made at, when, by whom. */
export interface ForkLink {
  readonly session: string
  /** Node id in the source session's tree. */
  readonly node: string
  /** ISO-8601. */
  readonly time: string
  readonly by: ForkMaker
  /** The other session's title when the fork was made. */
  readonly title?: string
}

export interface SessionLineage {
  /** The session this one was forked from. */
  readonly forkedFrom?: ForkLink
  /** Sessions forked from this one, oldest first. */
  readonly forkedTo: readonly ForkLink[]
}

export type LineageRead =
  { readonly ok: true; readonly lineage: SessionLineage } | { readonly ok: false; readonly problem: string }

const EMPTY: SessionLineage = { forkedTo: [] }

function linkOf(value: unknown): ForkLink | undefined {
  if (!isRecord(value)) return undefined
  const { session, node, time, by, title } = value
  if (
    typeof session !== 'string' ||
    typeof node !== 'string' ||
    typeof time !== 'string' ||
    (by !== 'tree' && by !== 'host')
  )
    return undefined
  if (title !== undefined && typeof title !== 'string') return undefined
  return { session, node, time, by, ...(title === undefined ? {} : { title }) }
}

/** Reads and writes `lineage.json` in each session's sidecar directory. */
export class LineageFiles {
  readonly locator: SidecarLocator

  constructor(root: string | SidecarLocator) {
    this.locator = typeof root === 'string' ? new SidecarLocator(root) : root
  }

  fileFor(sessionId: string): string {
    return path.join(this.locator.dirFor(sessionId), LINEAGE_FILE)
  }

  /** The lineage on disk (none: empty), or why it cannot be used. Never throws. */
  read(sessionId: string): LineageRead {
    const file = this.fileFor(sessionId)
    let data: Buffer | undefined
    try {
      data = readFile(file)
    } catch (error) {
      return {
        ok: false,
        problem: `${LINEAGE_FILE} not read: ${error instanceof ForeignEntry ? error.message : describe(error)}`,
      }
    }
    if (data === undefined) return { ok: true, lineage: EMPTY }
    let body: unknown
    try {
      body = JSON.parse(data.toString('utf8'))
    } catch (error) {
      return { ok: false, problem: `${LINEAGE_FILE} is not JSON (${describe(error)}); it is kept as it is` }
    }
    if (!isRecord(body) || body.v !== LINEAGE_VERSION || body.sessionId !== sessionId || !Array.isArray(body.to)) {
      return {
        ok: false,
        problem: `${LINEAGE_FILE} is not a version ${LINEAGE_VERSION} lineage of this session; it is kept as it is`,
      }
    }
    const from = body.from === undefined ? undefined : linkOf(body.from)
    const to = body.to.map(linkOf)
    if ((body.from !== undefined && from === undefined) || to.some((link) => link === undefined)) {
      return { ok: false, problem: `${LINEAGE_FILE} holds a malformed link; it is kept as it is` }
    }
    return { ok: true, lineage: { ...(from ? { forkedFrom: from } : {}), forkedTo: to as ForkLink[] } }
  }

  /** Record where a session came from (kept when one is recorded already: a fork has one origin). */
  setForkedFrom(sessionId: string, link: ForkLink): TreeResult<SessionLineage> {
    return this.update(sessionId, (lineage) => (lineage.forkedFrom ? lineage : { ...lineage, forkedFrom: link }))
  }

  /** Record a fork made from a session (once per child session). */
  addForkedTo(sessionId: string, link: ForkLink): TreeResult<SessionLineage> {
    return this.update(sessionId, (lineage) =>
      lineage.forkedTo.some((known) => known.session === link.session)
        ? lineage
        : { ...lineage, forkedTo: [...lineage.forkedTo, link] },
    )
  }

  /** Read, change, write durably; SIDECAR_IO (and nothing written) when the file cannot be used. */
  private update(sessionId: string, change: (lineage: SessionLineage) => SessionLineage): TreeResult<SessionLineage> {
    const current = this.read(sessionId)
    if (!current.ok) return fail('SIDECAR_IO', current.problem, { sessionId })
    const next = change(current.lineage)
    if (next === current.lineage) return ok(next)
    try {
      const file = path.join(this.locator.ensure(sessionId), LINEAGE_FILE)
      const body = {
        v: LINEAGE_VERSION,
        sessionId,
        ...(next.forkedFrom ? { from: next.forkedFrom } : {}),
        to: next.forkedTo,
      }
      replaceFile(file, Buffer.from(`${JSON.stringify(body)}\n`))
      return ok(next)
    } catch (error) {
      return fail(
        'SIDECAR_IO',
        `${LINEAGE_FILE} not saved: ${error instanceof ForeignEntry ? error.message : describe(error)}`,
        { sessionId },
      )
    }
  }
}
