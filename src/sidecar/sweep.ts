/**
 * The start-up pass over the old layout: every sidecar still under the root
 * whose session the host knows is moved into that session's directory
 * (`SidecarLocator.place` does the move, once per session), including moves a
 * crash interrupted (`.migrating-<name>`). What stays under the root after it
 * is an orphan (no session: `gc.ts`), a conflict or a refusal (reported).
 */
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { sessionOfDir } from './gc.ts'
import type { SidecarLocator } from './location.ts'
import { MIGRATING_PREFIX } from './migrate.ts'

/** Move the old-layout sidecars of the `known` sessions; returns the ids looked at. Never throws for what it finds. */
export function sweepOldLayout(locator: SidecarLocator, known: ReadonlySet<string>): string[] {
  let names: string[]
  try {
    names = readdirSync(locator.root)
  } catch {
    return [] // no root yet, or unreadable: the orphan scan reports the latter
  }
  const ids: string[] = []
  for (const entry of names) {
    const name = entry.startsWith(MIGRATING_PREFIX) ? entry.slice(MIGRATING_PREFIX.length) : entry
    if (!name.startsWith('s')) continue
    const sessionId = sessionOfDir(path.join(locator.root, entry), name)
    if (sessionId === undefined || !known.has(sessionId)) continue
    const place = locator.place(sessionId)
    if (place.inSession) ids.push(sessionId)
  }
  return ids
}
