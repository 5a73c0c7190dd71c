/**
 * A session log event as the plugin reads and writes it: the host's `SessionEvent` (dsh-session) with `data` left
 * open, since plugin events carry their own. One shape for the service's Chat reads, the browser's Chat and
 * Trajectory, the terminal's switch rows and the imports' log writer.
 */

/** How a surface event entered the model's history: appended, or replacing the surface rows `start`..`end`. */
export type SurfaceOp = 'append' | { readonly op: 'replace'; readonly start: number; readonly end: number }

/** What a surface event says of itself: how it entered, and the earlier events it copies or replaces. */
export interface SurfaceIntent {
  readonly surfaceOp: SurfaceOp
  /** The originals a copy cites; absent on new history. */
  readonly sourceEventSeqs?: readonly number[]
}

/** One event of the log. */
export interface LogEvent extends Partial<SurfaceIntent> {
  readonly type: string
  readonly seq: number
  readonly time: number
  readonly data?: unknown
}
