/**
 * The Tree tab's workspace state, in one hook so the panel plugs it in with a
 * few lines: the overview (status and markers, fetched once per tree
 * generation), the "take along" choice, and the move waiting in the restore
 * view. `route` is how the panel's Jump/Fork/Back/Forward run: as before
 * when the choice is Conversation (or there are no checkpoints), else they
 * open the restore view.
 */
import { useCallback, useEffect, useMemo, useState } from 'react'
import type { RestoreChoice, TreeMove, WorkspaceOverview } from '../../types.ts'
import type { WorkspaceClient } from './client.ts'
import { markersOf, type Markers } from './model.ts'

export interface WorkspaceState {
  readonly overview: WorkspaceOverview | undefined
  readonly markers: Markers
  /** Paths each node changed. */
  readonly pathsOf: (nodeId: string) => readonly string[]
  readonly available: boolean
  readonly choice: RestoreChoice
  readonly setChoice: (choice: RestoreChoice) => void
  /** The move the restore view shows, with what it takes along. */
  readonly restoring: { readonly move: TreeMove; readonly restore: Exclude<RestoreChoice, 'conversation'> } | undefined
  readonly route: (move: TreeMove, conversation: () => void) => void
  readonly close: () => void
  /** Ask for the overview again (after a restore). */
  readonly reload: () => void
}

export function useWorkspace(
  client: WorkspaceClient | undefined,
  generation: number,
  absorbed: ReadonlySet<string> | undefined,
  children: ReadonlyMap<string | null, readonly string[]> | undefined,
): WorkspaceState {
  const [overview, setOverview] = useState<WorkspaceOverview | undefined>(undefined)
  const [force, setForce] = useState(0)
  const [choice, setChoice] = useState<RestoreChoice>('conversation')
  const [restoring, setRestoring] = useState<WorkspaceState['restoring']>(undefined)

  useEffect(() => {
    if (!client) return
    let live = true
    // Without checkpoints (an older service, no sidecar) the tab is as it always was.
    client.overview(generation, force > 0).then(
      (r) => live && setOverview(r.ok ? r.value : undefined),
      () => live && setOverview(undefined),
    )
    return () => {
      live = false
    }
  }, [client, generation, force])

  const markers = useMemo(
    () => markersOf(overview, absorbed ?? new Set(), children ?? new Map()),
    [overview, absorbed, children],
  )
  const byNode = useMemo(() => new Map((overview?.nodes ?? []).map((n) => [n.nodeId, n.paths])), [overview])
  const pathsOf = useCallback((nodeId: string) => byNode.get(nodeId) ?? [], [byNode])
  const available = client !== undefined && overview?.status.available === true
  const route = useCallback(
    (move: TreeMove, conversation: () => void) => {
      if (!available || choice === 'conversation') return conversation()
      setRestoring({ move, restore: choice })
    },
    [available, choice],
  )
  const close = useCallback(() => setRestoring(undefined), [])
  const reload = useCallback(() => setForce((n) => n + 1), [])
  return { overview, markers, pathsOf, available, choice, setChoice, restoring, route, close, reload }
}
