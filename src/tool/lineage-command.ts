/**
 * `/tree new-session <node>` and `/tree gc [--dry-run]`: the service's
 * `openAsNewSession` and `gc`, told in a few lines.
 */
import type { SessionTreeService } from '../service/service.ts'
import type { GcResult } from '../service/lineage-wire.ts'
import type { LiveAgent } from '../harness/live.ts'
import { resolveNode } from './render.ts'
import { errorMessage } from '../tree/errors.ts'

type Result = { readonly kind: 'success'; readonly text?: string } | { readonly kind: 'error'; readonly text: string }

function errorText(error: unknown): string {
  const failure = (error as { failure?: { code?: string; message?: string } }).failure
  if (failure) return `${failure.code ?? 'INTERNAL'}: ${failure.message ?? ''}`
  return `INTERNAL: ${errorMessage(error)}`
}

export async function runNewSessionCommand(
  service: SessionTreeService,
  agent: LiveAgent,
  node: string,
): Promise<Result> {
  const tree = service.treeOf(agent.session.id)
  if (!tree.ok) return { kind: 'error', text: `${tree.error.code}: ${tree.error.message}` }
  const nodeId = resolveNode(tree.value.tree, node)
  if (nodeId === undefined)
    return { kind: 'error', text: `NODE_NOT_FOUND: no node or label ${JSON.stringify(node)} (see /tree)` }
  try {
    const made = await service.openAsNewSession(agent.session.id, nodeId)
    const lines = [
      `Opened “${made.title}” (${made.sessionId}): a new session whose history is the ${made.messages} message(s) up to ${made.nodeId}${made.snappedFrom ? ` (the end of the tool exchange at ${made.snappedFrom})` : ''}.`,
      made.adopted ? 'It is in the sidebar; open it there to continue.' : 'It loads when it is opened.',
      ...(made.notDurable ? [`Not saved: ${made.notDurable.message}`] : []),
    ]
    return { kind: 'success', text: lines.join('\n') }
  } catch (error) {
    return { kind: 'error', text: errorText(error) }
  }
}

/** The lines of a scan (also what `/tree gc` prints). */
export function describeGc(result: GcResult): string[] {
  const lines: string[] = []
  for (const removed of result.removed)
    lines.push(`removed: the tree of ${removed.sessionId} (its session is gone; orphan since ${removed.since})`)
  for (const orphan of result.orphans)
    lines.push(
      `${result.dryRun ? 'would remove' : 'kept'}: the tree of ${orphan.sessionId} (its session is gone since ${orphan.since})`,
    )
  for (const problem of result.problems) lines.push(`left alone: ${problem.dir}: ${problem.message}`)
  if (lines.length === 0) lines.push('Every tree belongs to a session: nothing to remove.')
  return lines
}

export async function runGcCommand(service: SessionTreeService, dryRun: boolean): Promise<Result> {
  try {
    return { kind: 'success', text: describeGc(await service.gc(dryRun)).join('\n') }
  } catch (error) {
    return { kind: 'error', text: errorText(error) }
  }
}
