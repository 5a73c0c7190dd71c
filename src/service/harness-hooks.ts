/**
 * What the service listens to in the harness besides the trees (`TreeSync.follow` projects the log, the stock
 * switcher hears `agent/pre-step`): a disposed session's workspace state, new sessions (lineage) and the
 * start-up orphan scan. Nothing here may throw into the harness: a failure costs the tree, never the session.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { TreeSync } from '../harness/sync.ts'
import { guarded, hostEvents } from '../harness/host.ts'
import type { SessionLineage } from './lineage.ts'
import type { LiveSession } from '../harness/live.ts'

export interface HarnessHooks {
  readonly ctx: Context
  readonly sync: TreeSync
  readonly lineage: SessionLineage
  /** Drop a disposed session's workspace state. */
  readonly forget: (sessionId: string) => void
  /** Hears what a listener's failure was (it costs the tree, never the session). */
  readonly warn: (error: unknown) => void
  /** How long after start the orphan scan waits (ms): it lists every stored session, as the first listing of a big home does. */
  readonly scanDelayMs: number
}

export function listenToHarness({ ctx, sync, lineage, forget, warn, scanDelayMs }: HarnessHooks): void {
  const guard = (operation: () => unknown): void => guarded(warn, operation)
  // The trees follow the log first (`TreeSync.follow`): what the listeners below read is projected by then.
  sync.follow(hostEvents(ctx), warn)
  ctx.on('session/disposed', (session) => guard(() => forget(session.id)))
  ctx.on('session/created', (session) => guard(() => lineage.noteCreated(session as never)))
  // One scan a while after start (an orphan waits days for its grace; the first session list of a big home is now):
  // sidecars whose session is gone are reported, and removed once past their grace period.
  ctx.inject(['sessionPersistence'], (inner) => {
    inner.effect(() => {
      const timer = setTimeout(() => {
        void lineage.scan().then((scanned) => {
          if (!scanned.ok) ctx.logger('session-tree').warn(`orphan scan: ${scanned.error.message}`)
        })
      }, scanDelayMs)
      timer.unref?.()
      return () => clearTimeout(timer)
    }, 'session-tree.orphan-scan')
  })
}

/** Follow the sessions already loaded when the plugin starts; let every tree go when it stops. */
export function attachLoadedSessions(ctx: Context, sync: TreeSync, warn: (error: unknown) => void): void {
  ctx.effect(() => {
    for (const session of ctx.sessions.list()) guarded(warn, () => sync.attach(session as unknown as LiveSession))
    return () => {
      for (const id of sync.list()) sync.detach(id)
    }
  }, 'session-tree.attach')
}
