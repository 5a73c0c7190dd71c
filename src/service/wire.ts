/**
 * Result shapes of the `sessionTree` remote methods beyond the tree's own
 * views. Every field added to seed 001's contract is optional or lives in
 * a separate method, so older clients keep working.
 */
import type { ForkView, JumpView, SessionTreeSessionInfo, SessionTreeView } from '../tree/types.ts'
import type { GcResult, SessionLineageView } from './lineage-wire.ts'
import type { LogWarning } from '../harness/warnings.ts'

export type { LogWarning, LogWarningCode } from '../harness/warnings.ts'

/** How cursor moves reach the history the model receives. */
export type SurfaceMode = 'native' | 'stock' | 'projection'

/** A harness event the projector could not read; kept, never fatal. */
export interface QuarantinedEvent {
  readonly seq: number
  readonly type: string
  readonly reason: string
}

/** A problem found while loading the sidecar (the tree was rebuilt from the log). */
export interface SidecarWarning {
  readonly code: string
  readonly message: string
}

/** `session` result: the tree's status plus how it is wired to the harness. */
export interface SessionStatus extends SessionTreeSessionInfo {
  /** The surface mode in effect for this session. */
  readonly surfaceMode?: SurfaceMode
  /** Plain-language statement of what a jump does in this mode. */
  readonly surfaceNote?: string
  /** Highest harness event seq projected into the tree. */
  readonly watermark?: number
  /**
   * Changes whenever the tree changes (any node, label, cursor or branch
   * move): a panel polls `session` and fetches `list` only when this moved.
   */
  readonly revision?: string
  readonly quarantine?: readonly QuarantinedEvent[]
  readonly sidecarWarnings?: readonly SidecarWarning[]
  /** Problems of the harness log that DSH's own front ends trip over (say, repeated call ids break the Chat). */
  readonly logWarnings?: readonly LogWarning[]
  /** A model-history switch waiting for the agent to become idle. */
  readonly pendingSwitch?: { readonly target: string | null; readonly branch: string }
  /** Usage hosted by empty assistant messages (no node of their own). */
  readonly hostedUsage?: Readonly<Record<string, number>>
  /** The session it was forked from and the sessions forked from it (`lineage.ts`). */
  readonly lineage?: SessionLineageView
  /** The last scan for sidecars whose session is gone (absent before the first scan, or without a sidecar root). */
  readonly orphanSidecars?: GcResult
}

/** `list` result: the whole tree, plus the session's lineage. */
export interface SessionTreeListing extends SessionTreeView {
  readonly lineage?: SessionLineageView
}

/** Result of a cursor move (`jump`, `back`, `forward`, and `fork`'s move). */
export interface MoveResult extends JumpView {
  /** The surface mode that handled the move. */
  readonly mode: SurfaceMode
  /** The node asked for, when it sat inside a tool exchange and the move went to the exchange's end. */
  readonly snappedFrom?: string
  /** What the model-history switch did (stock mode). */
  readonly switch?: {
    readonly appendedEvents: number
    readonly copies: number
    readonly shadowed: number
    readonly noop: boolean
  }
  /**
   * Set when the move happened but is not fully durable: the harness log holds
   * it (the model history follows it, also after a restart), but `SIDECAR_IO`:
   * the sidecar could not record what only it keeps (the back/forward step, an
   * in-step fork's branch name); `INTERNAL`: the harness could not flush its log.
   */
  readonly notDurable?: {
    readonly code: 'SIDECAR_IO' | 'INTERNAL'
    readonly message: string
  }
}

/**
 * Result of `fork`: the fork's own facts plus the move onto the new branch
 * (a named interface rather than `ForkView & MoveResult`, so the generated
 * remote client gets one object schema). `cursor` and `branch` are always set.
 */
export interface ForkResult extends ForkView, MoveResult {
  readonly cursor: string
  readonly branch: string
}

/** A cursor move, as a value (what the model tools ask the service for). */
export type TreeMove =
  | { readonly kind: 'jump'; readonly nodeId: string | null }
  | { readonly kind: 'fork'; readonly nodeId: string; readonly branch: string }
  | { readonly kind: 'back' }
  | { readonly kind: 'forward' }
