/**
 * The model's one `tree` tool: an `action` enum and flat optional arguments
 * (a flat object is what every chat-completions provider accepts), checked
 * against `ACTION_ARGUMENTS` before anything runs. It acts on `exec.agent`
 * only, and can write nothing the tree relies on: it reads, moves, creates
 * branches, and sets labels and branch summaries.
 */
import type { RestoreChoice } from '../service/workspace-wire.ts'
import type { ToolDefinition, ToolRunContext } from '@deepseek-ai/dsh-tools'
import type { JsonValue } from '../tree/types.ts'
import type { LiveAgent } from '../harness/live.ts'
import { actorOf, type ActionResult, type TreeActions } from './actions.ts'
import { runCarry } from './carry-action.ts'
import type { SummaryChoice } from '../service/wire.ts'
import { ACTIONS, ARGUMENT_TEXT, DESCRIPTION, type TreeAction } from './prompt.ts'
import { TREE_TOOL } from '../service/chat-switches.ts'

/** One argument: a string (maybe an enum) or a bounded integer. */
type Argument =
  | { readonly type: 'string'; readonly enum?: readonly string[] }
  | { readonly type: 'integer'; readonly minimum: number; readonly maximum: number }

export type ArgumentName = keyof typeof ARGUMENT_TEXT

export const ARGUMENTS: Readonly<Record<ArgumentName, Argument>> = {
  node: { type: 'string' },
  other: { type: 'string' },
  branch: { type: 'string' },
  text: { type: 'string' },
  files: { type: 'string', enum: ['conversation', 'files', 'both'] },
  summary: { type: 'string', enum: ['none', 'panel', 'carry'] },
  depth: { type: 'integer', minimum: 0, maximum: 8 },
  by: { type: 'string', enum: ['any', 'label', 'text'] },
  limit: { type: 'integer', minimum: 1, maximum: 50 },
}

/** What each action takes: the arguments it needs, then those it may have. */
export const ACTION_ARGUMENTS: Readonly<
  Record<TreeAction, { readonly required: readonly ArgumentName[]; readonly optional: readonly ArgumentName[] }>
> = {
  list: { required: [], optional: ['node', 'depth'] },
  find: { required: ['text'], optional: ['by', 'limit'] },
  compare: { required: ['node', 'other'], optional: ['files'] },
  jump: { required: ['node'], optional: ['files', 'summary', 'text'] },
  fork: { required: ['node', 'branch'], optional: ['files', 'summary', 'text'] },
  back: { required: [], optional: ['files'] },
  forward: { required: [], optional: ['files'] },
  carry: { required: ['node'], optional: ['summary', 'text'] },
  label: { required: ['node', 'text'], optional: [] },
  summarize: { required: ['branch'], optional: ['text'] },
}

/** Read-only actions may run beside other parallel-safe calls. */
const READ_ONLY: ReadonlySet<string> = new Set<TreeAction>(['list', 'find', 'compare'])

/** A bound the registry's schema subset cannot express; checked at run time. */
const MAX_TEXT = 2_000

/** The wire schema: `action` first and required, the other arguments optional. */
export function parameterSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = { action: { type: 'string', enum: [...ACTIONS] } }
  for (const [key, argument] of Object.entries(ARGUMENTS)) {
    const description = ARGUMENT_TEXT[key as ArgumentName]
    properties[key] =
      argument.type === 'integer'
        ? { type: 'integer', description }
        : { type: 'string', ...(argument.enum ? { enum: [...argument.enum] } : {}), description }
  }
  return { type: 'object', properties, required: ['action'], additionalProperties: false }
}

const list = (names: readonly string[]): string => names.map((name) => JSON.stringify(name)).join(', ') || 'nothing'

/** What an action takes, as an error states it: `action "fork" needs "node", "branch"; may have "files", …`. */
function takes(action: TreeAction): string {
  const { required, optional } = ACTION_ARGUMENTS[action]
  const parts = [
    ...(required.length > 0 ? [`needs ${list(required)}`] : []),
    ...(optional.length > 0 ? [`may have ${list(optional)}`] : []),
  ]
  return `action ${JSON.stringify(action)} ${parts.join('; ') || 'takes no other argument'}`
}

/**
 * Strict argument check: a known action, the arguments it needs, none it does
 * not take, types, enums, integer ranges, bounded strings. The problems end
 * with what the action takes, so the model can fix its call at once.
 */
export function checkArguments(args: unknown): string[] {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return ['arguments must be a JSON object']
  const record = args as Record<string, unknown>
  const action = record.action
  if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action))
    return [
      `${Object.hasOwn(record, 'action') ? `unknown action ${JSON.stringify(action)}` : 'missing "action"'}; it must be one of ${list(ACTIONS)}`,
    ]
  const { required, optional } = ACTION_ARGUMENTS[action as TreeAction]
  const allowed = new Set<string>(['action', ...required, ...optional])
  const problems: string[] = []
  for (const key of required) if (!Object.hasOwn(record, key)) problems.push(`missing ${JSON.stringify(key)}`)
  for (const key of Object.keys(record)) {
    if (allowed.has(key)) continue
    problems.push(
      Object.hasOwn(ARGUMENTS, key)
        ? `${JSON.stringify(key)} is not taken by ${JSON.stringify(action)}`
        : `unknown argument ${JSON.stringify(key)}`,
    )
  }
  const shape = problems.length
  for (const key of [...required, ...optional]) {
    if (!Object.hasOwn(record, key)) continue
    const value = record[key]
    const argument = ARGUMENTS[key]
    if (argument.type === 'string') {
      if (typeof value !== 'string') problems.push(`"${key}" must be a string`)
      else if (value.length > MAX_TEXT) problems.push(`"${key}" must be at most ${MAX_TEXT} characters`)
      else if (argument.enum && !argument.enum.includes(value))
        problems.push(`"${key}" must be one of ${list(argument.enum)}`)
    } else if (
      typeof value !== 'number' ||
      !Number.isInteger(value) ||
      value < argument.minimum ||
      value > argument.maximum
    ) {
      problems.push(`"${key}" must be an integer from ${argument.minimum} to ${argument.maximum}`)
    }
  }
  if (shape > 0) problems.push(takes(action as TreeAction))
  return problems
}

/** The canonical output of every action: the text the model reads, plus structured facts. */
const OUTPUT_SCHEMA = {
  type: 'object',
  additionalProperties: true,
  properties: { text: { type: 'string', description: 'What the model reads.' } },
  required: ['text'],
} as const

type Args = { readonly action: TreeAction } & Readonly<Partial<Record<ArgumentName, string | number>>>

/** The calling agent's model (recorded on summaries the model writes). */
function modelOf(agent: unknown): string | undefined {
  const options = (agent as { options?: { model?: unknown } } | undefined)?.options
  return typeof options?.model === 'string' ? options.model : undefined
}

function run(actions: TreeActions, args: Args, agent: LiveAgent, exec: ToolRunContext): Promise<ActionResult> {
  const str = (key: ArgumentName) => args[key] as string | undefined
  const int = (key: ArgumentName) => args[key] as number | undefined
  const files = (): { files?: 'files' | 'both' } =>
    str('files') === 'files' || str('files') === 'both' ? { files: str('files') as 'files' | 'both' } : {}
  const summary = (): { summary?: SummaryChoice } => {
    const kind = str('summary')
    if (kind !== 'panel' && kind !== 'carry') return {}
    const instructions = str('text')?.trim()
    const carry = kind === 'carry' ? { carry: true } : {}
    return { summary: instructions ? { kind: 'custom', instructions, ...carry } : { kind: 'summarize', ...carry } }
  }
  switch (args.action) {
    case 'list': {
      const depth = int('depth')
      const from = str('node')
      return actions.list(agent, { ...(depth === undefined ? {} : { depth }), ...(from === undefined ? {} : { from }) })
    }
    case 'find': {
      const by = str('by') as 'any' | 'label' | 'text' | undefined
      const limit = int('limit')
      return actions.find(agent, str('text')!, {
        ...(by === undefined ? {} : { by }),
        ...(limit === undefined ? {} : { limit }),
      })
    }
    case 'compare':
      return actions.compare(agent, str('node')!, str('other')!, str('files') as RestoreChoice | undefined)
    case 'jump':
      return actions.move(agent, { kind: 'jump', nodeId: str('node')!, ...files(), ...summary() }, 'model', exec.callId)
    case 'fork':
      return actions.move(
        agent,
        { kind: 'fork', nodeId: str('node')!, branch: str('branch')!, ...files(), ...summary() },
        'model',
        exec.callId,
      )
    case 'back':
    case 'forward':
      return actions.move(agent, { kind: args.action, ...files() }, 'model', exec.callId)
    case 'carry':
      return runCarry(actions.sessionTree, agent, str('node')!, { take: 'mine', callId: exec.callId, ...summary() })
    case 'label': {
      const text = str('text')!
      return actions.label(agent, str('node')!, text.trim() === '' ? null : text, actorOf('model', exec.callId))
    }
    case 'summarize':
      return actions.summarize(agent, str('branch')!, str('text'), modelOf(exec.agent), actorOf('model', exec.callId))
  }
}

/** The `tree` tool's registry definition, bound to the shared actions. */
export function toolDefinition(actions: TreeActions): ToolDefinition {
  return {
    name: TREE_TOOL,
    description: DESCRIPTION,
    parameters: parameterSchema(),
    output: {
      schema: OUTPUT_SCHEMA as never,
      render: (_args: unknown, value: JsonValue) => [
        { type: 'text', text: String((value as { text?: unknown }).text ?? '') },
      ],
    },
    isConcurrencySafe: (args: unknown) =>
      typeof args === 'object' && args !== null && READ_ONLY.has(String((args as { action?: unknown }).action)),
    async execute(args: unknown, exec: ToolRunContext): Promise<JsonValue> {
      const problems = checkArguments(args)
      if (problems.length > 0) throw new Error(`INVALID_ARGUMENT: ${problems.join('; ')}`)
      // The session is always the caller's own: never taken from an argument.
      const agent = exec.agent as unknown as LiveAgent | undefined
      if (!agent?.session)
        throw new Error(
          `SESSION_NOT_FOUND: ${TREE_TOOL} needs a calling agent (it acts on that agent's own conversation)`,
        )
      const result = await run(actions, args as Args, agent, exec)
      if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
      return { text: result.value.text, ...result.value.value }
    },
  }
}
