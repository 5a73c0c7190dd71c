/**
 * Where a session's sidecar directory is: one rule for every file of it
 * (tree journal and overlay, lineage, workspace checkpoints, import records).
 *
 *   the host stores the session in a directory:  <session dir>/session-tree/
 *   otherwise (no persistence, a bare file):     <root>/<encoded session id>/
 *
 * With the sidecar inside the session's own directory it shares the session's
 * life: removing, copying or moving that directory takes the tree along. The
 * session directory comes from the host (injected as `sessionDirOf`: this
 * layer knows nothing of the harness); it is never guessed.
 */
import { lstatSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { ensureSessionDir, ForeignEntry } from './durable.ts'
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
  /** The configured `sidecarRoot`: the fallback place. */
  readonly root: string
  readonly sessionDirOf?: SessionDirOf
}

export class SidecarLocator {
  readonly root: string
  private readonly sessionDirOf: SessionDirOf | undefined

  constructor(options: LocatorOptions | string) {
    const opts = typeof options === 'string' ? { root: options } : options
    this.root = path.resolve(opts.root)
    this.sessionDirOf = opts.sessionDirOf
  }

  /** The fallback directory of a session (it has no directory of its own). */
  rootDirFor(sessionId: string): string {
    return sessionDir(this.root, sessionId)
  }

  /** Where a session's sidecar is. */
  place(sessionId: string): SidecarPlace {
    const home = this.sessionDirOf?.(sessionId)
    if (home === undefined || !path.isAbsolute(home))
      return { dir: this.rootDirFor(sessionId), base: this.root, inSession: false }
    return { dir: path.join(home, SESSION_SIDECAR_DIR), base: home, inSession: true }
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
}
