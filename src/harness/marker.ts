/**
 * The switch marker: a plugin-sourced user message queued to wake an idle
 * agent for one maintenance turn. It is claimed by our `agent/pre-step`
 * listener and never reaches the model, but its insertion stays in the
 * harness log (`agent/inbox/spliced`), so the log alone tells which turn was
 * a history switch and where it was going.
 */
import { isRecord } from '../tree/validate.ts'

/** Package name: the `source.plugin` of markers and re-sourced copies. */
export const PLUGIN_ID = 'dsh-session-tree'
/** Prefix of marker message ids (human-recognisable in raw logs). */
export const MARKER_ID_PREFIX = `${PLUGIN_ID}:switch:`
/** Prefix of the call ids a switch gives the tool exchanges it copies (no provider makes them). */
export const FRESH_CALL_ID_PREFIX = 'call_dst_'
/**
 * Prefix of the message ids of what a model's move restates inside its running step (the copies
 * and the restated in-flight answer): a reader of the log tells them from what the model said by
 * the event alone (DSH web's Trajectory leaves them out). Message ids are not sent to the provider.
 */
export const RESTATED_ID_PREFIX = `${PLUGIN_ID}:restated:`

/** What one switch was asked to do. */
export interface SwitchMarker {
  readonly v: 1
  readonly op: 'switch'
  /** Unique id of this switch request. */
  readonly id: string
  /** Tree node the model history must end at (`null`: the empty history). */
  readonly target: string | null
  /** Branch created by the move (forks), so a log-only rebuild can name it. */
  readonly branch?: string
  /**
   * The branch active once the move was made (what the tree said then; a
   * branch may later grow, be renamed or summarized). For people reading the
   * log (DSH's Chat names it on the switch row); never used to rebuild.
   */
  readonly lane?: string
  /**
   * Seq of the first event of the history this switch leaves (the first
   * message of the old history that the new one does not hold), when it
   * leaves any: DSH's Chat hides the rows from there on as soon as the
   * marker arrives, before the maintenance turn has run.
   */
  readonly leaves?: number
}

/** A minimal user message shape (the harness `UserMessage`). */
export interface MarkerMessage {
  readonly id: string
  readonly role: 'user'
  readonly content: { readonly type: 'text'; readonly text: string }[]
  readonly source: { readonly kind: 'plugin'; readonly plugin: string }
}

export function markerMessage(marker: SwitchMarker): MarkerMessage {
  return {
    id: `${MARKER_ID_PREFIX}${marker.id}`,
    role: 'user',
    content: [{ type: 'text', text: JSON.stringify({ [PLUGIN_ID]: marker }) }],
    source: { kind: 'plugin', plugin: PLUGIN_ID },
  }
}

/** Read a marker back from any message-like value; undefined when it is not ours or malformed. */
export function markerOf(message: unknown): SwitchMarker | undefined {
  if (!isRecord(message) || typeof message.id !== 'string' || !message.id.startsWith(MARKER_ID_PREFIX)) return undefined
  const source = message.source
  if (!isRecord(source) || source.kind !== 'plugin' || source.plugin !== PLUGIN_ID) return undefined
  const block = Array.isArray(message.content) ? message.content[0] : undefined
  if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(block.text)
  } catch {
    return undefined
  }
  const marker = isRecord(parsed) ? parsed[PLUGIN_ID] : undefined
  if (!isRecord(marker) || marker.v !== 1 || marker.op !== 'switch' || typeof marker.id !== 'string') return undefined
  if (!(marker.target === null || typeof marker.target === 'string')) return undefined
  if (marker.branch !== undefined && typeof marker.branch !== 'string') return undefined
  // Notes for readers: a malformed one is dropped, the switch stands.
  const lane = typeof marker.lane === 'string' ? marker.lane : undefined
  const leaves =
    typeof marker.leaves === 'number' && Number.isSafeInteger(marker.leaves) && marker.leaves >= 0
      ? marker.leaves
      : undefined
  return {
    v: 1,
    op: 'switch',
    id: marker.id,
    target: marker.target,
    ...(marker.branch === undefined ? {} : { branch: marker.branch }),
    ...(lane === undefined ? {} : { lane }),
    ...(leaves === undefined ? {} : { leaves }),
  }
}
