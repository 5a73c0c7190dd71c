/**
 * Branch summaries where the user looks: in the preview of the node a
 * summary was written at (the branch head), of the node the summarized part
 * left from, and of the node that carries it into the model's history; each
 * with who wrote it and what the model call cost in tokens. Plus the status
 * line shown while the session's model writes one.
 */
import type { ReactNode } from 'react'
import type { BranchOutline, BranchSummary } from '../../types.ts'
import { DICTIONARIES, type Translate } from '../i18n.ts'
import { summaryStrings, type SummaryStrings } from './strings.ts'

/** The panel's locale, read off its translator (the shared dictionaries stay untouched). */
export function stringsFor(t: Translate): SummaryStrings {
  return summaryStrings(t('act.summarize') === DICTIONARIES.zh['act.summarize'] ? 'zh' : 'en')
}

/** Who wrote a summary, and its token cost, in one line. */
export function writerLine(s: SummaryStrings, summary: BranchSummary): string {
  const who = summary.fallback
    ? summary.failure
      ? s.fallback(summary.failure.code)
      : s.stub
    : summary.model === undefined
      ? s.caller
      : summary.model === 'extractive'
        ? s.extractive
        : s.model(summary.provider ? `${summary.provider} / ${summary.model}` : summary.model)
  const usage = summary.usage
  return usage
    ? `${who} · ${s.tokens(usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0), usage.outputTokens)}`
    : who
}

interface Found {
  readonly branch: string
  readonly summary: BranchSummary
  readonly where: 'head' | 'from' | 'carried'
}

/** The summaries that concern `nodeId`. */
function summariesAt(branches: readonly BranchOutline[], nodeId: string): Found[] {
  const found: Found[] = []
  for (const branch of branches) {
    const summary = branch.summary
    if (!summary) continue
    if (summary.carriedNodeId === nodeId) found.push({ branch: branch.name, summary, where: 'carried' })
    else if (summary.nodeId === nodeId) found.push({ branch: branch.name, summary, where: 'head' })
    else if (summary.fromNodeId === nodeId) found.push({ branch: branch.name, summary, where: 'from' })
  }
  return found
}

export function SummaryNotes({
  t,
  branches,
  nodeId,
}: {
  readonly t: Translate
  readonly branches: readonly BranchOutline[]
  readonly nodeId: string
}): ReactNode {
  const found = summariesAt(branches, nodeId)
  if (found.length === 0) return null
  const s = stringsFor(t)
  return (
    <>
      {found.map(({ branch, summary, where }) => (
        <section
          key={`${branch}:${where}`}
          className="dst-summary"
          data-testid="session-tree-summary"
          data-branch={branch}
          data-where={where}
        >
          <div className="dst-sub">
            {where === 'head' ? s.atHead(branch) : where === 'from' ? s.leftFrom(branch) : s.carried(branch)}
          </div>
          <pre className="dst-content">{summary.summary}</pre>
          <p className="dst-note" data-testid="session-tree-summary-writer">
            {writerLine(s, summary)}
            {summary.carriedNodeId !== undefined && where !== 'carried' ? ` · ${s.inHistory}` : ''}
          </p>
        </section>
      ))}
    </>
  )
}

/** Shown while a summary is being written (the model may take a while). */
export function SummaryProgress({ t }: { readonly t: Translate }): ReactNode {
  return (
    <p
      className="dst-note"
      role="status"
      aria-live="polite"
      data-testid="session-tree-summary-progress"
      style={{ margin: '6px 12px' }}
    >
      {stringsFor(t).writing}
    </p>
  )
}
