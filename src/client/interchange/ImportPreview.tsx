/**
 * What an import will create, from its dry run: the format and version, the
 * figures (nodes, branches, labels, compactions), every branch (where it
 * forks, its size, first prompt and last words, the one it continues on), the
 * lines skipped with their numbers and reasons, the entry types kept opaque,
 * and the importer's notes.
 */
import type { ReactNode } from 'react'
import type { ImportResult } from '../../types.ts'
import type { InterchangeStrings } from './strings.ts'

/** Skipped lines listed before "… and N more". */
const SKIPPED_SHOWN = 20

export interface ImportPreviewProps {
  readonly s: InterchangeStrings
  readonly name: string
  readonly size: string
  readonly result: ImportResult
}

export function ImportPreviewView({ s, name, size, result }: ImportPreviewProps): ReactNode {
  const { report, preview } = result
  const opaque = Object.entries(report.opaque)
  const figures = [
    ['nodes', report.nodes, s.figures.nodes],
    ['branches', report.branches, s.figures.branches],
    ['labels', report.labels, s.figures.labels],
    ['compactions', report.compactions, s.figures.compactions],
  ] as const
  return (
    <div
      className="dsx-preview"
      data-testid="session-tree-import-preview"
      data-format={report.format}
      data-version={report.version}
    >
      <p className="dsx-format">
        <strong>{s.detected(s.formatName(report.format), report.version)}</strong>
        <span className="dsx-file-facts">{s.fileFacts(name, size, report.lines)}</span>
      </p>
      <p className="dsx-lead">{s.willCreate}</p>
      <dl className="dsx-figures">
        {figures.map(([key, value, label]) => (
          <div key={key} data-figure={key}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <section aria-label={s.branchesHeading(preview.shown.length, preview.branches)}>
        <h4>{s.branchesHeading(preview.shown.length, preview.branches)}</h4>
        <ul className="dsx-branches">
          {preview.shown.map((branch) => (
            <li key={branch.leaf} data-leaf={branch.leaf} data-active={branch.active ? '' : undefined}>
              <span className="dsx-branch-prompt">{branch.firstPrompt || s.noPrompt}</span>
              {branch.active ? <span className="dsx-badge">{s.active}</span> : null}
              <span className="dsx-branch-meta">{s.branchLine(branch.entries, branch.depth)}</span>
              {branch.last ? <span className="dsx-branch-last">{branch.last}</span> : null}
            </li>
          ))}
        </ul>
      </section>
      {report.skipped.length > 0 ? (
        <section className="dsx-warn" data-testid="session-tree-import-skipped">
          <h4>{s.skippedHeading(report.skipped.length)}</h4>
          <ul>
            {report.skipped.slice(0, SKIPPED_SHOWN).map((skip) => (
              <li key={`${skip.line}:${skip.reason}`} data-line={skip.line}>
                {s.skippedLine(skip.line, skip.reason)}
              </li>
            ))}
            {report.skipped.length > SKIPPED_SHOWN ? <li>{s.more(report.skipped.length - SKIPPED_SHOWN)}</li> : null}
          </ul>
        </section>
      ) : null}
      {opaque.length > 0 ? (
        <section data-testid="session-tree-import-opaque">
          <h4>{s.opaqueHeading}</h4>
          <ul className="dsx-chips">
            {opaque.map(([type, count]) => (
              <li key={type} data-type={type}>
                <code>{type}</code> ×{count}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {report.recovered > 0 ? <p className="dsx-note">{s.recovered(report.recovered)}</p> : null}
      {report.notes.length > 0 ? (
        <details className="dsx-notes">
          <summary>
            {s.notesHeading} ({report.notes.length})
          </summary>
          <ul>
            {report.notes.map((note, i) => (
              <li key={i}>{note}</li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  )
}
