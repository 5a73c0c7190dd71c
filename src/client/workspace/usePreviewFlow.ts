/**
 * The flow a files preview goes through (the restore's and the carry's):
 * loading, the plan with a decision per conflict, applying it, then done or
 * failed. Nothing is written before `apply`.
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { Result } from '../controller.ts'

export type PreviewPhase<P, R> =
  | { readonly kind: 'loading' }
  | { readonly kind: 'plan'; readonly plan: P }
  | { readonly kind: 'applying'; readonly plan: P }
  | { readonly kind: 'done'; readonly result: R }
  | {
      readonly kind: 'failed'
      readonly code: string
      readonly message: string
      /** The plan still shown under the error (none when it could not be read). */
      readonly plan?: P
      /** Only the conversation moved: the files stayed as they were. */
      readonly moved?: boolean
    }

/**
 * `read` asks for the plan (a new `read` asks again: memoize it); `keep` says
 * which decisions a new plan keeps (pure, so it may be a module constant).
 */
export function usePreviewFlow<P, R, D>(
  read: () => Promise<Result<P>>,
  keep: (plan: P, decisions: ReadonlyMap<string, D>) => ReadonlyMap<string, D>,
) {
  const [phase, setPhase] = useState<PreviewPhase<P, R>>({ kind: 'loading' })
  const [decisions, setDecisions] = useState<ReadonlyMap<string, D>>(() => new Map())
  const ref = useRef<HTMLElement>(null)

  const load = useCallback(
    async (then?: { code: string; message: string }) => {
      const preview = await read()
      if (!preview.ok) return setPhase({ kind: 'failed', code: preview.error.code, message: preview.error.message })
      const plan = preview.value
      setDecisions((d) => keep(plan, d))
      setPhase(then ? { kind: 'failed', ...then, plan } : { kind: 'plan', plan })
    },
    [read, keep],
  )

  useEffect(() => {
    void load()
    ref.current?.focus()
  }, [load])

  const plan = phase.kind === 'plan' || phase.kind === 'applying' || phase.kind === 'failed' ? phase.plan : undefined

  const decide = (path: string, decision: D) => setDecisions((all) => new Map(all).set(path, decision))

  /** Write `plan`; `applied` runs once anything changed, `movedOnly` tells an error after which only the conversation moved. */
  const apply = async (
    plan: P,
    write: () => Promise<Result<R>>,
    applied: () => void,
    movedOnly?: (details: unknown) => boolean,
  ) => {
    setPhase({ kind: 'applying', plan })
    const result = await write()
    if (result.ok) {
      setPhase({ kind: 'done', result: result.value })
      applied()
      return
    }
    const { code, message, details } = result.error
    if (movedOnly?.(details)) {
      applied()
      return setPhase({ kind: 'failed', code, message, moved: true })
    }
    // The files moved while the preview was open: the new plan, the error above it.
    if (code === 'WORKSPACE_CONFLICT') return void load({ code, message })
    setPhase({ kind: 'failed', code, message, plan })
  }

  return { phase, plan, decisions, decide, apply, ref }
}
