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
  const summarize = actions.summarize
  // One button per available action: `act.<name>` is its label, `act.<name>Title` its title; the moves also wait for the summary choice.
  const shown: readonly { readonly name: 'jump' | 'fork' | 'label' | 'summarize'; readonly run: () => void }[] = [
    ...(actions.jump ? [{ name: 'jump' as const, run: () => onJump(nodeId) }] : []),
    ...(actions.fork ? [{ name: 'fork' as const, run: () => onFork(nodeId) }] : []),
    ...(actions.label ? [{ name: 'label' as const, run: () => onLabel(nodeId) }] : []),
    ...(summarize !== null ? [{ name: 'summarize' as const, run: () => onSummarize(summarize) }] : []),
  ]
  return (
    <div className="dst-actions">
      {shown.map(({ name, run }) => (
        <button
          key={name}
          type="button"
          className={name === 'jump' ? 'dst-btn dst-primary' : 'dst-btn'}
          disabled={busy || ((name === 'jump' || name === 'fork') && moveBlocked)}
          title={t(`act.${name}Title`, { branch: summarize ?? '' })}
          onClick={run}
        >
          {t(`act.${name}`)}
        </button>
      ))}
      {more}
    </div>
  )
}
