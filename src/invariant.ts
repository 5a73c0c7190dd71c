/**
 * `dsh-session-tree/invariant`: the package's relational checks, for runs with
 * `@deepseek-ai/dsh-invariants` mounted (tests, diagnostics). Before each
 * session event is committed it checks, as of the previous event, that the
 * tree agrees with the model's history (cheaply on every event, completely at
 * turn boundaries) and vetoes the append if not. docs/service.md, "How the
 * tree follows the harness".
 */
import type { Context } from '@deepseek-ai/cordis'
import type { InvariantFailure, InvariantInstaller } from '@deepseek-ai/dsh-invariants'
import type {} from '@deepseek-ai/dsh-session'
import type { SessionTreeService } from './service/service.ts'
import type { SessionProjector } from './harness/projector.ts'
import { hostEvents } from './harness/host.ts'

const PACKAGE_NAME = 'dsh-session-tree'

/** Cordis companion plugin name. */
export const name = 'session-tree-invariant'
/** Service required before the companion can register. */
export const inject = ['invariants']

/** Node ids the model reads, with runs of tool results in a canonical order (parallel results may land in any order). */
function canonicalRuns(ids: readonly string[], isTool: (id: string) => boolean): string[] {
  const out: string[] = []
  let run: string[] = []
  for (const id of [...ids, '']) {
    if (id !== '' && isTool(id)) {
      run.push(id)
      continue
    }
    out.push(...run.sort())
    run = []
    if (id !== '') out.push(id)
  }
  return out
}

/** Check one projector against the live surface; returns a violation or undefined. */
export function checkAgreement(
  projector: SessionProjector,
  surface: readonly number[],
  full: boolean,
): string | undefined {
  const mirror = projector.surfaceEntries
  if (mirror.length !== surface.length || (mirror.length > 0 && mirror.at(-1)!.seq !== surface.at(-1))) {
    return `the tree's surface mirror (${mirror.length} entries) disagrees with the harness surface (${surface.length})`
  }
  if (!full) return undefined
  for (let i = 0; i < mirror.length; i++) {
    if (mirror[i]!.seq !== surface[i])
      return `surface entry ${i} is seq ${mirror[i]!.seq} in the tree, ${surface[i]} in the harness`
  }
  const tree = projector.tree
  const path = tree.historyPath(projector.tip)
  if (!path.ok) return `the tree cannot project the tip's history: ${path.error.message}`
  const isTool = (id: string) => tree.get(id)?.type === 'tool_call'
  const shown = canonicalRuns(
    mirror.flatMap((entry) => (entry.node === null ? [] : [entry.node])),
    isTool,
  )
  const expected = canonicalRuns(
    path.value.map((entry) => entry.nodeId),
    isTool,
  )
  if (shown.length !== expected.length || shown.some((id, i) => id !== expected[i])) {
    return `the tree path to ${projector.tip} (${expected.length} messages) is not the model history (${shown.length} messages)`
  }
  return undefined
}

const install: InvariantInstaller = Object.assign(
  (ctx: Context, fail: InvariantFailure) => {
    const on = hostEvents(ctx)
    on(
      'internal/dispatch',
      (_mode: unknown, eventName: string, args: readonly unknown[]) => {
        if (eventName !== 'session/event') return
        const [session, event] = args as [
          { id: string; surface: { nodes: readonly number[] } },
          { seq: number; type: string },
        ]
        const service: SessionTreeService | undefined = ctx.sessionTree
        const projector = service?.sync.get(session.id)?.projector
        if (!projector) return
        if (projector.watermark !== event.seq - 1) {
          fail(
            `the tree of ${session.id} projected up to seq ${projector.watermark}, the harness is committing ${event.seq}`,
          )
        }
        // `session.surface` reflects the log before this event: exactly what the projector has seen.
        const violation = checkAgreement(
          projector,
          session.surface.nodes,
          event.type === 'turn/start' || event.type === 'turn/end',
        )
        if (violation) fail(`session ${session.id}: ${violation}`)
      },
      { global: true },
    )
  },
  { inject: ['sessionTree'] },
)

/**
 * Register the invariant companion.
 * @returns the registration's disposer.
 */
export const apply = (ctx: Context): Promise<() => void> =>
  Promise.resolve(ctx.invariants.register(PACKAGE_NAME, install))
