/**
 * The host's services, looked up by name in the plugin's cordis context: the one place their names are listed
 * and the lookup is cast. Each caller names the slice of the service it uses (the host's own types are not
 * declared on `Context` for a plugin).
 */

/** What a lookup needs of a cordis `Context` (any context, or a slice of one). */
export type HostContext = { get(name: never): unknown }

/** The services of DSH (and of `dsh web`) the plugin reads. */
export type HostServiceName =
  | 'agentPresets'
  | 'agents'
  | 'conversationEvents'
  | 'fs'
  | 'headlessStartup'
  | 'llm'
  | 'locale'
  | 'sessionPersistence'
  | 'sessions'
  | 'tokenMeter'
  | 'typert'
  | 'typertGateway'
  | 'workspaceRegistry'

/** The service `name` as the slice `T` its caller uses; undefined when the host has none. */
export function hostService<T>(ctx: HostContext, name: HostServiceName): T | undefined {
  return (ctx as { get(name: string): unknown }).get(name) as T | undefined
}

/** The host's agent lookup (typert's `agent` lookup): resolving an id makes that session live in the harness. */
export function agentLookup(ctx: HostContext): { resolve(id: string): Promise<unknown> } | undefined {
  type Lookups = { lookups?: { get(key: string): { resolve(id: string): Promise<unknown> } | undefined } }
  return hostService<Lookups>(ctx, 'typert')?.lookups?.get('agent')
}

/**
 * The service `name` read as the context's property, cordis's own lookup: in an `inject` callback's scope, or in a
 * root context the plugin made (the bin's, an import's staging one), where a service counts once it is provided.
 */
export function contextService<T>(ctx: object, name: HostServiceName): T | undefined {
  return (ctx as Record<string, unknown>)[name] as T | undefined
}

/** The host events the plugin listens to with listeners typed on its own slices of their payloads. */
export type HostEventName =
  | 'agent/pre-step'
  | 'fs/edit-intent'
  | 'fs/write-intent'
  | 'internal/dispatch'
  | 'session/created'
  | 'session/disposed'
  | 'session/event'
  | 'tools/execute'
  | 'tools/post-execute'

/** Options of a host listener: `prepend` puts it ahead of those there already, `global` hears every scope. */
export interface HostListenerOptions {
  readonly prepend?: boolean
  readonly global?: boolean
}

/** `ctx.on` for such a listener; the disposer it returns removes it. */
export type HostListen = <A extends never[]>(
  name: HostEventName,
  listener: (...args: A) => unknown,
  options?: HostListenerOptions,
) => () => void

/**
 * The context's `on` for listeners typed on the plugin's slices (the published event types want the host's full
 * `Agent`, `Execution`, …, and a scoped `this`): the one place that cast is made.
 */
export function hostEvents(ctx: { on(...args: never[]): unknown }): HostListen {
  return ctx.on.bind(ctx) as unknown as HostListen
}

/** Run a harness listener's work; a failure is logged and costs the tree, never the session. */
export function guarded(warn: (error: unknown) => void, operation: () => unknown): void {
  try {
    operation()
  } catch (error) {
    warn(error)
  }
}
