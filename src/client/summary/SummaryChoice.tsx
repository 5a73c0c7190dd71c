/**
 * The summary choice shown with Jump and Fork (when the move leaves part of
 * the path behind): no summary (the default), a summary, or a summary with
 * the user's own instructions; and, after a move that wrote one, what was
 * written, by whom, at what token cost.
 */
import type { ReactNode } from 'react'
import type { BranchSummary, SurfaceMode } from '../../types.ts'
import type { Translate } from '../i18n.ts'
import { MAX_SUMMARY_INSTRUCTIONS } from '../../tree/summary-rules.ts'
import { instructionsProblem, type SummaryChoiceKind, type SummaryChoiceState } from './choice.ts'
import { stringsFor, writerLine } from './SummaryNotes.tsx'

const CSS = `
.dst-summary-choice { border: 1px solid var(--dst-border); border-radius: 8px; padding: 6px 10px 8px; margin: 0 0 8px; display: flex; flex-direction: column; gap: 4px; min-width: 0; }
.dst-summary-choice legend { font-size: 12px; color: var(--dst-fg2); padding: 0 4px; }
.dst-summary-choice label { display: flex; align-items: center; gap: 6px; font-size: 13px; cursor: pointer; }
.dst-summary-choice textarea { border: 1px solid var(--dst-border-strong); border-radius: 6px; padding: 5px 8px; font: inherit; font-size: 13px; color: var(--dst-fg); background: var(--dst-bg); resize: vertical; min-height: 3.2em; width: 100%; box-sizing: border-box; }
.dst-summary-choice textarea:focus { outline: 2px solid var(--dst-accent); outline-offset: 0; }
.dst-summary-choice .dst-problem { color: var(--dst-error); font-size: 12px; }
`

const KINDS: readonly SummaryChoiceKind[] = ['none', 'summarize', 'custom']

export interface SummaryChoiceProps {
  readonly t: Translate
  readonly state: SummaryChoiceState
  readonly onChange: (state: SummaryChoiceState) => void
  readonly mode: SurfaceMode | undefined
  readonly busy: boolean
  /** Another legend and note (a carry's summary is of another branch, read here). */
  readonly legend?: string
  readonly note?: string
}

export function SummaryChoiceField({ t, state, onChange, mode, busy, legend, note }: SummaryChoiceProps): ReactNode {
  const s = stringsFor(t)
  const label = { none: s.choiceNone, summarize: s.choiceSummarize, custom: s.choiceCustom }
  const problem = instructionsProblem(state)
  return (
    <fieldset className="dst-summary-choice" data-testid="session-tree-summary-choice" disabled={busy}>
      <style>{CSS}</style>
      <legend>{legend ?? s.choiceLegend}</legend>
      {KINDS.map((kind) => (
        <label key={kind}>
          <input
            type="radio"
            name="dst-summary-choice"
            value={kind}
            checked={state.kind === kind}
            onChange={() => onChange({ ...state, kind })}
          />
          {label[kind]}
        </label>
      ))}
      {state.kind === 'custom' ? (
        <textarea
          aria-label={s.choiceInstructions}
          data-testid="session-tree-summary-instructions"
          placeholder={s.choicePlaceholder}
          value={state.instructions}
          aria-invalid={problem !== undefined}
          // No maxLength: a pasted text is never cut without a word; the problem says it instead.
          onChange={(event) => onChange({ ...state, instructions: event.target.value })}
        />
      ) : null}
      {problem ? (
        <span className="dst-problem" role="alert" data-testid="session-tree-summary-problem">
          {problem === 'required' ? s.choiceRequired : s.choiceTooLong(MAX_SUMMARY_INSTRUCTIONS)}
        </span>
      ) : state.kind !== 'none' ? (
        <span className="dst-note">{mode === 'projection' ? s.choicePanelOnly : (note ?? s.choiceCarried)}</span>
      ) : null}
    </fieldset>
  )
}

/** What the last move's summary was, where the notices are. */
export function SummaryWritten({
  t,
  summary,
  onDismiss,
}: {
  readonly t: Translate
  readonly summary: BranchSummary
  readonly onDismiss: () => void
}): ReactNode {
  const s = stringsFor(t)
  return (
    <section
      className="dst-banner"
      data-tone="ok"
      data-testid="session-tree-summary-written"
      style={{ flexDirection: 'column', alignItems: 'stretch' }}
    >
      <span style={{ display: 'flex', justifyContent: 'space-between', gap: 8 }}>
        <span data-testid="session-tree-summary-written-title">
          {s.written(summary.branch, summary.carriedNodeId !== undefined)}
        </span>
        <button type="button" className="dst-btn" onClick={onDismiss}>
          {t('error.dismiss')}
        </button>
      </span>
      <pre className="dst-content" style={{ maxHeight: '12em', overflow: 'auto' }}>
        {summary.summary}
      </pre>
      <span className="dst-note" data-testid="session-tree-summary-written-by">
        {writerLine(s, summary)}
      </span>
    </section>
  )
}
