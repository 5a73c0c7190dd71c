/**
 * `dsh-session-tree/tui`: the terminal half for dsh-TUI (Loader row
 * `session-tree-tui`): the scene (`scene.ts`), `/session-tree` and Alt+T, and a
 * transcript row at each switch (`switch-rows.ts`); docs/tui.md. dsh-TUI's
 * services are injected one by one, each optional, and each block runs when its
 * service appears, whichever Loader row starts first; without dsh-TUI only
 * `/session-tree` is registered, answering with text like `/tree`.
 */
import type { LogEvent } from '../harness/log-event.ts'
import type { Context } from '@deepseek-ai/cordis'
import s from '@deepseek-ai/schemastery'
import type {} from '@deepseek-ai/dsh-commands'
import type {} from '@deepseek-ai/dsh-agent'
import type { SessionTreeService } from '../service/service.ts'
import type { LiveAgent, LiveSession } from '../harness/live.ts'
import { SWITCH_ROW_EVENT } from '../harness/plugin-events.ts'
import { runTreeCommand, USAGE } from '../tool/command.ts'
import { sessionTreeToolOf } from '../tool/index.ts'
import type { TuiCommandTrees, TuiRenderers, TuiScenes, TuiShortcuts } from './host.ts'
import { bothLangs, tuiLang, word } from './i18n.ts'
import { treeScene } from './scene.ts'
import { pendingSwitchRows, renderSwitchRow } from './switch-rows.ts'
import { SUBCOMMANDS, subcommandNodes } from './subcommands.ts'

export const name = 'session-tree-tui'
export const inject = ['sessionTree']

/** The scene's id in `ctx.tuiScenes`. */
export const SCENE_ID = 'session-tree'
/** The command: a name dsh-TUI does not own. */
export const TUI_COMMAND = 'session-tree'
export const DEFAULT_SHORTCUT = 'alt+t'

/** Configuration of the `session-tree-tui` row. */
export interface Config {
  /** Register `/session-tree` (default true). */
  readonly command: boolean
  /** The combo that opens the scene (default `alt+t`; `''` for none). */
  readonly shortcut: string
  /** Write a transcript row after each history switch while dsh-TUI is loaded (default true). */
  readonly switchRows: boolean
}

export const Config: s<Config> = s.object({
  command: s.boolean().default(true),
  shortcut: s.string().default(DEFAULT_SHORTCUT),
  switchRows: s.boolean().default(true),
}) as unknown as s<Config>

type Scoped<K extends string, T> = Context & { readonly [key in K]: T }

export function apply(ctx: Context, config: Partial<Config> = {}): void {
  const settings: Config = { command: true, shortcut: DEFAULT_SHORTCUT, switchRows: true, ...config }
  const service = ctx.sessionTree
  const logger = ctx.logger('session-tree')
  let scenes: TuiScenes | undefined
  let page: { title: string; lines: string[] } | undefined
  const component = treeScene({
    service,
    takePage: () => {
      const taken = page
      page = undefined
      return taken
    },
    warn: (error) => logger.warn(error),
  })
  const openScene = (): boolean => {
    try {
      return scenes?.open(SCENE_ID) ?? false
    } catch (error) {
      logger.warn(error)
      return false
    }
  }

  ctx.inject(['tuiScenes'], (ctx) => {
    const runtime = (ctx as Scoped<'tuiScenes', TuiScenes>).tuiScenes
    const dispose = runtime.register({ id: SCENE_ID, title: word('en', 'title'), component }, ctx)
    scenes = runtime
    ctx.effect(
      () => () => {
        if (scenes === runtime) scenes = undefined
        dispose()
      },
      'session-tree-tui.scene',
    )
  })

  if (settings.command) {
    ctx.inject(['commands'], (ctx) => {
      ctx.commands.register({
        name: TUI_COMMAND,
        description: word('en', 'command.description'),
        input: { hint: SUBCOMMANDS.map((sub) => sub.name).join(' · ') },
        handler: async (invocation) => {
          const raw = invocation.rawInput
          if (raw.trim() === '' && scenes) {
            return openScene() ? { kind: 'success' } : { kind: 'error', text: 'the tree scene could not open' }
          }
          const tool = sessionTreeToolOf(service)
          if (!tool) return { kind: 'error', text: 'the session-tree-tool row is not loaded' }
          const result = await runTreeCommand(tool.actions, invocation.agent as unknown as LiveAgent, raw)
          const text = result.kind === 'error' ? result.text : (result.text ?? '')
          // In dsh-TUI a command's text is a toast cut at 200 cells: show it whole, as a page of the scene.
          if (scenes && text !== '') {
            page = { title: `/${TUI_COMMAND}${raw.trimEnd()}`, lines: text.split('\n') }
            if (openScene()) return { kind: 'success' }
            page = undefined
          }
          return result
        },
      })
    })
  }

  ctx.inject(['tuiCommandTrees'], (ctx) => {
    const trees = (ctx as Scoped<'tuiCommandTrees', TuiCommandTrees>).tuiCommandTrees
    const dispose = trees.register({
      root: TUI_COMMAND,
      descriptions: bothLangs('command.description'),
      children: (path) => subcommandNodes(path),
    })
    ctx.effect(() => dispose, 'session-tree-tui.completions')
  })

  if (settings.shortcut !== '') {
    ctx.inject(['tuiShortcuts'], (ctx) => {
      const shortcuts = (ctx as Scoped<'tuiShortcuts', TuiShortcuts>).tuiShortcuts
      const dispose = shortcuts.register(
        settings.shortcut,
        { description: word(tuiLang(), 'shortcut.description'), handler: () => void openScene() },
        ctx,
      )
      ctx.effect(() => dispose, 'session-tree-tui.shortcut')
    })
  }

  ctx.inject(['tuiRenderers'], (ctx) => {
    const renderers = (ctx as Scoped<'tuiRenderers', TuiRenderers>).tuiRenderers
    const dispose = renderers.register(SWITCH_ROW_EVENT, (payload) => renderSwitchRow(payload, tuiLang()), ctx)
    ctx.effect(() => dispose, 'session-tree-tui.renderer')
    // dsh-TUI draws every user-sourced prompt and answer row of the log: copies are shaped so it draws none.
    service.setTranscriptReader('dsh-tui')
    // Another process's refusal to write this session names this one as what the user sees.
    service.describeProcess('dsh-TUI')
    ctx.effect(() => () => service.setTranscriptReader('any'), 'session-tree-tui.transcript-reader')
    if (!settings.switchRows) return
    // After a turn that switched the history, one row (the turn is over: nothing interleaves with its steps).
    ctx.on('session/event', (session: LiveSession, event: { type: string }) => {
      if (event.type !== 'turn/end') return
      queueMicrotask(() => {
        try {
          writeSwitchRows(service, session)
        } catch (error) {
          logger.warn(error)
        }
      })
    })
  })

  ctx.effect(
    () => () => {
      scenes = undefined
      page = undefined
    },
    'session-tree-tui.state',
  )
}

function writeSwitchRows(service: SessionTreeService, session: LiveSession): void {
  const read = service.chatPathOf(session.id)
  if (!read.ok) return
  const path = read.value
  for (const row of pendingSwitchRows(session.events as readonly LogEvent[], path)) {
    session.append(SWITCH_ROW_EVENT, { ...row })
  }
}

export { USAGE as TUI_COMMAND_USAGE }
