/** The fork and label form of the preview (validated before any round trip). */
import { useEffect, useRef } from 'react'
import type { ReactNode } from 'react'
import { typingProblem, type InputProblem } from '../commands.ts'
import type { StringKey, Translate } from '../i18n.ts'

export type FormState =
  | { readonly kind: 'fork'; readonly nodeId: string; readonly value: string; readonly problem?: InputProblem }
  | { readonly kind: 'label'; readonly nodeId: string; readonly value: string; readonly problem?: InputProblem }

export function NodeForm({
  t,
  form,
  setForm,
  onSubmit,
  onCancel,
  busy,
}: {
  readonly t: Translate
  readonly form: FormState
  readonly setForm: (form: FormState | undefined) => void
  readonly onSubmit: () => void
  readonly onCancel: () => void
  readonly busy: boolean
}): ReactNode {
  const inputRef = useRef<HTMLInputElement>(null)
  useEffect(() => {
    inputRef.current?.focus()
    inputRef.current?.select()
  }, [form.kind, form.nodeId])
  const id = `dst-form-${form.kind}`
  return (
    <form
      className="dst-form"
      data-testid={`session-tree-${form.kind}-form`}
      onSubmit={(event) => {
        event.preventDefault()
        onSubmit()
      }}
    >
      <label htmlFor={id}>{form.kind === 'fork' ? t('form.branchName') : t('form.label')}</label>
      <input
        id={id}
        ref={inputRef}
        value={form.value}
        aria-invalid={form.problem !== undefined}
        aria-describedby={form.problem ? `${id}-problem` : undefined}
        // No maxLength: the browser would cut a pasted name without a word; the problem says it instead.
        onChange={(event) =>
          setForm({
            ...form,
            value: event.target.value,
            problem: typingProblem(form.kind, event.target.value),
          } as FormState)
        }
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.preventDefault()
            onCancel()
          }
        }}
      />
      {form.problem ? (
        <span className="dst-problem" role="alert" id={`${id}-problem`} data-testid="session-tree-form-problem">
          {t(`problem.${form.problem}` as StringKey, { length: form.value.trim().length })}
        </span>
      ) : null}
      <span className="dst-row-actions">
        <button type="submit" className="dst-btn dst-primary" disabled={busy || form.problem !== undefined}>
          {form.kind === 'fork' ? t('form.create') : t('form.save')}
        </button>
        <button type="button" className="dst-btn" onClick={onCancel}>
          {t('form.cancel')}
        </button>
      </span>
    </form>
  )
}
