/**
 * The push channel to the browser: `watch` answers as soon as one of the
 * sessions it names has a `revision` other than the one the caller holds
 * (at once when it already has), and otherwise waits — no timer, no answer
 * while nothing changes — until the caller cancels it (the request's
 * signal) or the plugin stops. The Tree tab and the Chat hold one such
 * request per page instead of polling `session` (docs/service.md#live-events).
 */
import { clipped, fail, ok, type TreeResult } from '../tree/errors.ts'
import type { TreeSync } from '../harness/sync.ts'
import { revisionOf } from './status.ts'
import type { WatchAnswer, WatchRequest } from './wire.ts'

/** At most this many sessions per request (a page shows a handful). */
const MAX_WATCHED = 64

export class RevisionWatch {
  private readonly sync: TreeSync
  private readonly waiting = new Set<() => void>()

  constructor(sync: TreeSync) {
    this.sync = sync
  }

  watch(request: WatchRequest, signal?: AbortSignal): Promise<TreeResult<WatchAnswer>> {
    const sessions = request?.sessions
    if (!Array.isArray(sessions) || sessions.length === 0 || sessions.length > MAX_WATCHED)
      return Promise.resolve(fail('INVALID_ARGUMENT', `sessions must list 1 to ${MAX_WATCHED} sessions`))
    for (const entry of sessions)
      if (typeof entry?.agentId !== 'string' || entry.agentId === '' || typeof entry.revision !== 'string')
        return Promise.resolve(
          fail(
            'INVALID_ARGUMENT',
            `each session needs an agentId and the revision held: ${clipped(JSON.stringify(entry))}`,
          ),
        )
    const asked = new Map(sessions.map((entry) => [entry.agentId, entry.revision]))
    const changed = (): WatchAnswer['changed'] =>
      [...asked].flatMap(([agentId, held]) => {
        const revision = revisionOf(this.sync, agentId) ?? ''
        return revision === held ? [] : [{ agentId, revision }]
      })
    const now = changed()
    if (now.length > 0 || signal?.aborted) return Promise.resolve(ok({ changed: now }))
    return new Promise((resolve) => {
      const finish = (answer: WatchAnswer['changed']): void => {
        stop()
        this.waiting.delete(end)
        signal?.removeEventListener('abort', end)
        resolve(ok({ changed: answer }))
      }
      const end = (): void => finish([])
      const stop = this.sync.onChange((sessionId) => {
        if (!asked.has(sessionId)) return
        const moved = changed()
        if (moved.length > 0) finish(moved)
      })
      this.waiting.add(end)
      signal?.addEventListener('abort', end, { once: true })
    })
  }

  /** The plugin stops: every waiting request answers (empty), so none outlives it. */
  close(): void {
    for (const end of [...this.waiting]) end()
  }
}
