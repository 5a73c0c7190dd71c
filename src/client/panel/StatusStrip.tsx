/** The strip under the toolbar: the surface mode (and its note), the tree's counts, and who else writes the tree. */
import type { ReactNode } from 'react'
import type { SessionStatus } from '../../types.ts'
import type { StringKey, Translate } from '../i18n.ts'
import type { TreeIndex } from '../../outline/index.ts'

export function StatusStrip({
  t,
  status,
  index,
}: {
  readonly t: Translate
  readonly status: SessionStatus | undefined
  readonly index: TreeIndex
}): ReactNode {
  const mode = status?.surfaceMode
  const holder = status?.readOnly?.holder
  // The service's note is English; the known modes have their note in the UI's language.
  const note =
    mode === 'native' || mode === 'stock' || mode === 'projection' ? t(`mode.note.${mode}`) : status?.surfaceNote
  return (
    <div className="dst-status" data-testid="session-tree-status">
      {mode ? (
        <span className="dst-mode" title={note}>
          <span>{t('mode.label')}</span>
          <span className="dst-pill" data-mode={mode}>
            {t(`mode.${mode}` as StringKey)}
          </span>
          {note ? <span className="dst-note">{note}</span> : null}
        </span>
      ) : null}
      <span>
        {t('status.nodes', { count: index.rowTotal })} · {t('status.branches', { count: index.branchNames.size })} ·{' '}
        {t('status.labels', { count: index.labels.size })}
      </span>
      {holder ? (
        <span className="dst-readonly" role="status" data-testid="session-tree-read-only">
          {t('status.readOnly', { kind: holder.kind, pid: holder.pid, host: holder.host })}
        </span>
      ) : null}
    </div>
  )
}
