/** The `session` status of a resolved session: counts, cursor, surface mode, quarantine, warnings. */
import type { TreeSync } from '../harness/sync.ts'
import { claimRefusal } from '../sidecar/index.ts'
import { SURFACE_NOTES } from '../surface/mode.ts'
import type { Resolved } from './resolve.ts'
import type { SessionStatus } from './wire.ts'

export function sessionStatus(sync: TreeSync, found: Resolved): SessionStatus {
  const { state, mode } = found
  const projector = state.projector
  const info = projector.tree.info()
  const hostedUsage = projector.hostedUsage
  const pending = projector.switchInProgress
  const writer = sync.writer(found.session.id)
  return {
    ...info,
    surfaceMode: mode,
    surfaceNote: SURFACE_NOTES[mode],
    watermark: projector.watermark,
    revision: revisionOf(sync, found.session.id)!,
    quarantine: [...projector.quarantine],
    sidecarWarnings: [...state.warnings],
    logWarnings: projector.logWarnings,
    ...(pending ? { pendingSwitch: { target: pending.target, branch: pending.branch ?? info.activeBranch } } : {}),
    ...(Object.keys(hostedUsage).length > 0 ? { hostedUsage } : {}),
    ...(writer?.kind === 'other' ? { readOnly: { code: 'SIDECAR_CLAIMED' as const, ...claimRefusal(writer) } } : {}),
  }
}

/** A session's `revision` (undefined while it is not attached): the tree instance changes on a rebuild, its log seq on every mutation. */
export function revisionOf(sync: TreeSync, sessionId: string): string | undefined {
  const state = sync.get(sessionId)
  return state === undefined ? undefined : `${sync.generation(sessionId)}:${state.projector.tree.logSeq}`
}
