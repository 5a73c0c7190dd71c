/**
 * The service's reads: the whole tree, its outline, the status, the linear
 * export, the Chat's path, a comparison, and the live tree for the tool
 * companion. None has a side effect (a cold session is never resumed).
 */
import { ok, type TreeResult } from '../tree/errors.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import type { BranchSummary, LinearExport, SessionTreeOutline, SessionTreeOutlineChanges } from '../tree/types.ts'
import { compare as compareNodes } from '../tree/compare.ts'
import type { TreeSync } from '../harness/sync.ts'
import { draftSummary } from './summarizer.ts'
import { buildChatPath, type ChatPath } from './chat-path.ts'
import { boundedComparison, COMPARE_MAX_ROWS, type CompareResult } from './compare-wire.ts'
import type { SessionLineage } from './lineage.ts'
import type { SessionResolver } from './resolve.ts'
import { sessionStatus } from './status.ts'
import { contextFit, type ContextFit } from './context-fit.ts'
import type { HostContext } from '../harness/host.ts'
import { PresetCompaction } from '../harness/preset-compaction.ts'
import type { LiveSession } from '../harness/live.ts'
import type { SessionStatus, SessionTreeListing, SurfaceMode } from './wire.ts'

export interface ReadDeps {
  readonly resolver: SessionResolver
  readonly sync: TreeSync
  readonly lineage: SessionLineage
  /** The host, for DSH's token meter and preset roster (`contextFit`). */
  readonly host?: HostContext
}

export class TreeReads {
  private readonly deps: ReadDeps
  /** The last fit per session, by its log's length: the Tree tab asks for the status again and again. */
  private readonly fits = new WeakMap<
    LiveSession,
    { readonly seq: number; readonly settings: unknown; readonly fit: ContextFit | undefined }
  >()

  private readonly compaction: PresetCompaction | undefined

  constructor(deps: ReadDeps) {
    this.deps = deps
    this.compaction = deps.host ? new PresetCompaction(deps.host) : undefined
  }

  list(agentId: string): TreeResult<SessionTreeListing> {
    const found = this.deps.resolver.loaded(agentId)
    return found.ok
      ? ok({ ...found.value.state.projector.tree.view(), lineage: this.deps.lineage.view(found.value.session) })
      : found
  }

  outline(agentId: string): TreeResult<SessionTreeOutline> {
    const found = this.deps.resolver.loaded(agentId)
    return found.ok ? ok(found.value.state.projector.tree.outline()) : found
  }

  outlineChanges(agentId: string, since: string | null): TreeResult<SessionTreeOutlineChanges> {
    const found = this.deps.resolver.loaded(agentId)
    return found.ok ? ok(found.value.state.projector.tree.outlineChanges(since)) : found
  }

  session(agentId: string): TreeResult<SessionStatus> {
    const found = this.deps.resolver.loaded(agentId)
    if (!found.ok) return found
    const orphanSidecars = this.deps.lineage.lastScan()
    const fit = this.fit(found.value.session, found.value.agent)
    return ok({
      ...sessionStatus(this.deps.sync, found.value),
      lineage: this.deps.lineage.view(found.value.session),
      ...(orphanSidecars ? { orphanSidecars } : {}),
      ...(fit ? { contextFit: fit } : {}),
    })
  }

  /** Only a live session is priced: DSH's meter reads its log, and a cold one is never resumed by a read. */
  private fit(session: LiveSession, agent: unknown): ContextFit | undefined {
    if (this.deps.host === undefined || this.compaction === undefined || agent === undefined) return undefined
    const settings = this.compaction.settingsFor(agent)
    const seq = session.events.length
    const last = this.fits.get(session)
    if (last?.seq === seq && last.settings === settings) return last.fit
    const fit = contextFit(this.deps.host, session, settings)
    this.fits.set(session, { seq, settings, fit })
    return fit
  }

  /** The active path plus every off-path branch's recorded summary, else an extractive digest written now (nothing recorded). */
  async export(agentId: string): Promise<TreeResult<LinearExport>> {
    const found = this.deps.resolver.loaded(agentId)
    if (!found.ok) return found
    const tree = found.value.state.projector.tree
    const exported = tree.linearExport()
    if (!exported.ok) return exported
    const branches: BranchSummary[] = []
    for (const branch of exported.value.branches) {
      const drafted = branch.fallback ? await draftSummary(tree, branch.branch) : undefined
      branches.push(drafted?.ok ? drafted.value : branch)
    }
    return ok({ ...exported.value, branches })
  }

  chatPath(agentId: string): TreeResult<ChatPath> {
    const found = this.deps.resolver.loaded(agentId)
    if (!found.ok) return found
    const { session, state, mode } = found.value
    const revision = sessionStatus(this.deps.sync, found.value).revision!
    return ok(
      buildChatPath({ sessionId: session.id, revision, mode, events: session.events, projector: state.projector }),
    )
  }

  compare(agentId: string, a: string, b: string): TreeResult<CompareResult> {
    const found = this.deps.resolver.loaded(agentId)
    if (!found.ok) return found
    const compared = compareNodes(found.value.state.projector.tree, a, b, { maxRows: COMPARE_MAX_ROWS })
    return compared.ok ? ok(boundedComparison(compared.value)) : compared
  }

  /** The live tree, surface mode and surface tip (`null`: empty) of a loaded session, without building a status. */
  treeOf(agentId: string): TreeResult<{ tree: SessionTree; mode: SurfaceMode; tip: string | null }> {
    const found = this.deps.resolver.loaded(agentId)
    return found.ok
      ? ok({ tree: found.value.state.projector.tree, mode: found.value.mode, tip: found.value.state.projector.tip })
      : found
  }
}
