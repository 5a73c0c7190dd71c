/**
 * "Files at this point": the workspace as checkpointed at one node, a
 * filterable list bounded to `FILES_PAGE` rows at a time (a big workspace
 * never draws thousands of rows), and a file's content there on click.
 */
import { useState, type ReactNode } from 'react'
import type { FileAtNode } from '../../types.ts'
import type { Translate } from '../i18n.ts'
import type { WorkspaceClient } from './client.ts'
import { clipLines, CONTENT_LINES, fileListView, FILES_PAGE } from './model.ts'
import { bytes, LoadNote, skipText } from './NodeFiles.tsx'
import { useResult } from './useResult.ts'

export interface FilesAtPointProps {
  readonly t: Translate
  readonly client: WorkspaceClient
  readonly nodeId: string
  readonly generation: number
  readonly maxFileBytes: number
}

export function FilesAtPoint({ t, client, nodeId, generation, maxFileBytes }: FilesAtPointProps): ReactNode {
  const [query, setQuery] = useState('')
  const [limit, setLimit] = useState(FILES_PAGE)
  const [picked, setPicked] = useState<string | undefined>(undefined)
  const files = useResult(`${generation}:${nodeId}`, () => client.filesAt(nodeId))
  if (!files || files.phase !== 'done')
    return (
      <div className="dst-ws-at">
        <LoadNote t={t} load={files} />
      </div>
    )
  const view = fileListView(files.value.files, query, limit)
  return (
    <div className="dst-ws-at" data-testid="session-tree-files-at" data-node-id={nodeId}>
      {view.total === 0 ? (
        <p className="dst-ws-note">{t('ws.at.none')}</p>
      ) : (
        <>
          <input
            type="text"
            value={query}
            placeholder={t('ws.at.filter')}
            aria-label={t('ws.at.filter')}
            onChange={(e) => {
              setQuery(e.target.value)
              setLimit(FILES_PAGE)
            }}
          />
          <span className="dst-ws-note" aria-live="polite">
            {t('ws.at.count', { shown: view.rows.length, total: view.total })}
          </span>
          <ul className="dst-ws-files" aria-label={t('ws.at.open')}>
            {view.rows.map((file) => (
              <li key={file.path}>
                <button
                  type="button"
                  aria-pressed={picked === file.path}
                  data-path={file.path}
                  onClick={() => setPicked((p) => (p === file.path ? undefined : file.path))}
                >
                  <span className="dst-ws-path" title={file.path}>
                    {file.path}
                  </span>
                  <FileFacts t={t} file={file} />
                </button>
              </li>
            ))}
          </ul>
          {view.more > 0 ? (
            <div>
              <button type="button" className="dst-btn" onClick={() => setLimit((l) => l + FILES_PAGE)}>
                {t('ws.at.more', { count: Math.min(FILES_PAGE, view.more) })}
              </button>
            </div>
          ) : null}
        </>
      )}
      {picked !== undefined ? (
        <FileText
          t={t}
          client={client}
          nodeId={nodeId}
          path={picked}
          generation={generation}
          maxFileBytes={maxFileBytes}
        />
      ) : null}
    </div>
  )
}

function FileFacts({ t, file }: { readonly t: Translate; readonly file: FileAtNode }): ReactNode {
  const state = file.state
  return (
    <>
      {state?.kind === 'absent' ? <span className="dst-ws-note">{t('ws.at.absent')}</span> : null}
      {state?.kind === 'file' ? <span className="dst-ws-note">{bytes(state.size)}</span> : null}
      {state?.kind === 'skipped' ? (
        <span className="dst-ws-tag" data-kind="skipped">
          {t('ws.change.skipped')}
        </span>
      ) : null}
      {file.differs ? (
        <span className="dst-ws-tag" data-kind="changed" title={t('ws.at.differsTitle')}>
          {t('ws.at.differs')}
        </span>
      ) : null}
    </>
  )
}

function FileText({
  t,
  client,
  nodeId,
  path,
  generation,
  maxFileBytes,
}: {
  readonly t: Translate
  readonly client: WorkspaceClient
  readonly nodeId: string
  readonly path: string
  readonly generation: number
  readonly maxFileBytes: number
}): ReactNode {
  const content = useResult(`${generation}:${nodeId}:${path}`, () => client.fileAt(nodeId, path))
  if (!content || content.phase !== 'done') return <LoadNote t={t} load={content} />
  const { text, note, state } = content.value
  if (text === undefined) {
    const why =
      state?.kind === 'absent'
        ? t('ws.at.absent')
        : state?.kind === 'skipped'
          ? skipText(t, { path, kind: 'skipped', reason: state.reason }, maxFileBytes)
          : state?.kind === 'file' && state.binary === true
            ? t('ws.binary.side', { size: bytes(state.size), hash: state.hash.slice(0, 12) })
            : note
    return (
      <p className="dst-ws-note" data-testid="session-tree-file-text" data-path={path}>
        {why}
      </p>
    )
  }
  const shown = clipLines(text)
  return (
    <>
      <div className="dst-sub">{path}</div>
      <pre className="dst-ws-code" data-testid="session-tree-file-text" data-path={path} tabIndex={0}>
        {shown.text}
      </pre>
      {shown.clipped ? <p className="dst-ws-note">{t('ws.at.clipped', { count: CONTENT_LINES })}</p> : null}
    </>
  )
}
