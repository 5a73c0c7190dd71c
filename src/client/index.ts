/**
 * `dsh-session-tree/client`, the browser half (`lib/client.js`, built by
 * `dev/build-client.ts`): the "Tree" tab, a header button that opens it, and
 * in DSH's own Chat two Definitions with their renderers and CSS (`chat/`).
 * The service is reached only through the generated client. A failing mount
 * never fails the page's boot (the web shell refuses to start when a plugin
 * fails to activate): the panel shows the error instead.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { TypertClientRemote } from '@deepseek-ai/dsh-typert-protocol'
import type { ReactNode } from 'react'
import { ChangeFeed, type WatchRemote } from './changes.ts'
import { TreeController } from './controller.ts'
import { translator, resolveLocale, type HostLocale } from './i18n.ts'
import { OpenTreeAction } from './OpenTreeAction.tsx'
import { asChatRemote, asTreeRemote, asWorkspaceRemote, withTreeErrors, type GeneratedSessionTree } from './remote.ts'
import TYPERT_REMOTE from '../../lib/typert.remote-client.js'
import { WorkspaceClient } from './workspace/client.ts'
import { WORKSPACE_CSS } from './workspace/styles.ts'
import { CSS } from './styles.ts'
import { injectStylesheet } from './stylesheet.ts'
import { LINEAGE_CSS, type LineageActions } from './Lineage.tsx'
import type { InterchangeActions } from './interchange/files.ts'
import { INTERCHANGE_CSS } from './interchange/styles.ts'
import { TreePanel, type TreePanelInjected } from './TreePanel.tsx'
import type { ChatPager } from './chat/store.ts'
import { ChatStores } from './chat/stores.ts'
import { ForkControl, SwitchRow } from './chat/ChatRows.tsx'
import {
  FORK_KIND,
  forkDefinition,
  SWITCH_KIND,
  switchDefinition,
  type ConversationDefinition,
} from './chat/definitions.ts'
import { CHAT_CSS } from './chat/styles.ts'
import { rekeyHostTools } from './chat/host-tools.ts'
import { type DefinitionEntries } from './chat/host-definitions.ts'
import { hideInStepCopies } from './chat/host-trajectory.ts'
import { errorMessage } from '../tree/errors.ts'
import { contextService, hostService } from '../harness/host.ts'

export { TreeController } from './controller.ts'
export { TreePanel } from './TreePanel.tsx'

/** The host services the panel uses, as far as it uses them (`@deepseek-ai/dsh-client-*` are not published with types). */
export interface SlotRegistration {
  readonly name: string
  /** List and view slots address entries by id, keyed slots by key. */
  readonly id?: string
  readonly key?: string
  readonly order?: number
  readonly label?: string | (() => string)
  readonly inject?: (sessionId: string) => object
}

export interface ClientSlots {
  inject(name: string, callback: () => () => void): () => void
  register(options: SlotRegistration, component: (props: never) => ReactNode): () => void
}

export type ClientContext = Context & {
  readonly slots: ClientSlots
  readonly remote: TypertClientRemote
}

/** The host's conversation Definition registry (`ctx.conversationEvents` of dsh-client-runtime). */
export interface ConversationEvents extends DefinitionEntries {
  register(definition: ConversationDefinition<unknown, unknown>): () => void
}

export const name = 'dsh-session-tree'

/** Required host services. `locale` is optional (read with `ctx.get`): a missing service would block the shell's boot. */
export const inject = ['slots', 'remote']

/** Options for tests and standalone pages. */
export interface ApplyOptions {
  readonly intervalMs?: number
}

export function apply(context: Context, options: ApplyOptions = {}): void {
  const ctx = context as ClientContext
  ctx.effect(() => injectStylesheet('panel.css', CSS), 'session-tree: styles')
  ctx.effect(() => injectStylesheet('workspace.css', WORKSPACE_CSS), 'session-tree: workspace styles')

  let mounted: Promise<GeneratedSessionTree> | undefined
  const remote = (): Promise<GeneratedSessionTree> => {
    mounted ??= ctx.remote.$mount(TYPERT_REMOTE).then(
      // The namespace is a service of its own (`remote.sessionTree`): reach it from a fiber that injects it.
      () =>
        new Promise<GeneratedSessionTree>((resolve) => {
          ctx.inject(['remote', 'remote.sessionTree'], (scope) => {
            resolve(withTreeErrors((scope as ClientContext).remote.sessionTree))
          })
        }),
      (reason: unknown) => {
        mounted = undefined // a later poll retries
        throw { code: 'REMOTE_MOUNT_FAILED', message: errorMessage(reason) }
      },
    )
    return mounted
  }
  // Mount right away (the first tab render then finds it ready); failures surface in the panel.
  remote().catch(() => {})

  const hostLocale = (): HostLocale | undefined => hostService<HostLocale>(ctx, 'locale')
  const t = (): ReturnType<typeof translator> => translator(resolveLocale(hostLocale()))

  // Sessions across sessions: the lineage strip's buttons, and the host's session selection for its links.
  ctx.effect(() => injectStylesheet('lineage.css', LINEAGE_CSS), 'session-tree: lineage styles')
  const hostSessions = (): { open(id: string): void; refresh(): Promise<unknown> } | undefined =>
    hostService<{ open(id: string): void; refresh(): Promise<unknown> }>(ctx, 'sessions')
  const lineage: LineageActions = {
    openAsNewSession: (agentId, nodeId) => remote().then((r) => r.openAsNewSession(agentId, nodeId)),
    gc: (dryRun) => remote().then((r) => r.gc(dryRun)),
    openSession: async (sessionId) => {
      const sessions = hostSessions()
      if (!sessions) return
      // A session made a moment ago may not be in the host's list yet.
      await sessions.refresh().catch(() => undefined)
      sessions.open(sessionId)
    },
  }

  // Import and export files (the Tree tab's Import… and Export menu); a new session opens like a lineage link.
  ctx.effect(() => injectStylesheet('interchange.css', INTERCHANGE_CSS), 'session-tree: interchange styles')
  const interchange: InterchangeActions = {
    importSession: (request) => remote().then((r) => r.importSession(request)),
    exportAs: (request) => remote().then((r) => r.exportAs(request)),
    openSession: async (sessionId) => {
      if (!hostSessions()) return false
      await lineage.openSession(sessionId)
      return true
    },
  }

  // One push channel for the page: every shown Tree tab and Chat learns of its session's changes through it.
  const changes = new ChangeFeed(
    () => remote() as unknown as Promise<WatchRemote>,
    typeof document === 'undefined' ? undefined : document,
  )
  ctx.effect(() => () => changes.dispose(), 'session-tree: changes')
  const controllers = new Map<string, TreeController>()
  const controllerFor = (sessionId: string): TreeController => {
    let controller = controllers.get(sessionId)
    if (!controller) {
      controller = new TreeController(() => remote().then(asTreeRemote), sessionId, {
        changes,
        ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
      })
      controllers.set(sessionId, controller)
    }
    return controller
  }
  const workspaces = new Map<string, WorkspaceClient>()
  const workspaceFor = (sessionId: string): WorkspaceClient => {
    let client = workspaces.get(sessionId)
    if (!client)
      workspaces.set(sessionId, (client = new WorkspaceClient(() => remote().then(asWorkspaceRemote), sessionId)))
    return client
  }
  ctx.effect(
    () => () => {
      workspaces.clear()
      for (const controller of controllers.values()) controller.dispose()
      controllers.clear()
    },
    'session-tree: controllers',
  )

  ctx.slots.inject('conversation.view', () =>
    ctx.slots.register(
      {
        name: 'conversation.view',
        id: 'session-tree',
        order: 30,
        label: () => t()('tab'),
        inject: (sessionId: string): TreePanelInjected => ({
          tree: controllerFor(sessionId),
          hostLocale,
          lineage,
          workspace: workspaceFor(sessionId),
          interchange,
        }),
      },
      TreePanel as (props: never) => ReactNode,
    ),
  )
  // DSH's own Chat: our rows and the per-session stylesheet that hides what the model does not read.
  ctx.effect(() => injectStylesheet('chat.css', CHAT_CSS), 'session-tree: chat styles')
  // DSH's pager of one session's Chat: `ctx.sessions.scope(id).conversation.loadOlder()` (the host's documented address).
  const pager = (sessionId: string): ChatPager | undefined => {
    type Conversation = { loadOlder?: () => Promise<void> }
    const sessions = hostService<{ scope?: (id: string) => unknown }>(ctx, 'sessions')
    const scoped = sessions?.scope?.(sessionId) as
      { get?: (name: string) => unknown; conversation?: Conversation } | undefined
    const conversation =
      (typeof scoped?.get === 'function' ? (scoped.get('conversation') as Conversation | undefined) : undefined) ??
      scoped?.conversation
    return typeof conversation?.loadOlder === 'function' ? { loadOlder: () => conversation.loadOlder!() } : undefined
  }
  const stores = new ChatStores(() => remote().then(asChatRemote), {
    pager,
    changes,
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
  })
  ctx.effect(() => () => stores.dispose(), 'session-tree: chat stores')
  // Optional: a host without the Definition registry keeps its Chat as it is (never blocks the boot).
  ctx.inject(['conversationEvents'], (scope) => {
    const events = contextService<ConversationEvents>(scope, 'conversationEvents')!
    const owner = typeof scope.effect === 'function' ? scope : ctx
    // First, so that no transcript is built with DSH's tool Definitions un-keyed (a log repeating a call id);
    // then DSH's Trajectory leaves out what a model's in-step move restates (the Chat's switch row says it) and
    // keys a repeated call id's tool rows apart.
    owner.effect(() => rekeyHostTools(events), 'session-tree: host tool keys')
    owner.effect(() => hideInStepCopies(events), 'session-tree: trajectory in-step copies')
    try {
      events.register(switchDefinition((event) => stores.poke(event.seq)) as ConversationDefinition<unknown, unknown>)
      events.register(forkDefinition() as ConversationDefinition<unknown, unknown>)
    } catch (error) {
      // The Chat then stays the host's own: every row shown.
      console.warn('[dsh-session-tree] the Chat decorations are off:', error)
    }
  })
  for (const [key, component] of [
    [SWITCH_KIND, SwitchRow],
    [FORK_KIND, ForkControl],
  ] as const) {
    ctx.slots.inject('conversation.chat.node', () =>
      ctx.slots.register(
        { name: 'conversation.chat.node', key, inject: () => ({ stores, hostLocale }) },
        component as (props: never) => ReactNode,
      ),
    )
  }
  ctx.slots.inject('conversation.session.header.actions', () =>
    ctx.slots.register(
      {
        name: 'conversation.session.header.actions',
        id: 'session-tree',
        order: 50,
        inject: () => ({ hostLocale }),
      },
      OpenTreeAction as (props: never) => ReactNode,
    ),
  )
}
