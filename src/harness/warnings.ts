/**
 * Problems of a harness log that the tree can read but DSH's own front ends
 * cannot. Today one kind: a `tool/call` that repeats an earlier call id.
 * DSH web's Chat keys every tool card by its bare call id across the whole
 * loaded session and stops loading the history at the second one ("Failed to
 * load history: … received more than one start Match"); the model's history
 * and the tree are not affected. Stock switches of dsh-session-tree before
 * fresh call ids wrote such logs (a copy kept its original's id); a provider
 * that reuses ids does too.
 */

/** What repeats, and who wrote it. */
export type LogWarningCode =
  /** Copies made by a stock switch of an earlier dsh-session-tree version repeat their originals' call ids. */
  | 'COPIED_CALL_IDS'
  /** Tool calls the model made repeat an earlier call id (the provider reused it). */
  | 'REPEATED_CALL_IDS'

/** One problem of the log, for `session` and the panel. */
export interface LogWarning {
  readonly code: LogWarningCode
  /** What is wrong, in plain language. */
  readonly message: string
  /** What the user can do about it. */
  readonly remedy: string
  /** How many `tool/call` events repeat an earlier id. */
  readonly count: number
  /** Seq of the first repeating `tool/call`; the Chat shows nothing from there on. */
  readonly firstSeq: number
  /** The call id it repeats. */
  readonly callId: string
}

const REMEDY = 'Keep using this session from the Tree tab (the model still sees the selected path), or press '
  + '"Branch into a new conversation" on the last answer the Chat shows: the new conversation starts from there and its Chat loads. '
  + 'Nothing appended later can repair this session\'s Chat: the log is append-only and the Chat reads it from the end.'

/** Copies made by an earlier version: an export and an import rebuild the log with fresh ids for every copy. */
const COPIES_REMEDY = 'Keep using this session from the Tree tab (the model still sees the selected path); or bring the whole tree '
  + 'into a new session whose Chat loads: export it to Pi and import that file (`npx dsh-session-tree export pi <session-id> /tmp/tree.jsonl`, '
  + 'then `/tree import /tmp/tree.jsonl` in any session); or press "Branch into a new conversation" on the last answer the Chat shows. '
  + 'Nothing appended later can repair this session\'s Chat: the log is append-only and DSH\'s Chat offers plugins no way around a repeated call id.'

/** Call ids seen in `tool/call` events, and the repeats among them. O(1) per call. */
export class CallIdLedger {
  private readonly seen = new Set<string>()
  private readonly repeats = new Map<LogWarningCode, { count: number; firstSeq: number; callId: string }>()

  /** Note one `tool/call`; `copy`: it is a stock switch's copy. */
  record(callId: string, seq: number, copy: boolean): void {
    if (!this.seen.has(callId)) {
      this.seen.add(callId)
      return
    }
    const code: LogWarningCode = copy ? 'COPIED_CALL_IDS' : 'REPEATED_CALL_IDS'
    const found = this.repeats.get(code)
    if (found) found.count++
    else this.repeats.set(code, { count: 1, firstSeq: seq, callId })
  }

  warnings(): LogWarning[] {
    return [...this.repeats].map(([code, { count, firstSeq, callId }]) => ({
      code,
      message: code === 'COPIED_CALL_IDS'
        ? `${count} tool call copies in this session's log repeat their original's call id (the first at event ${firstSeq}, "${callId}"), written by a stock switch of an earlier dsh-session-tree version. DSH web's Chat cannot load this session's history from there on ("Failed to load history … more than one start Match"); the model's history and the tree are not affected.`
        : `${count} tool calls in this session's log repeat an earlier call id (the first at event ${firstSeq}, "${callId}"); the provider reused it. DSH web's Chat cannot load this session's history from there on ("Failed to load history … more than one start Match"); the model's history and the tree are not affected.`,
      remedy: code === 'COPIED_CALL_IDS' ? COPIES_REMEDY : REMEDY,
      count,
      firstSeq,
      callId,
    }))
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
