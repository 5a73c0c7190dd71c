/**
 * Problems of a harness log the tree reads but DSH's front ends cannot. Today
 * one: a `tool/call` repeating an earlier call id, on which DSH web's Chat and
 * Trajectory throw ("… received more than one start Match") unless
 * `client/chat/host-tools.ts` re-keys them. Written by id-reusing providers
 * and by imports that branch between a call and its result.
 */

/** What is wrong with the log: tool calls repeat an earlier call id (the provider reused it, or an import answered a call on two branches). */
export type LogWarningCode = 'REPEATED_CALL_IDS'

/** One problem of the log, for `session` and the panel. */
export interface LogWarning {
  readonly code: LogWarningCode
  /** What is wrong, in plain language. */
  readonly message: string
  /** What the user can do about it. */
  readonly remedy: string
  /** How many `tool/call` events repeat an earlier id. */
  readonly count: number
  /** Seq of the first repeating `tool/call` (where DSH's own Chat stops, without the re-keying). */
  readonly firstSeq: number
  /** The call id it repeats. */
  readonly callId: string
}

const REMEDY =
  'Nothing, in dsh web with this plugin installed: its browser half keys the repeated calls apart, so the Chat and the ' +
  'Trajectory load the session. Without the plugin, "Branch into a new conversation" on the last answer the Chat shows starts a ' +
  'conversation whose Chat loads.'

/** Call ids seen in `tool/call` events, and the repeats among them. O(1) per call. */
export class CallIdLedger {
  private readonly seen = new Set<string>()
  private repeats: { count: number; firstSeq: number; callId: string } | undefined

  /** Note one `tool/call`. */
  record(callId: string, seq: number): void {
    if (!this.seen.has(callId)) {
      this.seen.add(callId)
      return
    }
    if (this.repeats) this.repeats.count++
    else this.repeats = { count: 1, firstSeq: seq, callId }
  }

  warnings(): LogWarning[] {
    if (!this.repeats) return []
    const { count, firstSeq, callId } = this.repeats
    return [
      {
        code: 'REPEATED_CALL_IDS',
        message: `${count} tool calls in this session's log repeat an earlier call id (the first at event ${firstSeq}, "${callId}"): the provider reused it, or an import answered on one branch a call that another branch answers too. DSH web's own tool views key calls by id and throw on a repeat ("Failed to load history … more than one start Match"); this plugin re-keys them in the page. The model's history and the tree are not affected.`,
        remedy: REMEDY,
        count,
        firstSeq,
        callId,
      },
    ]
  }
}

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
