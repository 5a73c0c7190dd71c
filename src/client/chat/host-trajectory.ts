/**
 * DSH web's Trajectory, told to leave out the plugin's in-step restatement
 * of context after a move the model made (`in-step-copies.ts`), and to key
 * apart the tool rows of a log that repeats a call id (`call-aliases.ts`).
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
 * For a repeated call id, the view nodes the answer and tool Definitions
 * build (`buildViewNode`) are wrapped too: only the call id of a repeating
 * answer's tool-call block and of its call's row change, to the same alias,
 * so each row has a key of its own and sits under the answer that issued it.
 *
 * Fail closed: a Definition of another shape is left alone, the wrapper
 * never throws one of its own (the host's answer then stands), and disposing
 * puts the host's match back.
 */
import type { DefinitionEntries } from './host-tools.ts'
import { InStepCopies } from './in-step-copies.ts'
import { CallAliases } from './call-aliases.ts'

/** The Trajectory's Definitions that would list a copy as the model's (prompts, answers, tool rows, compaction checkpoints). */
export const TRAJECTORY_KINDS: ReadonlySet<string> = new Set([
  'trajectory-input-message',
  'trajectory-assistant-step',
  'trajectory-tool-call',
  'trajectory-compaction',
])

type Match = (event: unknown) => unknown
type Build = (context: unknown) => unknown
interface MatchHolder {
  kind: string
  target?: unknown
  match: Match
  buildViewNode?: Build
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

function isTrajectoryDefinition(value: unknown): value is MatchHolder {
  return isRecord(value) && typeof value.kind === 'string' && TRAJECTORY_KINDS.has(value.kind) && value.target === 'trajectory' && typeof value.match === 'function'
}

/**
 * Wrap the Trajectory's Definitions now and whenever the registry changes
 * (they may register after this plugin). Returns the disposer.
 */
export function hideInStepCopies(registry: DefinitionEntries, copies = new InStepCopies(), aliases = new CallAliases()): () => void {
  const wrapped = new Map<MatchHolder, { original: Match; wrapper: Match; build?: { original: Build; wrapper: Build } }>()
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
          aliases.observe(event)
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
      wrapped.set(entry, { original, wrapper, ...wrapBuild(entry, aliases) })
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
    for (const [entry, { original, wrapper, build }] of wrapped) {
      if (entry.match === wrapper) entry.match = original
      if (build && entry.buildViewNode === build.wrapper) entry.buildViewNode = build.original
    }
    wrapped.clear()
  }
}

/** Replace the call id of tool-call blocks that `aliases` renames (the same array when none is). */
function aliasedBlocks(blocks: unknown, renamed: ReadonlyMap<string, string>): unknown {
  if (!Array.isArray(blocks) || renamed.size === 0) return blocks
  let changed = false
  const next = blocks.map((block) => {
    const alias = isRecord(block) && block.kind === 'tool-call' && typeof block.callId === 'string' ? renamed.get(block.callId) : undefined
    if (alias === undefined) return block
    changed = true
    return { ...block, callId: alias }
  })
  return changed ? next : blocks
}

/** An answer's node with its repeating calls aliased: its final message is the match at the node's seq. */
function aliasAnswer(node: unknown, context: unknown, aliases: CallAliases): unknown {
  if (!isRecord(node) || !isRecord(node.data) || !isRecord(node.data.node) || !isRecord(context) || !Array.isArray(context.matches)) return node
  const answer = node.data.node
  const final = context.matches.find((match) => isRecord(match) && isRecord(match.event) && match.event.seq === answer.seq && match.event.type === 'assistant/message')
  const blocks = aliasedBlocks(answer.blocks, aliases.answerAliases(isRecord(final) ? final.event : undefined))
  return blocks === answer.blocks ? node : { ...node, data: { ...node.data, node: { ...answer, blocks } } }
}

/** A tool row's node keyed by its call's alias (the root call; nested calls keep theirs). */
function aliasCall(node: unknown, context: unknown, aliases: CallAliases): unknown {
  if (!isRecord(node) || !isRecord(node.data) || !isRecord(node.data.root) || !isRecord(context) || !isRecord(context.start)) return node
  const event = context.start.event
  const alias = aliases.callAlias(event)
  const root = node.data.root
  if (alias === undefined || !isRecord(event) || !isRecord(event.data) || root.callId !== String(event.data.callId)) return node
  return { ...node, data: { ...node.data, root: { ...root, callId: alias } } }
}

/** Wrap the view node builder of the answer and tool Definitions (the rows that carry call ids). */
function wrapBuild(entry: MatchHolder, aliases: CallAliases): { build?: { original: Build; wrapper: Build } } {
  const original = entry.buildViewNode
  const alias = entry.kind === 'trajectory-assistant-step' ? aliasAnswer : entry.kind === 'trajectory-tool-call' ? aliasCall : undefined
  if (typeof original !== 'function' || alias === undefined) return {}
  const wrapper: Build = function (this: unknown, context) {
    const node = original.call(this, context)
    try {
      return alias(node, context, aliases)
    } catch {
      return node
    }
  }
  try {
    entry.buildViewNode = wrapper
  } catch {
    return {}
  }
  return entry.buildViewNode === wrapper ? { build: { original, wrapper } } : {}
}
