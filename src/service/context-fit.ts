/**
 * How the selected path weighs against DSH's own limits, asked the way DSH asks before a step:
 * `ctx.tokenMeter.measure(session)` against `dsh-compaction-basic`'s threshold (its ratio of the
 * routed model's context window). A move never shortens a path; this says what DSH will do with it.
 */
import { hostService, type HostContext } from '../harness/host.ts'
import type { CompactionSettings } from '../harness/preset-compaction.ts'
import { requestRoute, type LiveSession, type RequestRoute } from '../harness/live.ts'

/**
 * `fits`: below DSH's compaction threshold (or no limit known). `compacts`: at or over it, so DSH
 * compacts this path before the next step. `overflows`: over the context window with no automatic
 * compaction loaded, so the provider refuses the next request as it stands.
 */
export type ContextVerdict = 'fits' | 'compacts' | 'overflows'

export interface ContextFit {
  /** What DSH's meter prices the next request at (its pressure), before the next prompt. */
  readonly tokens: number
  /** The routed model's context window, when its adapter advertises one. */
  readonly contextWindow?: number
  /** The tokens at which DSH's automatic compaction acts, when it is loaded for this session. */
  readonly threshold?: number
  readonly verdict: ContextVerdict
}

/** The slice of `ctx.tokenMeter` read here. */
interface Meter {
  measure(session: unknown): { readonly totalTokens: number }
}

/**
 * The fit of `session`'s model history, or undefined when DSH has no meter to price it with.
 * `settings`: the compaction of the agent's preset (`null`: none loaded; undefined: not known).
 */
export function contextFit(
  ctx: HostContext,
  session: LiveSession,
  settings: CompactionSettings | null | undefined,
): ContextFit | undefined {
  const meter = hostService<Partial<Meter>>(ctx, 'tokenMeter')
  if (typeof meter?.measure !== 'function') return undefined
  let tokens: number
  try {
    tokens = meter.measure(session).totalTokens
  } catch {
    return undefined
  }
  if (!Number.isFinite(tokens)) return undefined
  const route = requestRoute(session)
  const contextWindow = route?.contextWindow
  const ratio = contextWindow === undefined ? undefined : thresholdRatio(settings, route!)
  const threshold = ratio === undefined ? undefined : Math.floor(contextWindow! * ratio)
  // Over the window, an unknown compaction cannot be promised: say only what is certain.
  const verdict: ContextVerdict =
    threshold !== undefined && tokens >= threshold
      ? 'compacts'
      : (settings === null || settings?.auto === false) && contextWindow !== undefined && tokens >= contextWindow
        ? 'overflows'
        : 'fits'
  return {
    tokens,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(threshold !== undefined ? { threshold } : {}),
    verdict,
  }
}

/** The ratio `dsh-compaction-basic` resolves for the route (an exact provider/model policy over the default). */
function thresholdRatio(settings: CompactionSettings | null | undefined, route: RequestRoute) {
  if (!settings?.auto) return undefined
  const exact = settings.modelPolicies.find((p) => p.provider === route.provider && p.model === route.model)
  return exact?.thresholdRatio ?? settings.thresholdRatio
}
