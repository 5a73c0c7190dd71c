/**
 * Publishing a built session, all or nothing, in bounded memory: validate the
 * log as a resume would; stage the sidecar and read it back (`verify.ts`; a
 * mismatch publishes nothing); rename the sidecar into place, then write the
 * log (`write-log.ts`), removing the sidecar if that fails. A crash between
 * those two leaves a sidecar without a session: nothing shows.
 */
import { renameSync, rmSync } from 'node:fs'
import { Session, SessionId } from '@deepseek-ai/dsh-session'
import type { JsonObject } from '../../tree/types.ts'
import { TreeSidecar } from '../../sidecar/index.ts'
import { InterchangeError } from '../errors.ts'
import type { BuiltSession } from './built.ts'
import { checkReadBack, checkRebuild, defaultImportCheck, type ImportCheck } from './verify.ts'
import { writeProvenance, type ProvenanceHeader, type RawSpool } from './provenance.ts'
import {
  failedWrite,
  writeSessionLog,
  type PersistenceTarget,
  type SessionHeader,
  type WrittenLog,
} from './write-log.ts'

export interface SidecarStaging {
  /** The plugin's sidecar root (`session-tree` row's `sidecarRoot`). */
  readonly root: string
  /** A private directory inside `root` the sidecar is written in first. */
  readonly staging: string
  readonly header: ProvenanceHeader
  /** The source records, spooled while the file was read. */
  readonly spool?: RawSpool
}

export interface PublishOptions {
  readonly persistence: PersistenceTarget
  /** Without one, tree-only state is not kept. */
  readonly sidecar?: SidecarStaging
  readonly cwd?: string
  readonly createdAt: number
  /** How the staged sidecar is checked (default: `defaultImportCheck()`). */
  readonly check?: ImportCheck
}

export interface Published {
  readonly sessionId: string
  readonly events: number
  readonly sidecar: boolean
  readonly log: WrittenLog
}

export async function publishSession(built: BuiltSession, options: PublishOptions): Promise<Published> {
  const header: SessionHeader = {
    version: 0,
    id: built.sessionId,
    createdAt: options.createdAt,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  }
  try {
    // A restore takes the events as they are (validated, frozen in place): no second copy of the log.
    Session.fromRestore(SessionId(built.sessionId), built.events as never, { ...header } as never)
  } catch (error) {
    throw new InterchangeError('WRITE_FAILED', `the harness refuses the session log: ${(error as Error).message}`)
  }
  const published =
    options.sidecar !== undefined
      ? stageSidecar(built, options.sidecar, options.check ?? defaultImportCheck())
      : undefined
  let log: WrittenLog
  try {
    log = await writeSessionLog(options.persistence, header, built.events)
  } catch (error) {
    if (published !== undefined) rmSync(published, { recursive: true, force: true })
    throw failedWrite(error)
  }
  return { sessionId: built.sessionId, events: built.events.length, sidecar: published !== undefined, log }
}

/** Write, verify and move the sidecar directory into place; returns its final path. */
function stageSidecar(built: BuiltSession, sidecar: SidecarStaging, check: ImportCheck): string {
  const staged = new TreeSidecar(sidecar.staging)
  const folded = staged.compact(built.sessionId, {
    n: 0,
    w: Math.max(0, built.watermark),
    state: built.overlay as unknown as JsonObject,
  })
  if (!folded.ok) throw new InterchangeError('WRITE_FAILED', `sidecar: ${folded.error.message}`)
  const dir = staged.dirFor(built.sessionId)
  writeProvenance(dir, sidecar.header, sidecar.spool, built.entries)
  const difference =
    checkReadBack(built, sidecar.staging) ?? (check === 'rebuild' ? checkRebuild(built, sidecar.staging) : undefined)
  if (difference !== undefined)
    throw new InterchangeError('WRITE_FAILED', `the plugin would not open the imported tree as built: ${difference}`)
  const final = new TreeSidecar(sidecar.root).dirFor(built.sessionId)
  try {
    renameSync(dir, final)
  } catch (error) {
    throw new InterchangeError(
      'WRITE_FAILED',
      `sidecar directory ${final} could not be created: ${(error as Error).message}`,
    )
  }
  return final
}
