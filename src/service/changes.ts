/**
 * The push channel to the browser: `watch` answers as soon as one of the
 * sessions it names has a `revision` other than the one the caller holds
 * (at once when it already has), and otherwise waits — no timer, no answer
 * while nothing changes — until the caller cancels it (the request's
 * signal) or the plugin stops. The Tree tab and the Chat hold one such
 * request per page instead of polling `session` (docs/service.md#live-events).
 * A change carries what the caller asked to read with it (`read`), read once
 * the synchronous step that changed the tree is over: the page shows it with
 * no second round trip.
 */
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import type { TreeSync } from '../harness/sync.ts'
import { clipped } from './clip.ts'
import { revisionOf } from './status.ts'
import type { WatchAnswer, WatchChange, WatchRead, WatchRequest } from './wire.ts'

/** At most this many sessions per request (a page shows a handful). */
const MAX_WATCHED = 64
const READS: ReadonlySet<string> = new Set<WatchRead>(['session', 'outline', 'chatPath'])

/** Whether `read` lists known reads only. */
function readsAll(read: unknown): boolean {
  return Array.isArray(read) && read.every((what: unknown) => typeof what === 'string' && READS.has(what))
}

/** One read of a session for a change (a failed read is left out: the page asks for it and sees the error). */
export type WatchReader = (agentId: string, read: WatchRead) => TreeResult<unknown>

export class RevisionWatch {
  private readonly sync: TreeSync
  private readonly read: WatchReader
  private readonly waiting = new Set<() => void>()

  constructor(sync: TreeSync, read: WatchReader) {
    this.sync = sync
    this.read = read
  }

  watch(request: WatchRequest, signal?: AbortSignal): Promise<TreeResult<WatchAnswer>> {
    const sessions = request?.sessions
    if (!Array.isArray(sessions) || sessions.length === 0 || sessions.length > MAX_WATCHED)
      return Promise.resolve(fail('INVALID_ARGUMENT', `sessions must list 1 to ${MAX_WATCHED} sessions`))
    for (const entry of sessions)
      if (
        typeof entry?.agentId !== 'string' ||
        entry.agentId === '' ||
        typeof entry.revision !== 'string' ||
        (entry.read !== undefined && !readsAll(entry.read))
      )
        return Promise.resolve(
          fail(
            'INVALID_ARGUMENT',
            `each session needs an agentId, the revision held and what to read (session, outline, chatPath): ${clipped(JSON.stringify(entry))}`,
          ),
        )
    const asked = new Map(sessions.map((entry) => [entry.agentId, entry]))
    const changed = (): WatchChange[] =>
      [...asked.values()].flatMap(({ agentId, revision: held, read = [] as readonly WatchRead[] }) => {
        const revision = revisionOf(this.sync, agentId) ?? ''
        if (revision === held) return []
        const change: Record<string, unknown> = { agentId, revision }
        for (const what of new Set<WatchRead>(read)) {
          const value = this.read(agentId, what)
          if (value.ok) change[what] = value.value
        }
        return [change as unknown as WatchChange]
      })
    const now = changed()
    if (now.length > 0 || signal?.aborted) return Promise.resolve(ok({ changed: now }))
    return new Promise((resolve) => {
      let done = false
      const finish = (answer: WatchAnswer['changed']): void => {
        if (done) return
        done = true
        stop()
        this.waiting.delete(end)
        signal?.removeEventListener('abort', end)
        resolve(ok({ changed: answer }))
      }
      const end = (): void => finish([])
      let due = false
      // Told inside the step that changes the tree (a move appends several events): read once it is over.
      const stop = this.sync.onChange((sessionId) => {
        if (!asked.has(sessionId) || due) return
        due = true
        queueMicrotask(() => {
          due = false
          if (done) return
          const moved = changed()
          if (moved.length > 0) finish(moved)
        })
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
