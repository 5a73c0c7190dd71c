/**
 * Performance measures of the Tree tab's first paint: from the panel's
 * `session-tree:mount` mark (set on its first render) to the frame after the
 * first rows were committed, and the panel's own share (from the validated
 * `list` result to that frame). Recorded, never judged here: the
 * budgets live in `npm run bench`.
 */
import { useLayoutEffect, useRef } from 'react'
import type { Layout } from '../../outline/index.ts'
import { afterPaint, mark } from './dom.ts'

export function usePaintMarks(layout: Layout | undefined): void {
  const painted = useRef(false)
  useLayoutEffect(() => {
    if (painted.current || !layout) return
    painted.current = true
    afterPaint(() => {
      mark('session-tree:first-paint-end')
      if (typeof performance === 'undefined' || typeof performance.measure !== 'function') return
      performance.measure('session-tree:first-paint', 'session-tree:mount', 'session-tree:first-paint-end')
      if (performance.getEntriesByName('session-tree:list-end').length > 0)
        performance.measure('session-tree:render', 'session-tree:list-end', 'session-tree:first-paint-end')
    })
  }, [layout])
}
