/**
 * DSH's own tool Definitions, keyed so that a repeated call id never throws.
 *
 * DSH web 0.1.0-rc.8 keys a tool card by its bare call id in the Chat
 * (`tool-call`, `dsh-client-ui-conversation`) and in the Trajectory
 * (`trajectory-tool-call`, `dsh-client-ui-trajectory`), and its transcript
 * engine throws on a second start of one key (`dsh-client-runtime`
 * `acceptMatch`). A log that repeats a call id (copies written by earlier
 * versions of this plugin, a provider reusing an id) therefore failed to load
 * at all. Nothing in the registry lets a plugin filter another plugin's
 * Definition, so the match of those two Definitions (the objects the
 * registry hands out in `entries()`, which the engine calls on every event)
 * is wrapped (`host-definitions.ts`): it keeps the host's answer and only
 * changes the id of a call that repeats an id (`call-keys.ts`). A log with
 * unique ids is keyed exactly as before.
 *
 * Fail closed: a Definition of another shape is left alone, the wrapper
 * never throws one of its own, and disposing puts the host's match back.
 */
import { CallKeys } from './call-keys.ts'
import { wrapHostDefinitions, type DefinitionEntries } from './host-definitions.ts'
import { isRecord } from '../../tree/validate.ts'

export type { DefinitionEntries } from './host-definitions.ts'

/** The host Definitions re-keyed here. */
export const HOST_TOOL_KINDS: ReadonlySet<string> = new Set(['tool-call', 'trajectory-tool-call'])

/** The host's answer with a repeat-proof id (the answer itself when it is not a tool event's). */
export function rekeyed(keys: CallKeys, event: unknown, answer: unknown): unknown {
  if (!isRecord(answer) || typeof answer.id !== 'string' || !isRecord(event) || typeof event.seq !== 'number')
    return answer
  if (answer.role === 'start')
    return event.type === 'tool/call' ? { ...answer, id: keys.call(answer.id, event.seq) } : answer
  return { ...answer, id: keys.follower(answer.id, event.seq) }
}

/** The kinds currently re-keyed (read by the Tree tab's report of such a log). */
const active = new Set<string>()

/** Whether DSH's Chat is re-keyed in this page (a log that repeats a call id then loads). */
export const chatToolsRekeyed = (): boolean => active.has('tool-call')

/**
 * Wrap the match of DSH's tool Definitions now and whenever the registry
 * changes (the host's own may register after this plugin). Returns the
 * disposer.
 */
export function rekeyHostTools(registry: DefinitionEntries, keys = new CallKeys()): () => void {
  return wrapHostDefinitions(registry, {
    select: (definition) => HOST_TOOL_KINDS.has(definition.kind),
    match: () => (answer, event) => rekeyed(keys, event, answer),
    changed: (definition, wrapped) => {
      if (wrapped) active.add(definition.kind)
      else active.delete(definition.kind)
    },
  })
}
