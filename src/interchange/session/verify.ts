/**
 * The checks that the session an import stages opens as the tree it built. `checkReadBack` (every import) reads
 * the sidecar back the way opening does: the sidecar on disk is what can differ at run time. `checkRebuild` (after
 * it, `DSH_SESSION_TREE_IMPORT_CHECK=rebuild`, set for the test suite) replays everything and compares the trees
 * node by node, at a second tree's cost. Why that split: docs/interchange.md, "Why reading the sidecar back is
 * enough".
 */
import { isDeepStrictEqual } from 'node:util'
import { checkOverlay } from '../../harness/overlay.ts'
import { TreeSync } from '../../harness/sync.ts'
import { TreeSidecar } from '../../sidecar/index.ts'
import type { SessionTree } from '../../tree/session-tree.ts'
import { SessionTreeStore } from '../../tree/store.ts'
import type { TreeNode } from '../../tree/types.ts'
import type { BuiltSession } from './built.ts'

export type ImportCheck = 'read-back' | 'rebuild'

/** The check an import runs unless told: the environment can ask for the full rebuild (the test suite does). */
export function defaultImportCheck(env: NodeJS.ProcessEnv = process.env): ImportCheck {
  return env.DSH_SESSION_TREE_IMPORT_CHECK === 'rebuild' ? 'rebuild' : 'read-back'
}

/** Where the staged sidecar does not open as written (undefined when it does). */
export function checkReadBack(built: BuiltSession, stagingRoot: string): string | undefined {
  const load = new TreeSidecar(stagingRoot).load(built.sessionId)
  const problem = load.problems[0]
  if (problem !== undefined) return `${problem.message} (${problem.file})`
  if (load.fold === undefined) return 'the sidecar holds no overlay'
  if (load.records.length > 0) return `the sidecar holds ${load.records.length} journal record(s) besides the overlay`
  if (load.fold.w !== Math.max(0, built.watermark))
    return `the overlay is at event ${load.fold.w} instead of ${built.watermark}`
  const checked = checkOverlay(load.fold.state)
  if (!checked.ok) return `the overlay would be ignored: ${checked.error.message}`
  return isDeepStrictEqual(checked.value, built.overlay)
    ? undefined
    : 'the overlay read back differs from the one written'
}

/** Where the tree the plugin rebuilds from the events and the staged sidecar differs from the one built. */
export function checkRebuild(built: BuiltSession, stagingRoot: string): string | undefined {
  const sync = new TreeSync(new SessionTreeStore(), new TreeSidecar(stagingRoot))
  const state = sync.attach({ id: built.sessionId, events: built.events })
  const problems = [
    ...state.warnings.map((w) => w.message),
    ...state.projector.quarantine.map((q) => `event ${q.seq}: ${q.reason}`),
  ]
  const difference = problems[0] ?? treeDifference(built.tree, state.projector.tree)
  sync.detach(built.sessionId)
  return difference
}

/** The node fields a rebuild must reproduce: what the Tree tab and the model read. */
function nodeFields(node: TreeNode): unknown[] {
  return [
    node.nodeId,
    node.parentId,
    node.type,
    node.summary,
    node.label,
    node.model,
    node.provider,
    node.createdAt,
    node.message?.role,
    node.message?.content,
    node.replaces ?? [],
  ]
}

function treeDifference(expected: SessionTree, actual: SessionTree): string | undefined {
  if (actual.nodeCount !== expected.nodeCount) return `${actual.nodeCount} nodes instead of ${expected.nodeCount}`
  if (actual.cursor !== expected.cursor) return `cursor ${String(actual.cursor)} instead of ${String(expected.cursor)}`
  if (!isDeepStrictEqual(actual.branchHeadList(), expected.branchHeadList())) return 'different branches'
  if (actual.activeBranch !== expected.activeBranch)
    return `branch ${actual.activeBranch} instead of ${expected.activeBranch}`
  if (!isDeepStrictEqual(actual.summaries(), expected.summaries())) return 'different branch summaries'
  const want = expected.list()
  const got = actual.list()
  for (let i = 0; i < want.length; i++) {
    if (!isDeepStrictEqual(nodeFields(got[i]!), nodeFields(want[i]!)))
      return `node ${got[i]!.nodeId} (the ${i + 1}th) differs from the one built`
  }
  return undefined
}
