/**
 * The slice of dsh-TUI (`@deepseek-harness-tui/dsh-tui` 0.10.2) this plugin
 * uses, typed structurally: dsh-TUI is not a dependency (a profile without it
 * must load this package), so nothing here imports it. Names and shapes are
 * those of its published `lib/types/dsh-adapter/{scenes,command-trees,
 * shortcuts,renderers}.d.ts` and `lib/types/ui.d.ts`.
 */

/** The host's React (19): every hook and element of a scene goes through it. */
export interface HostReact {
  createElement(type: unknown, props?: Record<string, unknown> | null, ...children: unknown[]): unknown
  useState<T>(initial: T | (() => T)): [T, (next: T | ((previous: T) => T)) => void]
  useEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void
  useMemo<T>(factory: () => T, deps: readonly unknown[]): T
  useRef<T>(initial: T): { current: T }
  useCallback<T extends (...args: never[]) => unknown>(callback: T, deps: readonly unknown[]): T
  useSyncExternalStore<T>(subscribe: (listener: () => void) => () => void, snapshot: () => T): T
  readonly Fragment: unknown
}

/** What dsh-TUI's input layer reports for one key press (`ink/events/input-event.d.ts`). */
export interface HostKey {
  readonly upArrow?: boolean
  readonly downArrow?: boolean
  readonly leftArrow?: boolean
  readonly rightArrow?: boolean
  readonly pageUp?: boolean
  readonly pageDown?: boolean
  readonly home?: boolean
  readonly end?: boolean
  readonly return?: boolean
  readonly escape?: boolean
  readonly ctrl?: boolean
  readonly shift?: boolean
  readonly tab?: boolean
  readonly backspace?: boolean
  readonly delete?: boolean
  readonly meta?: boolean
}

/** The ui kit a scene receives (`ui.js`): the components and hooks used here. */
export interface HostUi {
  readonly Box: unknown
  readonly Text: unknown
  useInput(handler: (input: string, key: HostKey) => void, options?: { isActive?: boolean }): void
  useTerminalSize(): { columns: number; rows: number }
}

/** The live channel of a scene: the agent it is bound to and a change feed. */
export interface HostChannel {
  readonly agentId?: string
  readonly version: number
  subscribe(listener: () => void): () => void
  /** Switch the terminal to another session (`/resume`'s path). */
  resumeTo?(sessionId: string): Promise<unknown> | unknown
  notify?(text: string, options?: { color?: string; timeoutMs?: number }): void
}

export interface SceneProps {
  readonly React: HostReact
  readonly ui: HostUi
  readonly channel: HostChannel
  close(): void
}

export interface SceneDescriptor {
  readonly id: string
  readonly title?: string
  readonly component: (props: SceneProps) => unknown
}

/** `ctx.tuiScenes`. */
export interface TuiScenes {
  register(descriptor: SceneDescriptor, identity?: unknown): () => void
  open(id: string): boolean
  close(): void
}

/** One completion row of `ctx.tuiCommandTrees` (`commands.d.ts` CommandCompletionNode). */
export interface CompletionNode {
  readonly name: string
  readonly aliases?: readonly string[]
  readonly description: string
  readonly descriptions?: Readonly<Record<string, string>>
}

/** `ctx.tuiCommandTrees`. */
export interface TuiCommandTrees {
  register(provider: {
    readonly root: string
    readonly descriptions?: Readonly<Record<string, string>>
    children(path: readonly string[]): readonly CompletionNode[]
  }): () => void
}

/** `ctx.tuiShortcuts`: a combo needs ctrl or alt; reserved combos are refused with a warning. */
export interface TuiShortcuts {
  register(combo: string, shortcut: { description: string; handler: () => void }, identity?: unknown): () => void
}

/** `ctx.tuiRenderers`: a custom `plugin/event` type drawn as plain text rows. */
export interface TuiRenderers {
  register(
    type: string,
    render: (payload: unknown) => { title?: string; lines: readonly string[] } | undefined,
    identity?: unknown,
  ): () => void
}
