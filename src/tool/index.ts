/**
 * `dsh-session-tree/tool` (Loader row `session-tree-tool`): the model's `tree`
 * tool (`tools.ts`), `/tree` for people (`command.ts`), deferred moves
 * (`deferred.ts`) and a short system-prompt section. It shares
 * `ctx.sessionTree` (one store, one journal), so what happens here shows in the
 * panel at once. Behaviour: docs/tools.md.
 */
import type { Context } from '@deepseek-ai/cordis'
import s from '@deepseek-ai/schemastery'
import type {} from '@deepseek-ai/dsh-tools'
import type {} from '@deepseek-ai/dsh-commands'
import type {} from '@deepseek-ai/dsh-system-prompt'
import type {} from '@deepseek-ai/dsh-agent'
import type { SessionTreeService } from '../service/service.ts'
import { frontListener, NO_MODEL_CALL, type PreStepDecision, type PreStepPayload } from '../harness/live.ts'
import { actorOf, TreeActions } from './actions.ts'
import { runMove } from './files.ts'
import { COMMAND_NAME, runTreeCommand, treeCommandLine } from './command.ts'
import { DeferredMoves } from './deferred.ts'
import { SYSTEM_PROMPT } from './prompt.ts'
import { DEFAULT_MAX_LINES } from './render.ts'
import { toolDefinition } from './tools.ts'
import { hostEvents, hostService } from '../harness/host.ts'

export { SYSTEM_PROMPT, DESCRIPTION, ACTIONS, type TreeAction } from './prompt.ts'
export { TREE_TOOL } from '../service/chat-switches.ts'
export {
  USAGE as TREE_COMMAND_USAGE,
  parseTreeCommand,
  runTreeCommand,
  type TreeCommand,
  type TreeCommandResult,
} from './command.ts'
export { DeferredMoves, type MoveOutcome, type PendingMove, type MoveRequester } from './deferred.ts'
export { TreeActions, type ActionOutput, type ActionResult } from './actions.ts'
export { renderTree, findNodes, resolveNode, roleOf, type RenderOptions, type RenderedTree } from './render.ts'
export { toolDefinition, ACTION_ARGUMENTS, checkArguments, parameterSchema } from './tools.ts'

export const name = 'session-tree-tool'
export const inject = ['sessionTree', 'tools']

/** Configuration of the `session-tree-tool` row. */
export interface Config {
  /** Register the model tools (default true). */
  readonly tools: boolean
  /** Register the `/tree` command (default true). */
  readonly command: boolean
  /** Add the `tool:session-tree` system-prompt section (default true). */
  readonly systemPrompt: boolean
  /** Most node lines a listing shows (default 60). */
  readonly maxLines: number
}

export const Config: s<Config> = s.object({
  tools: s.boolean().default(true),
  command: s.boolean().default(true),
  systemPrompt: s.boolean().default(true),
  maxLines: s.natural().min(5).max(500).default(DEFAULT_MAX_LINES),
}) as unknown as s<Config>

/** The live parts of a loaded tool plugin, for tests and diagnostics. */
export interface SessionTreeTool {
  readonly actions: TreeActions
  readonly moves: DeferredMoves
}

const loaded = new WeakMap<object, SessionTreeTool>()

/** The tool plugin loaded next to a `ctx.sessionTree` service, if any. */
export function sessionTreeToolOf(service: SessionTreeService): SessionTreeTool | undefined {
  // Keyed by the service's sync: `ctx.sessionTree` is a per-context proxy, its sync the one object behind it.
  return loaded.get(service.sync)
}

export function apply(ctx: Context, config: Partial<Config> = {}): void {
  const settings: Config = { tools: true, command: true, systemPrompt: true, maxLines: DEFAULT_MAX_LINES, ...config }
  const service = ctx.sessionTree
  const logger = ctx.logger('session-tree')
  // The headless app runs one turn and exits: a deferred move could never reach a next request.
  const oneShot = (): boolean => hostService<unknown>(ctx, 'headlessStartup') !== undefined
  const moves = new DeferredMoves({
    run: (agentId, op, by) => runMove(service.actingAs(actorOf(by)), agentId, op),
    waiting: () => preStep.front(),
    warn: (message) => logger.warn(message),
  })
  const actions = new TreeActions(service, moves, { oneShot, maxLines: settings.maxLines })

  ctx.on('agent/status', (payload) => {
    try {
      moves.onStatus(payload.agent, payload.status)
    } catch (error) {
      logger.warn(error)
    }
  })
  // Ahead of the service's own pre-step listener: a held turn never reaches it, a switch turn passes through.
  // At the front (again whenever a move starts waiting): the quiet `enter` of a held turn reaches the loop as it is.
  const preStep = frontListener(
    hostEvents(ctx),
    async (payload: PreStepPayload, next: () => Promise<PreStepDecision>) => {
      if (moves.hold(payload)) return NO_MODEL_CALL
      return commandMessage(payload, next)
    },
  )
  ctx.effect(() => () => moves.dispose(), 'session-tree-tool.moves')

  /** A `/tree` line typed into a front end without a command adapter: run it, spend no model call. */
  async function commandMessage(
    payload: PreStepPayload,
    next: () => Promise<PreStepDecision>,
  ): Promise<PreStepDecision> {
    if (!settings.command) return next()
    const index = payload.messages.findIndex((message) => treeCommandLine(message) !== undefined)
    if (index === -1) return next()
    const line = treeCommandLine(payload.messages[index])!
    const result = await runTreeCommand(actions, payload.agent, line)
    const text = result.text ?? ''
    if (oneShot()) process.stdout.write(`${text}\n`)
    else logger.info(`/tree${line}\n${text}`)
    const others = payload.messages.filter((_, i) => i !== index)
    // A turn that only carried the command ends without a model call.
    if (others.length === 0 && payload.step === 1) return NO_MODEL_CALL
    // Anything claimed with the command still reaches the model, without the command line.
    const decision = await next()
    return decision.kind === 'enter'
      ? { ...decision, messages: decision.messages.filter((message) => message !== payload.messages[index]) }
      : decision
  }

  if (settings.tools) {
    ctx.tools.register(toolDefinition(actions))
  }
  if (settings.command) {
    ctx.inject(['commands'], (ctx) => {
      ctx.commands.register({
        name: COMMAND_NAME,
        description: 'Show and move in the conversation tree: jump, fork, label, back, forward',
        input: {
          hint: 'jump <node|label> · fork <node> <name> · label <node> <text> · back · forward · find <text> · compare <a> <b> · add --both or --files to a move to take the files along',
        },
        handler: (invocation) => runTreeCommand(actions, invocation.agent, invocation.rawInput),
      })
    })
  }
  if (settings.systemPrompt) {
    ctx.inject(['systemPrompt'], (ctx) => {
      ctx.systemPrompt.section({ name: 'tool:session-tree', order: 150, text: SYSTEM_PROMPT })
    })
  }
  const key = service.sync
  loaded.set(key, { actions, moves })
  ctx.effect(
    () => () => {
      if (loaded.get(key)?.moves === moves) loaded.delete(key)
    },
    'session-tree-tool.registry',
  )
}
