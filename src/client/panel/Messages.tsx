/**
 * The banners above the tree: the last action's failure, a stale tree, a
 * pending switch, skipped events, sidecar and log warnings, a path DSH will
 * compact before the next step, and the last
 * action's success notice.
 */
import type { ReactNode } from 'react'
import type { Notice, PanelState } from '../controller.ts'
import type { Translate } from '../i18n.ts'
import type { TreeIndex } from '../../outline/index.ts'
import { chatToolsRekeyed } from '../chat/host-tools.ts'
export function noticeText(t: Translate, notice: Notice): string {
  // What the user got, not how: the count of log events goes to the notice's tooltip.
  const events = 'appendedEvents' in notice && notice.appendedEvents ? ` ${t('notice.switch')}` : ''
  switch (notice.kind) {
    case 'jump':
      return (
        (notice.snappedFrom ? `${t('notice.snapped')} ` : '') +
        (notice.mode === 'projection' ? t('notice.jumpProjection') : t('notice.jump')) +
        events
      )
    case 'back':
      return t('notice.back') + events
    case 'forward':
      return t('notice.forward') + events
    case 'fork':
      return t('notice.fork', { branch: notice.branch }) + events
    case 'label':
      return notice.cleared ? t('notice.labelCleared') : t('notice.label')
    case 'summarize':
      return t('notice.summarize', { branch: notice.branch })
    case 'export':
      return t('notice.export')
  }
}

export function Messages({
  t,
  state,
  index,
  onDismiss,
  onDismissNotice,
  onRetry,
}: {
  readonly t: Translate
  readonly state: PanelState
  readonly index: TreeIndex
  readonly onDismiss: () => void
  readonly onDismissNotice: () => void
  readonly onRetry: () => void
}): ReactNode {
  const status = state.status
  const out: ReactNode[] = []
  if (state.actionError) {
    out.push(
      <p key="action" className="dst-banner" data-tone="error" role="alert" data-testid="session-tree-action-error">
        <span>
          <span className="dst-code">{state.actionError.code}</span>: {state.actionError.message}
        </span>
        <button type="button" className="dst-btn" onClick={onDismiss}>
          {t('error.dismiss')}
        </button>
      </p>,
    )
  }
  if (state.error) {
    out.push(
      <p key="stale" className="dst-banner" data-tone="warn" role="alert">
        <span>{t('status.stale', { code: state.error.code, message: state.error.message })}</span>
        <button type="button" className="dst-btn" onClick={onRetry}>
          {t('error.retry')}
        </button>
      </p>,
    )
  }
  if (status?.pendingSwitch) {
    out.push(
      <p key="pending" className="dst-banner" data-tone="info">
        {t('status.pending', { target: status.pendingSwitch.target ?? '∅' })}
      </p>,
    )
  }
  if (status?.quarantine && status.quarantine.length > 0) {
    out.push(
      <p
        key="quarantine"
        className="dst-banner"
        data-tone="warn"
        title={status.quarantine.map((q) => `#${q.seq} ${q.type}: ${q.reason}`).join('\n')}
      >
        {t('status.quarantine', { count: status.quarantine.length })}
      </p>,
    )
  }
  for (const [i, warning] of (status?.sidecarWarnings ?? []).entries()) {
    out.push(
      <p key={`sidecar-${i}`} className="dst-banner" data-tone="warn">
        {t('status.sidecar', { message: `${warning.code}: ${warning.message}` })}
      </p>,
    )
  }
  for (const warning of status?.logWarnings ?? []) {
    out.push(
      <p
        key={`log-${warning.code}`}
        className="dst-banner"
        data-tone="warn"
        data-testid="session-tree-log-warning"
        data-code={warning.code}
        title={`${warning.message}\n${warning.remedy}`}
      >
        {/* Whether DSH's tool views in this page read a repeated call id (`chat/host-tools.ts`). */}
        {t(chatToolsRekeyed() ? 'status.repeatedCallIdsKeyed' : 'status.repeatedCallIds', {
          count: warning.count,
          seq: warning.firstSeq,
        })}
      </p>,
    )
  }
  const fit = status?.contextFit
  if (fit && fit.verdict !== 'fits') {
    const figure = (n: number | undefined) => (n === undefined ? '?' : n.toLocaleString('en-US'))
    out.push(
      <p
        key="context-fit"
        className="dst-banner"
        data-tone={fit.verdict === 'compacts' ? 'info' : 'warn'}
        data-testid="session-tree-context-fit"
        data-verdict={fit.verdict}
      >
        {t(fit.verdict === 'compacts' ? 'status.contextCompacts' : 'status.contextOverflows', {
          tokens: figure(fit.tokens),
          threshold: figure(fit.threshold),
          window: figure(fit.contextWindow),
        })}
      </p>,
    )
  }
  if (index.unreachable > 0) {
    out.push(
      <p key="unreachable" className="dst-banner" data-tone="warn">
        {t('status.unreachable', { count: index.unreachable })}
      </p>,
    )
  }
  return (
    <div aria-live="polite" data-testid="session-tree-messages">
      {out}
      {state.notice && !state.actionError ? (
        <p
          className="dst-banner"
          data-tone="ok"
          data-testid="session-tree-notice"
          title={
            'appendedEvents' in state.notice && state.notice.appendedEvents
              ? t('notice.switchTitle', { count: state.notice.appendedEvents })
              : undefined
          }
        >
          <span>{noticeText(t, state.notice)}</span>
          <button type="button" className="dst-btn" onClick={onDismissNotice}>
            {t('error.dismiss')}
          </button>
        </p>
      ) : null}
    </div>
  )
}
