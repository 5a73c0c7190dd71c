/**
 * The preview beside the tree: the selected node's kind, place and metadata,
 * its full text (or its tool call and result), its branch summary, and its
 * actions or the open fork/label form. Selecting never changes anything.
 */
import type { ReactNode } from 'react'
import type { TreeNode } from '../../types.ts'
import { KEY_HELP, type NodeActions } from '../commands.ts'
import type { Locale, StringKey, Translate } from '../i18n.ts'
import { foldedTool, rowKind, type TreeIndex } from '../../outline/index.ts'
import { formatTime, prettyArgs } from './dom.ts'
import { NodeActionBar, type NodeActionHandlers } from './NodeActions.tsx'
import { NodeForm, type FormState } from './NodeForm.tsx'
import { SummaryNotes } from '../summary/SummaryNotes.tsx'

export interface PreviewProps extends NodeActionHandlers {
  readonly t: Translate
  readonly locale: Locale
  readonly index: TreeIndex
  readonly node: TreeNode | undefined
  readonly actions: NodeActions
  readonly busy: boolean
  readonly form: FormState | undefined
  readonly setForm: (form: FormState | undefined) => void
  readonly onSubmit: () => void
  readonly onCancel: () => void
  /** The summary choice of Jump and Fork, when the move would leave part of the path (`summary/`). */
  readonly summaryChoice?: ReactNode
  /** The node's files and the take-along choice (`workspace/`), above the actions. */
  readonly workspace?: ReactNode
}

export function Preview({
  t,
  locale,
  index,
  node,
  actions,
  busy,
  form,
  setForm,
  onSubmit,
  onCancel,
  summaryChoice,
  workspace,
  ...handlers
}: PreviewProps): ReactNode {
  const help = (
    <div className="dst-help" aria-label={t('keys.title')}>
      {KEY_HELP.map(([key, what]) => (
        <span key={key}>
          <kbd>{key}</kbd> {t(what as StringKey)}
        </span>
      ))}
    </div>
  )
  if (!node) {
    return (
      <aside className="dst-preview" data-testid="session-tree-preview">
        <p className="dst-note">{t('preview.none')}</p>
        {help}
      </aside>
    )
  }
  const kind = rowKind(node)
  const tool = foldedTool(node)
  const heads = index.headsAt.get(node.nodeId) ?? []
  const onPath = index.cursorPath.has(node.nodeId)
  const text =
    node.message?.content ??
    node.content
      ?.filter((p) => p.type === 'text')
      .map((p) => (p.type === 'text' ? p.text : ''))
      .join('\n') ??
    ''
  return (
    <aside className="dst-preview" data-testid="session-tree-preview" data-node-id={node.nodeId}>
      <h3>
        <span className="dst-kind" data-kind={kind}>
          {t(`kind.${kind}` as StringKey)}
        </span>
        <span>{onPath ? t('preview.onPath') : t('preview.offPath')}</span>
        {index.view.cursor === node.nodeId ? (
          <span className="dst-badge" data-type="cursor">
            {t('row.cursorBadge')}
          </span>
        ) : null}
      </h3>
      <dl className="dst-meta">
        <dt>{t('preview.id')}</dt>
        <dd className="dst-code">{node.nodeId}</dd>
        {node.branch ? (
          <>
            <dt>{t('preview.branch')}</dt>
            <dd>{node.branch}</dd>
          </>
        ) : null}
        {heads.length > 0 ? (
          <>
            <dt>{t('preview.heads')}</dt>
            <dd>{heads.join(', ')}</dd>
          </>
        ) : null}
        {node.label !== undefined ? (
          <>
            <dt>{t('preview.label')}</dt>
            <dd>{node.label}</dd>
          </>
        ) : null}
        {node.model ? (
          <>
            <dt>{t('preview.model')}</dt>
            <dd>{node.provider ? `${node.provider} / ${node.model}` : node.model}</dd>
          </>
        ) : null}
        {node.replaces !== undefined && node.replaces.length > 0 ? (
          <>
            <dt>{t('preview.replaces')}</dt>
            <dd data-testid="session-tree-preview-replaces">
              {t('preview.replacesValue', {
                count: node.replaces.length,
                first: node.replaces[0]!,
                last: node.replaces.at(-1)!,
              })}
            </dd>
          </>
        ) : null}
        <dt>{t('preview.created')}</dt>
        <dd>{formatTime(node.createdAt, locale)}</dd>
      </dl>
      {tool ? (
        <>
          <div className="dst-sub">{t('preview.toolCall')}</div>
          <pre className="dst-content" data-mono="true">
            {tool.name}({prettyArgs(tool.args)})
          </pre>
          <div className="dst-sub">{tool.isError ? t('preview.toolError') : t('preview.toolResult')}</div>
          <pre className="dst-content" data-mono="true" data-error={tool.isError || undefined}>
            {tool.result ?? t('preview.noResult')}
          </pre>
        </>
      ) : (
        <pre className="dst-content" data-testid="session-tree-preview-text">
          {text || node.summary}
        </pre>
      )}
      <SummaryNotes t={t} branches={index.view.branches} nodeId={node.nodeId} />
      {summaryChoice}
      {workspace}
      {form && form.nodeId === node.nodeId ? (
        <NodeForm t={t} form={form} setForm={setForm} onSubmit={onSubmit} onCancel={onCancel} busy={busy} />
      ) : (
        <NodeActionBar t={t} nodeId={node.nodeId} actions={actions} busy={busy} {...handlers} />
      )}
      {help}
    </aside>
  )
}
