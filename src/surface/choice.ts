/**
 * Each session's surface, chosen once and kept (issue 12 §4): a move asks the
 * surface to follow, it does not choose again. Chosen anew only when the
 * session object, its live agent or the tree projector it follows differs;
 * why those three: docs/model-history.md, on `auto` below the table.
 */
import type { SessionProjector } from '../harness/projector.ts'
import type { LiveAgent, LiveSession } from '../harness/live.ts'
import { surfaceModeOf, type SurfaceModeSetting } from './mode.ts'
import type { StockSwitcher } from './stock.ts'
import type { Estimator } from './price.ts'
import { surfaceFor, type Surface } from './surface.ts'

export interface SurfaceChoiceDeps {
  readonly setting: SurfaceModeSetting
  readonly switcher: StockSwitcher
  /** Awaited durability checkpoint of the harness log (`ctx.sessions.flush`). */
  readonly flush: (session: LiveSession) => Promise<void>
  /** The harness token meter's estimator, when one is loaded: a native selection states its price. */
  readonly estimator?: () => Estimator | undefined
}

interface Choice {
  readonly session: LiveSession
  readonly agent: LiveAgent | undefined
  readonly surface: Surface
}

export class SurfaceChoices {
  private readonly deps: SurfaceChoiceDeps
  /** Keyed by projector: it lives exactly as long as the plugin's state of the session. */
  private readonly chosen = new WeakMap<SessionProjector, Choice>()

  constructor(deps: SurfaceChoiceDeps) {
    this.deps = deps
  }

  /** The session's surface: the one chosen before while session, agent and projector are the same objects, else a new choice. */
  of(session: LiveSession, agent: LiveAgent | undefined, projector: SessionProjector): Surface {
    const held = this.chosen.get(projector)
    if (held !== undefined && held.session === session && held.agent === agent) return held.surface
    const mode = surfaceModeOf(this.deps.setting, session, agent !== undefined)
    const surface = surfaceFor(mode, {
      session,
      agent,
      projector,
      switcher: this.deps.switcher,
      flush: this.deps.flush,
      ...(this.deps.estimator === undefined ? {} : { estimator: this.deps.estimator }),
    })
    this.chosen.set(projector, { session, agent, surface })
    return surface
  }
}
