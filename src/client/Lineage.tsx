/**
 * The Tree tab's lineage strip: "Forked from …" (the session this one came
 * from, at which node), "Forked to …" (sessions made from this one; the ones
 * made at the selected node first), each a link that opens that session, an
 * "Open as new session" button for the selected node, and the trees whose
 * session is gone (with "Remove now"). It reads what the panel already polls
 * (`session`'s `lineage` and `orphanSidecars`); only its buttons call the service.
 */
import { useState } from 'react'
import type { ReactNode } from 'react'
import type { GcResult, LineageLink, NewSessionResult, SessionStatus } from '../types.ts'
import type { Result } from './controller.ts'
import type { Locale } from './i18n.ts'

/** What the strip needs from the page (built in `index.ts`). */
export interface LineageActions {
  openAsNewSession(agentId: string, nodeId: string): Promise<Result<NewSessionResult>>
  gc(dryRun: boolean): Promise<Result<GcResult>>
  /** Select a session in the host (its sidebar row and conversation). */
  openSession(sessionId: string): Promise<void>
}

const STRINGS = {
  en: {
    from: 'Forked from',
    to: 'Forked to',
    at: 'at',
    here: 'from this node',
    gone: '(session removed)',
    open: 'Open as new session',
    opening: 'Opening…',
    opened: 'Opened “{title}”',
    orphans: '{count} tree(s) of removed sessions kept until {date}',
    remove: 'Remove now',
    removed: '{count} tree(s) removed',
    by_host: 'by DSH',
    by_tree: 'by the tree',
    openTitle: 'A new session whose history is the path to the selected node; this session stays as it is',
  },
  zh: {
    from: '派生自',
    to: '派生为',
    at: '于',
    here: '自此节点',
    gone: '（会话已删除）',
    open: '在新会话中打开',
    opening: '正在打开…',
    opened: '已打开“{title}”',
    orphans: '{count} 个已删除会话的树将保留至 {date}',
    remove: '立即删除',
    removed: '已删除 {count} 个树',
    by_host: '由 DSH',
    by_tree: '由会话树',
    openTitle: '新建一个会话，其历史为到所选节点的路径；当前会话保持不变',
  },
} as const

type Key = keyof typeof STRINGS.en

function say(locale: Locale, key: Key, params: Record<string, string | number> = {}): string {
  const table = (STRINGS as Record<string, Record<Key, string>>)[locale] ?? STRINGS.en
  return table[key].replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? ''))
}

/** `YYYY-MM-DD HH:mm` in the page's time zone (the host formats dates from templates, not the browser locale). */
function formatDate(iso: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  const pad = (n: number): string => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`
}

/** A rejected call (the remote could not be mounted, say) as one line. */
function failureText(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  return `${typeof code === 'string' ? code : 'CLIENT_ERROR'}: ${typeof message === 'string' ? message : String(error)}`
}

function shortId(id: string): string {
  return id.length > 18 ? `${id.slice(0, 16)}…` : id
}

export interface LineageStripProps {
  readonly sessionId: string
  readonly locale: Locale
  readonly status: SessionStatus | undefined
  /** The node selected in the tree (the button's target). */
  readonly selected: string | null
  readonly actions: LineageActions
}

function SessionLink({
  link,
  locale,
  actions,
  nodeLabel,
}: {
  readonly link: LineageLink
  readonly locale: Locale
  readonly actions: LineageActions
  readonly nodeLabel: string
}): ReactNode {
  const name = link.title ?? shortId(link.session)
  return (
    <span className="dst-lineage-link" data-session={link.session} data-by={link.by}>
      {link.exists ? (
        <a
          href="#"
          title={`${link.session} · ${say(locale, link.by === 'host' ? 'by_host' : 'by_tree')}`}
          onClick={(event) => {
            event.preventDefault()
            void actions.openSession(link.session)
          }}
        >
          {name}
        </a>
      ) : (
        <span className="dst-lineage-gone">
          {name} {say(locale, 'gone')}
        </span>
      )}
      <span className="dst-note">
        {' '}
        {nodeLabel} · {formatDate(link.time)}
      </span>
    </span>
  )
}

export function LineageStrip({ sessionId, locale, status, selected, actions }: LineageStripProps): ReactNode {
  const [busy, setBusy] = useState(false)
  const [message, setMessage] = useState<{ readonly text: string; readonly error?: boolean } | undefined>(undefined)
  const lineage = status?.lineage
  const orphans = status?.orphanSidecars?.orphans ?? []
  const from = lineage?.forkedFrom
  const to = [...(lineage?.forkedTo ?? [])].sort((a, b) => Number(b.node === selected) - Number(a.node === selected))

  const openNew = async (): Promise<void> => {
    if (selected === null) return
    setBusy(true)
    setMessage(undefined)
    try {
      const made = await actions.openAsNewSession(sessionId, selected)
      if (!made.ok) {
        setMessage({ text: `${made.error.code}: ${made.error.message}`, error: true })
        return
      }
      setMessage({ text: say(locale, 'opened', { title: made.value.title }) })
      await actions.openSession(made.value.sessionId)
    } catch (error) {
      setMessage({ text: failureText(error), error: true })
    } finally {
      setBusy(false)
    }
  }
  const collect = async (): Promise<void> => {
    setBusy(true)
    try {
      const done = await actions.gc(false)
      setMessage(
        done.ok
          ? { text: say(locale, 'removed', { count: done.value.removed.length }) }
          : { text: `${done.error.code}: ${done.error.message}`, error: true },
      )
    } catch (error) {
      setMessage({ text: failureText(error), error: true })
    } finally {
      setBusy(false)
    }
  }

  return (
    <div className="dst-lineage" data-testid="session-tree-lineage" data-session-id={sessionId}>
      {from ? (
        <span className="dst-lineage-from" data-testid="session-tree-forked-from">
          <span className="dst-lineage-label">{say(locale, 'from')}</span>{' '}
          <SessionLink link={from} locale={locale} actions={actions} nodeLabel={`${say(locale, 'at')} ${from.node}`} />
        </span>
      ) : null}
      {to.length > 0 ? (
        <span className="dst-lineage-to" data-testid="session-tree-forked-to">
          <span className="dst-lineage-label">{say(locale, 'to')}</span>{' '}
          {to.map((link) => (
            <SessionLink
              key={link.session}
              link={link}
              locale={locale}
              actions={actions}
              nodeLabel={link.node === selected ? say(locale, 'here') : `${say(locale, 'at')} ${link.node}`}
            />
          ))}
        </span>
      ) : null}
      <button
        type="button"
        className="dst-btn"
        data-testid="session-tree-open-new"
        disabled={busy || selected === null}
        title={say(locale, 'openTitle')}
        onClick={() => void openNew()}
      >
        {busy ? say(locale, 'opening') : say(locale, 'open')}
      </button>
      {orphans.length > 0 ? (
        <span className="dst-lineage-orphans" data-testid="session-tree-orphans">
          {say(locale, 'orphans', {
            count: orphans.length,
            date: formatDate(orphans.map((o) => o.removableAt).sort()[0]!),
          })}{' '}
          <button type="button" className="dst-btn" disabled={busy} onClick={() => void collect()}>
            {say(locale, 'remove')}
          </button>
        </span>
      ) : null}
      {message ? (
        <span className={message.error ? 'dst-lineage-error' : 'dst-note'} role={message.error ? 'alert' : 'status'}>
          {message.text}
        </span>
      ) : null}
    </div>
  )
}

export const LINEAGE_CSS = `
.dst-lineage { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 14px; padding: 4px 12px; border-bottom: 1px solid var(--dst-border); font-size: 12px; min-width: 0; }
.dst-lineage-label { font-weight: 600; }
.dst-lineage-link { margin-right: 8px; overflow-wrap: anywhere; }
.dst-lineage-link a { color: var(--dst-accent, #2563eb); text-decoration: underline; cursor: pointer; }
.dst-lineage-gone { text-decoration: line-through; opacity: 0.7; }
.dst-lineage-error { color: #b91c1c; }
`
