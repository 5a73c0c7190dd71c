/**
 * Our two keyed renderers in DSH's Chat (`session-tree-switch`: "Switched to
 * main · 4 messages hidden · Show"; `session-tree-fork`: the ‹ k / n ›
 * control). Each mounted node keeps its session's `ChatStore` fed with the
 * Chat's rows; an error boundary keeps our failures out of the host's
 * transcript (a render error would unmount the Chat).
 */
import { Component, useCallback, useLayoutEffect, useSyncExternalStore, type ReactNode } from 'react'
import type { ChatFork, ChatSwitch } from '../../types.ts'
import type { HostLocale, StringKey, Translate } from '../i18n.ts'
import { useTranslate } from '../useTranslate.ts'
import type { ChatNodes, ChatStore } from './store.ts'
import type { ChatStores } from './stores.ts'

/** The host's Chat snapshot, as far as these renderers read it. */
interface ChatSnapshotLike {
  readonly chat?: { readonly order?: readonly string[]; readonly nodes?: ChatNodes }
  /** Whether older history pages remain to load. */
  readonly hasMore?: boolean
}

/** What the host hands a keyed Chat renderer (standard session kit + owner props) plus our inject. */
export interface ChatNodeProps {
  readonly node: { readonly key: string; readonly kind: string; readonly anchorSeq: number }
  readonly sessionId: string
  readonly useSession: <T>(selector: (snapshot: ChatSnapshotLike) => T) => T
  readonly stores: ChatStores
  readonly hostLocale: () => HostLocale | undefined
}

/** Render nothing instead of failing the host's Chat. */
class Contained extends Component<{ readonly children: ReactNode }, { readonly failed: boolean }> {
  override state = { failed: false }
  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true }
  }
  override componentDidCatch(error: unknown): void {
    console.warn('[dsh-session-tree] a Chat row failed and is left out:', error)
  }
  override render(): ReactNode {
    return this.state.failed ? null : this.props.children
  }
}

function useChatStore(props: ChatNodeProps): {
  store: ChatStore
  state: ReturnType<ChatStore['getSnapshot']>
  ref: (el: HTMLElement | null) => void
} {
  const store = props.stores.get(props.sessionId)
  // Layout effects, in this order, before the browser paints the rows these nodes came with:
  // the live rules apply from the first frame (a copy or a row a switch left is never drawn).
  useLayoutEffect(() => store.start(), [store])
  const order = props.useSession((s) => s.chat?.order)
  const nodes = props.useSession((s) => s.chat?.nodes)
  const hasMore = props.useSession((s) => s.hasMore === true)
  useLayoutEffect(() => {
    if (order && nodes) store.observe(order, nodes, hasMore)
  }, [store, order, nodes, hasMore])
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot)
  const ref = useCallback((el: HTMLElement | null) => store.attach(el?.closest('[data-chat-flow]') ?? null), [store])
  return { store, state, ref }
}

/** A template with `{name}` slots filled by elements (a translated sentence with a bold branch name). */
function fill(template: string, parts: Readonly<Record<string, ReactNode>>): ReactNode[] {
  return template.split(/(\{\w+\})/).map((piece, i) => {
    const name = /^\{(\w+)\}$/.exec(piece)?.[1]
    return name !== undefined && name in parts ? <span key={i}>{parts[name]}</span> : piece
  })
}

function switchTitle(sw: ChatSwitch, t: Translate): ReactNode[] {
  const key: StringKey =
    sw.kind === 'fork'
      ? 'chat.forked'
      : sw.target === null
        ? 'chat.switchedStart'
        : sw.branch === ''
          ? 'chat.switchedNode'
          : 'chat.switched'
  return fill(t(key), { branch: <strong>{sw.branch}</strong>, node: <strong>{sw.targetSummary ?? sw.target}</strong> })
}

function SwitchView(props: ChatNodeProps): ReactNode {
  const { store, state, ref } = useChatStore(props)
  const { t } = useTranslate(props.hostLocale)
  const sw = state.rules.switches.get(props.node.key)
  if (!sw) return <div ref={ref} />
  const expanded = state.expanded.has(sw.leadSeq)
  const hover = sw.targetSummary === undefined ? undefined : t('chat.switchTitle', { summary: sw.targetSummary })
  return (
    <div
      ref={ref}
      className="dstc-switch"
      role="note"
      data-testid="session-tree-switch"
      data-seq={sw.seq}
      data-lead={String(sw.lead)}
      data-expanded={String(expanded)}
      title={hover}
    >
      <span>
        <svg viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.5" aria-hidden="true">
          <circle cx="4" cy="3" r="1.6" />
          <circle cx="12" cy="13" r="1.6" />
          <path d="M4 4.6V8a3 3 0 0 0 3 3h3.4" />
        </svg>
        <span>{switchTitle(sw, t)}</span>
        {sw.lead && sw.hiddenMessages > 0 ? (
          <>
            <span className="dstc-sep">·</span>
            <span data-testid="session-tree-switch-count">
              {t(expanded ? 'chat.revealed' : 'chat.hidden', { count: sw.hiddenMessages })}
            </span>
            {state.filling === sw.leadSeq ? (
              <>
                <span className="dstc-sep">·</span>
                <span data-testid="session-tree-switch-loading" role="status">
                  {t('chat.loadingEarlier')}
                </span>
              </>
            ) : expanded && state.partial?.has(sw.leadSeq) ? (
              <>
                <span className="dstc-sep">·</span>
                <span data-testid="session-tree-switch-partial">{t('chat.partial')}</span>
              </>
            ) : null}
            <span className="dstc-sep">·</span>
            <button
              type="button"
              aria-expanded={expanded}
              title={t(expanded ? 'chat.hideTitle' : 'chat.showTitle')}
              data-testid="session-tree-switch-toggle"
              onClick={() => store.toggle(sw.leadSeq)}
            >
              {t(expanded ? 'chat.hide' : 'chat.show')}
            </button>
          </>
        ) : null}
      </span>
    </div>
  )
}

function ForkView(props: ChatNodeProps): ReactNode {
  const { store, state, ref } = useChatStore(props)
  const { t } = useTranslate(props.hostLocale)
  const fork: ChatFork | undefined = state.rules.forks.get(props.node.key)
  if (!fork) return <div ref={ref} />
  const moving = state.moving !== undefined
  const go = (index: number) => {
    const target = fork.targets[index - 1]
    if (target !== undefined) void store.move(fork.seq, target)
  }
  const error = state.moveError?.seq === fork.seq ? state.moveError : undefined
  return (
    <div
      ref={ref}
      className="dstc-fork"
      role="group"
      aria-label={t('chat.fork.title', { index: fork.index, count: fork.count })}
      title={t('chat.fork.title', { index: fork.index, count: fork.count })}
      data-testid="session-tree-fork"
      data-node-id={fork.nodeId}
      data-row={fork.row}
      aria-busy={state.moving === fork.seq}
    >
      {error ? <span className="dstc-error" role="alert">{`${error.code}: ${error.message}`}</span> : null}
      <button
        type="button"
        aria-label={t('chat.fork.prev')}
        disabled={moving || fork.index <= 1}
        onClick={() => go(fork.index - 1)}
      >
        ‹
      </button>
      <span className="dstc-count">{t('chat.fork.count', { index: fork.index, count: fork.count })}</span>
      <button
        type="button"
        aria-label={t('chat.fork.next')}
        disabled={moving || fork.index >= fork.count}
        onClick={() => go(fork.index + 1)}
      >
        ›
      </button>
    </div>
  )
}

export function SwitchRow(props: ChatNodeProps): ReactNode {
  return (
    <Contained>
      <SwitchView {...props} />
    </Contained>
  )
}

export function ForkControl(props: ChatNodeProps): ReactNode {
  return (
    <Contained>
      <ForkView {...props} />
    </Contained>
  )
}
