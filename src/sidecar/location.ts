/**
 * Where a session's sidecar directory is, one rule for all its files:
 * `<session dir>/session-tree/` when the host stores the session in a
 * directory (so the tree shares the session's life), else
 * `<root>/<encoded id>/`. A sidecar left at the latter is moved in
 * (`migrate.ts`) the first time asked, so a tree never lives in two places.
 * docs/lineage.md, "Where a session's tree lives".
 */
import { lstatSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { ensureSessionDir, ForeignEntry } from './durable.ts'
import { migrateSidecar, type MigrationOptions, type MigrationOutcome } from './migrate.ts'
import { sessionDir } from './session-dir.ts'

/** The directory the host keeps a session in (absolute), or undefined when it has none or does not know the session. */
export type SessionDirOf = (sessionId: string) => string | undefined

/** The name of the sidecar directory inside a session's directory. */
export const SESSION_SIDECAR_DIR = 'session-tree'

/** A session's sidecar directory, and the directory it sits directly in. */
export interface SidecarPlace {
  /** Absolute sidecar directory. */
  readonly dir: string
  /** Its parent: the session's directory, or the root. The host's (or configuration), so it may be created but is never ours to replace. */
  readonly base: string
  /** True when `dir` is inside the session's own directory. */
  readonly inSession: boolean
}

export interface LocatorOptions {
  /** The configured `sidecarRoot`: the fallback place and the old layout. */
  readonly root: string
  readonly sessionDirOf?: SessionDirOf
  /** Test hooks of the migration (a crash at a chosen step, the copy path). */
  readonly migration?: MigrationOptions
}

export class SidecarLocator {
  readonly root: string
  private readonly sessionDirOf: SessionDirOf | undefined
  private readonly migration: MigrationOptions
  /** Sessions whose old place was looked at in this process (once each), with what was found. */
  private readonly checked = new Map<string, MigrationOutcome>()

  constructor(options: LocatorOptions | string) {
    const opts = typeof options === 'string' ? { root: options } : options
    this.root = path.resolve(opts.root)
    this.sessionDirOf = opts.sessionDirOf
    this.migration = opts.migration ?? {}
  }

  /** The old-layout (and fallback) directory of a session. */
  rootDirFor(sessionId: string): string {
    return sessionDir(this.root, sessionId)
  }

  /** Where a session's sidecar is; an old-layout sidecar is moved into the session's directory first (once per process). */
  place(sessionId: string): SidecarPlace {
    const home = this.sessionDirOf?.(sessionId)
    if (home === undefined || !path.isAbsolute(home))
      return { dir: this.rootDirFor(sessionId), base: this.root, inSession: false }
    const place = { dir: path.join(home, SESSION_SIDECAR_DIR), base: home, inSession: true }
    if (!this.checked.has(sessionId))
      this.checked.set(sessionId, migrateSidecar(this.rootDirFor(sessionId), place.dir, this.migration))
    return place
  }

  dirFor(sessionId: string): string {
    return this.place(sessionId).dir
  }

  /** Create the session's sidecar directory if missing (durably); never through a link. */
  ensure(sessionId: string): string {
    const place = this.place(sessionId)
    if (place.inSession) {
      // The session's directory is the host's: made as the host makes it, but a link there is not followed.
      mkdirSync(place.base, { recursive: true, mode: 0o700 })
      if (lstatSync(place.base).isSymbolicLink()) throw new ForeignEntry(place.base, 'is a symbolic link')
    }
    ensureSessionDir(place.base, place.dir)
    return place.dir
  }

  /** What looking at the old places found in this process: moves, conflicts, refusals (nothing for sessions without an old sidecar). */
  migrations(): readonly (MigrationOutcome & { readonly sessionId: string })[] {
    return [...this.checked]
      .filter(([, outcome]) => outcome.kind !== 'none')
      .map(([sessionId, outcome]) => ({ sessionId, ...outcome }))
  }
}
