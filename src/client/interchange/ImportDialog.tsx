/**
 * The Tree tab's "Import…": a real file input, then a dry run of the service's
 * `importSession` (the file's text as an upload) whose report and branch list
 * are shown before anything is written; "Create session" runs the same import
 * for real and offers to open the new session. A file above the upload limit
 * is refused before it is read; a failure shows the service's code, and
 * nothing was written.
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { KeyboardEvent as ReactKeyboardEvent, ReactNode } from 'react'
import type { ImportResult } from '../../types.ts'
import type { Locale } from '../i18n.ts'
import {
  formatBytes,
  MAX_UPLOAD_BYTES,
  readSessionFile,
  uploadRequest,
  type InterchangeActions,
  type InterchangeFailure,
} from './files.ts'
import { ImportPreviewView } from './ImportPreview.tsx'
import { interchangeStrings, type InterchangeStrings } from './strings.ts'

/** Where the dialog is. The file's text is kept from the preview to the import (the same bytes are imported). */
type Step =
  | { readonly kind: 'reading'; readonly name: string }
  | {
      readonly kind: 'preview'
      readonly name: string
      readonly size: number
      readonly text: string
      readonly result: ImportResult
      readonly creating: boolean
    }
  | { readonly kind: 'done'; readonly result: ImportResult }
  | { readonly kind: 'error'; readonly name: string; readonly failure: InterchangeFailure }

export interface ImportControlProps {
  readonly locale: Locale
  readonly actions: InterchangeActions
}

export function ImportControl({ locale, actions }: ImportControlProps): ReactNode {
  const s = interchangeStrings(locale)
  const inputRef = useRef<HTMLInputElement>(null)
  const buttonRef = useRef<HTMLButtonElement>(null)
  const [step, setStep] = useState<Step | undefined>(undefined)
  // A later file (or a closed dialog) makes an answer to an earlier one stale.
  const generation = useRef(0)

  const close = useCallback(() => {
    generation.current++
    setStep(undefined)
    buttonRef.current?.focus()
  }, [])

  const onFile = useCallback(
    async (file: File) => {
      const mine = ++generation.current
      setStep({ kind: 'reading', name: file.name })
      const read = await readSessionFile(file)
      if (mine !== generation.current) return
      if ('tooLarge' in read) {
        setStep({
          kind: 'error',
          name: file.name,
          failure: { code: 'TOO_LARGE', message: s.tooLarge(formatBytes(file.size), formatBytes(MAX_UPLOAD_BYTES)) },
        })
        return
      }
      const result = await actions.importSession(uploadRequest(read.text, true))
      if (mine !== generation.current) return
      if (!result.ok) setStep({ kind: 'error', name: file.name, failure: result.error })
      else
        setStep({
          kind: 'preview',
          name: file.name,
          size: file.size,
          text: read.text,
          result: result.value,
          creating: false,
        })
    },
    [actions, s],
  )

  const create = useCallback(async () => {
    if (step?.kind !== 'preview' || step.creating) return
    const mine = ++generation.current
    setStep({ ...step, creating: true })
    const result = await actions.importSession(uploadRequest(step.text, false))
    if (mine !== generation.current) return
    if (!result.ok) setStep({ kind: 'error', name: step.name, failure: result.error })
    else setStep({ kind: 'done', result: result.value })
  }, [actions, step])

  const open = useCallback(
    async (sessionId: string) => {
      close()
      await actions.openSession(sessionId)
    },
    [actions, close],
  )

  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        className="dst-btn"
        title={s.importTitle}
        aria-haspopup="dialog"
        data-testid="session-tree-import"
        onClick={() => inputRef.current?.click()}
      >
        ⤒ {s.importButton}
      </button>
      <input
        ref={inputRef}
        type="file"
        className="dsx-file"
        accept=".jsonl,.json,application/json,application/x-ndjson,text/plain"
        tabIndex={-1}
        aria-hidden="true"
        data-testid="session-tree-import-file"
        onChange={(event) => {
          const file = event.target.files?.[0]
          // Cleared at once, so the same file can be picked again.
          event.target.value = ''
          if (file) void onFile(file)
        }}
      />
      {step ? (
        <Dialog s={s} step={step} onClose={close} onCreate={() => void create()} onOpen={(id) => void open(id)} />
      ) : null}
    </>
  )
}

interface DialogProps {
  readonly s: InterchangeStrings
  readonly step: Step
  readonly onClose: () => void
  readonly onCreate: () => void
  readonly onOpen: (sessionId: string) => void
}

function Dialog({ s, step, onClose, onCreate, onOpen }: DialogProps): ReactNode {
  const ref = useRef<HTMLDivElement>(null)
  // Focus the step's main button (else the dialog itself) whenever the step changes.
  useEffect(() => {
    const main = ref.current?.querySelector<HTMLElement>('[data-autofocus]:not(:disabled)')
    ;(main ?? ref.current)?.focus()
  }, [step.kind])

  const onKeyDown = (event: ReactKeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault()
      event.stopPropagation()
      if (!(step.kind === 'preview' && step.creating)) onClose()
      return
    }
    if (event.key !== 'Tab' || !ref.current) return
    // Keep Tab inside the dialog.
    const focusable = Array.from(
      ref.current.querySelectorAll<HTMLElement>('button:not(:disabled), summary, [tabindex="0"]'),
    )
    if (focusable.length === 0) return
    const first = focusable[0]!
    const last = focusable.at(-1)!
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault()
      last.focus()
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault()
      first.focus()
    }
  }

  let body: ReactNode
  let buttons: ReactNode
  if (step.kind === 'reading') {
    body = (
      <p className="dsx-status" role="status">
        <span className="dst-spinner" aria-hidden="true" />
        {s.reading(step.name)}
      </p>
    )
    buttons = (
      <button type="button" className="dst-btn" onClick={onClose}>
        {s.cancel}
      </button>
    )
  } else if (step.kind === 'error') {
    body = (
      <div className="dsx-error" role="alert" data-testid="session-tree-import-error" data-code={step.failure.code}>
        <strong>{s.errorTitle}</strong>
        <p>{s.errorByCode(step.failure.code)}</p>
        <p className="dsx-detail">
          <span className="dst-code">{step.failure.code}</span> {step.failure.message}
        </p>
      </div>
    )
    buttons = (
      <button type="button" className="dst-btn" data-autofocus="" onClick={onClose}>
        {s.close}
      </button>
    )
  } else if (step.kind === 'preview') {
    body = <ImportPreviewView s={s} name={step.name} size={formatBytes(step.size)} result={step.result} />
    buttons = (
      <>
        <button type="button" className="dst-btn" disabled={step.creating} onClick={onClose}>
          {s.cancel}
        </button>
        <button
          type="button"
          className="dst-btn dst-primary"
          disabled={step.creating}
          data-autofocus=""
          data-testid="session-tree-import-confirm"
          onClick={onCreate}
        >
          {step.creating ? s.creating : s.confirm}
        </button>
      </>
    )
  } else {
    body = (
      <p
        className="dsx-done"
        role="status"
        data-testid="session-tree-import-done"
        data-session-id={step.result.sessionId ?? ''}
      >
        {s.created(step.result.title ?? (step.result.preview.shown[0]?.firstPrompt || step.result.sessionId || ''))}
      </p>
    )
    buttons = (
      <>
        <button type="button" className="dst-btn" onClick={onClose}>
          {s.close}
        </button>
        <button
          type="button"
          className="dst-btn dst-primary"
          data-autofocus=""
          data-testid="session-tree-import-open"
          onClick={() => onOpen(step.result.sessionId!)}
        >
          {s.open}
        </button>
      </>
    )
  }

  return (
    <div
      className="dsx-overlay"
      onMouseDown={(event) => {
        if (event.target === event.currentTarget && step.kind !== 'preview') onClose()
      }}
    >
      <div
        ref={ref}
        className="dsx-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="dsx-import-title"
        tabIndex={-1}
        data-testid="session-tree-import-dialog"
        onKeyDown={onKeyDown}
      >
        <h3 id="dsx-import-title">{s.dialogTitle}</h3>
        <div className="dsx-body">{body}</div>
        <div className="dsx-buttons">{buttons}</div>
      </div>
    </div>
  )
}
