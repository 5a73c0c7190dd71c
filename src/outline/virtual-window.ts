/** The virtual window of a long row list: which rows to render, and the scroll that reveals one. */

/** The slice of rows to render for a scroll position (overscan on both sides). */
export function visibleRange(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  count: number,
  overscan = 8,
): { start: number; end: number } {
  if (count === 0 || rowHeight <= 0) return { start: 0, end: 0 }
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight)
  const last = Math.ceil((Math.max(0, scrollTop) + Math.max(0, viewportHeight)) / rowHeight)
  const start = Math.max(0, Math.min(count, first - overscan))
  const end = Math.max(start, Math.min(count, last + overscan))
  return { start, end }
}

/** The scrollTop that brings a row into view (unchanged when it already is). */
export function scrollToReveal(rowIndex: number, scrollTop: number, viewportHeight: number, rowHeight: number): number {
  const top = rowIndex * rowHeight
  const bottom = top + rowHeight
  if (top < scrollTop) return top
  if (bottom > scrollTop + viewportHeight) return Math.max(0, bottom - viewportHeight)
  return scrollTop
}
