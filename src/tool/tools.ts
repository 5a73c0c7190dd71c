/**
 * The model tools, as raw registry definitions with strict parameter schemas
 * (`additionalProperties: false`, per-tool required fields; only the JSON
 * Schema subset the DSH tool registry accepts). Arguments are checked here
 * again before anything runs, and every tool acts on `exec.agent` — the
 * calling agent — never on a session named in an argument.
 *
 * Nothing a tool accepts can write what the tree relies on (node origins,
 * compaction `replaces`, metadata, node contents): the tools only read, move
 * the cursor, create branches, and set labels and branch summaries.
 */
import type { ToolDefinition, ToolRunContext } from '@deepseek-ai/dsh-tools'
import type { JsonValue } from '../tree/types.ts'
import type { LiveAgent } from '../harness/live.ts'
import { actorOf, type ActionResult, type TreeActions } from './actions.ts'
import type { SummaryChoice } from '../service/wire.ts'
import { DESCRIPTIONS, type TreeToolName } from './prompt.ts'

/** The schema subset used here. */
type Property =
  | { readonly type: 'string'; readonly description: string; readonly enum?: readonly string[] }
  | { readonly type: 'integer'; readonly description: string; readonly minimum: number; readonly maximum: number }

interface Parameters {
  readonly properties: Readonly<Record<string, Property>>
  readonly required: readonly string[]
}

/** Bounds the registry's schema subset cannot express; checked at run time and stated in the descriptions. */
const MAX_TEXT = 2_000

/** The wire schema of a parameter set (ranges go into the description: the subset has no `minimum`). */
export function parameterSchema(parameters: Parameters): Record<string, unknown> {
  const properties: Record<string, unknown> = {}
  for (const [key, property] of Object.entries(parameters.properties)) {
    properties[key] =
      property.type === 'integer'
        ? { type: 'integer', description: `${property.description} (${property.minimum}–${property.maximum})` }
        : { type: 'string', description: property.description, ...(property.enum ? { enum: [...property.enum] } : {}) }
  }
  return {
    type: 'object',
    properties,
    ...(parameters.required.length > 0 ? { required: [...parameters.required] } : {}),
    additionalProperties: false,
  }
}

/** Strict argument check: exact keys, types, enums, integer ranges, bounded strings. */
export function checkArguments(parameters: Parameters, args: unknown): string[] {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return ['arguments must be a JSON object']
  const problems: string[] = []
  const record = args as Record<string, unknown>
  for (const key of Object.keys(record)) {
    if (!Object.hasOwn(parameters.properties, key))
      problems.push(`unknown argument "${key}" (allowed: ${Object.keys(parameters.properties).join(', ') || 'none'})`)
  }
  for (const key of parameters.required) {
    if (!Object.hasOwn(record, key)) problems.push(`missing required argument "${key}"`)
  }
  for (const [key, property] of Object.entries(parameters.properties)) {
    if (!Object.hasOwn(record, key)) continue
    const value = record[key]
    if (property.type === 'string') {
      if (typeof value !== 'string') problems.push(`"${key}" must be a string`)
      else if (value.length > MAX_TEXT) problems.push(`"${key}" must be at most ${MAX_TEXT} characters`)
      else if (property.enum && !property.enum.includes(value))
        problems.push(`"${key}" must be one of ${property.enum.map((v) => JSON.stringify(v)).join(', ')}`)
    } else if (
      typeof value !== 'number' ||
      !Number.isInteger(value) ||
      value < property.minimum ||
      value > property.maximum
    ) {
      problems.push(`"${key}" must be an integer from ${property.minimum} to ${property.maximum}`)
    }
  }
  return problems
}

const NODE = 'A node id from tree_list or tree_find (like "e12"), or a label.'
const FILES: Property = {
  type: 'string',
  enum: ['conversation', 'files', 'both'],
  description:
    'What moves: "conversation" (default), "files" (the workspace files you changed, back to that point) or "both".',
}

const SUMMARY: Property = {
  type: 'string',
  enum: ['none', 'panel', 'carry'],
  description:
    'Summarize what the move leaves behind: "none" (default); "panel" (your model writes a summary kept with the tree for the user); "carry" (the same, and it becomes the last message of your new history, so you keep what was learned there).',
}
const INSTRUCTIONS: Property = {
  type: 'string',
  description: 'What the summary should focus on (with summary "panel" or "carry").',
}

/** Every tool's parameters. */
export const PARAMETERS: Record<TreeToolName, Parameters> = {
  tree_list: {
    properties: {
      depth: {
        type: 'integer',
        description: 'How many levels of nested forks to show in full; deeper ones collapse to one line. Default 2',
        minimum: 0,
        maximum: 8,
      },
      from: { type: 'string', description: 'Show only the part of the tree under this node (an id or a label).' },
    },
    required: [],
  },
  tree_find: {
    properties: {
      query: { type: 'string', description: 'Text to look for (case-insensitive substring).' },
      by: {
        type: 'string',
        enum: ['any', 'label', 'text'],
        description: 'Search labels, message text, or both (default "any").',
      },
      limit: { type: 'integer', description: 'Maximum matches to return. Default 10', minimum: 1, maximum: 50 },
    },
    required: ['query'],
  },
  tree_jump: {
    properties: {
      node: { type: 'string', description: `Where your history should end. ${NODE}` },
      files: FILES,
      summary: SUMMARY,
      instructions: INSTRUCTIONS,
    },
    required: ['node'],
  },
  tree_fork: {
    properties: {
      node: {
        type: 'string',
        description: `Where the new branch starts (its first new message follows this node). ${NODE}`,
      },
      branch: {
        type: 'string',
        description: 'Name of the new branch (1–100 characters, not an existing branch name).',
      },
      files: FILES,
      summary: SUMMARY,
      instructions: INSTRUCTIONS,
    },
    required: ['node', 'branch'],
  },
  tree_back: { properties: { files: FILES }, required: [] },
  tree_forward: { properties: { files: FILES }, required: [] },
  tree_label: {
    properties: {
      node: { type: 'string', description: NODE },
      text: {
        type: 'string',
        description: "The label (1–200 characters, unique in the tree); an empty string removes the node's label.",
      },
    },
    required: ['node', 'text'],
  },
  tree_summarize_branch: {
    properties: {
      branch: { type: 'string', description: 'Branch name, as shown by tree_list (e.g. "main").' },
      summary: {
        type: 'string',
        description: 'Your summary of the branch. Omit it to record an extractive digest instead.',
      },
    },
    required: ['branch'],
  },
  tree_compare: {
    properties: {
      a: { type: 'string', description: 'A node id, label or branch name.' },
      b: { type: 'string', description: 'Another one.' },
    },
    required: ['a', 'b'],
  },
}

/** The canonical output of every tree tool: the text the model reads, plus structured facts. */
const OUTPUT_SCHEMA = {
  type: 'object',
  additionalProperties: true,
  properties: { text: { type: 'string', description: 'What the model reads.' } },
  required: ['text'],
} as const

/** Read-only tools may run beside other parallel-safe calls. */
const READ_ONLY = new Set<TreeToolName>(['tree_list', 'tree_find', 'tree_compare'])

type Args = Record<string, string | number | undefined>

/** The calling agent's model (recorded on summaries the model writes). */
function modelOf(agent: unknown): string | undefined {
  const options = (agent as { options?: { model?: unknown } } | undefined)?.options
  return typeof options?.model === 'string' ? options.model : undefined
}

function run(
  actions: TreeActions,
  name: TreeToolName,
  args: Args,
  agent: LiveAgent,
  exec: ToolRunContext,
): Promise<ActionResult> {
  const str = (key: string) => args[key] as string | undefined
  const int = (key: string) => args[key] as number | undefined
  const files = (): { files?: 'files' | 'both' } =>
    str('files') === 'files' || str('files') === 'both' ? { files: str('files') as 'files' | 'both' } : {}
  const summary = (): { summary?: SummaryChoice } => {
    const kind = str('summary')
    if (kind !== 'panel' && kind !== 'carry') return {}
    const instructions = str('instructions')?.trim()
    const carry = kind === 'carry' ? { carry: true } : {}
    return { summary: instructions ? { kind: 'custom', instructions, ...carry } : { kind: 'summarize', ...carry } }
  }
  switch (name) {
    case 'tree_list': {
      const depth = int('depth')
      const from = str('from')
      return actions.list(agent, { ...(depth === undefined ? {} : { depth }), ...(from === undefined ? {} : { from }) })
    }
    case 'tree_find': {
      const by = str('by') as 'any' | 'label' | 'text' | undefined
      const limit = int('limit')
      return actions.find(agent, str('query')!, {
        ...(by === undefined ? {} : { by }),
        ...(limit === undefined ? {} : { limit }),
      })
    }
    case 'tree_jump':
      return actions.move(agent, { kind: 'jump', nodeId: str('node')!, ...files(), ...summary() }, 'model', exec.callId)
    case 'tree_fork':
      return actions.move(
        agent,
        { kind: 'fork', nodeId: str('node')!, branch: str('branch')!, ...files(), ...summary() },
        'model',
        exec.callId,
      )
    case 'tree_back':
      return actions.move(agent, { kind: 'back', ...files() }, 'model', exec.callId)
    case 'tree_forward':
      return actions.move(agent, { kind: 'forward', ...files() }, 'model', exec.callId)
    case 'tree_label': {
      const text = str('text')!
      return actions.label(agent, str('node')!, text.trim() === '' ? null : text, actorOf('model', exec.callId))
    }
    case 'tree_summarize_branch':
      return actions.summarize(
        agent,
        str('branch')!,
        str('summary'),
        modelOf(exec.agent),
        actorOf('model', exec.callId),
      )
    case 'tree_compare':
      return actions.compare(agent, str('a')!, str('b')!)
  }
}

/** One registry definition per tool, bound to the shared actions. */
export function toolDefinitions(actions: TreeActions): ToolDefinition[] {
  return (Object.keys(PARAMETERS) as TreeToolName[]).map((name): ToolDefinition => {
    const parameters = PARAMETERS[name]
    const definition: ToolDefinition = {
      name,
      description: DESCRIPTIONS[name],
      parameters: parameterSchema(parameters),
      output: {
        schema: OUTPUT_SCHEMA as never,
        render: (_args: unknown, value: JsonValue) => [
          { type: 'text', text: String((value as { text?: unknown }).text ?? '') },
        ],
      },
      async execute(args: unknown, exec: ToolRunContext): Promise<JsonValue> {
        const problems = checkArguments(parameters, args)
        if (problems.length > 0) throw new Error(`INVALID_ARGUMENT: ${problems.join('; ')}`)
        // The session is always the caller's own: never taken from an argument.
        const agent = exec.agent as unknown as LiveAgent | undefined
        if (!agent?.session)
          throw new Error(`SESSION_NOT_FOUND: ${name} needs a calling agent (it acts on that agent's own conversation)`)
        const result = await run(actions, name, args as Args, agent, exec)
        if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
        return { text: result.value.text, ...result.value.value }
      },
    }
    if (READ_ONLY.has(name)) definition.isConcurrencySafe = () => true
    return definition
  })
}
