/**
 * DSH's own tool Definitions (`tool-call`, `trajectory-tool-call`), keyed so a
 * repeated call id never throws: their `match` is wrapped
 * (`host-definitions.ts`) and only a repeating call's id changes
 * (`call-keys.ts`). Fail closed. Why: docs/chat.md, "Logs that repeat a call
 * id", and docs/known-limits.md.
 */
import { CallKeys } from './call-keys.ts'
import { wrapHostDefinitions, type DefinitionEntries } from './host-definitions.ts'
import { isRecord } from '../../tree/validate.ts'

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
