/**
 * The host side of where sidecars live: a session's directory is where DSH's
 * persistence stores its log (`sessionPersistence.locate(header).path`'s
 * directory), asked of DSH, never guessed. The header comes from the live
 * session, or from the stored headers the orphan scan lists and the
 * sessions this process saw created. Without persistence, or for a session
 * it cannot locate, the sidecar layer falls back to `sidecarRoot`.
 */
import path from 'node:path'
import type { Context } from '@deepseek-ai/cordis'
import { SidecarLocator } from '../sidecar/index.ts'
import { hostService } from '../harness/host.ts'

type Header = { readonly id: string; readonly cwd?: string }
type Locating = {
  locate?(header: Header): { readonly path: string } | undefined
  list?(): Promise<readonly Header[]>
}
type Sessions = { get(id: string): { readonly header?: Header } | undefined }

/** The locator of one service, and the headers it locates cold sessions with. */
export class SessionSidecars {
  readonly locator: SidecarLocator
  private readonly headers = new Map<string, Header>()
  private readonly ctx: Context

  constructor(ctx: Context, root: string) {
    this.ctx = ctx
    this.locator = new SidecarLocator({ root, sessionDirOf: (id) => this.sessionDirOf(id) })
  }

  /** Headers of sessions that may be cold later (stored ones, new ones). */
  remember(headers: Iterable<Header | undefined>): void {
    for (const header of headers) if (typeof header?.id === 'string') this.headers.set(header.id, header)
  }

  /** Whether this session's directory can be found now (a live session, or a stored header seen). */
  knows(sessionId: string): boolean {
    return this.sessionDirOf(sessionId) !== undefined
  }

  /** Learn the stored sessions' headers: how a cold session's directory (and its writer claim) is found before it loads. */
  async learnStored(): Promise<void> {
    const persistence = hostService<Locating>(this.ctx, 'sessionPersistence')
    try {
      if (typeof persistence?.list === 'function') this.remember(await persistence.list())
    } catch {
      /* the fallback place stands */
    }
  }

  private sessionDirOf(sessionId: string): string | undefined {
    const persistence = hostService<Locating>(this.ctx, 'sessionPersistence')
    if (typeof persistence?.locate !== 'function') return undefined
    const sessions = hostService<Sessions>(this.ctx, 'sessions')
    const header = sessions?.get(sessionId)?.header ?? this.headers.get(sessionId)
    if (header === undefined || header.id !== sessionId) return undefined
    try {
      const location = persistence.locate(header)
      return location === undefined ? undefined : path.dirname(location.path)
    } catch {
      return undefined
    }
  }
}
