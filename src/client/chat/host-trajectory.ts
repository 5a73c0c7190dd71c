/**
 * DSH web's Trajectory, told to leave out the plugin's in-step restatement
 * of context after a move the model made (`in-step-copies.ts`).
 *
 * The Trajectory (`dsh-client-ui-trajectory` 0.1.0-rc.8) builds its rows from
 * its own registered Definitions; the host's transcript engine calls
 * `definition.match(event)` on every event, and a `null` answer makes a
 * Definition ignore that event. The match of the Trajectory's message,
 * answer, tool and compaction Definitions (the objects the registry hands
 * out in `entries()`) is wrapped, as `host-tools.ts` does for the tool
 * Definitions: it keeps the host's answer, except `null` for an event the
 * classifier names. The step of a model's move then lists the model's own
 * answer (the move call, with its usage) and that call's tool row under it;
 * the next step its next answer; nothing lands in the prologue. The Chat is
 * not touched (its switch row says what the move restated).
 *
 * Fail closed: a Definition of another shape is left alone, the wrapper
 * never throws one of its own (the host's answer then stands), and disposing
 * puts the host's match back.
 */
import type { DefinitionEntries } from './host-tools.ts'
import { InStepCopies } from './in-step-copies.ts'

/** The Trajectory's Definitions that would list a copy as the model's (prompts, answers, tool rows, compaction checkpoints). */
export const TRAJECTORY_KINDS: ReadonlySet<string> = new Set([
  'trajectory-input-message',
  'trajectory-assistant-step',
  'trajectory-tool-call',
  'trajectory-compaction',
])

type Match = (event: unknown) => unknown
interface MatchHolder {
  kind: string
  target?: unknown
  match: Match
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

function isTrajectoryDefinition(value: unknown): value is MatchHolder {
  return isRecord(value) && typeof value.kind === 'string' && TRAJECTORY_KINDS.has(value.kind) && value.target === 'trajectory' && typeof value.match === 'function'
}

/**
 * Wrap the Trajectory's Definitions now and whenever the registry changes
 * (they may register after this plugin). Returns the disposer.
 */
export function hideInStepCopies(registry: DefinitionEntries, copies = new InStepCopies()): () => void {
  const wrapped = new Map<MatchHolder, { original: Match; wrapper: Match }>()
  const patch = (): void => {
    let entries: readonly unknown[]
    try {
      entries = registry.entries()
    } catch {
      return
    }
    for (const entry of entries) {
      if (!isTrajectoryDefinition(entry) || wrapped.has(entry)) continue
      const original = entry.match
      const wrapper: Match = function (this: unknown, event) {
        // The host's answer first: a wrapper below this one (the tool re-keying) keeps its bookkeeping.
        const answer = original.call(this, event)
        // Every event is read (once: verdicts are kept), so a run is followed across all its events.
        let copy = false
        try {
          copy = copies.isCopy(event)
        } catch {
          copy = false
        }
        return copy && answer !== null && answer !== undefined ? null : answer
      }
      try {
        entry.match = wrapper
      } catch {
        continue // a frozen Definition stays the host's own
      }
      if (entry.match !== wrapper) continue
      wrapped.set(entry, { original, wrapper })
    }
  }
  patch()
  let unsubscribe: (() => void) | undefined
  try {
    unsubscribe = registry.subscribe?.(patch)
  } catch {
    unsubscribe = undefined
  }
  return () => {
    unsubscribe?.()
    for (const [entry, { original, wrapper }] of wrapped) if (entry.match === wrapper) entry.match = original
    wrapped.clear()
  }
}
