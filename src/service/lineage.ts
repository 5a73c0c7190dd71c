/**
 * Sessions across sessions: "Open as new session", the lineage both ways, and
 * orphaned sidecars. A new session is made as the harness makes one (a seed of
 * official events given to `ctx.sessions.create` in a throw-away fiber);
 * `ctx.sessions.fork` is not used, since it copies the raw log prefix, every
 * other branch with it. docs/lineage.md, "How it is made".
 */
import { randomUUID } from 'node:crypto'
import type { Context } from '@deepseek-ai/cordis'
import { fail, ok, type TreeResult, errorMessage } from '../tree/errors.ts'
import { checkNode } from '../tree/validate.ts'
import type { TreeSync } from '../harness/sync.ts'
import { collectOrphans, type GcReport, type OrphanSidecar } from '../sidecar/gc.ts'
import { LineageFiles, type ForkLink } from '../sidecar/lineage.ts'
import { sweepOldLayout } from '../sidecar/sweep.ts'
import type { SidecarLocator } from '../sidecar/location.ts'
import type { SessionSidecars } from './sidecar-location.ts'
import { buildSeed, seedProvenance } from '../surface/seed.ts'
import { freshCallId } from '../surface/stock.ts'
import type { LiveSession } from '../harness/live.ts'
import type { Resolved } from './resolve.ts'
import type {
  GcResult,
  LineageLink,
  MigratedView,
  NewSessionResult,
  OrphanView,
  SessionLineageView,
} from './lineage-wire.ts'
import { hostService, agentLookup } from '../harness/host.ts'

/** Default grace period before an orphaned sidecar is removed by a scan: 7 days. */
export const DEFAULT_ORPHAN_GRACE_MS = 7 * 24 * 60 * 60 * 1000
/** How long after start the orphan scan waits: the first session listing of a big home comes first. */
export const DEFAULT_ORPHAN_SCAN_DELAY_MS = 10_000
const MAX_TITLE = 120

type Header = {
  readonly cwd?: string
  readonly parentSession?: string
  readonly seedLength?: number
  readonly origin?: string
  readonly agentPreset?: string
  readonly createdAt?: number
}
type CreatedSession = LiveSession & { readonly header: Header; readonly firstLiveSeq?: number }
type Workspace = {
  readonly id: string
  readonly sessionIds?: readonly string[]
  attachSession(id: string): Promise<unknown> | unknown
}
type WorkspaceRegistry = {
  list?(): readonly Workspace[]
  resolveByPath?(cwd: string): Promise<Workspace | undefined> | Workspace | undefined
}
type Persistence = { list(signal?: AbortSignal): Promise<readonly { readonly id: string; readonly cwd?: string }[]> }
type SessionStore = {
  list(): readonly { readonly id: string }[]
  get(id: string): unknown
  create(id: string, options: unknown): unknown
  flush(session: unknown): Promise<void>
}

export interface LineageDeps {
  readonly ctx: Context
  readonly sync: TreeSync
  /** Where each session's sidecar is (inside its own directory when DSH stores it); undefined without a sidecarRoot. */
  readonly sidecars: SessionSidecars | undefined
  readonly graceMs: number
  readonly warn: (message: string) => void
}

/** The title a session shows: its last `session/title`, else its first typed prompt. */
export function titleOf(events: readonly unknown[]): string | undefined {
  let prompt: string | undefined
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as {
      type?: string
      data?: { title?: unknown; source?: { kind?: unknown }; content?: unknown }
    }
    if (event?.type === 'session/title' && typeof event.data?.title === 'string' && event.data.title !== '')
      return event.data.title
    if (event?.type === 'user/message' && event.data?.source?.kind === 'user' && Array.isArray(event.data.content)) {
      const text = event.data.content.find((block: { type?: string }) => block?.type === 'text') as
        { text?: unknown } | undefined
      if (typeof text?.text === 'string') prompt = text.text
    }
  }
  return prompt?.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE)
}

export class SessionLineage {
  private readonly files: LineageFiles | undefined
  /** Ids the last scan found stored or live (undefined before the first scan). */
  private known: Set<string> | undefined
  private last: GcReport | undefined
  private scanning: Promise<TreeResult<GcResult>> | undefined

  private readonly deps: LineageDeps

  constructor(deps: LineageDeps) {
    this.deps = deps
    this.files = deps.sidecars === undefined ? undefined : new LineageFiles(deps.sidecars.locator)
  }

  /** Where each session's sidecar is (undefined without a sidecarRoot). */
  get sidecars(): SidecarLocator | undefined {
    return this.deps.sidecars?.locator
  }

  // ---------------------------------------------------------- new session

  /** Create the new session from `found`'s path to `nodeId` (call it on the source session's queue). */
  async openAsNewSession(found: Resolved, nodeId: unknown): Promise<TreeResult<NewSessionResult>> {
    const { session, state } = found
    const projector = state.projector
    const tree = projector.tree
    const checked = checkNode(tree, nodeId)
    if (!checked.ok) return checked
    const cut = tree.completeCutPoint(checked.value)
    if (!cut.ok) return cut
    const target = cut.value ?? checked.value
    const history = tree.historyPath(target)
    if (!history.ok) return history
    const header = (session.header ?? {}) as Header
    if (typeof header.cwd !== 'string')
      return fail('SURFACE_UNAVAILABLE', 'the source session has no working directory; a new session needs one')
    const store = hostService<SessionStore>(this.deps.ctx, 'sessions')!
    const sessionId = `session-${randomUUID()}`
    const sourceTitle = titleOf(session.events) ?? session.id
    const title = `${sourceTitle} · branch`.slice(0, MAX_TITLE)
    const time = new Date().toISOString()
    const events = session.events
    const first = events.length > 0 ? ((events[0] as { seq?: number }).seq ?? 0) : 0
    const seed = buildSeed({
      eventAt: (seq) => events[seq - first],
      events,
      path: history.value.map((entry) => entry.nodeId),
      sourceOf: (id) => projector.sourceOf(id),
      provenance: { session: session.id, node: target, time },
      title,
      newMessageId: () => randomUUID(),
      newCallId: freshCallId,
      now: Date.now(),
    })
    if (!seed.ok) return seed

    // Created in a fiber of its own and handed over: a session created here would stay owned by
    // this plugin's fiber, live without an agent, and the host could never prompt it.
    let created: unknown
    let problem: unknown
    const fiber = this.deps.ctx.plugin({
      name: 'dsh-session-tree:new-session',
      inject: ['sessions'],
      apply: (child: Context) => {
        try {
          created = hostService<SessionStore>(child, 'sessions')!.create(sessionId, {
            seed: seed.value,
            meta: {
              cwd: header.cwd,
              parentSession: session.id,
              seedLength: seed.value.length,
              ...(header.agentPreset ? { agentPreset: header.agentPreset } : {}),
            },
          })
        } catch (error) {
          problem = error
        }
      },
    })
    try {
      await fiber
      if (created !== undefined) await store.flush(created)
    } finally {
      await fiber.dispose()
    }
    if (created === undefined) {
      return fail('INTERNAL', `the new session could not be created: ${errorMessage(problem)}`)
    }
    this.known?.add(sessionId)

    const workspaceId = await this.joinWorkspace(session.id, header.cwd, sessionId)
    const adopted = await this.adopt(sessionId)
    const saved = this.record(session.id, sessionId, { node: target, time, by: 'tree' }, sourceTitle, title)
    return ok({
      sessionId,
      title,
      nodeId: target,
      ...(target !== checked.value ? { snappedFrom: checked.value } : {}),
      messages: history.value.length,
      seedEvents: seed.value.length,
      ...(workspaceId ? { workspaceId } : {}),
      adopted,
      ...(saved === undefined ? {} : { notDurable: { code: 'SIDECAR_IO' as const, message: saved } }),
    })
  }

  /**
   * A session was created: if it is a fresh fork the host made (its fork
   * buttons), record the lineage both ways. Its seed is the parent's log
   * prefix with the same seqs, so the node it continues from is the node of
   * the seed's last model-visible entry, in the parent's ids.
   */
  noteCreated(session: CreatedSession): void {
    const header = session.header
    this.known?.add(session.id)
    this.deps.sidecars?.remember([{ ...header, id: session.id }])
    if (!this.files || typeof header?.parentSession !== 'string' || header.origin === 'subagent') return
    const seedLength = header.seedLength
    if (typeof seedLength !== 'number' || session.firstLiveSeq !== seedLength) return
    if (seedProvenance(session.events, seedLength) !== undefined) return // ours: recorded by openAsNewSession
    const known = this.files.read(session.id)
    if (known.ok && known.lineage.forkedFrom) return
    const projector = this.deps.sync.get(session.id)?.projector
    const entry = projector?.surfaceEntries.filter((e) => e.seq < seedLength && e.node !== null).at(-1)
    if (!entry?.node) return
    const time = new Date(typeof header.createdAt === 'number' ? header.createdAt : Date.now()).toISOString()
    const parent = hostService<SessionStore>(this.deps.ctx, 'sessions')!
    const parentSession = parent.get(header.parentSession) as LiveSession | undefined
    const parentTitle = parentSession ? titleOf(parentSession.events) : titleOf(session.events.slice(0, seedLength))
    const problem = this.record(
      header.parentSession,
      session.id,
      { node: entry.node, time, by: 'host' },
      parentTitle,
      titleOf(session.events),
    )
    if (problem) this.deps.warn(`lineage of host fork ${session.id} not saved: ${problem}`)
  }

  /** Where a session came from and what was forked from it. No side effects. */
  view(session: LiveSession): SessionLineageView {
    const read = this.files?.read(session.id)
    const exists = (id: string): boolean =>
      this.known === undefined || this.known.has(id) || this.deps.sync.get(id) !== undefined
    const live = (link: ForkLink): LineageLink => {
      const other = hostService<SessionStore>(this.deps.ctx, 'sessions')!.get(link.session) as LiveSession | undefined
      const title = other ? titleOf(other.events) : link.title
      return { ...link, ...(title === undefined ? {} : { title }), exists: exists(link.session) }
    }
    if (read && !read.ok) return { forkedTo: [], problem: read.problem }
    const lineage = read?.ok ? read.lineage : { forkedTo: [] }
    let forkedFrom = lineage.forkedFrom
    if (!forkedFrom) {
      // No file (no sidecar root, or forked while the plugin was away): the log still says it.
      const header = (session.header ?? {}) as Header
      const ours = typeof header.seedLength === 'number' ? seedProvenance(session.events, header.seedLength) : undefined
      if (ours) forkedFrom = { session: ours.session, node: ours.node, time: ours.time, by: 'tree' }
    }
    return { ...(forkedFrom ? { forkedFrom: live(forkedFrom) } : {}), forkedTo: lineage.forkedTo.map(live) }
  }

  // ---------------------------------------------------------------- orphans

  /** The last scan, as `session` reports it (undefined before the first scan or without a sidecar root). */
  lastScan(): GcResult | undefined {
    return this.last ? this.toResult(this.last, false) : undefined
  }

  /** `gc(dryRun)` from the wire: a dry run reports, otherwise orphans go now, grace or not. */
  gc(dryRun: unknown): Promise<TreeResult<GcResult>> {
    if (dryRun !== undefined && typeof dryRun !== 'boolean')
      return Promise.resolve(fail('INVALID_ARGUMENT', 'dryRun must be a boolean'))
    return this.scan(dryRun ? { dryRun: true } : { force: true })
  }

  /**
   * Compare the sidecars with the sessions the harness knows; remove orphans
   * past the grace period (`force`: every orphan; `dryRun`: none). One scan at a time.
   */
  async scan(options: { force?: boolean; dryRun?: boolean } = {}): Promise<TreeResult<GcResult>> {
    const sidecars = this.deps.sidecars
    if (sidecars === undefined)
      return fail('SURFACE_UNAVAILABLE', 'no sidecarRoot is configured: there are no sidecars to collect')
    while (this.scanning) await this.scanning.catch(() => undefined)
    const run = (async (): Promise<TreeResult<GcResult>> => {
      const persistence = hostService<Persistence>(this.deps.ctx, 'sessionPersistence')
      if (!persistence)
        return fail('SURFACE_UNAVAILABLE', 'the harness has no session persistence to compare the sidecars with')
      let stored: readonly { readonly id: string }[]
      try {
        stored = await persistence.list()
      } catch (error) {
        return fail('INTERNAL', `the stored sessions could not be listed: ${errorMessage(error)}`)
      }
      const store = hostService<SessionStore>(this.deps.ctx, 'sessions')!
      // Live sessions count too: a new one may not be stored yet.
      const known = new Set([
        ...stored.map((header) => header.id),
        ...store.list().map((session) => session.id),
        ...this.deps.sync.list(),
      ])
      this.known = known
      sidecars.remember(stored)
      // Old-layout sidecars of existing sessions move into their session's directory first (a dry run moves nothing).
      if (!options.dryRun) sweepOldLayout(sidecars.locator, known)
      const scanned = collectOrphans(sidecars.locator.root, { known, graceMs: this.deps.graceMs, ...options })
      const report = { ...scanned, problems: [...scanned.problems, ...movesReported(sidecars)] }
      if (!options.dryRun) this.last = report
      for (const removed of report.removed)
        this.deps.warn(
          `removed the sidecar of session ${removed.sessionId}: the session no longer exists (orphan since ${removed.since})`,
        )
      return ok(this.toResult(report, options.dryRun === true))
    })()
    this.scanning = run
    try {
      return await run
    } finally {
      this.scanning = undefined
    }
  }

  /** Sidecars moved into their session's directory in this process. */
  migrated(): readonly MigratedView[] {
    return (this.deps.sidecars?.locator.migrations() ?? []).flatMap((m) =>
      m.kind === 'moved' ? [{ sessionId: m.sessionId, from: m.from, to: m.to }] : [],
    )
  }

  // -------------------------------------------------------------- internals

  private toResult(report: GcReport, dryRun: boolean): GcResult {
    const view = (orphan: OrphanSidecar): OrphanView => ({
      ...orphan,
      removableAt: new Date(Date.parse(orphan.since) + this.deps.graceMs).toISOString(),
    })
    const migrated = this.migrated()
    return {
      scannedAt: report.scannedAt,
      orphans: report.orphans.map(view),
      removed: report.removed.map(view),
      problems: report.problems,
      ...(migrated.length > 0 ? { migrated } : {}),
      dryRun,
    }
  }

  /** Both ends of a fork; a problem string when a side could not be saved. */
  private record(
    parentId: string,
    childId: string,
    at: Omit<ForkLink, 'session'>,
    parentTitle: string | undefined,
    childTitle: string | undefined,
  ): string | undefined {
    if (!this.files) return 'no sidecarRoot is configured'
    const from = this.files.setForkedFrom(childId, {
      session: parentId,
      ...at,
      ...(parentTitle ? { title: parentTitle } : {}),
    })
    const to = this.files.addForkedTo(parentId, {
      session: childId,
      ...at,
      ...(childTitle ? { title: childTitle } : {}),
    })
    const problems = [from, to].flatMap((result) => (result.ok ? [] : [result.error.message]))
    return problems.length > 0 ? problems.join('; ') : undefined
  }

  private async joinWorkspace(sourceId: string, cwd: string, sessionId: string): Promise<string | undefined> {
    const registry = hostService<WorkspaceRegistry>(this.deps.ctx, 'workspaceRegistry')
    if (!registry) return undefined
    try {
      const workspace =
        registry.list?.().find((w) => w.sessionIds?.includes(sourceId)) ?? (await registry.resolveByPath?.(cwd))
      if (!workspace) return undefined
      await workspace.attachSession(sessionId)
      return workspace.id
    } catch (error) {
      this.deps.warn(`new session ${sessionId} not put into a workspace: ${errorMessage(error)}`)
      return undefined
    }
  }

  /** Let the host's agent lookup resume the session (dsh web: live at once, shown without a reload). */
  private async adopt(sessionId: string): Promise<boolean> {
    const lookup = agentLookup(this.deps.ctx)
    if (!lookup) return false
    try {
      await lookup.resolve(sessionId)
      return true
    } catch (error) {
      this.deps.warn(`new session ${sessionId} not adopted by the host: ${errorMessage(error)}`)
      return false
    }
  }
}

/** Old-layout sidecars that could not be moved (a conflict, a link, a failure), as scan problems. */
function movesReported(sidecars: SessionSidecars): { dir: string; message: string }[] {
  return sidecars.locator
    .migrations()
    .flatMap((m) =>
      m.kind === 'conflict' || m.kind === 'refused' || m.kind === 'failed' ? [{ dir: m.from, message: m.message }] : [],
    )
}
