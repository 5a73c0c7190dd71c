/**
 * The three ways a move reaches the model history, behind one interface,
 * chosen from the session's mode: `native` selects earlier surface events
 * (`native.ts`), `stock` runs a switch with official events (`stock.ts`),
 * `projection` leaves the history alone. The service's move (`service/move.ts`)
 * moves the tree, then asks the session's surface to follow.
 */
import { ok, type TreeResult } from '../tree/errors.ts'
import type { SessionProjector } from '../harness/projector.ts'
import type { LiveAgent, LiveSession } from '../harness/live.ts'
import { hasNativeSurface, type SurfaceMode } from './mode.ts'
import { nativeSwitch } from './native.ts'
import type { StockSwitcher, SwitchReport } from './stock.ts'

/** What following a move did to the harness log. */
export type SurfaceReport = Pick<SwitchReport, 'appendedEvents' | 'copies' | 'shadowed' | 'noop'>

/** How a move asks the surface to follow. */
export interface FollowRequest {
  /** The branch a fork creates (named in the log, so a rebuild from the log alone names it). */
  readonly branch?: string
  /** The tool call of the model's running step that makes the move (stock mode only). */
  readonly withinCall?: string
  /** The branch active once the move is made, recorded with the switch for people reading the log. */
  readonly lane?: string
}

/** One session's model-visible history, as a move drives it. */
export interface Surface {
  readonly mode: SurfaceMode
  /** Make the model history end at `destination`; `undefined`: nothing to follow (projection). */
  follow(destination: string | null, request: FollowRequest): Promise<TreeResult<SurfaceReport | undefined>>
}

/** What a surface needs of the session and the plugin. */
export interface SurfaceParts {
  readonly session: LiveSession
  readonly agent: LiveAgent | undefined
  readonly projector: SessionProjector
  readonly switcher: StockSwitcher
  /** Awaited durability checkpoint of the harness log (`ctx.sessions.flush`). */
  readonly flush: (session: LiveSession) => Promise<void>
}

/** The surface of a session in `mode`. */
export function surfaceFor(mode: SurfaceMode, parts: SurfaceParts): Surface {
  switch (mode) {
    case 'stock':
      return stockSurface(parts)
    case 'native':
      return nativeSurface(parts)
    case 'projection':
      return { mode, follow: async () => ok(undefined) }
  }
}

function stockSurface({ session, agent, switcher }: SurfaceParts): Surface {
  return {
    mode: 'stock',
    async follow(destination, { branch, withinCall, lane }) {
      if (withinCall !== undefined) {
        const switched = switcher.switchWithinStep(session, destination, withinCall)
        return switched.ok ? ok({ ...switched.value, noop: false }) : switched
      }
      return agent ? switcher.switch(agent, destination, branch, lane) : ok(undefined)
    },
  }
}

function nativeSurface({ session, projector, flush }: SurfaceParts): Surface {
  return {
    mode: 'native',
    async follow(destination, { branch, lane }) {
      if (!hasNativeSurface(session)) return ok(undefined)
      const selected = nativeSwitch(session as never, projector, destination, branch, lane)
      if (!selected.ok) return selected
      if (!selected.value.noop) await flush(session)
      return ok({ appendedEvents: selected.value.appendedEvents, copies: 0, shadowed: 0, noop: selected.value.noop })
    },
  }
}
