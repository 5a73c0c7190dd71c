/** Small browser helpers of the Tree tab: performance marks, paint timing, downloads, DOM ids, display formats. */
import type { LinearExport } from '../../types.ts'
import type { Locale } from '../i18n.ts'

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
  downloadText(name, `${JSON.stringify(data, null, 2)}\n`, 'application/json')
}

/** Offer `text` as a file download. */
export function downloadText(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }))
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
export const rowDomId = (id: string): string =>
  `dst-row-${id.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`

/** Tool arguments, pretty-printed when they are a JSON object. */
export function prettyArgs(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args)
    return typeof parsed === 'object' && parsed !== null ? JSON.stringify(parsed, null, 2) : args
  } catch {
    return args
  }
}

/** The BCP 47 tag DSH puts on `<html lang>` for its UI locale (`zh-CN` / `en`). */
export const languageTag = (locale: Locale): string => (locale === 'zh' ? 'zh-CN' : 'en')

const formats = new Map<Locale, Intl.DateTimeFormat>()

/** A date and time in the DSH UI locale (not the browser's): `2026年12月1日 13:45`, `Dec 1, 2026, 1:45 PM`. */
export function formatTime(iso: string, locale: Locale): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  let format = formats.get(locale)
  if (!format) {
    format = new Intl.DateTimeFormat(languageTag(locale), { dateStyle: 'medium', timeStyle: 'short' })
    formats.set(locale, format)
  }
  return format.format(date)
}
