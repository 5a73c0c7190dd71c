/**
 * What building a DSH session from an imported tree yields (`build.ts`), and
 * the ids and sources the build writes.
 */
import { PLUGIN_ID } from '../../harness/marker.ts'
import type { OverlayState } from '../../harness/overlay.ts'
import type { SessionTree } from '../../tree/session-tree.ts'
import type { LogEvent } from '../../harness/log-event.ts'
import type { ProvenanceEntry } from './provenance.ts'
import type { SessionTitleData } from './title.ts'

/** Source of injected context the import writes (`form: 'recall'`: material lifted out of another session's log). */
export const IMPORT_SOURCE = { kind: 'plugin', plugin: PLUGIN_ID, form: 'recall' } as const
/** Prefix of tree-only node ids (never clashes with the projector's `e<seq>`). */
const TREE_ONLY_PREFIX = 'i:'

export interface BuiltSession {
  readonly sessionId: string
  readonly events: readonly LogEvent[]
  /** The sidecar overlay that restores tree-only nodes, labels, branches and the cursor. */
  readonly overlay: OverlayState
  /** Watermark of the overlay (the last event seq). */
  readonly watermark: number
  /** The tree built beside the log (its cursor: where the next prompt continues): what opening the session must give (`verify.ts`). */
  readonly tree: SessionTree
  /** Each DSH node made from a source node (the provenance's node table). */
  readonly entries: readonly ProvenanceEntry[]
  readonly notes: readonly string[]
  /** The session's `session/title` event (`title.ts`), when it has a name or a prompt; the log ends with it unless `titleInLog` is false. */
  readonly title?: SessionTitleData
}

export interface BuildOptions {
  readonly sessionId: string
  /** Time for events whose source time is unknown (ms). */
  readonly now: number
  /** False: leave the title event out of the log (the caller appends it to the live session). */
  readonly titleInLog?: boolean
}

/** DSH node id of a tree-only node made from source node `id`. */
export function treeOnlyId(id: string): string {
  const full = TREE_ONLY_PREFIX + id
  return full.length <= 200 ? full : `${full.slice(0, 150)}~${id.length}`
}
