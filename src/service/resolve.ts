/**
 * Which harness session a call is about: a loaded (live) one for reads, a
 * live one for moves (a stored session is resumed the way the web host does
 * it), with the surface mode it runs in.
 */
import type { Context } from '@deepseek-ai/cordis'
import { clipped, fail, ok, quoted, type TreeResult } from '../tree/errors.ts'
import type { TreeSessionState, TreeSync } from '../harness/sync.ts'
import type { LiveAgent, LiveSession } from '../harness/live.ts'
import type { Surface } from '../surface/surface.ts'
import type { SurfaceMode } from './wire.ts'
import type { SurfaceChoices } from '../surface/choice.ts'
import { hostService, agentLookup } from '../harness/host.ts'

/** A session resolved for a call: the harness objects, the plugin's state, the session's surface and its mode. */
export interface Resolved {
  readonly session: LiveSession
  readonly agent: LiveAgent | undefined
  readonly state: TreeSessionState
  /** Chosen once per session (`surface/choice.ts`). */
  readonly surface: Surface
  readonly mode: SurfaceMode
}

export interface ResolverDeps {
  readonly ctx: Context
  readonly sync: TreeSync
  /** Each session's surface, chosen once (`surface/choice.ts`). */
  readonly surfaces: SurfaceChoices
}

export class SessionResolver {
  private readonly deps: ResolverDeps

  constructor(deps: ResolverDeps) {
    this.deps = deps
  }

  /** A loaded (live) session for reads; never resumes a cold one. */
  loaded(agentId: unknown): TreeResult<Resolved> {
    if (typeof agentId !== 'string' || agentId === '')
      return fail('INVALID_ARGUMENT', 'agentId must be a non-empty string')
    const agent = this.agents()?.get(agentId)
    const session = (agent?.session ?? this.deps.ctx.sessions.get(agentId as never)) as LiveSession | undefined
    if (!session) {
      return fail(
        'SESSION_NOT_FOUND',
        `session ${quoted(agentId)} is not loaded in this harness (a stored session loads when it gets a message)`,
        { agentId: clipped(agentId) },
      )
    }
    const state = this.deps.sync.attach(session)
    const surface = this.deps.surfaces.of(session, agent, state.projector)
    return ok({ session, agent, state, surface, mode: surface.mode })
  }

  /** A live session for moves; a stored (cold) session is resumed the way the web host does it. */
  async live(agentId: unknown): Promise<TreeResult<Resolved>> {
    const loaded = this.loaded(agentId)
    if (loaded.ok && loaded.value.agent) return loaded
    if (typeof agentId !== 'string' || agentId === '') return loaded
    const lookup = agentLookup(this.deps.ctx)
    if (!lookup) return loaded
    try {
      await lookup.resolve(agentId)
    } catch {
      // The lookup knows no such session either: the same answer a read gives.
      return loaded
    }
    return this.loaded(agentId)
  }

  private agents(): { get(id: string): LiveAgent | undefined } | undefined {
    return hostService<{ get(id: string): LiveAgent | undefined }>(this.deps.ctx, 'agents')
  }
}
