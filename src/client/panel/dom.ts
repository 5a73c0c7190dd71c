/** Small browser helpers of the Tree tab: performance marks, paint timing, downloads, DOM ids, display formats. */
import type { LinearExport } from '../../types.ts'

export function mark(name: string): void {
  if (typeof performance !== 'undefined' && typeof performance.mark === 'function') performance.mark(name)
}

/** Call `fn` after the browser painted the current frame. */
export function afterPaint(fn: () => void): void {
  if (typeof requestAnimationFrame !== 'function') {
    setTimeout(fn, 0)
    return
  }
  requestAnimationFrame(() => setTimeout(fn, 0))
}

/** Offer `data` as a JSON file download. */
export function download(name: string, data: LinearExport): void {
  const blob = new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: 'application/json' })
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = name
  a.rel = 'noopener'
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** A DOM id for a row (node ids may hold any character). */
export const rowDomId = (id: string): string => `dst-row-${id.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`

/** Tool arguments, pretty-printed when they are a JSON object. */
export function prettyArgs(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args)
    return typeof parsed === 'object' && parsed !== null ? JSON.stringify(parsed, null, 2) : args
  } catch {
    return args
  }
}

export function formatTime(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString()
}
