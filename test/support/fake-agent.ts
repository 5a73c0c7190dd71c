/**
 * A stand-in for a harness `Agent` over a REAL detached `Session`: it queues
 * messages, runs a turn that claims them and asks the `agent/pre-step`
 * listener for a decision, exactly in the order the real loop does (insert
 * splice, turn/start, claim splice, pre-step, turn/end). The real loop is
 * exercised by the end-to-end tests against the `dsh` CLI; this one lets unit
 * tests drive switches deterministically.
 */
import type { UserMessage } from '@deepseek-ai/dsh-session'
import type { LiveAgent, PreStepDecision, PreStepPayload } from '../../src/harness/live.ts'
import type { LogBuilder } from './log-builder.ts'

type Listener = (payload: PreStepPayload, next: () => Promise<PreStepDecision>) => Promise<PreStepDecision>

export class FakeAgent implements LiveAgent {
  readonly id: string
  status: 'idle' | 'running' = 'idle'
  private readonly queue: { id: string }[] = []
  private readonly steps: { id: string }[] = []
  private idle: Promise<void> = Promise.resolve()
  /** Decisions the loop received, in order. */
  readonly decisions: PreStepDecision[] = []
  /** Set to queue a user prompt while the next maintenance turn runs (the race the switcher handles). */
  raceFollowup:
    { id: string; role: 'user'; content: { type: 'text'; text: string }[]; source: { kind: 'user' } } | undefined

  readonly log: LogBuilder
  private readonly listener: Listener
  private readonly sync: () => void

  constructor(log: LogBuilder, listener: Listener, sync: () => void) {
    this.log = log
    this.listener = listener
    this.sync = sync
    this.id = log.session.id
  }

  /** Append an event type this package does not declare (agent inbox records). */
  appendRaw(type: string, data: unknown): void {
    ;(this.log.session.append as (type: string, data: unknown) => unknown)(type, data)
  }

  get session() {
    return this.log.session as never
  }

  get inbox() {
    const agent = this
    return {
      get nextTurn() {
        return agent.queue
      },
      get nextStep() {
        return agent.steps
      },
      get hasPending() {
        return agent.queue.length + agent.steps.length > 0
      },
      prepend(target: 'next-turn' | 'next-step', message: unknown) {
        ;(target === 'next-turn' ? agent.queue : agent.steps).unshift(message as { id: string })
      },
      remove(id: string) {
        const i = agent.queue.findIndex((m) => m.id === id)
        if (i >= 0) {
          agent.queue.splice(i, 1)
          agent.appendRaw('agent/inbox/spliced', {
            target: 'next-turn',
            start: i,
            removedCount: 1,
            inserted: [],
            outcome: 'canceled',
          })
        }
      },
    }
  }

  send(message: unknown, target: 'next-turn' | 'next-step', wakeup: boolean): void {
    const list = target === 'next-turn' ? this.queue : this.steps
    this.appendRaw('agent/inbox/spliced', { target, start: list.length, inserted: [message] })
    list.push(message as { id: string })
    if (wakeup && this.status === 'idle') this.idle = this.runTurn()
  }

  followup(message: unknown): void {
    // A real prompt would run a model turn; tests only need it queued durably.
    this.send(message, 'next-turn', false)
  }

  whenIdle(): Promise<void> {
    return this.idle
  }

  private async runTurn(): Promise<void> {
    this.status = 'running'
    await Promise.resolve()
    const s = this.log.session
    const turn = this.log.nextTurn()
    s.append('turn/start', { turn })
    const claimed = this.queue.splice(0, 1)
    this.appendRaw('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] })
    if (this.raceFollowup) {
      this.followup(this.raceFollowup)
      this.raceFollowup = undefined
    }
    this.sync()
    const decision = await this.listener({ agent: this, messages: claimed, turn, step: 1 }, async () => ({
      kind: 'enter',
      messages: claimed as unknown as UserMessage[],
    }))
    this.decisions.push(decision)
    s.append('turn/end', { turn, reason: decision.kind === 'reject' ? { kind: 'blocked' } : { kind: 'completed' } })
    this.sync()
    this.status = 'idle'
  }
}
