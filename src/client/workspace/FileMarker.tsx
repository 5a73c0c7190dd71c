/** A tree row's files marker: a small file glyph and how many files the node changed. */
import type { ReactNode } from 'react'
import type { Translate } from '../i18n.ts'

export function FileMarker({ t, count }: { readonly t: Translate; readonly count: number | undefined }): ReactNode {
  if (!count) return null
  const title = t('ws.markerTitle', { count })
  return (
    <span className="dst-badge" data-type="files" data-count={count} title={title} aria-label={title}>
      <svg viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden="true">
        <path d="M4 1.75h5l3 3v9.5H4z" />
        <path d="M9 1.75v3h3" />
      </svg>
      {t('ws.marker', { count })}
    </span>
  )
}
