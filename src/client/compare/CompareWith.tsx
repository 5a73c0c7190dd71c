/**
 * "Compare with…" on any node: the button in the node's actions starts a
 * pick, the banner says what to do (click a second node, or select it and
 * press Enter; Esc cancels), and the compare view then opens on the two.
 */
import type { ReactNode } from 'react'
import type { Locale } from '../i18n.ts'
import { compareStrings } from './strings.ts'

/** A pick in progress (`to` unset) or done (the view shows `from` against `to`). */
export interface ComparePick {
  readonly from: string
  readonly to?: string
}

/** What a click on row `id` does to a pick in progress: picks it (not the node it started from). */
export function pickRow(pick: ComparePick | undefined, id: string): ComparePick | undefined {
  if (!pick || pick.to !== undefined || id === pick.from) return undefined
  return { from: pick.from, to: id }
}

export function ComparePickBanner({
  locale,
  from,
  onCancel,
}: {
  readonly locale: Locale
  readonly from: string
  readonly onCancel: () => void
}): ReactNode {
  const t = compareStrings(locale)
  return (
    <p className="dst-banner" data-tone="info" role="status" data-testid="session-tree-compare-pick">
      <span>{t('picking', { id: from })}</span>
      <button type="button" className="dst-btn" onClick={onCancel}>
        {t('cancel')}
      </button>
    </p>
  )
}
