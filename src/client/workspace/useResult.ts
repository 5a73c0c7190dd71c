/** One remote read tied to its inputs: re-asked when `key` changes, stale answers dropped. */
import { useEffect, useState } from 'react'
import type { Result } from '../controller.ts'

export type Load<T> =
  | { readonly phase: 'loading' }
  | { readonly phase: 'done'; readonly value: T }
  | { readonly phase: 'error'; readonly code: string; readonly message: string }

export function useResult<T>(key: string | undefined, load: () => Promise<Result<T>>): Load<T> | undefined {
  const [state, setState] = useState<{ key: string; load: Load<T> } | undefined>(undefined)
  useEffect(() => {
    if (key === undefined) return
    let live = true
    setState({ key, load: { phase: 'loading' } })
    load().then(
      (result) =>
        live &&
        setState({
          key,
          load: result.ok
            ? { phase: 'done', value: result.value }
            : { phase: 'error', code: result.error.code, message: result.error.message },
        }),
      (reason: unknown) =>
        live && setState({ key, load: { phase: 'error', code: 'CLIENT_ERROR', message: String(reason) } }),
    )
    return () => {
      live = false
    }
    // `load` is a fresh closure every render: the key says when the question changed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key])
  if (key === undefined) return undefined
  return state?.key === key ? state.load : { phase: 'loading' }
}
