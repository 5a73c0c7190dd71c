/**
 * The tree's virtual window: which slice of the rows is in view (from the
 * scroll container's scroll position and height, kept current by a
 * ResizeObserver), `reveal` to scroll a row into view, and the first-mount
 * scroll that centres the cursor.
 */
import { useCallback, useLayoutEffect, useRef, useState } from 'react'
import type { RefObject } from 'react'
import { scrollToReveal, visibleRange, type Layout, type TreeIndex } from '../../outline/index.ts'
import { ROW_HEIGHT } from '../styles.ts'

export interface VirtualWindow {
  /** Row indexes [start, end) to render. */
  readonly range: { readonly start: number; readonly end: number }
  readonly onScroll: () => void
  /** Scroll so the row of `id` is in view (no-op when it is not a visible row). */
  readonly reveal: (id: string | null) => void
}

/**
 * A scroll container's scroll position and height, kept current by a
 * ResizeObserver and `measure` (its scroll handler); observed anew when
 * `mounted` changes (the container is then another element).
 */
export function useScrollViewport(
  ref: RefObject<HTMLElement>,
  initialHeight: number,
  mounted: unknown,
): { readonly viewport: { readonly top: number; readonly height: number }; readonly measure: () => void } {
  const [viewport, setViewport] = useState({ top: 0, height: initialHeight })
  const measure = useCallback(() => {
    const el = ref.current
    if (!el) return
    setViewport((v) =>
      v.top === el.scrollTop && v.height === el.clientHeight
        ? v
        : { top: el.scrollTop, height: el.clientHeight || v.height },
    )
  }, [])
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    measure()
    if (typeof ResizeObserver === 'undefined') return
    const observer = new ResizeObserver(measure)
    observer.observe(el)
    return () => observer.disconnect()
  }, [mounted])
  return { viewport, measure }
}

export function useVirtualWindow(
  treeRef: RefObject<HTMLDivElement>,
  layout: Layout | undefined,
  index: TreeIndex | undefined,
): VirtualWindow {
  const { viewport, measure: onScroll } = useScrollViewport(treeRef, 600, layout !== undefined)

  const reveal = useCallback(
    (id: string | null) => {
      const el = treeRef.current
      if (!el || !layout || id === null) return
      const at = layout.indexOf.get(id)
      if (at === undefined) return
      const top = scrollToReveal(at, el.scrollTop, el.clientHeight || viewport.height, ROW_HEIGHT)
      if (top !== el.scrollTop) el.scrollTop = top
    },
    [layout, viewport.height],
  )

  // Bring the cursor into view on the first tree of this mount.
  const revealedOnce = useRef(false)
  useLayoutEffect(() => {
    if (revealedOnce.current || !layout || !index) return
    revealedOnce.current = true
    const target = index.view.cursor
    const el = treeRef.current
    const at = target === null ? undefined : layout.indexOf.get(target)
    if (el && at !== undefined) {
      el.scrollTop = Math.max(0, at * ROW_HEIGHT - el.clientHeight / 2)
      onScroll()
    }
  }, [layout, index, onScroll])

  const range = visibleRange(viewport.top, viewport.height, ROW_HEIGHT, layout?.rows.length ?? 0)
  return { range, onScroll, reveal }
}
