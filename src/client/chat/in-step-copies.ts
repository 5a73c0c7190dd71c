/**
 * Which events of a session log are the plugin's restatement of context for
 * a move the MODEL made inside its running step. Pure (no DOM, no host).
 *
 * A model's `tree` jump / back / forward / fork in stock
 * mode switches the history inside the step that issued the call (see
 * docs/tools.md "When a move takes effect"): while the tool runs, the plugin
 * appends copies of the selected path (a replacement stand-in, appends citing
 * one original each, tool exchanges with fresh call ids) and then restates
 * the in-flight answer (the move call last); the loop then appends the move's
 * result and ends the step. All of it lies in the step's turn and step, in
 * one run of seqs between the move's `tool/call` and its `tool/result`.
 *
 * DSH web's Trajectory lists one answer per step and the copies as if the
 * model had said them (the answers fold into one row, the copied prompts are
 * listed, a copied result lands in the prologue). This classifier names the
 * events of such a run, so the Trajectory can leave them out: the step then
 * reads as what the model did (its move call, that call's result), and the
 * Chat's switch row already says what the move restated.
 *
 * A user's move is a maintenance turn of its own (no model call opens it), so
 * its copies are never named here: the Trajectory lists them in their own
 * steps, as before.
 *
 * The plugin marks what it writes for such a move (message ids with
 * `RESTATED_ID_PREFIX`; a copied call is named by its copied answer's
 * tool-call block), so each event is named by what it says, on any page of
 * history in any order. Logs written before that mark are read by the run:
 * fed every event in the order the host's transcript engine dispatches them
 * (by seq; an older page comes later, in seq order), a run starts right after
 * a model's move call, and every event of it follows the previous one within
 * `RUN_GAP` seqs (events carry no session: a run is followed by its seqs).
 * In such a log, when a page of history starts inside a run, the run's
 * events before the move call is loaded are not named (the host's listing).
 * A verdict, once given for an event object, is given again (the engine
 * re-dispatches the same objects when its registry changes, and a Definition
 * must never withdraw a row it built).
 */
import { FRESH_CALL_ID_PREFIX, RESTATED_ID_PREFIX } from '../../harness/marker.ts'
import { isMoveCall } from '../../service/chat-switches.ts'

/** The most seqs between two events of one run (events the page never receives, such as progress). */
export const RUN_GAP = 8
/** The most runs followed at once (a run whose end never arrives is dropped first). */
const MAX_OPEN = 32

/** An event as far as it is read here (the host's session events). */
export interface LogEvent {
  readonly type?: unknown
  readonly seq?: unknown
  readonly data?: unknown
  readonly surfaceOp?: unknown
  readonly sourceEventSeqs?: unknown
}

/** One model move whose in-step copies are being named. */
interface Run {
  readonly callId: string
  readonly turn: number
  readonly step: number
  /** The call ids of the answer that issued the move (real calls of the step, never copies). */
  readonly own: ReadonlySet<string>
  /** The seq of the run's latest event. */
  last: number
}

/** The last answer of a step that was not a copy (the one whose calls are the step's own). */
interface Answer {
  readonly turn: number
  readonly step: number
  readonly calls: readonly string[]
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null
const isInt = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value)

/** The call ids of an assistant message's `tool-call` blocks. */
function callIds(message: unknown): string[] {
  const content = isRecord(message) ? message.content : undefined
  if (!Array.isArray(content)) return []
  return content.flatMap((block) =>
    isRecord(block) && block.type === 'tool-call' && typeof block.id === 'string' ? [block.id] : [],
  )
}

/** A copy's shape: a replacement (a stand-in or an empty tombstone), or an append citing exactly one original. */
function copyShaped(event: LogEvent): boolean {
  if (isRecord(event.surfaceOp) && event.surfaceOp.op === 'replace') return true
  return event.surfaceOp === 'append' && Array.isArray(event.sourceEventSeqs) && event.sourceEventSeqs.length === 1
}

/** Whether the event's message carries the plugin's mark of an in-step restatement. */
function marked(type: string, data: Record<string, unknown>): boolean {
  const message =
    type === 'user/message' ? data : type === 'assistant/message' || type === 'tool/result' ? data.message : undefined
  return isRecord(message) && typeof message.id === 'string' && message.id.startsWith(RESTATED_ID_PREFIX)
}

function resultCallId(data: Record<string, unknown>): string | undefined {
  const message = isRecord(data.message) ? data.message : undefined
  const source = isRecord(message?.source) ? message.source : undefined
  return typeof source?.callId === 'string' ? source.callId : undefined
}

export class InStepCopies {
  readonly #verdicts = new WeakMap<object, boolean>()
  readonly #runs: Run[] = []
  /** The calls of marked answer copies (fresh ids, unique): their `tool/call` copies are named too. */
  readonly #markedCalls = new Set<string>()
  #answer: Answer | undefined

  /** Whether `event` belongs to the plugin's restatement inside a model's move step. Total: never throws. */
  isCopy(event: unknown): boolean {
    if (!isRecord(event)) return false
    const known = this.#verdicts.get(event)
    if (known !== undefined) return known
    let verdict = false
    try {
      verdict = this.#classify(event as LogEvent)
    } catch {
      verdict = false
    }
    this.#verdicts.set(event, verdict)
    return verdict
  }

  /** How many runs are being followed (for tests). */
  get openRuns(): number {
    return this.#runs.length
  }

  #classify(event: LogEvent): boolean {
    const { type, seq } = event
    if (typeof type !== 'string' || !isInt(seq)) return false
    const data = isRecord(event.data) ? event.data : {}
    const run = this.#runFor(seq)
    const verdict = this.#marked(type, data) || (run !== undefined && this.#inRun(run, type, data, event))
    if (run !== undefined) {
      run.last = seq
      if (this.#ends(run, type, data, verdict)) this.#drop(run)
    }
    if (!verdict) this.#observe(type, seq, data)
    return verdict
  }

  /** Named by the plugin's mark: a marked message, or the copy of a call a marked answer issued. */
  #marked(type: string, data: Record<string, unknown>): boolean {
    if (marked(type, data)) {
      // Only copied calls (fresh ids): the restated answer also carries the live move call, whose row stays.
      if (type === 'assistant/message')
        for (const id of callIds(data.message)) if (id.startsWith(FRESH_CALL_ID_PREFIX)) this.#markedCalls.add(id)
      return true
    }
    return type === 'tool/call' && typeof data.callId === 'string' && this.#markedCalls.has(data.callId)
  }

  /** The open run this seq continues (the latest one, when runs of several pages are open). */
  #runFor(seq: number): Run | undefined {
    for (let i = this.#runs.length - 1; i >= 0; i--) {
      const run = this.#runs[i]!
      if (seq > run.last && seq <= run.last + RUN_GAP) return run
    }
    return undefined
  }

  /** Whether an event that continues `run` is one of its copies. */
  #inRun(run: Run, type: string, data: Record<string, unknown>, event: LogEvent): boolean {
    const here = data.turn === run.turn && data.step === run.step
    switch (type) {
      case 'user/message':
        // A prompt carries no turn: its place in the run says where it is.
        return copyShaped(event)
      case 'assistant/message': {
        if (!here) return false
        // The restated in-flight answer carries the live move call (its result follows it).
        return copyShaped(event) || callIds(data.message).includes(run.callId)
      }
      case 'tool/call':
        return here && typeof data.callId === 'string' && !run.own.has(data.callId)
      case 'tool/result': {
        const callId = resultCallId(data)
        return here && callId !== undefined && !run.own.has(callId)
      }
      default:
        return false
    }
  }

  /** Whether the event closes the run: the move's result, or its step or turn ending. */
  #ends(run: Run, type: string, data: Record<string, unknown>, verdict: boolean): boolean {
    if (type === 'tool/result') return !verdict && resultCallId(data) === run.callId
    if (type === 'step/end' || type === 'step/start') return true
    return type === 'turn/end' || type === 'turn/start'
  }

  #drop(run: Run): void {
    const at = this.#runs.indexOf(run)
    if (at !== -1) this.#runs.splice(at, 1)
  }

  /** Follow what is not a copy: the step's answer, and a model's move call (which opens a run). */
  #observe(type: string, seq: number, data: Record<string, unknown>): void {
    if (type === 'assistant/message' && isInt(data.turn) && isInt(data.step)) {
      this.#answer = { turn: data.turn, step: data.step, calls: callIds(data.message) }
      return
    }
    if (type !== 'tool/call' || typeof data.callId !== 'string' || !isMoveCall(data.name, data.arguments)) return
    // A copied move call (a switch restating an earlier move) has a fresh id: it moves nothing now.
    if (data.callId.startsWith(FRESH_CALL_ID_PREFIX) || !isInt(data.turn) || !isInt(data.step)) return
    const answer = this.#answer
    const issued =
      answer !== undefined &&
      answer.turn === data.turn &&
      answer.step === data.step &&
      answer.calls.includes(data.callId)
    this.#runs.push({
      callId: data.callId,
      turn: data.turn,
      step: data.step,
      own: new Set(issued ? answer.calls : [data.callId]),
      last: seq,
    })
    if (this.#runs.length > MAX_OPEN) this.#runs.shift()
  }
}
