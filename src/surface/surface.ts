/**
 * The three ways a move reaches the model history, behind one interface,
 * chosen from the session's mode: `native` selects earlier surface events
 * (`native.ts`), `stock` runs a switch with official events (`stock.ts`),
 * `projection` leaves the history alone. The service's move (`service/move.ts`)
 * moves the tree, then asks the session's surface to follow.
 */
import { ok, type TreeResult } from '../tree/errors.ts'
import type { SessionProjector } from '../harness/projector.ts'
import { hostEvents, hostService, type HostContext } from '../harness/host.ts'
import type { LiveAgent, LiveSession } from '../harness/live.ts'
import { hasNativeSurface, type SurfaceMode } from './mode.ts'
import { nativeSwitch } from './native.ts'
import { meterEstimator, surfacePricer, type Estimator } from './price.ts'
import type { StockSwitcher, StockSwitcherOptions, SwitchReport } from './stock.ts'
import type { PlannedEvent } from './copy.ts'
import { fail } from '../tree/errors.ts'

/** What following a move did to the harness log. */
export type SurfaceReport = Pick<SwitchReport, 'appendedEvents' | 'copies' | 'shadowed' | 'noop'>

/** How a move asks the surface to follow. */
export interface FollowRequest {
  /** The branch a fork creates (named in the log, so a rebuild from the log alone names it). */
  readonly branch?: string
  /** The tool call of the model's running step that makes the move (stock mode only). */
  readonly withinCall?: string
  /** The branch the move lands on (its switch row names it), recorded with the switch for people reading the log. */
  readonly lane?: string
  /**
   * Events appended as the new path's last ones (a carried branch summary: one
   * `user/message` append): in stock mode inside the switch, in native mode
   * right after the selection. Projection refuses them (nothing reaches the model there).
   */
  readonly tail?: readonly PlannedEvent[]
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
  /** The harness token meter's estimator, when one is loaded (`price.ts`). */
  readonly estimator?: () => Estimator | undefined
}

/** The plugin's cordis context as the surfaces read it at run time. */
export interface SurfaceHost extends HostContext {
  readonly sessions: { flush(session: LiveSession): Promise<unknown> }
  on(...args: never[]): unknown
}

/** What the surfaces call on the host, each read from it at the call (a token meter may load later). */
export function hostParts(host: SurfaceHost): Required<Pick<StockSwitcherOptions, 'flush' | 'estimator' | 'listen'>> {
  return {
    flush: async (session) => {
      await host.sessions.flush(session)
    },
    // One estimator for both modes: a stock switch prices what it replaces, a native selection what it selects.
    estimator: () => meterEstimator(hostService<unknown>(host, 'tokenMeter')),
    listen: hostEvents(host),
  }
}

/** The surface of a session in `mode`. */
export function surfaceFor(mode: SurfaceMode, parts: SurfaceParts): Surface {
  switch (mode) {
    case 'stock':
      return stockSurface(parts)
    case 'native':
      return nativeSurface(parts)
    case 'projection':
      return {
        mode,
        follow: async (_destination, { tail }) =>
          tail === undefined
            ? ok(undefined)
            : fail(
                'SURFACE_UNAVAILABLE',
                'this session cannot carry a summary into the model history (projection mode)',
                { mode },
              ),
      }
  }
}

function stockSurface({ session, agent, switcher }: SurfaceParts): Surface {
  return {
    mode: 'stock',
    async follow(destination, { branch, withinCall, lane, tail }) {
      if (withinCall !== undefined) {
        const switched = switcher.switchWithinStep(session, destination, withinCall, tail)
        return switched.ok ? ok({ ...switched.value, noop: false }) : switched
      }
      if (agent) return switcher.switch(agent, destination, branch, lane, tail)
      return tail === undefined
        ? ok(undefined)
        : fail('SURFACE_UNAVAILABLE', 'this session cannot carry a summary into the model history (no live agent)', {
            mode: 'stock',
          })
    },
  }
}

function nativeSurface({ session, projector, flush, estimator }: SurfaceParts): Surface {
  return {
    mode: 'native',
    async follow(destination, { branch, lane, tail }) {
      if (!hasNativeSurface(session)) {
        return tail === undefined
          ? ok(undefined)
          : fail(
              'SURFACE_UNAVAILABLE',
              'this session cannot carry a summary into the model history (the harness has no native surface)',
              { mode: 'native' },
            )
      }
      const estimate = estimator?.()
      const selected = nativeSwitch(session as never, projector, destination, {
        ...(branch === undefined ? {} : { branch }),
        ...(lane === undefined ? {} : { lane }),
        ...(estimate === undefined ? {} : { priceOf: surfacePricer(session, estimate) }),
      })
      if (!selected.ok) return selected
      let appended = selected.value.appendedEvents
      // A carried summary is new history at the end of the selected path: an append outside any turn.
      for (const event of tail ?? []) {
        const before = session.seq
        session.append(event.type, event.data, event.intent)
        appended += session.seq - before
      }
      const changed = !selected.value.noop || (tail?.length ?? 0) > 0
      if (changed) await flush(session)
      return ok({ appendedEvents: appended, copies: 0, shadowed: 0, noop: !changed })
    },
  }
}
