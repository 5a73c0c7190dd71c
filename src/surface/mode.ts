/**
 * Which surface mode a session runs in: `native` (the harness has the API of
 * `dev/session-branch-surface.patch`), `stock` (an unpatched harness with a
 * live agent: a maintenance turn, `stock.ts`) or `projection` (forced, or no
 * agent: the tree moves alone). docs/model-history.md, the table.
 */
/** How cursor moves reach the history the model receives. */
export type SurfaceMode = 'native' | 'stock' | 'projection'

export type SurfaceModeSetting = 'auto' | SurfaceMode

/** The API the native patch adds to `Session`. */
export interface NativeSurfaceSession {
  selectMessageSurface(seqs: readonly number[] | null): void
  messageSurfaceNodes(): readonly number[]
}

export function hasNativeSurface(session: unknown): session is NativeSurfaceSession {
  const s = session as Partial<NativeSurfaceSession> | null
  return typeof s?.selectMessageSurface === 'function' && typeof s.messageSurfaceNodes === 'function'
}

/** Resolve the mode for one session. */
export function surfaceModeOf(setting: SurfaceModeSetting, session: unknown, hasAgent: boolean): SurfaceMode {
  if (setting === 'projection') return 'projection'
  // `native` and `auto` both take the patched surface when the harness has it, and fall back alike.
  if (setting !== 'stock' && hasNativeSurface(session)) return 'native'
  return hasAgent ? 'stock' : 'projection'
}

/** What a jump does in each mode, in plain words (shown by `session` and `/tree`). */
export const SURFACE_NOTES: Record<SurfaceMode, string> = {
  native:
    'Jumps select the model history directly (patched harness); the next request holds exactly the selected path.',
  stock:
    'Jumps rewrite the model history with official harness events (one maintenance turn, no model call); the next request holds exactly the selected path, also after a restart.',
  projection: 'Jumps move the tree and the panel only; the model keeps its current history.',
}
