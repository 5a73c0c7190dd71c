/**
 * The Tree tab's compare state: whether the compare view is open, and the
 * "Compare with…" pick in progress (the first node, then the second).
 */
import { useCallback, useState } from 'react'
import { pickRow, type ComparePick } from './CompareWith.tsx'

export interface ComparePicking {
  readonly comparing: boolean
  readonly open: () => void
  readonly close: () => void
  readonly pick: ComparePick | undefined
  readonly setPick: (pick: ComparePick | undefined) => void
  /** Take `id` as the pick's second node; false when it cannot be (the first node again). */
  readonly pickTo: (id: string) => boolean
}

export function useComparePick(): ComparePicking {
  const [comparing, setComparing] = useState(false)
  const [pick, setPick] = useState<ComparePick | undefined>(undefined)
  const open = useCallback(() => setComparing(true), [])
  const close = useCallback(() => {
    setComparing(false)
    setPick(undefined)
  }, [])
  const pickTo = useCallback(
    (id: string): boolean => {
      const picked = pickRow(pick, id)
      if (!picked) return false
      setPick(picked)
      setComparing(true)
      return true
    },
    [pick],
  )
  return { comparing, open, close, pick, setPick, pickTo }
}
