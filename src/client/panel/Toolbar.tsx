/**
 * The Tree tab's toolbar: the filter segments, the search box and its count,
 * and the session-wide actions (Back, Forward, Export). A new session-wide
 * action is one more entry in `SessionActions` below.
 */
import type { KeyboardEvent as ReactKeyboardEvent, ReactNode, RefObject } from 'react'
import type { StringKey, Translate } from '../i18n.ts'
import { FILTER_MODES, type FilterMode } from '../../outline/index.ts'

export interface ToolbarProps {
  readonly t: Translate
  readonly filter: FilterMode
  readonly setFilter: (filter: FilterMode) => void
  readonly query: string
  readonly setQuery: (query: string) => void
  readonly searchRef: RefObject<HTMLInputElement>
  readonly onSearchKey: (event: ReactKeyboardEvent<HTMLInputElement>) => void
  readonly shown: number
  readonly total: number
  readonly actions: SessionActionsProps
  /** Further session-wide controls after the actions (the compare view's button). */
  readonly extra?: ReactNode
}

export function Toolbar(props: ToolbarProps): ReactNode {
  const { t } = props
  return (
    <div className="dst-toolbar">
      <div className="dst-seg" role="radiogroup" aria-label={t('filter.label')}>
        {FILTER_MODES.map((mode) => (
          <button
            key={mode}
            type="button"
            role="radio"
            aria-checked={props.filter === mode}
            onClick={() => props.setFilter(mode)}
          >
            {t(`filter.${mode}` as StringKey)}
          </button>
        ))}
      </div>
      <label className="dst-search">
        <svg viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden="true">
          <circle cx="7" cy="7" r="4.5" />
          <path d="m10.5 10.5 3.5 3.5" />
        </svg>
        <input
          ref={props.searchRef}
          // A text box with the search role: a `type="search"` box would add the browser's own clear button beside ours.
          type="text"
          role="searchbox"
          value={props.query}
          placeholder={t('search.placeholder')}
          aria-label={t('search.label')}
          onChange={(event) => props.setQuery(event.target.value)}
          onKeyDown={props.onSearchKey}
        />
        {props.query ? (
          <button type="button" aria-label={t('search.clear')} onClick={() => props.setQuery('')}>
            ×
          </button>
        ) : null}
      </label>
      <span className="dst-count" aria-live="polite">
        {t('search.count', { shown: props.shown, total: props.total })}
      </span>
      <span className="dst-spacer" />
      <SessionActions {...props.actions} />
      {props.extra}
    </div>
  )
}

/** Session-wide actions (not tied to the selected node). */
export interface SessionActionsProps {
  readonly t: Translate
  readonly canBack: boolean
  readonly canForward: boolean
  readonly canExport: boolean
  readonly onBack: () => void
  readonly onForward: () => void
  readonly onExport: () => void
  /** Replaces the Export button (the formats menu of `interchange/ExportMenu.tsx`, which offers this digest too). */
  readonly exportMenu?: ReactNode
}

export function SessionActions({
  t,
  canBack,
  canForward,
  canExport,
  onBack,
  onForward,
  onExport,
  exportMenu,
}: SessionActionsProps): ReactNode {
  return (
    <span className="dst-session-actions">
      <button type="button" className="dst-btn" disabled={!canBack} title={t('nav.backTitle')} onClick={onBack}>
        ← {t('nav.back')}
      </button>
      <button
        type="button"
        className="dst-btn"
        disabled={!canForward}
        title={t('nav.forwardTitle')}
        onClick={onForward}
      >
        {t('nav.forward')} →
      </button>
      {exportMenu ?? (
        <button type="button" className="dst-btn" disabled={!canExport} title={t('nav.exportTitle')} onClick={onExport}>
          ⤓ {t('nav.export')}
        </button>
      )}
    </span>
  )
}
