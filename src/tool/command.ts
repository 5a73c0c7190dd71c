/**
 * `/tree`: the tree for people, in any front end. Run through `ctx.commands`
 * where a front end has a command adapter (never reaching the model), else
 * recognised as a user message in the turn's first pre-step, which ends the
 * step without a model call. Malformed input returns the usage text; the
 * handler never throws. docs/tools.md, "`/tree` for people".
 */
import type { SummaryChoice } from '../service/wire.ts'
import type { MoveChoices } from '../service/tree-move.ts'
import type { LiveAgent } from '../harness/live.ts'
import { actorOf, type ActionResult, type TreeActions } from './actions.ts'
import type { ExportFormat, SourceFormat } from '../interchange/model.ts'
import { runExportCommand, runImportCommand } from './interchange-command.ts'
import { runGcCommand, runNewSessionCommand } from './lineage-command.ts'
import { runCarry } from './carry-action.ts'
import type { CarryDecision } from '../service/carry-wire.ts'
import { errorMessage } from '../tree/errors.ts'

export const COMMAND_NAME = 'tree'

export const USAGE = [
  'Usage:',
  '  /tree                            show the tree (← cursor marks where the history ends) and the surface mode',
  '  /tree list [depth]               the same, expanding nested forks to [depth] levels (default 2)',
  '  /tree find <text>                nodes whose label or text contains <text>',
  '  /tree jump <node|label>          continue from that node: the next request holds exactly the path to it',
  '  /tree fork <node|label> <name>   park a new branch <name> at that node and move there',
  '  /tree label <node|label> <text>  bookmark a node (`/tree label <node> --clear` removes the label)',
  '  /tree back | /tree forward       undo / redo the last move',
  '     add --both to a jump, fork, back or forward to take the workspace files along (--files: the files only);',
  '     files changed outside the agent are kept unless you add --overwrite',
  '     add --summarize to a jump or fork to have the model summarize what it leaves (kept for the panel),',
  '     --carry to also put that summary into the new history, --instructions "…" to say what it should focus on',
  "  /tree summarize <branch>         summarize a branch (the session's model, else an extractive digest)",
  '  /tree compare <a> <b>            two nodes, labels or branches side by side: where they part, [-removed-]{+added+} words, tokens',
  '     add --files for the workspace files that differ between them instead (--both: the words and the files)',
  '  /tree carry <node|branch>        apply the file changes that branch made since it parted from here (a 3-way merge;',
  '     Back with --files undoes it); --dry-run shows what each file gets, --take mine|theirs|markers answers conflicts,',
  '     --summary also puts that branch\'s summary into the conversation (--instructions "…": what it should focus on)',
  '  /tree import <file> [--format pi|claude-code|codex] [--dry-run]',
  '                                   open a Pi, Claude Code or Codex session as a new DSH session (its whole tree)',
  '  /tree export <pi|claude-code|markdown> [file]',
  '                                   write this tree out (Pi: every branch; Claude Code and Markdown: the active path)',
  '  /tree new-session <node|label>   open a new session whose history is the path to that node (this one stays as it is)',
  '  /tree gc [--dry-run]             remove the trees whose session no longer exists (--dry-run: only list them)',
  'Nodes are ids like e12 (see /tree) or labels; quote a label that contains spaces: /tree fork "good answer" retry',
].join('\n')

/** A move's flags: files (`--both`, `--files`, `--overwrite`) and summary (`--summarize`, `--carry`, `--instructions "…"`). */
export interface FilesFlags {
  readonly files?: 'files' | 'both'
  readonly overwrite?: boolean
  readonly summary?: SummaryChoice
}

export type TreeCommand =
  | { readonly kind: 'list'; readonly depth?: number }
  | { readonly kind: 'find'; readonly query: string }
  | ({ readonly kind: 'jump'; readonly node: string } & FilesFlags)
  | ({ readonly kind: 'fork'; readonly node: string; readonly branch: string } & FilesFlags)
  | { readonly kind: 'label'; readonly node: string; readonly text: string | null }
  | ({ readonly kind: 'back' } & FilesFlags)
  | ({ readonly kind: 'forward' } & FilesFlags)
  | { readonly kind: 'summarize'; readonly branch: string }
  | { readonly kind: 'compare'; readonly a: string; readonly b: string; readonly files?: 'files' | 'both' }
  | { readonly kind: 'help' }
  | {
      readonly kind: 'carry'
      readonly from: string
      readonly take?: CarryDecision
      readonly dryRun: boolean
      readonly summary?: SummaryChoice
    }
  | { readonly kind: 'import'; readonly path: string; readonly format: 'auto' | SourceFormat; readonly dryRun: boolean }
  | { readonly kind: 'export'; readonly format: ExportFormat; readonly path?: string }
  | { readonly kind: 'new-session'; readonly node: string }
  | { readonly kind: 'gc'; readonly dryRun: boolean }

/** Split off the first token (double quotes group words; `\"` escapes a quote). */
function firstToken(input: string): { token: string; rest: string } | undefined {
  const text = input.trimStart()
  if (text === '') return undefined
  if (text.startsWith('"')) {
    let token = ''
    for (let i = 1; i < text.length; i++) {
      const char = text[i]!
      if (char === '\\' && text[i + 1] === '"') {
        token += '"'
        i++
      } else if (char === '"') {
        return { token, rest: text.slice(i + 1) }
      } else {
        token += char
      }
    }
    return undefined // unterminated quote
  }
  const match = /^\S+/.exec(text)!
  return { token: match[0], rest: text.slice(match[0].length) }
}

/** The remainder as one argument: unquoted when the whole rest is one quoted token. */
function restArgument(rest: string): string | undefined {
  const trimmed = rest.trim()
  if (trimmed === '') return undefined
  if (trimmed.startsWith('"')) {
    const token = firstToken(trimmed)
    return token && token.rest.trim() === '' ? token.token : undefined
  }
  return trimmed
}

/** A verb of one argument (`restArgument`): the command `make` builds of it; undefined when it is missing. */
function withArgument(rest: string, make: (argument: string) => TreeCommand): TreeCommand | undefined {
  const argument = restArgument(rest)
  return argument === undefined ? undefined : make(argument)
}

/** `<token> <the rest as one argument>` (a node and a branch, a label, another node); undefined when either is missing. */
function tokenAndArgument(rest: string): { token: string; argument: string } | undefined {
  const first = firstToken(rest)
  const argument = first ? restArgument(first.rest) : undefined
  return first && first.token !== '' && argument !== undefined ? { token: first.token, argument } : undefined
}

const FLAG = /(?:^|\s)--(both|files|overwrite)(?=\s|$)/g
const MOVES: ReadonlySet<string> = new Set(['jump', 'goto', 'fork', 'branch', 'back', 'forward'])

/** Take the files flags off the end of a move's arguments; undefined when they contradict. */
function filesFlags(rest: string): { rest: string; flags: FilesFlags } | undefined {
  const found = [...rest.matchAll(FLAG)].map((m) => m[1])
  const flags: { files?: 'files' | 'both'; overwrite?: boolean } = {}
  if (found.includes('both') && found.includes('files')) return undefined
  if (found.includes('both')) flags.files = 'both'
  if (found.includes('files')) flags.files = 'files'
  if (found.includes('overwrite')) {
    if (!flags.files) return undefined
    flags.overwrite = true
  }
  return { rest: rest.replace(FLAG, ' '), flags }
}

const INSTRUCTIONS_FLAG = /(?:^|\s)--instructions(?=\s|$)/
const SUMMARY_FLAG = /(?:^|\s)--(summarize|carry)(?=\s|$)/g

/** Take the summary flags off a jump's or fork's arguments; undefined when malformed. */
function summaryFlags(rest: string): { rest: string; summary?: SummaryChoice } | undefined {
  let text = rest
  let instructions: string | undefined
  const at = INSTRUCTIONS_FLAG.exec(text)
  if (at) {
    const after = text.slice(at.index + at[0].length)
    const value = firstToken(after)
    if (!value || value.token.trim() === '') return undefined
    instructions = value.token
    text = `${text.slice(0, at.index)} ${value.rest}`
  }
  const found = [...text.matchAll(SUMMARY_FLAG)].map((m) => m[1])
  text = text.replace(SUMMARY_FLAG, ' ')
  if (found.length === 0 && instructions === undefined) return { rest: text }
  const carry = found.includes('carry') ? { carry: true } : {}
  return {
    rest: text,
    summary: instructions === undefined ? { kind: 'summarize', ...carry } : { kind: 'custom', instructions, ...carry },
  }
}

/** Parse the text after `/tree`; `undefined` means malformed (show the usage). */
export function parseTreeCommand(rawInput: string): TreeCommand | undefined {
  const head = firstToken(rawInput)
  if (!head) return { kind: 'list' }
  const verb = head.token.toLowerCase()
  const summarized =
    verb === 'jump' || verb === 'goto' || verb === 'fork' || verb === 'branch'
      ? summaryFlags(head.rest)
      : { rest: head.rest }
  if (!summarized) return undefined
  const flagged = MOVES.has(verb) ? filesFlags(summarized.rest) : { rest: summarized.rest, flags: {} }
  if (!flagged) return undefined
  const { rest } = flagged
  const flags: FilesFlags = { ...flagged.flags, ...(summarized.summary ? { summary: summarized.summary } : {}) }
  switch (verb) {
    case 'list':
    case 'show': {
      const arg = rest.trim()
      if (arg === '') return { kind: 'list' }
      if (!/^\d{1,2}$/.test(arg)) return undefined
      return { kind: 'list', depth: Math.min(Number(arg), 8) }
    }
    case 'find':
    case 'search':
      return withArgument(rest, (query) => ({ kind: 'find', query }))
    case 'jump':
    case 'goto':
      return withArgument(rest, (node) => ({ kind: 'jump', node, ...flags }))
    case 'fork':
    case 'branch': {
      const args = tokenAndArgument(rest)
      return args ? { kind: 'fork', node: args.token, branch: args.argument, ...flags } : undefined
    }
    case 'label': {
      const args = tokenAndArgument(rest)
      if (!args) return undefined
      return { kind: 'label', node: args.token, text: args.argument === '--clear' ? null : args.argument }
    }
    case 'back':
    case 'forward':
      return rest.trim() === '' ? { kind: verb, ...flags } : undefined
    case 'summarize':
    case 'summary':
      return withArgument(rest, (branch) => ({ kind: 'summarize', branch }))
    case 'compare':
    case 'diff': {
      // A trailing --files (the files only) or --both (the words and the files).
      const flag = /\s--(files|both)\s*$/.exec(rest)
      const body = flag ? rest.slice(0, flag.index) : rest
      const args = tokenAndArgument(body)
      if (!args) return undefined
      return {
        kind: 'compare',
        a: args.token,
        b: args.argument,
        ...(flag ? { files: flag[1] as 'files' | 'both' } : {}),
      }
    }
    case 'carry':
      return parseCarry(rest)
    case 'help':
    case '-h':
    case '--help':
      return rest.trim() === '' ? { kind: 'help' } : undefined
    case 'import':
      return parseImport(rest)
    case 'export': {
      const format = firstToken(rest)
      if (!format || !EXPORT_FORMATS.has(format.token)) return undefined
      const file = restArgument(format.rest)
      return file === undefined
        ? { kind: 'export', format: format.token as ExportFormat }
        : { kind: 'export', format: format.token as ExportFormat, path: file }
    }
    case 'new-session':
      return withArgument(rest, (node) => ({ kind: 'new-session', node }))
    case 'gc': {
      const arg = rest.trim()
      return arg === '' ? { kind: 'gc', dryRun: false } : arg === '--dry-run' ? { kind: 'gc', dryRun: true } : undefined
    }
    default:
      return undefined
  }
}

const EXPORT_FORMATS = new Set(['pi', 'claude-code', 'markdown'])
const SOURCE_FORMATS = new Set(['auto', 'pi', 'claude-code', 'codex'])

/** `import <file> [--format F] [--dry-run]`, options in any order; the file may be quoted. */
function parseImport(rest: string): TreeCommand | undefined {
  let path: string | undefined
  let format: 'auto' | SourceFormat = 'auto'
  let dryRun = false
  for (let next = firstToken(rest); next; next = firstToken(next.rest)) {
    if (next.token === '--dry-run') dryRun = true
    else if (next.token === '--format') {
      const value = firstToken(next.rest)
      if (!value || !SOURCE_FORMATS.has(value.token)) return undefined
      format = value.token as 'auto' | SourceFormat
      next = value
    } else if (path === undefined && next.token !== '') path = next.token
    else return undefined
  }
  return path === undefined ? undefined : { kind: 'import', path, format, dryRun }
}

const TAKES = new Set(['mine', 'theirs', 'markers'])

/** `carry <node|branch> [--take mine|theirs|markers] [--dry-run] [--summary] [--instructions "…"]`, in any order. */
function parseCarry(rest: string): TreeCommand | undefined {
  let from: string | undefined
  let take: CarryDecision | undefined
  let dryRun = false
  let summarize = false
  let instructions: string | undefined
  for (let next = firstToken(rest); next; next = firstToken(next.rest)) {
    if (next.token === '--dry-run') dryRun = true
    else if (next.token === '--summary') summarize = true
    else if (next.token === '--take' || next.token === '--instructions') {
      const value = firstToken(next.rest)
      if (next.token === '--instructions') {
        if (!value || value.token.trim() === '' || instructions !== undefined) return undefined
        instructions = value.token
      } else {
        if (!value || !TAKES.has(value.token) || take !== undefined) return undefined
        take = value.token as CarryDecision
      }
      next = value
    } else if (from === undefined && next.token !== '' && !next.token.startsWith('--')) from = next.token
    else return undefined
  }
  if (from === undefined) return undefined
  const summary: SummaryChoice | undefined =
    instructions !== undefined
      ? { kind: 'custom', instructions, carry: true }
      : summarize
        ? { kind: 'summarize', carry: true }
        : undefined
  return { kind: 'carry', from, dryRun, ...(take ? { take } : {}), ...(summary ? { summary } : {}) }
}

/** The result shape of a DSH command handler (`@deepseek-ai/dsh-commands`). */
export type TreeCommandResult =
  { readonly kind: 'success'; readonly text?: string } | { readonly kind: 'error'; readonly text: string }

function fromAction(result: ActionResult): TreeCommandResult {
  return result.ok
    ? { kind: 'success', text: result.value.text }
    : { kind: 'error', text: `${result.error.code}: ${result.error.message}` }
}

/** What a `/tree` move takes along, as the move's choices (`--overwrite`: every conflicting file is overwritten). */
function movedFiles(flags: FilesFlags): MoveChoices {
  return {
    ...(flags.files ? { files: flags.files } : {}),
    ...(flags.files && flags.overwrite ? { conflicts: [{ path: '*', decision: 'overwrite' }] } : {}),
    ...(flags.summary ? { summary: flags.summary } : {}),
  }
}

/** Run one `/tree` line for a person. Never throws. */
export async function runTreeCommand(
  actions: TreeActions,
  agent: LiveAgent,
  rawInput: string,
): Promise<TreeCommandResult> {
  try {
    const command = parseTreeCommand(rawInput)
    if (!command) return { kind: 'error', text: USAGE }
    switch (command.kind) {
      case 'help':
        return { kind: 'success', text: USAGE }
      case 'list':
        return fromAction(
          await actions.list(agent, { human: true, ...(command.depth === undefined ? {} : { depth: command.depth }) }),
        )
      case 'find':
        return fromAction(await actions.find(agent, command.query))
      case 'jump':
        return fromAction(
          await actions.move(agent, { kind: 'jump', nodeId: command.node, ...movedFiles(command) }, 'user'),
        )
      case 'fork':
        return fromAction(
          await actions.move(
            agent,
            { kind: 'fork', nodeId: command.node, branch: command.branch, ...movedFiles(command) },
            'user',
          ),
        )
      case 'back':
      case 'forward':
        return fromAction(await actions.move(agent, { kind: command.kind, ...movedFiles(command) }, 'user'))
      case 'label':
        return fromAction(await actions.label(agent, command.node, command.text, actorOf('user')))
      case 'summarize':
        return fromAction(await actions.summarize(agent, command.branch, undefined, undefined, actorOf('user')))
      case 'compare':
        return fromAction(await actions.compare(agent, command.a, command.b, command.files))
      case 'carry':
        return fromAction(
          await runCarry(actions.sessionTree, agent, command.from, {
            dryRun: command.dryRun,
            ...(command.take ? { take: command.take } : {}),
            ...(command.summary ? { summary: command.summary } : {}),
          }),
        )
      case 'import':
        return runImportCommand(actions.sessionTree, agent, command)
      case 'export':
        return runExportCommand(actions.sessionTree, agent, command)
      case 'new-session':
        return runNewSessionCommand(actions.sessionTree, agent, command.node)
      case 'gc':
        return runGcCommand(actions.sessionTree, command.dryRun)
    }
  } catch (error) {
    return { kind: 'error', text: `INTERNAL: ${errorMessage(error)}` }
  }
}

/** A `/tree …` line submitted as a plain user message (front ends without a command adapter). */
export function treeCommandLine(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined
  const { source, content } = message as { source?: { kind?: unknown }; content?: unknown }
  // Only what a person typed: never injected context, skills or plugin prompts.
  if (source?.kind !== 'user' || !Array.isArray(content) || content.length !== 1) return undefined
  const block = content[0] as { type?: unknown; text?: unknown }
  if (block?.type !== 'text' || typeof block.text !== 'string') return undefined
  const line = block.text.trim()
  return /^\/tree(?=$|[\t\n\r ])/.test(line) ? line.slice('/tree'.length) : undefined
}
