/**
 * The files part of the Tree tab's Compare: the workspace files whose
 * checkpointed states differ between the two nodes compared, each with its
 * sizes (binary files by size and hash), and its diff from A to B on demand.
 */
import { useState, type ReactNode } from 'react'
import type { FileComparison, FileState } from '../../types.ts'
import type { Translate } from '../i18n.ts'
import type { WorkspaceClient } from './client.ts'
import { binarySides } from './model.ts'
import { DiffLines } from './FilesPreview.tsx'
import { binaryText, bytes, LoadNote } from './NodeFiles.tsx'
import { useResult } from './useResult.ts'

export interface FilesCompareProps {
  readonly t: Translate
  readonly client: WorkspaceClient
  readonly a: string
  readonly b: string
}

export function FilesCompare({ t, client, a, b }: FilesCompareProps): ReactNode {
  const [open, setOpen] = useState<string | undefined>(undefined)
  const differ = useResult(`${a}:${b}`, () => client.compareFiles(a, b))
  return (
    <section className="dst-ws dst-cmp-files" data-testid="session-tree-compare-files">
      <div className="dst-sub">{t('ws.cmp.title')}</div>
      <LoadNote t={t} load={differ} />
      {differ?.phase === 'done' ? (
        differ.value.files.length === 0 ? (
          <p className="dst-ws-note">{t('ws.cmp.none', { count: differ.value.tracked })}</p>
        ) : (
          <>
            <p className="dst-ws-note">
              {t('ws.cmp.count', { count: differ.value.files.length, tracked: differ.value.tracked })}
            </p>
            <ul className="dst-ws-list">
              {differ.value.files.map((file) => (
                <li key={file.path} data-path={file.path}>
                  <Row
                    t={t}
                    file={file}
                    open={open === file.path}
                    onDiff={() => setOpen((o) => (o === file.path ? undefined : file.path))}
                  />
                  {open === file.path ? <Diff t={t} client={client} a={a} b={b} path={file.path} /> : null}
                </li>
              ))}
            </ul>
          </>
        )
      ) : null}
    </section>
  )
}

function side(t: Translate, state: FileState | undefined): string {
  if (state === undefined) return t('ws.cmp.unknown')
  if (state.kind === 'absent') return t('ws.binary.none')
  if (state.kind === 'skipped') return t(`ws.skip.${state.reason}`, { max: '' })
  return bytes(state.size)
}

function Row({
  t,
  file,
  open,
  onDiff,
}: {
  readonly t: Translate
  readonly file: FileComparison
  readonly open: boolean
  readonly onDiff: () => void
}): ReactNode {
  const binary = binarySides(file.a, file.b)
  return (
    <div className="dst-restore-line">
      <span className="dst-ws-path" title={file.path}>
        {file.path}
      </span>
      <span className="dst-ws-stat" data-binary={binary ? 'true' : undefined}>
        {binary ? binaryText(t, binary) : `${side(t, file.a)} → ${side(t, file.b)}`}
      </span>
      <button type="button" className="dst-btn" aria-expanded={open} title={t('ws.cmp.diffTitle')} onClick={onDiff}>
        {open ? t('ws.restore.diffHide') : t('ws.restore.diff')}
      </button>
    </div>
  )
}

function Diff({
  t,
  client,
  a,
  b,
  path,
}: {
  readonly t: Translate
  readonly client: WorkspaceClient
  readonly a: string
  readonly b: string
  readonly path: string
}): ReactNode {
  const load = useResult(`${a}:${b}:${path}`, () => client.compareFileDiff(a, b, path))
  if (!load || load.phase !== 'done') return <LoadNote t={t} load={load} />
  const binary = binarySides(load.value.a, load.value.b)
  if (binary || load.value.diff === '')
    return (
      <p className="dst-ws-note" data-testid="session-tree-compare-diff">
        {binary ? binaryText(t, binary) : t('ws.cmp.noText')}
      </p>
    )
  return <DiffLines diff={load.value.diff} testId="session-tree-compare-diff" />
}
