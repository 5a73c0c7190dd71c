/**
 * "Take along: Conversation | Files | Both", beside the node actions. It
 * decides what Jump, Fork, Back and Forward move; Conversation (the default)
 * leaves them exactly as they were, the others open the restore preview.
 */
import { useId, type KeyboardEvent as ReactKeyboardEvent, type ReactNode } from 'react'
import type { RestoreChoice } from '../../types.ts'
import type { Translate } from '../i18n.ts'

const CHOICES: readonly RestoreChoice[] = ['conversation', 'files', 'both']

export function ChoicePicker({
  t,
  choice,
  setChoice,
  shellNote,
}: {
  readonly t: Translate
  readonly choice: RestoreChoice
  readonly setChoice: (choice: RestoreChoice) => void
  readonly shellNote?: string | undefined
}): ReactNode {
  // Unique per panel: two sessions' tabs may be on one page.
  const labelId = useId()
  // A radio group: one tab stop, the arrows move the choice (as a native radio group does).
  const onKeyDown = (event: ReactKeyboardEvent) => {
    const step =
      event.key === 'ArrowRight' || event.key === 'ArrowDown'
        ? 1
        : event.key === 'ArrowLeft' || event.key === 'ArrowUp'
          ? -1
          : 0
    if (step === 0) return
    event.preventDefault()
    const next = CHOICES[(CHOICES.indexOf(choice) + step + CHOICES.length) % CHOICES.length]!
    setChoice(next)
    const group = event.currentTarget as HTMLElement
    ;(group.querySelector(`[data-choice="${next}"]`) as HTMLElement | null)?.focus()
  }
  return (
    <div className="dst-ws-choice" title={t('ws.choice.title')}>
      <span id={labelId}>{t('ws.choice.label')}</span>
      <div
        className="dst-seg"
        role="radiogroup"
        aria-labelledby={labelId}
        data-testid="session-tree-restore-choice"
        onKeyDown={onKeyDown}
      >
        {CHOICES.map((c) => (
          <button
            key={c}
            type="button"
            role="radio"
            data-choice={c}
            aria-checked={choice === c}
            tabIndex={choice === c ? 0 : -1}
            onClick={() => setChoice(c)}
          >
            {t(`ws.choice.${c}`)}
          </button>
        ))}
      </div>
      {choice !== 'conversation' && shellNote ? <span className="dst-ws-note">{shellNote}</span> : null}
    </div>
  )
}
