/**
 * DSH web's Trajectory, told to leave out the in-step restatement after a
 * model's move (`in-step-copies.ts`: the wrapped `match` answers `null` for
 * it) and to key apart the tool rows of a repeated call id (`call-aliases.ts`,
 * through a wrapped `buildViewNode`). The Chat is not touched. Fail closed.
 * Why: docs/known-limits.md, "Model moves and DSH web's Trajectory".
 */
import { wrapHostDefinitions, type DefinitionEntries } from './host-definitions.ts'
import { InStepCopies } from './in-step-copies.ts'
import { CallAliases } from './call-aliases.ts'
import { isRecord } from '../../tree/validate.ts'

/** The Trajectory's Definitions that would list a copy as the model's (prompts, answers, tool rows, compaction checkpoints). */
export const TRAJECTORY_KINDS: ReadonlySet<string> = new Set([
  'trajectory-input-message',
  'trajectory-assistant-step',
  'trajectory-tool-call',
  'trajectory-compaction',
])

/**
 * Wrap the Trajectory's Definitions now and whenever the registry changes
 * (they may register after this plugin). Returns the disposer.
 */
export function hideInStepCopies(
  registry: DefinitionEntries,
  copies = new InStepCopies(),
  aliases = new CallAliases(),
): () => void {
  return wrapHostDefinitions(registry, {
    select: (definition) => TRAJECTORY_KINDS.has(definition.kind) && definition.target === 'trajectory',
    // The host's answer first (a wrapper below this one, the tool re-keying, keeps its bookkeeping); every event
    // is read (once: verdicts are kept), so a run is followed across all its events.
    match: () => (answer, event) => {
      const copy = copies.isCopy(event)
      aliases.observe(event)
      return copy && answer !== null && answer !== undefined ? null : answer
    },
    buildViewNode: (definition) => {
      const alias =
        definition.kind === 'trajectory-assistant-step'
          ? aliasAnswer
          : definition.kind === 'trajectory-tool-call'
            ? aliasCall
            : undefined
      return alias === undefined ? undefined : (node, context) => alias(node, context, aliases)
    },
  })
}

/** Replace the call id of tool-call blocks that `aliases` renames (the same array when none is). */
function aliasedBlocks(blocks: unknown, renamed: ReadonlyMap<string, string>): unknown {
  if (!Array.isArray(blocks) || renamed.size === 0) return blocks
  let changed = false
  const next = blocks.map((block) => {
    const alias =
      isRecord(block) && block.kind === 'tool-call' && typeof block.callId === 'string'
        ? renamed.get(block.callId)
        : undefined
    if (alias === undefined) return block
    changed = true
    return { ...block, callId: alias }
  })
  return changed ? next : blocks
}

/** `node.data[key]` as `edit` rewrites it (the same node where that is no record or `edit` returns it unchanged). */
function editData(
  node: unknown,
  key: 'node' | 'root',
  edit: (inner: Record<string, unknown>) => Record<string, unknown>,
): unknown {
  if (!isRecord(node) || !isRecord(node.data) || !isRecord(node.data[key])) return node
  const inner = node.data[key]
  const next = edit(inner)
  return next === inner ? node : { ...node, data: { ...node.data, [key]: next } }
}

/** An answer's node with its repeating calls aliased: its final message is the match at the node's seq. */
function aliasAnswer(node: unknown, context: unknown, aliases: CallAliases): unknown {
  if (!isRecord(context) || !Array.isArray(context.matches)) return node
  const matches: unknown[] = context.matches
  return editData(node, 'node', (answer) => {
    const final = matches.find(
      (match) =>
        isRecord(match) &&
        isRecord(match.event) &&
        match.event.seq === answer.seq &&
        match.event.type === 'assistant/message',
    )
    const blocks = aliasedBlocks(answer.blocks, aliases.answerAliases(isRecord(final) ? final.event : undefined))
    return blocks === answer.blocks ? answer : { ...answer, blocks }
  })
}

/** A tool row's node keyed by its call's alias (the root call; nested calls keep theirs). */
function aliasCall(node: unknown, context: unknown, aliases: CallAliases): unknown {
  if (!isRecord(context) || !isRecord(context.start)) return node
  const event = context.start.event
  return editData(node, 'root', (root) => {
    const alias = aliases.callAlias(event)
    if (alias === undefined || !isRecord(event) || !isRecord(event.data) || root.callId !== String(event.data.callId))
      return root
    return { ...root, callId: alias }
  })
}
