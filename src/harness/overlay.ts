/**
 * The overlay: tree state the harness log cannot hold, in the folded form the
 * sidecar compacts its journal into. It is small — labels, branch pointers,
 * cursor, history, summaries and the few nodes that exist only in the tree —
 * so a compaction writes bytes proportional to what the user did, never to
 * the size of the conversation.
 */
import type { SessionTree } from '../tree/session-tree.ts'
import type { JsonObject, TreeEntry, TreeMarks } from '../tree/types.ts'
import { checkEntry } from '../tree/entry.ts'
import type { TreeResult } from '../tree/errors.ts'
import {
  checkBranchName,
  checkLabel,
  checkNodeId,
  checkPosition,
  Invalid,
  isRecord,
  recordOf,
  validated,
} from '../tree/validate.ts'
import { checkSummary } from '../tree/summary-check.ts'
import { SESSION_ORIGIN } from './surface-mirror.ts'

/** 2: the marks under `TreeMarks`' names (1 had `heads`, `active`, `selected`; never released, not read). */
export const OVERLAY_VERSION = 2

/** Folded overlay of one session at a harness watermark: the tree's marks and its tree-only nodes. */
export interface OverlayState extends TreeMarks {
  readonly version: typeof OVERLAY_VERSION
  /** Nodes that exist only in the tree, with the watermark they were created at, in creation order. */
  readonly treeOnly: readonly { readonly w: number; readonly entry: TreeEntry }[]
  /** [harness node id, tree-only parent id]: harness nodes that were placed under a tree-only node. */
  readonly adoptions: readonly (readonly [string, string])[]
}

/** Whether a node came from the harness log (and can be rebuilt from it). */
export function isHarnessNode(entry: TreeEntry | undefined): boolean {
  return entry?.origin?.source === SESSION_ORIGIN
}

/** Fold the live tree's overlay. `treeOnlyW` knows each tree-only node's creation watermark. */
export function foldOverlay(tree: SessionTree, treeOnlyW: ReadonlyMap<string, number>): OverlayState {
  const treeOnly: { w: number; entry: TreeEntry }[] = []
  const adoptions: [string, string][] = []
  for (const [nodeId, w] of treeOnlyW) {
    const entry = tree.entry(nodeId)
    if (!entry) continue
    // Labels live in `labels`; the entry is stored as created.
    const { label: _label, ...bare } = entry
    treeOnly.push({ w, entry: bare })
    for (const child of tree.children(nodeId)) {
      if (isHarnessNode(tree.entry(child))) adoptions.push([child, nodeId])
    }
  }
  return { version: OVERLAY_VERSION, ...tree.marks(), treeOnly, adoptions }
}

/** A folded overlay read from disk, validated and copied; INVALID_ARGUMENT with the reason when it is not one. */
export function checkOverlay(value: JsonObject | unknown): TreeResult<OverlayState> {
  return validated(() => decodeOverlay(value))
}

/** The overlay's checks, throwing the tree's `Invalid` (as the tree checks it composes do): run inside `validated`. */
function decodeOverlay(value: JsonObject | unknown): OverlayState {
  if (!isRecord(value)) throw new Invalid('overlay must be an object')
  if (value.version !== OVERLAY_VERSION)
    throw new Invalid(`overlay version ${JSON.stringify(value.version)} is not ${OVERLAY_VERSION}`)
  if (!isRecord(value.labels)) throw new Invalid('overlay.labels must be an object')
  const labels = recordOf(
    Object.entries(value.labels).map(
      ([id, label]) => [checkNodeId(id, 'overlay.labels key'), checkLabel(label, `overlay.labels.${id}`)] as const,
    ),
  )
  const pairs = (list: unknown, where: string, check: (a: unknown, b: unknown) => [string, string]) => {
    if (!Array.isArray(list)) throw new Invalid(`${where} must be an array`)
    return list.map((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2) throw new Invalid(`${where}[${i}] must be a pair`)
      return check(pair[0], pair[1])
    })
  }
  const branches = pairs(value.branches, 'overlay.branches', (name, id) => [
    checkBranchName(name, 'overlay branch'),
    checkNodeId(id, 'overlay head'),
  ])
  const adoptions = pairs(value.adoptions, 'overlay.adoptions', (a, b) => [
    checkNodeId(a, 'overlay adoption'),
    checkNodeId(b, 'overlay adopter'),
  ])
  if (!Array.isArray(value.summaries)) throw new Invalid('overlay.summaries must be an array')
  const history = value.history
  if (!isRecord(history) || !Array.isArray(history.back) || !Array.isArray(history.forward))
    throw new Invalid('overlay.history must be { back, forward }')
  if (!Array.isArray(value.treeOnly)) throw new Invalid('overlay.treeOnly must be an array')
  return {
    version: OVERLAY_VERSION,
    labels,
    branches,
    activeBranch: checkBranchName(value.activeBranch, 'overlay.activeBranch'),
    cursor: value.cursor === null ? null : checkNodeId(value.cursor, 'overlay.cursor'),
    selectedNodeId: value.selectedNodeId === null ? null : checkNodeId(value.selectedNodeId, 'overlay.selectedNodeId'),
    summaries: value.summaries.map((s, i) => checkSummary(s, `overlay.summaries[${i}]`)),
    history: {
      back: history.back.map((p, i) => checkPosition(p, `overlay.history.back[${i}]`)),
      forward: history.forward.map((p, i) => checkPosition(p, `overlay.history.forward[${i}]`)),
    },
    treeOnly: value.treeOnly.map((item, i) => {
      if (!isRecord(item) || typeof item.w !== 'number' || !Number.isSafeInteger(item.w))
        throw new Invalid(`overlay.treeOnly[${i}] must be { w, entry }`)
      return { w: item.w, entry: checkEntry(item.entry, `overlay.treeOnly[${i}].entry`) }
    }),
    adoptions,
  }
}
