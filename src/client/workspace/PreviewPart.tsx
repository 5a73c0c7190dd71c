/** What the workspace adds to the node preview: its files, the "files at this point" browser, and the take-along choice. */
import type { ReactNode } from 'react'
import type { Translate } from '../i18n.ts'
import { rowText, type TreeIndex } from '../../outline/index.ts'
import { ChoicePicker } from './ChoicePicker.tsx'
import type { WorkspaceClient } from './client.ts'
import { NodeFiles } from './NodeFiles.tsx'
import type { WorkspaceState } from './useWorkspace.ts'

/** What the Tree tab says is tracked, and why, per shell tracking. */
const SHELL_NOTE = { git: 'ws.shellGit', folder: 'ws.shellFolder', off: 'ws.shellOff' } as const

export function WorkspacePreviewPart({
  t,
  client,
  state,
  nodeId,
  parentId,
  generation,
}: {
  readonly t: Translate
  readonly client: WorkspaceClient | undefined
  readonly state: WorkspaceState
  readonly nodeId: string
  readonly parentId: string | null
  readonly generation: number
}): ReactNode {
  const status = state.overview?.status
  if (!client || !state.available || !status) return null
  return (
    <>
      <NodeFiles
        t={t}
        client={client}
        nodeId={nodeId}
        parentId={parentId}
        paths={state.pathsOf(nodeId)}
        generation={generation}
        maxFileBytes={status.maxFileBytes}
      />
      <ChoicePicker
        t={t}
        choice={state.choice}
        setChoice={state.setChoice}
        shellNote={t(SHELL_NOTE[status.shell ?? 'off'])}
      />
    </>
  )
}

/** A node as the restore view names it: its id and its first words. */
export function nodeName(index: TreeIndex, nodeId: string | null): string {
  if (nodeId === null) return ''
  const node = index.byId.get(nodeId)
  if (!node) return nodeId
  const text = rowText(node).replace(/\s+/g, ' ').trim()
  return text ? `${nodeId} “${text.length > 40 ? `${text.slice(0, 39)}…` : text}”` : nodeId
}

/** "Carry here" on a node off the conversation's path: opens the carry preview for its branch's changes. */
export function CarryButton({
  t,
  disabled,
  onCarry,
}: {
  readonly t: Translate
  readonly disabled: boolean
  readonly onCarry: () => void
}): ReactNode {
  return (
    <button
      type="button"
      className="dst-btn"
      data-testid="session-tree-carry-open"
      disabled={disabled}
      title={t('ws.carry.openTitle')}
      onClick={onCarry}
    >
      ⤵ {t('ws.carry.open')}
    </button>
  )
}
