/**
 * The session header button that opens the Tree tab. The host keeps the active
 * view in ui-conversation's private per-session store and offers no API to
 * select a tab from another plugin, so the button presses the header's own
 * tab button (`[role="tab"]` with the Tree label, in this session's header).
 */
import type { ReactNode } from 'react'
import { DICTIONARIES, type HostLocale } from './i18n.ts'
import { useTranslate } from './useTranslate.ts'

export interface OpenTreeActionProps {
  readonly hostLocale: () => HostLocale | undefined
}

/** Every label the Tree tab can have (it follows the locale). */
const TAB_LABELS = new Set(Object.values(DICTIONARIES).map((dict) => dict.tab))

/** Press the Tree tab of the header that holds `from`; false when there is none. */
export function openTreeTab(from: Element): boolean {
  const scope = from.closest('header') ?? from.ownerDocument
  for (const tab of Array.from(scope.querySelectorAll<HTMLElement>('[role="tab"]'))) {
    if (TAB_LABELS.has((tab.textContent ?? '').trim())) {
      tab.click()
      return true
    }
  }
  return false
}

export function OpenTreeAction({ hostLocale }: OpenTreeActionProps): ReactNode {
  const { t } = useTranslate(hostLocale)
  return (
    <button
      type="button"
      className="dst-open"
      title={t('action.openTitle')}
      data-testid="session-tree-open"
      onClick={(event) => void openTreeTab(event.currentTarget)}
    >
      <svg viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.5" aria-hidden="true">
        <circle cx="4" cy="3" r="1.6" />
        <circle cx="4" cy="13" r="1.6" />
        <circle cx="12" cy="8" r="1.6" />
        <path d="M4 4.6v6.8M4 8h2.5a3 3 0 0 0 3-3V5M10.4 8H9.5" />
      </svg>
      {t('action.open')}
    </button>
  )
}
