/**
 * Codex rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl`):
 * `{timestamp, type, payload}` envelopes, append-only, no ids or parent links
 * (openai/codex `RolloutItem`):
 *
 * - `response_item` is the model history and the only stream read for content;
 *   `event_msg` repeats it for the UI (never both): only `user_message` (which
 *   of the user-role items a person typed) and `thread_rolled_back` (drop the
 *   last n user turns: the next item forks) are used from it;
 * - user-role items Codex injects (AGENTS.md, `<environment_context>`,
 *   instructions) are context, not prompts;
 * - consecutive model-side items (reasoning, assistant message, function
 *   calls) are one response; `function_call_output` pairs by `call_id`;
 * - `compacted` replaces the history with its summary (and the user messages
 *   it retained); `turn_context` model changes become model-change nodes;
 * - only the first `session_meta` describes the file (a fork copies its
 *   parent's); ids are derived from the line (`L<line>`), so a re-import is stable.
 */
import { TreeBuilder, type RawSink } from '../builder.ts'
import { InterchangeError } from '../errors.ts'
import type { LineRecord } from '../lines.ts'
import type { ContentPart, Entry, ImportReport, InputPart, InterchangeNode, InterchangeTree, Json, JsonRecord } from '../model.ts'
import { isObject, num, parseArgs, str, timeOf } from '../values.ts'

/** Prefixes of user-role items Codex injects (codex-rs `is_injected_user_message` and friends). */
const INJECTED = ['# AGENTS.md instructions', '<user_instructions>', '<environment_context>', '<permissions instructions>', '<skill', '<user_shell_command>', '<turn_aborted>', '<subagent_notification>']
const MODEL_SIDE = new Set(['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call', 'message:assistant'])

export async function readCodex(records: AsyncIterable<LineRecord>, sink?: RawSink): Promise<{ tree: InterchangeTree; report: ImportReport }> {
  const builder = new TreeBuilder(sink)
  const nodes: InterchangeNode[] = []
  const typed = new Set<string>()
  const prompts: number[] = []
  let meta: JsonRecord | undefined
  let parent: string | null = null
  let response: { node: InterchangeNode; parts: ContentPart[] } | undefined
  let provider = 'openai'
  let model: string | undefined
  let title: string | undefined
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
  for await (const record of records) {
    builder.lines = record.line
    if (record.kind === 'bad') {
      builder.skip(record.line, record.reason)
      continue
    }
    if (record.kind === 'torn') {
      builder.note(`line ${record.line}: ${record.reason}`)
      continue
    }
    if (record.recovered) builder.recovered++
    const value = record.value
    if (!isObject(value) || typeof value.type !== 'string' || !isObject(value.payload)) {
      builder.skip(record.line, 'not a rollout line ({timestamp, type, payload})')
      continue
    }
    const payload = value.payload
    const time = timeOf(value.timestamp, 0)
    const id = `L${record.line}`
    switch (value.type) {
      case 'session_meta':
        if (meta === undefined) {
          meta = payload
          if (typeof payload.model_provider === 'string') provider = payload.model_provider
        } else builder.ignore('session_meta (copied from a forked session)')
        continue
      case 'turn_context': {
        const next = str(payload.model)
        if (next !== undefined && next !== model) {
          if (model !== undefined) {
            closeResponse()
            push({ id, parentId: parent, time, entry: { kind: 'model_change', provider, model: next }, line: record.line, raw: [value] })
          }
          model = next
        }
        builder.ignore('turn_context')
        continue
      }
      case 'event_msg': {
        const kind = str(payload.type) ?? 'unknown'
        if (kind === 'user_message' && typeof payload.message === 'string') typed.add(payload.message.trim())
        else if (kind === 'thread_rolled_back') {
          closeResponse()
          const turns = num(payload.num_turns) ?? 0
          if (turns > 0 && prompts.length > 0) {
            const cut = prompts.splice(Math.max(0, prompts.length - turns))
            parent = nodes[cut[0]!]?.parentId ?? null
            builder.note(`line ${record.line}: ${turns} turn(s) rolled back; what follows is a new branch`)
          }
        }
        builder.ignore(`event_msg:${kind}`)
        continue
      }
      case 'compacted': {
        closeResponse()
        const summary = str(payload.message) ?? ''
        const retained = Array.isArray(payload.replacement_history)
          ? payload.replacement_history.flatMap((item) => (isObject(item) && item.type === 'message' ? [textOf(item.content)] : [])).filter((t) => t !== '')
          : []
        const contextText = retained.length > 0 ? retained.join('\n\n') : summary
        push({ id, parentId: parent, time, entry: { kind: 'compaction', summary: summary || contextText, contextText, firstKept: null }, line: record.line, raw: [value] })
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
      if (!response) response = { node: { id, parentId: parent, time, entry: { kind: 'assistant', parts: [] }, line: record.line, raw: [] }, parts: [] }
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
        const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('').trim()
        const injected = key !== 'message:user' || INJECTED.some((prefix) => text.startsWith(prefix))
        if (!injected) prompts.push(nodes.length)
        push({ id, parentId: parent, time, entry: { kind: 'user', parts, origin: injected ? 'context' : 'prompt' }, line: record.line, raw: [value] })
        break
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const callId = str(payload.call_id) ?? ''
        push({ id, parentId: parent, time, entry: { kind: 'tool_result', callId, parts: [{ type: 'text', text: outputText(payload.output) }], isError: false }, line: record.line, raw: [value] })
        break
      }
      default:
        // ghost_snapshot (undo state), newer item types: not part of the conversation.
        builder.ignore(`response_item:${itemType}`)
    }
  }
  closeResponse()
  if (meta === undefined) throw new InterchangeError('NOT_A_SESSION', 'the rollout has no session_meta line')
  // A user item a person typed is mirrored by event_msg/user_message; without any mirror, the prefix rule stands.
  if (typed.size > 0) {
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!
      if (node.entry.kind !== 'user' || node.entry.origin !== 'prompt') continue
      const text = node.entry.parts.map((p) => (p.type === 'text' ? p.text : '')).join('').trim()
      if (!typed.has(text)) nodes[i] = { ...node, entry: { ...node.entry, origin: 'context' } }
    }
  }
  for (const node of nodes) builder.add(node)
  title = str(meta.title) ?? title
  return builder.finish({
    format: 'codex',
    version: str(meta.cli_version) ?? 'unknown',
    ...(str(meta.id) ?? str(meta.session_id) ? { sessionId: (str(meta.id) ?? str(meta.session_id))! } : {}),
    ...(str(meta.cwd) ? { cwd: str(meta.cwd)! } : {}),
    ...(str(meta.timestamp) ? { createdAt: str(meta.timestamp)! } : {}),
    ...(title ? { title } : {}),
    header: meta,
  }, nodes.at(-1)?.id ?? null)
}

function modelParts(payload: JsonRecord): ContentPart[] {
  switch (payload.type) {
    case 'message':
      return inputParts(payload.content).flatMap((p): ContentPart[] => (p.type === 'text' ? [p] : [p]))
    case 'reasoning': {
      const summary = Array.isArray(payload.summary) ? payload.summary.map((s) => (isObject(s) ? str(s.text) ?? '' : '')).join('\n') : ''
      const content = Array.isArray(payload.content) ? payload.content.map((c) => (isObject(c) ? str(c.text) ?? '' : '')).join('\n') : ''
      const text = content || summary
      return [{ type: 'thinking', text, ...(str(payload.encrypted_content) ? { signature: str(payload.encrypted_content)!, redacted: text === '' } : {}) }]
    }
    case 'function_call':
      return [{ type: 'tool_call', id: str(payload.call_id) ?? '', name: str(payload.name) ?? 'unknown', arguments: parseArgs(payload.arguments) }]
    case 'custom_tool_call':
      return [{ type: 'tool_call', id: str(payload.call_id) ?? '', name: str(payload.name) ?? 'unknown', arguments: (payload.input ?? '') as Json }]
    case 'local_shell_call':
      return [{ type: 'tool_call', id: str(payload.call_id) ?? str(payload.id) ?? '', name: 'local_shell', arguments: (payload.action ?? {}) as Json }]
    case 'web_search_call': {
      // No output item ever answers it: text, so that no call waits for a result.
      const action = isObject(payload.action) ? payload.action : {}
      return [{ type: 'text', text: `[web search: ${str(action.query) ?? ''}]` }]
    }
    default:
      return []
  }
}

function inputParts(content: Json | undefined): InputPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  if (!Array.isArray(content)) return []
  const parts: InputPart[] = []
  for (const block of content) {
    if (!isObject(block)) continue
    const text = str(block.text)
    if ((block.type === 'input_text' || block.type === 'output_text' || block.type === 'text') && text !== undefined) parts.push({ type: 'text', text })
    else if (block.type === 'input_image') {
      const url = str(block.image_url) ?? ''
      const match = /^data:([^;,]+);base64,(.*)$/s.exec(url)
      parts.push(match ? { type: 'image', mediaType: match[1]!, data: match[2]! } : { type: 'image', mediaType: 'image/*', url })
    }
  }
  return parts
}

function textOf(content: Json | undefined): string {
  return inputParts(content).map((p) => (p.type === 'text' ? p.text : '')).join('')
}

function outputText(output: Json | undefined): string {
  if (typeof output === 'string') return output
  if (isObject(output) && typeof output.content === 'string') return output.content
  if (Array.isArray(output)) return textOf(output)
  return JSON.stringify(output ?? '')
}
