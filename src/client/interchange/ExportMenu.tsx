/**
 * The Tree tab's Export menu: Pi JSONL, Claude Code JSONL and Markdown through
 * the service's `exportAs` in its inline mode (the file's text comes back and
 * is downloaded; nothing is written on the host), and the panel's own digest
 * of the active path (JSON). A menu button: Enter, Space or ↓ opens it, ↑/↓
 * move, Escape closes it.
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { KeyboardEvent as ReactKeyboardEvent, ReactNode } from 'react'
import type { ExportFormat } from '../../types.ts'
import type { Locale } from '../i18n.ts'
import { exportFileName, type InterchangeActions, type InterchangeFailure } from './files.ts'
import { downloadText } from '../panel/dom.ts'
import { interchangeStrings } from './strings.ts'

type Choice = ExportFormat | 'linear'
const CHOICES: readonly Choice[] = ['pi', 'claude-code', 'markdown', 'linear']
const MEDIA: Readonly<Record<ExportFormat, string>> = {
  pi: 'application/x-ndjson',
  'claude-code': 'application/x-ndjson',
  markdown: 'text/markdown',
}

export interface ExportMenuProps {
  readonly locale: Locale
  readonly sessionId: string
  readonly actions: InterchangeActions
  readonly disabled: boolean
  /** The panel's digest download (the former Export button). */
  readonly onLinear: () => void
}

export function ExportMenu({ locale, sessionId, actions, disabled, onLinear }: ExportMenuProps): ReactNode {
  const s = interchangeStrings(locale)
  const [open, setOpen] = useState(false)
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<
    { readonly ok: string } | { readonly failure: InterchangeFailure } | undefined
  >(undefined)
  const buttonRef = useRef<HTMLButtonElement>(null)
  const menuRef = useRef<HTMLDivElement>(null)
  const items = () => Array.from(menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])

  useEffect(() => {
    if (!open) return
    items()[0]?.focus()
    const outside = (event: MouseEvent) => {
      if (!menuRef.current?.contains(event.target as Node) && !buttonRef.current?.contains(event.target as Node))
        setOpen(false)
    }
    document.addEventListener('mousedown', outside)
    return () => document.removeEventListener('mousedown', outside)
  }, [open])

  // The note reports the download just made, not the state for ever.
  useEffect(() => {
    if (!outcome || !('ok' in outcome)) return
    const timer = setTimeout(() => setOutcome(undefined), 6000)
    return () => clearTimeout(timer)
  }, [outcome])

  const choose = useCallback(
    async (choice: Choice) => {
      setOpen(false)
      buttonRef.current?.focus()
      if (choice === 'linear') {
        onLinear()
        return
      }
      setBusy(true)
      setOutcome(undefined)
      try {
        const result = await actions.exportAs({ agentId: sessionId, format: choice, path: null, inline: true })
        if (!result.ok) return setOutcome({ failure: result.error })
        const name = exportFileName(choice, result.value.fileSessionId)
        downloadText(name, result.value.content ?? '', MEDIA[choice])
        setOutcome({ ok: s.exported(name, result.value.lines) })
      } finally {
        setBusy(false)
      }
    },
    [actions, sessionId, onLinear, s],
  )

  const onButtonKey = (event: ReactKeyboardEvent<HTMLButtonElement>) => {
    if (event.key === 'ArrowDown' && !disabled) {
      event.preventDefault()
      setOpen(true)
    }
  }
  const onMenuKey = (event: ReactKeyboardEvent<HTMLDivElement>) => {
    const list = items()
    const at = list.indexOf(document.activeElement as HTMLElement)
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault()
      list[(at + (event.key === 'ArrowDown' ? 1 : list.length - 1)) % list.length]?.focus()
    } else if (event.key === 'Home' || event.key === 'End') {
      event.preventDefault()
      list[event.key === 'Home' ? 0 : list.length - 1]?.focus()
    } else if (event.key === 'Escape') {
      event.preventDefault()
      event.stopPropagation()
      setOpen(false)
      buttonRef.current?.focus()
    } else if (event.key === 'Tab') {
      setOpen(false)
    }
  }

  return (
    <span className="dsx-export">
      <button
        ref={buttonRef}
        type="button"
        className="dst-btn"
        title={s.exportTitle}
        aria-haspopup="menu"
        aria-expanded={open}
        disabled={disabled || busy}
        data-testid="session-tree-export"
        onClick={() => setOpen((o) => !o)}
        onKeyDown={onButtonKey}
      >
        ⤓ {s.exportButton} ▾
      </button>
      {open ? (
        <div ref={menuRef} className="dsx-menu" role="menu" aria-label={s.exportButton} onKeyDown={onMenuKey}>
          {CHOICES.map((choice) => (
            <button
              key={choice}
              type="button"
              role="menuitem"
              tabIndex={-1}
              data-format={choice}
              onClick={() => void choose(choice)}
            >
              <span>{s.exportFormat(choice)}</span>
              <small>{s.exportHint(choice)}</small>
            </button>
          ))}
        </div>
      ) : null}
      {outcome ? (
        'ok' in outcome ? (
          <span className="dsx-export-note" role="status">
            {outcome.ok}
          </span>
        ) : (
          <span className="dsx-export-note dsx-export-error" role="alert" data-code={outcome.failure.code}>
            <span className="dst-code">{outcome.failure.code}</span> {outcome.failure.message}
          </span>
        )
      ) : null}
    </span>
  )
}
