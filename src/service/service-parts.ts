/**
 * The pieces `ctx.sessionTree` is made of, built once per plugin instance:
 * the stock switcher, the session resolver, and the area modules its remote
 * methods delegate to (reads, movement, annotation, lineage).
 */
import type { Context } from '@deepseek-ai/cordis'
import type { BranchSummary } from '../tree/types.ts'
import type { TreeSync } from '../harness/sync.ts'
import type { JournalActor } from '../sidecar/index.ts'
import { StockSwitcher } from '../surface/stock.ts'
import { hostParts } from '../surface/surface.ts'
import { SurfaceChoices } from '../surface/choice.ts'
import type { Config } from './config.ts'
import type { SummaryLlm } from './model-summary.ts'
import type { SummaryMoveDeps } from './summary-move.ts'
import { SessionResolver } from './resolve.ts'
import { TreeReads } from './reads.ts'
import { Movement } from './movement.ts'
import { Annotation, recordSummary } from './annotation.ts'
import { DEFAULT_ORPHAN_GRACE_MS, SessionLineage } from './lineage.ts'
import type { SessionSidecars } from './sidecar-location.ts'
import { hostService } from '../harness/host.ts'

export interface ServiceParts {
  readonly switcher: StockSwitcher
  /** The session a call is about, and its surface mode. */
  readonly resolver: SessionResolver
  readonly reads: TreeReads
  readonly movement: Movement
  readonly annotation: Annotation
  /** Sessions across sessions: new sessions from a node, lineage, orphaned sidecars. */
  readonly lineage: SessionLineage
}

export function serviceParts(
  ctx: Context,
  sync: TreeSync,
  settings: Config & { readonly switchTimeoutMs: number },
  config: Partial<Config>,
  sidecars: SessionSidecars | undefined,
): ServiceParts {
  const host = hostParts(ctx)
  const switcher = new StockSwitcher({ trees: sync, ...host, timeoutMs: settings.switchTimeoutMs })
  const surfaces = new SurfaceChoices({
    setting: settings.surfaceMode,
    switcher,
    flush: host.flush,
    estimator: host.estimator,
  })
  const resolver = new SessionResolver({ ctx, sync, surfaces })
  const summary: Omit<SummaryMoveDeps, 'record'> = {
    llm: () => hostService<SummaryLlm>(ctx, 'llm'),
    timeoutMs: config.summaryTimeoutMs ?? 30_000,
  }
  const record = (sessionId: string, written: BranchSummary, actor: JournalActor) =>
    recordSummary(sync, sessionId, written, actor)
  const lineage = new SessionLineage({
    ctx,
    sync,
    sidecars,
    graceMs: config.orphanGraceMs ?? DEFAULT_ORPHAN_GRACE_MS,
    warn: (message) => ctx.logger('session-tree').warn(message),
  })
  return {
    switcher,
    resolver,
    reads: new TreeReads({ resolver, sync, lineage, host: ctx }),
    movement: new Movement({ resolver, move: { sync }, summary, record }),
    annotation: new Annotation({ resolver, sync, summary }),
    lineage,
  }
}
