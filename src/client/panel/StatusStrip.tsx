/** The strip under the toolbar: the surface mode (and its note) and the tree's counts. */
import type { ReactNode } from 'react'
import type { SessionStatus } from '../../types.ts'
import type { StringKey, Translate } from '../i18n.ts'
import type { TreeIndex } from '../model.ts'

export function StatusStrip({ t, status, index }: { readonly t: Translate; readonly status: SessionStatus | undefined; readonly index: TreeIndex }): ReactNode {
  const mode = status?.surfaceMode
  return (
    <div className="dst-status" data-testid="session-tree-status">
      {mode ? (
        <span className="dst-mode" title={status?.surfaceNote}>
          <span>{t('mode.label')}</span>
          <span className="dst-pill" data-mode={mode}>
            {t(`mode.${mode}` as StringKey)}
          </span>
          {status?.surfaceNote ? <span className="dst-note">{status.surfaceNote}</span> : null}
        </span>
      ) : null}
      <span>
        {t('status.nodes', { count: index.byId.size })} · {t('status.branches', { count: index.branchNames.size })} · {t('status.labels', { count: index.labels.size })}
      </span>
    </div>
  )
}
