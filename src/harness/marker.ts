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
  return marker.branch === undefined
    ? { v: 1, op: 'switch', id: marker.id, target: marker.target }
    : { v: 1, op: 'switch', id: marker.id, target: marker.target, branch: marker.branch }
}
