/**
 * Log-only event types this plugin writes, registered as known when this
 * module loads: the harness refuses a log with an unknown type that is not
 * marked ignorable, and `session.append` cannot mark it, so every reachable
 * copy of `@deepseek-ai/dsh-session` must learn them before a session is read
 * (dsh-TUI does the same, `ensureLegacySessionEventTypes`). Such a log cannot
 * be read without this plugin (docs/known-limits.md), so the terminal row
 * below is only written while dsh-TUI is loaded.
 */
import { createRequire } from 'node:module'
import { KNOWN_SESSION_EVENT_TYPES } from '@deepseek-ai/dsh-session'

/** A row of dsh-TUI's transcript at a history switch (written by the terminal half, `tui/switch-rows.ts`). */
export const SWITCH_ROW_EVENT = 'session-tree/switch'

export const PLUGIN_EVENT_TYPES: readonly string[] = [SWITCH_ROW_EVENT]

/** Add the types to every reachable `KNOWN_SESSION_EVENT_TYPES` copy. Idempotent; never throws. */
export function registerPluginEventTypes(
  anchors: readonly (string | undefined)[] = [import.meta.url, process.argv[1]],
): void {
  for (const type of PLUGIN_EVENT_TYPES) (KNOWN_SESSION_EVENT_TYPES as Set<string>).add(type)
  const seen = new Set<string>()
  const walk = (anchor: string, depth: number): void => {
    if (seen.has(anchor) || depth > 2) return
    seen.add(anchor)
    let require: NodeJS.Require
    try {
      require = createRequire(anchor)
    } catch {
      return
    }
    try {
      const copy = require('@deepseek-ai/dsh-session') as { KNOWN_SESSION_EVENT_TYPES?: Set<string> }
      for (const type of PLUGIN_EVENT_TYPES) copy.KNOWN_SESSION_EVENT_TYPES?.add(type)
    } catch {
      // No copy reachable from here.
    }
    try {
      walk(require.resolve('@deepseek-ai/dsh-session-persistence'), depth + 1)
    } catch {
      // The validator is not reachable from here.
    }
  }
  for (const anchor of anchors) if (typeof anchor === 'string' && anchor !== '') walk(anchor, 0)
}

registerPluginEventTypes()
