/**
 * Carry another branch's file changes here, for `/tree carry` and the model's
 * `tree` tool: the service's `carryPreview` and `carry`, told in a few lines.
 * The model's carry keeps every conflict as it is (as its restores keep the
 * user's edits); a person answers them with `--take mine|theirs|markers`.
 */
import { ok } from '../tree/errors.ts'
import type { SessionTreeService } from '../service/service.ts'
import { CarryMoves } from '../service/carry.ts'
import type { CarryDecision, CarryPreview } from '../service/carry-wire.ts'
import type { SummaryChoice } from '../service/wire.ts'
import type { LiveAgent } from '../harness/live.ts'
import type { ActionResult } from './actions.ts'
import { resolveCompareTarget } from './compare-text.ts'

export interface CarryOptions {
  /** The answer for every conflict (the model: `mine`). */
  readonly take?: CarryDecision
  /** Only show what would happen. */
  readonly dryRun?: boolean
  /** The model's call, inside its running step. */
  readonly callId?: string
  /** That branch's summary too (`/tree carry … --summary`). */
  readonly summary?: SummaryChoice
}

const ACTION_WORDS = { take: 'take theirs', merge: 'merge (clean)', conflict: 'conflict', kept: 'kept' } as const

/** A preview in lines: one per file, what happens and why. */
export function describeCarryPreview(preview: CarryPreview): string {
  const lines = [
    `Carry from ${preview.from}${preview.branch ? ` (branch ${preview.branch})` : ''} into ${preview.at ?? 'the start'}: the paths parted at ${preview.common ?? 'the start'}.`,
  ]
  for (const entry of preview.entries) {
    const why =
      entry.action === 'conflict'
        ? ` — ${entry.reason === 'text' ? `${entry.hunks} overlapping region(s)` : entry.reason}`
        : entry.action === 'take' || entry.action === 'merge'
          ? ` (+${entry.insertions} −${entry.deletions})`
          : ''
    lines.push(`  ${ACTION_WORDS[entry.action]}: ${entry.path}${why}`)
  }
  for (const blocked of preview.blocked) lines.push(`  not carried: ${blocked.path} (${blocked.reason})`)
  if (preview.entries.length === 0 && preview.blocked.length === 0)
    lines.push('  Neither branch changed a tracked file since then: nothing to carry.')
  return lines.join('\n')
}

export async function runCarry(
  service: SessionTreeService,
  agent: LiveAgent,
  from: string,
  options: CarryOptions = {},
): Promise<ActionResult> {
  const tree = service.treeOf(agent.session.id)
  if (!tree.ok) return tree
  // Labels, ids and branch names as `compare` resolves them; anything else goes as typed (the service says why).
  const target = resolveCompareTarget(tree.value.tree, from) ?? from
  if (options.dryRun) {
    const preview = await service.carryPreviewOf(agent.session.id, { from: target })
    if (!preview.ok) return preview
    return ok({
      text: describeCarryPreview(preview.value),
      value: { from: preview.value.from, common: preview.value.common, stat: { ...preview.value.stat } },
    })
  }
  const carried = await service.carryFor(
    agent.session.id,
    {
      from: target,
      ...(options.take ? { conflicts: [{ path: '*', decision: options.take }] } : {}),
      ...(options.summary ? { summary: options.summary } : {}),
    },
    options.callId,
  )
  if (!carried.ok) {
    if (carried.error.code === 'INVALID_ARGUMENT' && options.take === 'markers')
      return {
        ok: false,
        error: { ...carried.error, message: `${carried.error.message} (/tree carry … --take mine or theirs)` },
      }
    return carried
  }
  const r = carried.value
  return ok({
    text: CarryMoves.describe(r),
    value: {
      from: r.from,
      common: r.common,
      taken: [...r.taken],
      merged: [...r.merged],
      marked: [...r.marked],
      kept: [...r.files.kept],
      ...(r.summary ? { summary: r.summary.summary } : {}),
    },
  })
}
