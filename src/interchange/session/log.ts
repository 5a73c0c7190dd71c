/**
 * A harness session log under construction, every event projected at once
 * (the projector is the oracle: what it builds is what `dsh web` shows). Keeps
 * the harness's invariants (checked on resume, needed by the token meter):
 * messages and tool exchanges only inside an open step, a result right after
 * its call, turns numbered and closed, only inbox splices outside a turn.
 */
import type { LogEvent, SurfaceIntent } from '../../harness/log-event.ts'
import type { SessionProjector } from '../../harness/projector.ts'

export class LogBuilder {
  readonly events: LogEvent[] = []
  private readonly projector: SessionProjector
  private turn = 0
  private step = 0
  private openTurn = false
  private openStep = false
  /** The open step already holds a model response (the next one needs a new step). */
  private stepAnswered = false
  private time = 0

  constructor(projector: SessionProjector, startTime: number) {
    this.projector = projector
    this.time = startTime
  }

  get seq(): number {
    return this.events.length
  }

  eventAt(seq: number): LogEvent | undefined {
    return this.events[seq]
  }

  /** Time stamped on the next events (source times when known). */
  at(time: number): void {
    if (Number.isSafeInteger(time) && time > 0) this.time = time
  }

  append(type: string, data: unknown, intent?: SurfaceIntent): LogEvent {
    const event: LogEvent = intent
      ? { type, seq: this.events.length, time: this.time, data, ...intent }
      : { type, seq: this.events.length, time: this.time, data }
    this.events.push(event)
    this.projector.project(event)
    return event
  }

  /** Start a new turn (closing the open one): a typed prompt begins a turn. */
  newTurn(): void {
    this.endTurn()
    this.turn++
    this.step = 0
    this.append('turn/start', { turn: this.turn })
    this.openTurn = true
  }

  /** Make sure a step is open; `fresh` closes a step that already has a model response (or anything, when 'always'). */
  ensureStep(fresh: 'never' | 'ifAnswered' | 'always' = 'never'): { turn: number; step: number } {
    if (!this.openTurn) this.newTurn()
    if (this.openStep && (fresh === 'always' || (fresh === 'ifAnswered' && this.stepAnswered))) this.endStep()
    if (!this.openStep) {
      this.step++
      this.append('step/start', { turn: this.turn, step: this.step })
      this.openStep = true
      this.stepAnswered = false
    }
    return { turn: this.turn, step: this.step }
  }

  markAnswered(): void {
    this.stepAnswered = true
  }

  endStep(): void {
    if (!this.openStep) return
    this.append('step/end', { turn: this.turn, step: this.step })
    this.openStep = false
    this.stepAnswered = false
  }

  endTurn(reason: { kind: string } = { kind: 'completed' }): void {
    this.endStep()
    if (!this.openTurn) return
    this.append('turn/end', { turn: this.turn, reason })
    this.openTurn = false
  }
}
