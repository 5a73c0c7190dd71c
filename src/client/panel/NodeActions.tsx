/**
 * The selected node's actions, shown under its preview: Jump here, Fork here,
 * Label, Summarize branch. A new per-node action is one more button here (and,
 * when it has a key, one more entry in `commands.ts`).
 */
import type { ReactNode } from 'react'
import type { NodeActions as Available } from '../commands.ts'
import type { Translate } from '../i18n.ts'

export interface NodeActionHandlers {
  readonly onJump: (id: string) => void
  readonly onFork: (id: string) => void
  readonly onLabel: (id: string) => void
  readonly onSummarize: (branch: string) => void
  /** Jump and Fork wait for a valid summary choice. */
  readonly moveBlocked?: boolean
  /** More actions after these (a part's own buttons, say "Compare with…"). */
  readonly more?: ReactNode
}

export interface NodeActionsProps extends NodeActionHandlers {
  readonly t: Translate
  readonly nodeId: string
  readonly actions: Available
  readonly busy: boolean
}

export function NodeActionBar({
  t,
  nodeId,
  actions,
  busy,
  moveBlocked,
  more,
  onJump,
  onFork,
  onLabel,
  onSummarize,
}: NodeActionsProps): ReactNode {
  return (
    <div className="dst-actions">
      {actions.jump ? (
        <button
          type="button"
          className="dst-btn dst-primary"
          disabled={busy || moveBlocked}
          title={t('act.jumpTitle')}
          onClick={() => onJump(nodeId)}
        >
          {t('act.jump')}
        </button>
      ) : null}
      {actions.fork ? (
        <button
          type="button"
          className="dst-btn"
          disabled={busy || moveBlocked}
          title={t('act.forkTitle')}
          onClick={() => onFork(nodeId)}
        >
          {t('act.fork')}
        </button>
      ) : null}
      {actions.label ? (
        <button
          type="button"
          className="dst-btn"
          disabled={busy}
          title={t('act.labelTitle')}
          onClick={() => onLabel(nodeId)}
        >
          {t('act.label')}
        </button>
      ) : null}
      {actions.summarize !== null ? (
        <button
          type="button"
          className="dst-btn"
          disabled={busy}
          title={t('act.summarizeTitle', { branch: actions.summarize })}
          onClick={() => onSummarize(actions.summarize!)}
        >
          {t('act.summarize')}
        </button>
      ) : null}
      {more}
    </div>
  )
}
