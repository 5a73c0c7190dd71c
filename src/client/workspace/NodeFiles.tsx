/**
 * The preview's workspace part for the selected node: the files that node
 * changed (added, changed, deleted; skipped ones with the reason), and the
 * "Files at this point" browser.
 */
import { useState, type ReactNode } from 'react'
import type { StringKey, Translate } from '../i18n.ts'
import { FilesAtPoint, type FilesAtPointProps } from './FilesAtPoint.tsx'
import { knownError, nodeChanges, type BinarySides, type NodeChange } from './model.ts'
import { useResult } from './useResult.ts'

/** The file browser's props (it is shown below the list), and what the node changed. */
export interface NodeFilesProps extends FilesAtPointProps {
  readonly parentId: string | null
  /** What the node changed, from the overview (none: no list, only the browser). */
  readonly paths: readonly string[]
}

export function NodeFiles({ t, client, nodeId, parentId, paths, generation, maxFileBytes }: NodeFilesProps): ReactNode {
  const [open, setOpen] = useState<string | undefined>(undefined)
  const key = paths.length > 0 ? `${generation}:${nodeId}` : undefined
  const changes = useResult(key, async () => {
    const [before, after] = await Promise.all([client.filesAt(parentId), client.filesAt(nodeId)])
    if (!after.ok) return after
    return { ok: true as const, value: nodeChanges(paths, before.ok ? before.value : undefined, after.value) }
  })
  return (
    <section className="dst-ws" data-testid="session-tree-node-files">
      {changes ? (
        <>
          <div className="dst-sub">{t('ws.changed')}</div>
          <LoadNote t={t} load={changes} />
          {changes.phase === 'done' ? (
            <ul className="dst-ws-list">
              {changes.value.map((change) => (
                <li key={change.path} data-path={change.path} data-change={change.kind}>
                  <span className="dst-ws-tag" data-kind={change.kind}>
                    {t(`ws.change.${change.kind}` as StringKey)}
                  </span>
                  <span className="dst-ws-path" title={change.path}>
                    {change.path}
                  </span>
                  {change.kind === 'skipped' ? (
                    <span className="dst-ws-note">{skipText(t, change, maxFileBytes)}</span>
                  ) : null}
                  {change.kind !== 'skipped' && change.kind !== 'unknown' && change.binary ? (
                    <span className="dst-ws-note">{t('ws.binary.size', { size: bytes(change.size ?? 0) })}</span>
                  ) : null}
                </li>
              ))}
            </ul>
          ) : null}
        </>
      ) : null}
      <div>
        <button
          type="button"
          className="dst-btn"
          aria-expanded={open === nodeId}
          title={t('ws.at.openTitle')}
          data-testid="session-tree-files-at-toggle"
          onClick={() => setOpen((o) => (o === nodeId ? undefined : nodeId))}
        >
          {open === nodeId ? t('ws.at.close') : t('ws.at.open')}
        </button>
      </div>
      {open === nodeId ? (
        <FilesAtPoint t={t} client={client} nodeId={nodeId} generation={generation} maxFileBytes={maxFileBytes} />
      ) : null}
    </section>
  )
}

export function skipText(t: Translate, change: Extract<NodeChange, { kind: 'skipped' }>, maxFileBytes: number): string {
  return t(`ws.skip.${change.reason}` as StringKey, { max: bytes(maxFileBytes) })
}

/** A binary change as the views show it: kind, then size and short hash of each side that is a file. */
export function binaryText(t: Translate, sides: BinarySides): string {
  const side = (s: { readonly size: number; readonly hash: string } | undefined) =>
    s ? t('ws.binary.side', { size: bytes(s.size), hash: s.hash.slice(0, 12) }) : t('ws.binary.none')
  return t('ws.binary.change', { from: side(sides.from), to: side(sides.to) })
}

export function bytes(n: number): string {
  if (n >= 1024 * 1024) return `${Number((n / (1024 * 1024)).toFixed(1))} MiB`
  if (n >= 1024) return `${Number((n / 1024).toFixed(1))} KiB`
  return `${n} B`
}

export function errorLine(t: Translate, code: string): string {
  const known = knownError(code)
  return known ? t(`ws.err.${known}`) : t('ws.err.other', { code })
}

/** A read not done yet: the loading note or its error line (nothing once done; no read yet counts as loading). */
export function LoadNote({
  t,
  load,
}: {
  readonly t: Translate
  readonly load:
    | { readonly phase: 'loading' }
    | { readonly phase: 'error'; readonly code: string }
    | { readonly phase: 'done' }
    | undefined
}): ReactNode {
  if (!load || load.phase === 'loading') return <p className="dst-ws-note">{t('ws.loading')}</p>
  if (load.phase === 'error')
    return (
      <p className="dst-ws-note" role="alert">
        {errorLine(t, load.code)}
      </p>
    )
  return undefined
}
