/**
 * Codex rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl`):
 * `response_item` is the only stream read for content (`event_msg` repeats it
 * for the UI; only `user_message` and `thread_rolled_back` are used from it).
 * Ids come from the line (`L<line>`), so a re-import is stable; forks are other
 * files naming `forked_from_id` (`readCodexFamily`). The mapping:
 * docs/interchange.md, "What each format becomes".
 */
import { TreeBuilder, type RawSink } from '../builder.ts'
import { InterchangeError } from '../errors.ts'
import type { LineRecord } from '../lines.ts'
import type { ContentPart, Entry, ImportReport, InputPart, InterchangeNode, InterchangeTree } from '../model.ts'
import type { JsonValue, JsonObject } from '../../tree/types.ts'
import { num, parseArgs, str, timeOf } from '../values.ts'
import { isJsonObject } from '../../tree/validate.ts'

/** Prefixes of user-role items Codex injects (codex-rs `is_injected_user_message` and friends). */
const INJECTED = [
  '# AGENTS.md instructions',
  '<user_instructions>',
  '<environment_context>',
  '<permissions instructions>',
  '<skill',
  '<user_shell_command>',
  '<turn_aborted>',
  '<subagent_notification>',
]
const MODEL_SIDE = new Set([
  'reasoning',
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'web_search_call',
  'message:assistant',
])

/** One rollout of a family, opened by the caller (found by listing, never by a name taken from a file). */
export interface CodexSource {
  readonly name: string
  readonly records: AsyncIterable<LineRecord>
}

/**
 * Several rollouts of one family (a thread and its forks, parents first) as
 * one tree: a fork starts as a branch at its fork point, the parent's last
 * item before `forked_from_ordinal_exclusive` (0.17x), or the end of the prefix
 * it shares with a parent it copied (older versions). The first file keeps
 * ids `L<line>`; the others' are prefixed with their thread id. `cursorFile` is
 * the index of the first file the user named.
 */
export async function readCodexFamily(
  sources: readonly CodexSource[],
  sink?: RawSink,
  cursorFile = 0,
): Promise<{ tree: InterchangeTree; report: ImportReport }> {
  const builder = new TreeBuilder(sink)
  const files: CodexFile[] = []
  let lines = 0
  for (const [index, source] of sources.entries()) {
    const file = new CodexFile(
      builder,
      index === 0 ? '' : undefined,
      sources.length > 1 ? source.name : undefined,
      index,
    )
    await file.read(source.records)
    lines += file.lines
    builder.lines = lines
    if (file.meta === undefined) {
      if (index === 0) throw new InterchangeError('NOT_A_SESSION', 'the rollout has no session_meta line')
      builder.note(`${source.name}: no session_meta line; not joined`)
      continue
    }
    if (index > 0 && !joinFork(file, files, builder, source.name)) continue
    const from = index === 0 ? str(file.meta.forked_from_id) : undefined
    if (from !== undefined && !sources.some((_, i) => i > 0)) {
      const shared = num(file.meta.forked_from_ordinal_exclusive) !== undefined || isJsonObject(file.meta.history_base)
      builder.note(
        `this rollout is a fork of thread ${from}, whose rollout was not found beside it${shared ? ': the history before the fork point lives there and is missing' : ''}`,
      )
    }
    files.push(file)
  }
  for (const file of files) for (const node of file.nodes) builder.add(node)
  const named = files[Math.min(cursorFile, files.length - 1)]!
  // A thread continues on its newest segment (after a rollback), as Codex resumes it.
  const main = files.filter((f) => f.threadId === named.threadId && f.segmentOf !== undefined).at(-1) ?? named
  const meta = main.meta!
  return builder.finish(
    {
      format: 'codex',
      version: str(meta.cli_version) ?? 'unknown',
      ...((str(meta.id) ?? str(meta.session_id)) ? { sessionId: (str(meta.id) ?? str(meta.session_id))! } : {}),
      ...(str(meta.cwd) ? { cwd: str(meta.cwd)! } : {}),
      ...(str(meta.timestamp) ? { createdAt: str(meta.timestamp)! } : {}),
      ...((main.threadName ?? named.threadName ?? str(files[0]!.meta!.title))
        ? { title: (main.threadName ?? named.threadName ?? str(files[0]!.meta!.title))! }
        : {}),
      header: files[0]!.meta!,
    },
    main.nodes.at(-1)?.id ?? files[0]!.nodes.at(-1)?.id ?? null,
  )
}

/** Hang a forked rollout's first items at its fork point; false when it belongs to none of the files read. */
function joinFork(file: CodexFile, earlier: readonly CodexFile[], builder: TreeBuilder, name: string): boolean {
  if (file.segmentOf !== undefined) return joinSegment(file, earlier, builder, name)
  const from = str(file.meta!.forked_from_id)
  const parent = earlier.find((f) => f.threadId === from)
  if (from === undefined || parent === undefined) {
    builder.note(`${name}: not a fork of the imported thread; left out`)
    return false
  }
  const ordinal =
    num(file.meta!.forked_from_ordinal_exclusive) ??
    (isJsonObject(file.meta!.history_base) ? num(file.meta!.history_base.end_ordinal_exclusive) : undefined)
  let at: string | null
  let shared = 0
  if (ordinal !== undefined) {
    at = parent.nodeBefore(ordinal)
  } else {
    // A fork that copied its parent's history: the copies are the shared prefix, dropped; what follows branches there.
    at = null
    while (
      shared < file.nodes.length &&
      shared < parent.nodes.length &&
      sameEntry(file.nodes[shared]!, parent.nodes[shared]!)
    )
      at = parent.nodes[shared++]!.id
    file.nodes.splice(0, shared)
  }
  const first = file.nodes[0]
  if (first !== undefined) file.nodes[0] = { ...first, parentId: at }
  builder.note(
    `forked rollout ${name} (thread ${file.threadId}) joined as a branch at ${at === null ? 'the start' : `node ${at}`}${shared > 0 ? ` (${shared} copied item(s) shared with the thread)` : ''}`,
  )
  return true
}

/**
 * A later segment of a thread (0.171 writes a rollback, `thread/revert`, as a
 * new file of the same thread whose `history_base` keeps the thread's lines
 * before `end_ordinal_exclusive`): it continues from where the thread's
 * previous segment stood before that ordinal; the lines it drops stay as a branch.
 */
function joinSegment(file: CodexFile, earlier: readonly CodexFile[], builder: TreeBuilder, name: string): boolean {
  const base = earlier.filter((f) => f.threadId === file.threadId).at(-1)
  if (base === undefined) {
    builder.note(`${name}: a segment of thread ${file.threadId}, whose earlier rollout was not found; left out`)
    return false
  }
  const at = base.nodeBefore(file.segmentOf!)
  file.base = { file: base, ordinal: file.segmentOf!, at }
  const first = file.nodes[0]
  if (first !== undefined) file.nodes[0] = { ...first, parentId: at }
  builder.note(
    `rolled-back segment ${name} (thread ${file.threadId}) continues at ${at === null ? 'the start' : `node ${at}`}: what followed there is a branch`,
  )
  return true
}

function sameEntry(a: InterchangeNode, b: InterchangeNode): boolean {
  return JSON.stringify(a.entry) === JSON.stringify(b.entry)
}

/** One rollout read into linear nodes (with its rollbacks as branches), not yet added to the tree. */
class CodexFile {
  readonly nodes: InterchangeNode[] = []
  meta: JsonObject | undefined
  /** Lines read. */
  lines = 0
  private readonly builder: TreeBuilder
  private prefix: string | undefined
  /** The file's name in skipped-line reasons, when several files are read. */
  private readonly label: string | undefined
  /** From which ordinal on (the line's index unless the envelope says) the thread stood at which node; for fork points. */
  private readonly ordinals: { ordinal: number; parent: string | null }[] = []
  /** Its place in the family (segment ids are told apart by it). */
  private readonly order: number
  /** For a later segment of a thread: the ordinal its `history_base` keeps the thread up to (exclusive). */
  segmentOf: number | undefined
  /** The thread's name, when the rollout records one. */
  threadName: string | undefined
  /** For a joined segment: the segment before it, and where the thread stood there. */
  base: { readonly file: CodexFile; readonly ordinal: number; readonly at: string | null } | undefined

  constructor(builder: TreeBuilder, prefix: string | undefined, label?: string, order = 0) {
    this.builder = builder
    this.prefix = prefix
    this.label = label
    this.order = order
  }

  get threadId(): string | undefined {
    return this.meta === undefined ? undefined : (str(this.meta.id) ?? str(this.meta.session_id))
  }

  /** The node the thread was at just before the item of this ordinal: where a fork by reference continues. */
  nodeBefore(ordinal: number): string | null {
    // A segment's ordinals go on from its base's: an earlier one is in the lines it kept.
    if (this.base !== undefined && ordinal <= this.base.ordinal) return this.base.file.nodeBefore(ordinal)
    let at: string | null = this.base?.at ?? null
    for (const point of this.ordinals) {
      if (point.ordinal >= ordinal) break
      at = point.parent
    }
    return at
  }

  async read(records: AsyncIterable<LineRecord>): Promise<void> {
    const builder = this.builder
    const where = (reason: string) => (this.label === undefined ? reason : `${this.label}: ${reason}`)
    const nodes = this.nodes
    const typed = new Set<string>()
    const prompts: number[] = []
    let parent: string | null = null
    let response: { node: InterchangeNode; parts: ContentPart[] } | undefined
    let provider = 'openai'
    let model: string | undefined
    /** Inside a turn (`task_started` seen) that has no user item yet: a response there answers no prompt (a compaction's own summary). */
    let promptless = false
    const push = (node: InterchangeNode) => {
      nodes.push(node)
      parent = node.id
    }
    const closeResponse = () => {
      if (!response) return
      const entry: Entry = { kind: 'assistant', parts: response.parts, provider, ...(model ? { model } : {}) }
      response.node = { ...response.node, entry }
      push(response.node)
      response = undefined
    }
    let index = 0
    for await (const record of records) {
      this.lines = record.line
      if (record.kind === 'bad') {
        builder.skip(record.line, where(record.reason))
        continue
      }
      if (record.kind === 'torn') {
        builder.note(where(`line ${record.line}: ${record.reason}`))
        continue
      }
      if (record.recovered) builder.recovered++
      const value = record.value
      if (!isJsonObject(value) || typeof value.type !== 'string' || !isJsonObject(value.payload)) {
        builder.skip(record.line, where('not a rollout line ({timestamp, type, payload})'))
        continue
      }
      // Where the thread stands before this line (a fork by reference names the first ordinal it does not share).
      const standing = response ? response.node.id : parent
      if (this.ordinals.length === 0 || this.ordinals.at(-1)!.parent !== standing)
        this.ordinals.push({ ordinal: num(value.ordinal) ?? index, parent: standing })
      index++
      const payload = value.payload
      const time = timeOf(value.timestamp, 0)
      const id = `${this.prefix ?? ''}L${record.line}`
      switch (value.type) {
        case 'session_meta':
          if (this.meta === undefined) {
            this.meta = payload
            const thread = str(payload.id) ?? str(payload.session_id)
            if (
              str(payload.forked_from_id) === undefined &&
              isJsonObject(payload.history_base) &&
              thread !== undefined &&
              payload.history_base.thread_id === thread
            )
              this.segmentOf = num(payload.history_base.end_ordinal_exclusive)
            if (this.prefix === undefined)
              this.prefix = this.segmentOf !== undefined ? `${thread}/${this.order}:` : `${thread ?? 'fork'}:`
            if (typeof payload.model_provider === 'string') provider = payload.model_provider
          } else builder.ignore('session_meta (copied from a forked session)')
          continue
        case 'turn_context': {
          const next = str(payload.model)
          if (next !== undefined && next !== model) {
            if (model !== undefined) {
              closeResponse()
              push({
                id,
                parentId: parent,
                time,
                entry: { kind: 'model_change', provider, model: next },
                line: record.line,
                raw: [value],
              })
            }
            model = next
          }
          builder.ignore('turn_context')
          continue
        }
        case 'event_msg': {
          const kind = str(payload.type) ?? 'unknown'
          // A turn's end ends its response; a new turn has no prompt until a user item comes.
          if (kind === 'task_started' || kind === 'task_complete' || kind === 'turn_aborted') {
            closeResponse()
            promptless = kind === 'task_started'
          }
          if (kind === 'user_message' && typeof payload.message === 'string') typed.add(payload.message.trim())
          // The thread's name (codex-rs `EventMsg::ThreadNameUpdated`); a later one replaces it, null clears it.
          else if (kind === 'thread_name_updated') this.threadName = str(payload.thread_name)?.trim() || undefined
          else if (kind === 'thread_rolled_back') {
            closeResponse()
            const turns = num(payload.num_turns) ?? 0
            if (turns > 0 && prompts.length > 0) {
              const cut = prompts.splice(Math.max(0, prompts.length - turns))
              parent = nodes[cut[0]!]?.parentId ?? null
              builder.note(where(`line ${record.line}: ${turns} turn(s) rolled back; what follows is a new branch`))
            }
          }
          builder.ignore(`event_msg:${kind}`)
          continue
        }
        case 'compacted': {
          // 0.17x records the compaction's own answer (the summary) as a response of a turn with no prompt: it is the compaction.
          const own = response !== undefined && promptless ? response : undefined
          if (own) response = undefined
          else closeResponse()
          const summary = str(payload.message) ?? ''
          const retained = Array.isArray(payload.replacement_history)
            ? payload.replacement_history
                .flatMap((item) => (isJsonObject(item) && item.type === 'message' ? [inputParts(item.content)] : []))
                .filter((parts) => parts.length > 0)
            : []
          // The history is replaced by the retained items, one message each, as Codex replays them (the first stands in for what is replaced).
          const [first, ...rest] = retained.length > 0 ? retained : [[{ type: 'text' as const, text: summary }]]
          const firstText = first!.map((p) => (p.type === 'text' ? p.text : '')).join('')
          push({
            id,
            parentId: parent,
            time,
            entry: { kind: 'compaction', summary: summary || firstText, contextText: firstText, firstKept: null },
            line: record.line,
            raw: [...(own?.node.raw ?? []), value],
          })
          rest.forEach((parts, i) =>
            push({
              id: `${id}#${i + 1}`,
              parentId: parent,
              time,
              entry: { kind: 'user', parts, origin: 'context' },
              line: record.line,
            }),
          )
          continue
        }
        case 'response_item':
          break
        default:
          builder.ignore(value.type)
          continue
      }
      const itemType = str(payload.type) ?? 'unknown'
      const key = itemType === 'message' ? `message:${String(payload.role)}` : itemType
      if (MODEL_SIDE.has(key)) {
        if (!response)
          response = {
            node: { id, parentId: parent, time, entry: { kind: 'assistant', parts: [] }, line: record.line, raw: [] },
            parts: [],
          }
        response.node = { ...response.node, raw: [...(response.node.raw ?? []), value] }
        response.parts.push(...modelParts(payload))
        continue
      }
      closeResponse()
      switch (key) {
        case 'message:user':
        case 'message:developer':
        case 'message:system': {
          const parts = inputParts(payload.content)
          const text = parts
            .map((p) => (p.type === 'text' ? p.text : ''))
            .join('')
            .trim()
          const injected = key !== 'message:user' || INJECTED.some((prefix) => text.startsWith(prefix))
          if (!injected) prompts.push(nodes.length)
          promptless = false
          push({
            id,
            parentId: parent,
            time,
            entry: { kind: 'user', parts, origin: injected ? 'context' : 'prompt' },
            line: record.line,
            raw: [value],
          })
          break
        }
        case 'function_call_output':
        case 'custom_tool_call_output': {
          const callId = str(payload.call_id) ?? ''
          push({
            id,
            parentId: parent,
            time,
            entry: {
              kind: 'tool_result',
              callId,
              parts: [{ type: 'text', text: outputText(payload.output) }],
              isError: false,
            },
            line: record.line,
            raw: [value],
          })
          break
        }
        default:
          // ghost_snapshot (undo state), newer item types: not part of the conversation.
          builder.ignore(`response_item:${itemType}`)
      }
    }
    closeResponse()
    // A user item a person typed is mirrored by event_msg/user_message; without any mirror, the prefix rule stands.
    if (typed.size > 0) {
      for (let i = 0; i < nodes.length; i++) {
        const node = nodes[i]!
        if (node.entry.kind !== 'user' || node.entry.origin !== 'prompt') continue
        const text = node.entry.parts
          .map((p) => (p.type === 'text' ? p.text : ''))
          .join('')
          .trim()
        if (!typed.has(text)) nodes[i] = { ...node, entry: { ...node.entry, origin: 'context' } }
      }
    }
  }
}

function modelParts(payload: JsonObject): ContentPart[] {
  switch (payload.type) {
    case 'message':
      return inputParts(payload.content).flatMap((p): ContentPart[] => (p.type === 'text' ? [p] : [p]))
    case 'reasoning': {
      const summary = Array.isArray(payload.summary)
        ? payload.summary.map((s) => (isJsonObject(s) ? (str(s.text) ?? '') : '')).join('\n')
        : ''
      const content = Array.isArray(payload.content)
        ? payload.content.map((c) => (isJsonObject(c) ? (str(c.text) ?? '') : '')).join('\n')
        : ''
      const text = content || summary
      return [
        {
          type: 'thinking',
          text,
          ...(str(payload.encrypted_content)
            ? { signature: str(payload.encrypted_content)!, redacted: text === '' }
            : {}),
        },
      ]
    }
    case 'function_call':
      return [
        {
          type: 'tool_call',
          id: str(payload.call_id) ?? '',
          name: str(payload.name) ?? 'unknown',
          arguments: parseArgs(payload.arguments),
        },
      ]
    case 'custom_tool_call':
      return [
        {
          type: 'tool_call',
          id: str(payload.call_id) ?? '',
          name: str(payload.name) ?? 'unknown',
          arguments: (payload.input ?? '') as JsonValue,
        },
      ]
    case 'local_shell_call':
      return [
        {
          type: 'tool_call',
          id: str(payload.call_id) ?? str(payload.id) ?? '',
          name: 'local_shell',
          arguments: (payload.action ?? {}) as JsonValue,
        },
      ]
    case 'web_search_call': {
      // No output item ever answers it: text, so that no call waits for a result.
      const action = isJsonObject(payload.action) ? payload.action : {}
      return [{ type: 'text', text: `[web search: ${str(action.query) ?? ''}]` }]
    }
    default:
      return []
  }
}

function inputParts(content: JsonValue | undefined): InputPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  if (!Array.isArray(content)) return []
  const parts: InputPart[] = []
  for (const block of content) {
    if (!isJsonObject(block)) continue
    const text = str(block.text)
    if ((block.type === 'input_text' || block.type === 'output_text' || block.type === 'text') && text !== undefined)
      parts.push({ type: 'text', text })
    else if (block.type === 'input_image') {
      const url = str(block.image_url) ?? ''
      const match = /^data:([^;,]+);base64,(.*)$/s.exec(url)
      parts.push(
        match ? { type: 'image', mediaType: match[1]!, data: match[2]! } : { type: 'image', mediaType: 'image/*', url },
      )
    }
  }
  return parts
}

function textOf(content: JsonValue | undefined): string {
  return inputParts(content)
    .map((p) => (p.type === 'text' ? p.text : ''))
    .join('')
}

function outputText(output: JsonValue | undefined): string {
  if (typeof output === 'string') return output
  if (isJsonObject(output) && typeof output.content === 'string') return output.content
  if (Array.isArray(output)) return textOf(output)
  return JSON.stringify(output ?? '')
}
