/**
 * One row of the tree: the gutter (lanes and fork glyphs), the kind badge, the
 * text (a tool call folded with its result), and the badges (label, branch
 * heads, fork count, "you are here").
 */
import { memo } from 'react'
import type { CSSProperties, ReactNode } from 'react'
import type { StringKey, Translate } from '../i18n.ts'
import {
  foldedTool,
  gutter,
  highlight,
  laneColor,
  rowKind,
  rowText,
  type Row,
  type TreeIndex,
} from '../../outline/index.ts'
import { rowDomId } from './dom.ts'
import { FileMarker } from '../workspace/FileMarker.tsx'

export interface TreeRowProps {
  readonly row: Row
  readonly top: number
  readonly index: TreeIndex
  readonly selected: boolean
  readonly query: string
  readonly t: Translate
  readonly onSelect: (id: string) => void
  /** Fold or unfold a fork point's branches. */
  readonly onToggleFold: (id: string) => void
  /** How many files the node changed (its checkpoint marker), when any. */
  readonly files?: number | undefined
}

export const TreeRow = memo(function TreeRow({
  row,
  top,
  index,
  selected,
  query,
  t,
  onSelect,
  onToggleFold,
  files,
}: TreeRowProps): ReactNode {
  const node = row.node
  const kind = rowKind(node)
  const onPath = index.cursorPath.has(row.id)
  const isCursor = index.view.cursor === row.id
  const { glyphs, clipped } = gutter(row)
  const heads = index.headsAt.get(row.id) ?? []
  const tool = foldedTool(node)
  const text = rowText(node)
  return (
    <div
      id={rowDomId(row.id)}
      className="dst-row"
      role="treeitem"
      aria-level={row.depth + 1}
      aria-selected={selected}
      aria-current={isCursor ? 'location' : undefined}
      aria-expanded={row.foldable ? row.hidden === undefined : undefined}
      data-node-id={row.id}
      data-path={onPath}
      data-cursor={isCursor}
      style={{ top, ...branchStyle(node.branch) }}
      onClick={() => onSelect(row.id)}
      title={text}
    >
      <span className="dst-gutter" aria-hidden="true">
        {clipped > 0 ? (
          <span className="dst-g" data-g="more">
            +{clipped}
          </span>
        ) : null}
        {glyphs.map((g, i) => (
          <span key={i} className="dst-g" data-g={g} />
        ))}
        <span
          className="dst-dot"
          data-up={row.parentId !== null && !row.branchStart}
          data-down={row.childCount > 0}
          data-elided={row.elided}
        >
          <i />
        </span>
      </span>
      {row.foldable ? (
        <span
          className="dst-fold"
          data-folded={row.hidden !== undefined}
          title={row.hidden !== undefined ? t('row.unfold') : t('row.fold')}
          aria-hidden="true"
          onClick={(event) => {
            event.stopPropagation()
            onToggleFold(row.id)
          }}
        >
          {row.hidden !== undefined ? '▸' : '▾'}
        </span>
      ) : null}
      <span className="dst-kind" data-kind={kind} data-error={tool?.isError || undefined}>
        {t(`kind.${kind}` as StringKey)}
      </span>
      <span className="dst-text">
        {tool ? (
          <>
            <span className="dst-tool-name">
              <Highlighted text={`${tool.name}(${tool.args.replace(/\s+/g, ' ')})`} query={query} />
            </span>
            {tool.result !== undefined ? (
              <>
                <span className="dst-arrow">→</span>
                <Highlighted text={tool.result.replace(/\s+/g, ' ').slice(0, 300)} query={query} />
              </>
            ) : null}
          </>
        ) : (
          <Highlighted text={text} query={query} />
        )}
      </span>
      <span className="dst-badges">
        <FileMarker t={t} count={files} />
        {row.hidden !== undefined ? (
          <span className="dst-badge" data-type="folded" title={t('row.folded', { count: row.hidden })}>
            +{row.hidden}
          </span>
        ) : null}
        {node.label !== undefined ? (
          <span className="dst-badge" data-type="label">
            <TagIcon />
            <span>{node.label}</span>
          </span>
        ) : null}
        {heads.map((name) => (
          <span
            key={name}
            className="dst-badge"
            data-type="head"
            data-active={name === index.view.activeBranch}
            style={branchStyle(name)}
          >
            ⎇ {name}
          </span>
        ))}
        {row.forkCount > 1 ? (
          <span className="dst-badge" data-type="forks" title={t('row.forks', { count: row.forkCount })}>
            <ForkIcon />
            {row.forkCount}
          </span>
        ) : null}
        {isCursor ? (
          <span className="dst-badge" data-type="cursor" title={t('row.cursor')}>
            {t('row.cursorBadge')}
          </span>
        ) : null}
      </span>
    </div>
  )
})

function TagIcon(): ReactNode {
  return (
    <svg viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden="true">
      <path d="M2.5 2.5h5.2l6 6-5.2 5.2-6-6z" />
      <circle cx="5.5" cy="5.5" r="1" />
    </svg>
  )
}

function ForkIcon(): ReactNode {
  return (
    <svg viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden="true">
      <circle cx="4" cy="3" r="1.5" />
      <circle cx="4" cy="13" r="1.5" />
      <circle cx="12" cy="5" r="1.5" />
      <path d="M4 4.5v7M12 6.5c0 3-8 2-8 5" />
    </svg>
  )
}

export function branchStyle(name: string): CSSProperties | undefined {
  const lane = laneColor(name)
  return lane >= 0 ? ({ '--dst-lane': `var(--dst-lane-${lane})` } as CSSProperties) : undefined
}

export function Highlighted({ text, query }: { readonly text: string; readonly query: string }): ReactNode {
  if (!query) return text
  return highlight(text, query).map((part, i) =>
    part.match ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>,
  )
}
