/**
 * The Tree tab's selection follows the cursor while it is on it (a new
 * prompt, a move from `/tree` or the model carry it to the new tip); a node
 * the user selected elsewhere stays selected (pinned) until they select the
 * cursor again (or press `c`). A vanished selection falls back to the cursor.
 */
import { useEffect, useLayoutEffect, useRef } from 'react'
import type { MutableRefObject } from 'react'
import { unfoldTo, type Layout, type TreeIndex } from '../../outline/index.ts'

export interface FollowCursor {
  readonly index: TreeIndex | undefined
  readonly layout: Layout | undefined
  readonly selected: string | null
  readonly setSelected: (id: string | null) => void
  readonly setFolded: (update: (folded: ReadonlySet<string>) => ReadonlySet<string>) => void
  readonly reveal: (id: string) => void
}

/** Returns the row to bring into view after the next layout (set it to reveal one). */
export function useFollowCursor({
  index,
  layout,
  selected,
  setSelected,
  setFolded,
  reveal,
}: FollowCursor): MutableRefObject<string | null> {
  const lastCursor = useRef<string | null | undefined>(undefined)
  const revealNext = useRef<string | null>(null)
  useEffect(() => {
    if (!index) return
    const cursor = index.view.cursor
    const previous = lastCursor.current
    lastCursor.current = cursor
    const follow =
      selected === null ||
      !index.byId.has(selected) ||
      (previous !== undefined && cursor !== previous && selected === previous)
    const target = follow ? (cursor ?? index.order[0] ?? null) : selected
    // A request drawn as its call's row is selected as that row.
    const shown = target !== null && index.absorbed.has(target) ? (index.children.get(target)?.[0] ?? target) : target
    if (shown !== selected) {
      setSelected(shown)
      setFolded((f) => unfoldTo(index, f, shown))
      if (previous !== undefined) revealNext.current = shown
    }
  }, [index, selected, setSelected, setFolded])
  useLayoutEffect(() => {
    if (revealNext.current === null || !layout) return
    const id = revealNext.current
    revealNext.current = null
    reveal(id)
  }, [layout, reveal])
  return revealNext
}
