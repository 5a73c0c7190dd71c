/**
 * What the plugin listens to in the harness: session lifecycle and events
 * (the tree follows the log), new sessions (lineage) and the start-up orphan
 * scan; the stock switcher hears `agent/pre-step` itself. Nothing here may throw into
 * the harness: a failure costs the tree, never the session (`guard`).
 */
import type { Context } from '@deepseek-ai/cordis'
import type { TreeSync } from '../harness/sync.ts'
import type { SessionLineage } from './lineage.ts'
import type { HarnessSession } from './move.ts'

export interface HarnessHooks {
  readonly ctx: Context
  readonly sync: TreeSync
  readonly lineage: SessionLineage
  /** Drop a disposed session's workspace state. */
  readonly forget: (sessionId: string) => void
  readonly guard: (operation: () => unknown) => void
  /** How long after start the orphan scan waits (ms): it lists every stored session, as the first listing of a big home does. */
  readonly scanDelayMs: number
}

export function listenToHarness({ ctx, sync, lineage, forget, guard, scanDelayMs }: HarnessHooks): void {
  ctx.on('session/created', (session) => guard(() => sync.attach(session)))
  ctx.on('session/event', (session, event) =>
    guard(() => {
      if (sync.get(session.id)) sync.project(session.id, event)
      else sync.attach(session)
    }),
  )
  ctx.on('session/disposed', (session) =>
    guard(() => {
      sync.detach(session.id)
      forget(session.id)
    }),
  )
  // After the tree's own `session/created` listener above: the host fork's tree is projected by then.
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
export function attachLoadedSessions(ctx: Context, sync: TreeSync, guard: (operation: () => unknown) => void): void {
  ctx.effect(() => {
    for (const session of ctx.sessions.list()) guard(() => sync.attach(session as unknown as HarnessSession))
    return () => {
      for (const id of sync.list()) sync.detach(id)
    }
  }, 'session-tree.attach')
}
