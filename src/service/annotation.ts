/**
 * What the panel and the tools add to a tree without moving it: node labels
 * and branch summaries (written by the session's model, the extractive digest,
 * or given as text). Sidecar only; SIDECAR_IO when it cannot be saved.
 */
import { fail, type TreeResult } from '../tree/errors.ts'
import type { BranchSummary, TreeNode } from '../tree/types.ts'
import type { TreeSync } from '../harness/sync.ts'
import type { JournalActor } from '../sidecar/index.ts'
import { draftSummary } from './summarizer.ts'
import { branchPart, writeSummary } from './branch-summary.ts'
import { MAX_SUMMARY_INSTRUCTIONS } from '../tree/summary-rules.ts'
import { routeOf, type SummaryMoveDeps } from './summary-move.ts'
import type { SessionResolver } from './resolve.ts'
import type { SummarizeOptions } from './wire.ts'

/** Record a drafted summary in one synchronous step; SIDECAR_IO (and nothing recorded) when it cannot be saved. */
export function recordSummary(
  sync: TreeSync,
  sessionId: string,
  summary: BranchSummary,
  actor: JournalActor,
): TreeResult<BranchSummary> {
  return sync.mutate(sessionId, { kind: 'summary', summary }, actor)
}

export interface AnnotationDeps {
  readonly resolver: SessionResolver
  readonly sync: TreeSync
  readonly summary: Omit<SummaryMoveDeps, 'record'>
}

/** The annotation calls; each runs on the session's queue (the service puts it there). */
export class Annotation {
  private readonly deps: AnnotationDeps

  constructor(deps: AnnotationDeps) {
    this.deps = deps
  }

  label(agentId: string, nodeId: string, label: string | null, actor: JournalActor): TreeResult<TreeNode> {
    const found = this.deps.resolver.loaded(agentId)
    if (!found.ok) return found
    return this.deps.sync.mutate(found.value.session.id, { kind: 'label', nodeId, label }, actor)
  }

  async summarize(
    agentId: string,
    branch: string,
    options: SummarizeOptions,
    actor: JournalActor,
  ): Promise<TreeResult<BranchSummary>> {
    const found = this.deps.resolver.loaded(agentId)
    if (!found.ok) return found
    if (typeof options !== 'object' || options === null) return fail('INVALID_ARGUMENT', 'options must be an object')
    const writerKind = options?.writer ?? 'model'
    if (writerKind !== 'model' && writerKind !== 'extractive')
      return fail('INVALID_ARGUMENT', 'options.writer must be "model" or "extractive"')
    const instructions = options?.instructions
    if (
      instructions !== undefined &&
      (typeof instructions !== 'string' || instructions.length > MAX_SUMMARY_INSTRUCTIONS)
    ) {
      return fail(
        'INVALID_ARGUMENT',
        `options.instructions must be a string of at most ${MAX_SUMMARY_INSTRUCTIONS} characters`,
      )
    }
    if (writerKind === 'extractive') {
      const drafted = await draftSummary(found.value.state.projector.tree, branch)
      if (!drafted.ok) return drafted
      return recordSummary(this.deps.sync, found.value.session.id, drafted.value, actor)
    }
    const part = branchPart(found.value.state.projector.tree, branch)
    if (!part.ok) return part
    const written = await writeSummary(
      part.value,
      {
        llm: this.deps.summary.llm(),
        route: routeOf(found.value),
        sessionId: found.value.session.id,
        timeoutMs: this.deps.summary.timeoutMs,
      },
      instructions?.trim() || undefined,
    )
    return recordSummary(this.deps.sync, found.value.session.id, written, actor)
  }

  /** A branch summary someone wrote (the model's `tree` summarize with a text). */
  setBranchSummary(
    agentId: string,
    branch: string,
    text: string,
    actor: JournalActor,
    model?: string,
  ): TreeResult<BranchSummary> {
    const found = this.deps.resolver.loaded(agentId)
    if (!found.ok) return found
    return this.deps.sync.mutate(
      found.value.session.id,
      { kind: 'summary-text', branch, text, ...(model === undefined ? {} : { model }) },
      actor,
    )
  }
}
