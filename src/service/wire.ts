/**
 * Result shapes of the `sessionTree` remote methods beyond the tree's own
 * views. Every field added to seed 001's contract is optional or lives in
 * a separate method, so older clients keep working.
 */
import type {
  BranchSummary,
  ForkView,
  JumpPlace,
  JumpView,
  SessionTreeSessionInfo,
  SessionTreeView,
} from '../tree/types.ts'
import type { LogWarning, QuarantinedEvent, SidecarWarning } from '../harness/warnings.ts'
import type { SurfaceMode } from '../surface/mode.ts'
import type { GcResult, SessionLineageView } from './lineage-wire.ts'
import type { ContextFit } from './context-fit.ts'
import type { WireMove } from './tree-move.ts'

/** How a caller asks for a summary of the part a move leaves (`none` by default). */
export type SummaryChoice =
  | { readonly kind: 'none' }
  | { readonly kind: 'summarize'; readonly carry?: boolean }
  | { readonly kind: 'custom'; readonly instructions: string; readonly carry?: boolean }

// Owned by the lowest layer that uses them; part of the wire vocabulary too.
export type { LogWarning, LogWarningCode, QuarantinedEvent, SidecarWarning } from '../harness/warnings.ts'
export type { SurfaceMode } from '../surface/mode.ts'
export type { ContextFit, ContextVerdict } from './context-fit.ts'
/** Who a change is journaled for (in-process callers: `SessionTreeService.actingAs`). */
export type { JournalActor } from '../sidecar/index.ts'
/** The process that writes a session's tree (`readOnly` of `session`, details of `SIDECAR_CLAIMED`). */
export type { WriterHolder } from '../sidecar/index.ts'
import type { WriterHolder } from '../sidecar/index.ts'

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
  readonly revision: string
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
  /**
   * Another process writes this session's tree (`dsh web` and dsh-TUI on one
   * session): here it is read-only, and every change fails with this code and
   * message until that process closes the session or exits.
   */
  readonly readOnly?: { readonly code: 'SIDECAR_CLAIMED'; readonly message: string; readonly holder: WriterHolder }
  /**
   * The selected path against DSH's limits, priced by its token meter (a live session with a meter
   * only): `compacts` when DSH's automatic compaction will compact it before the next step.
   */
  readonly contextFit?: ContextFit
}

/** `list` result: the whole tree, plus the session's lineage. */
export interface SessionTreeListing extends SessionTreeView {
  readonly lineage?: SessionLineageView
}

/** What a move did, besides the history it selected (`MoveResult` adds that; `moveBrief` answers without it). */
export interface MoveOutcome {
  /** The surface mode that handled the move. */
  readonly mode: SurfaceMode
  /** The node asked for, when it sat inside a tool exchange and the move went to the exchange's end. */
  readonly snappedFrom?: string
  /**
   * The summary of the part this move left, when one was asked for (`summary`
   * option of `jump`/`fork`): who wrote it, its token usage, and, when it was
   * carried, the node that holds it on the new path (`carriedNodeId`, the cursor).
   * Absent when the move left nothing to summarize.
   */
  readonly summary?: BranchSummary
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

/** Result of a cursor move (`jump`, `back`, `forward`, and `fork`'s move). */
export interface MoveResult extends JumpView, MoveOutcome {}

/**
 * `moveBrief`'s answer: where the move went and what it did, without the model's history (`messages`), which
 * the Tree tab does not show and which is megabytes on a long session.
 */
export interface MoveBrief extends JumpPlace, MoveOutcome {}

/** `moveBrief`'s argument: one move as a value (`tree-move.ts`), with the summary of what it leaves. */
export interface WireMoveRequest extends WireMove {
  readonly summary?: SummaryChoice
}

/** Options of `jump` and `fork`. */
export interface TreeMoveOptions {
  /**
   * Summarize the part the move leaves (none by default): `summarize` (the
   * session's model writes it), `custom` (with the user's own instructions);
   * `carry: true` appends it to the new path, where the model reads it.
   */
  readonly summary?: SummaryChoice
}

/** Options of `summarize`. */
export interface SummarizeOptions {
  /** `model` (default when the session has a model) or `extractive` (local, no model call). */
  readonly writer?: 'model' | 'extractive'
  /** The user's own instructions for the model. */
  readonly instructions?: string
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

// The move itself, as a value: `tree-move.ts`.
export type { TreeMove } from './tree-move.ts'

/** `watch`'s argument: per session, the `revision` the caller last read (`''`: none yet). */
export interface WatchRequest {
  readonly sessions: readonly { readonly agentId: string; readonly revision: string }[]
}

/** The sessions whose revision is not the one asked with (empty: cancelled, or the plugin stopped). */
export interface WatchAnswer {
  readonly changed: readonly { readonly agentId: string; readonly revision: string }[]
}
