/**
 * One way to change what DSH's own conversation Definitions answer, shared by
 * `host-tools.ts` and `host-trajectory.ts`: nothing in the host's registry lets
 * a plugin filter another's Definition, so a chosen method is wrapped (host
 * first, then our function of its result). Fail closed: an unfit or frozen
 * Definition stays the host's, a throwing function leaves the host's result,
 * disposing restores every method. Host lines: docs/known-limits.md.
 */

/** The registry as far as it is read here (`ctx.conversationEvents` of dsh-client-runtime). */
export interface DefinitionEntries {
  entries(): readonly unknown[]
  subscribe?(listener: () => void): () => void
}

/** A host Definition, as far as it is changed here. */
export interface HostDefinition {
  readonly kind: string
  readonly target?: unknown
  match: (event: unknown) => unknown
  buildViewNode?: (context: unknown) => unknown
}

/** What to make of a method's result, given its argument (the event, the context). */
export type After = (result: unknown, argument: unknown) => unknown

/** Which Definitions to change, and how; `match` is always wrapped first, the view builder only with it. */
export interface DefinitionWraps {
  select(definition: HostDefinition): boolean
  match(definition: HostDefinition): After
  buildViewNode?(definition: HostDefinition): After | undefined
  /** A Definition's match was wrapped (`true`) or put back (`false`). */
  changed?(definition: HostDefinition, wrapped: boolean): void
}

type Method = 'match' | 'buildViewNode'
type Fn = (argument: unknown) => unknown

const isDefinition = (value: unknown): value is HostDefinition =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { kind?: unknown }).kind === 'string' &&
  typeof (value as { match?: unknown }).match === 'function'

/** Replace `definition[method]` by the host's method followed by `after`; the pair to put back, or undefined when it cannot be replaced. */
function wrapMethod(
  definition: HostDefinition,
  method: Method,
  after: After,
): { original: Fn; wrapper: Fn } | undefined {
  const original = definition[method] as Fn | undefined
  if (typeof original !== 'function') return undefined
  const wrapper: Fn = function (this: unknown, argument) {
    const result = original.call(this, argument)
    try {
      return after(result, argument)
    } catch {
      return result
    }
  }
  try {
    ;(definition as unknown as Record<Method, Fn>)[method] = wrapper
  } catch {
    return undefined // a frozen Definition stays the host's own
  }
  return definition[method] === wrapper ? { original, wrapper } : undefined
}

/** Wrap the selected Definitions now and whenever the registry changes. Returns the disposer. */
export function wrapHostDefinitions(registry: DefinitionEntries, wraps: DefinitionWraps): () => void {
  const wrapped = new Map<HostDefinition, Array<{ method: Method; original: Fn; wrapper: Fn }>>()
  const patch = (): void => {
    let entries: readonly unknown[]
    try {
      entries = registry.entries()
    } catch {
      return
    }
    for (const entry of entries) {
      if (!isDefinition(entry) || wrapped.has(entry) || !wraps.select(entry)) continue
      const match = wrapMethod(entry, 'match', wraps.match(entry))
      if (match === undefined) continue
      const methods: Array<{ method: Method; original: Fn; wrapper: Fn }> = [{ method: 'match', ...match }]
      const afterBuild = wraps.buildViewNode?.(entry)
      const build = afterBuild === undefined ? undefined : wrapMethod(entry, 'buildViewNode', afterBuild)
      if (build !== undefined) methods.push({ method: 'buildViewNode', ...build })
      wrapped.set(entry, methods)
      wraps.changed?.(entry, true)
    }
  }
  patch()
  let unsubscribe: (() => void) | undefined
  try {
    unsubscribe = registry.subscribe?.(patch)
  } catch {
    unsubscribe = undefined
  }
  return () => {
    unsubscribe?.()
    for (const [entry, methods] of wrapped) {
      for (const { method, original, wrapper } of methods) {
        const holder = entry as unknown as Record<Method, Fn>
        if (holder[method] === wrapper) holder[method] = original
      }
      wraps.changed?.(entry, false)
    }
    wrapped.clear()
  }
}
