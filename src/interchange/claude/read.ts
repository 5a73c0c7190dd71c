/**
 * Claude Code project transcripts (`~/.claude/projects/<cwd>/<session>.jsonl`).
 * Its source is not public: the rules follow files it wrote (1.0.x – 2.1.x,
 * test/fixtures/claude-code/SOURCES.md). Records split over one `message.id`
 * merge into one node; chain-only records are transparent (so siblings do not
 * look like forks); subagents hang under their call (`subagents.ts`). The
 * mapping: docs/interchange.md, "What each format becomes".
 */
import { TreeBuilder, type RawSink } from '../builder.ts'
import { InterchangeError } from '../errors.ts'
import type { LineRecord } from '../lines.ts'
import type {
  AssistantEntry,
  ContentPart,
  Entry,
  ImportReport,
  InputPart,
  InterchangeNode,
  InterchangeTree,
  Usage,
} from '../model.ts'
import type { JsonValue, JsonObject } from '../../tree/types.ts'
import { num, str, timeOf } from '../values.ts'
import { isJsonObject } from '../../tree/validate.ts'
import { oneLine } from '../../tree/text.ts'
import { linkSubagents, type SubagentSource } from './subagents.ts'

/** Record types that are not conversation nodes (titles, snapshots, queue state). */
const NON_NODE = new Set([
  'summary',
  'file-history-snapshot',
  'queue-operation',
  'last-prompt',
  'custom-title',
  'ai-title',
  'agent-name',
  'permission-mode',
  'mode',
  'agent-setting',
  'pr-link',
])

interface Pending {
  node: InterchangeNode
  /** Claude uuid of the record the node was made from (the first one when merged). */
  readonly uuid: string
  readonly sidechain: boolean
  readonly agentId?: string
}

/** Where a record sits: its uuid, the node it continues, when and on which line, and whose conversation. */
interface Place {
  readonly uuid: string
  readonly parent: string | null
  readonly time: number
  readonly line: number
  readonly sidechain: boolean
  readonly agentId: string | undefined
}

/** A pending node made at `place` (`uuid`: the record's, or the id of one of its parts). */
function pendingAt(place: Place, node: InterchangeNode, uuid = place.uuid): Pending {
  return { node, uuid, sidechain: place.sidechain, ...(place.agentId ? { agentId: place.agentId } : {}) }
}

export interface ClaudeReadOptions {
  /** Subagent transcripts beside the session (`agent-*.jsonl`, `<session>/subagents/`), already opened. */
  readonly subagents?: readonly SubagentSource[]
  readonly sink?: RawSink
}

export async function readClaude(
  records: AsyncIterable<LineRecord>,
  options: ClaudeReadOptions = {},
): Promise<{ tree: InterchangeTree; report: ImportReport }> {
  const builder = new TreeBuilder(options.sink)
  const state = new ClaudeState(builder)
  for await (const record of records) state.record(record)
  if (state.nodes.length === 0)
    throw new InterchangeError('EMPTY_SESSION', 'the transcript holds no user or assistant messages', {
      lines: builder.lines,
    })
  for (const source of options.subagents ?? []) {
    const sub = new ClaudeState(builder, `${source.name}:`)
    for await (const record of source.records) sub.record(record, true)
    // Files beside the session may belong to other sessions of the same project.
    if (sub.sessionId !== undefined && sub.sessionId !== state.sessionId) continue
    state.adopt(sub, source.name)
  }
  // Chain structural siblings first: a subagent hangs on the very result that started it.
  state.linearize()
  linkSubagents(state.nodes, builder)
  for (const p of state.nodes) builder.add(p.node)
  const main = state.nodes.filter((p) => !p.sidechain)
  const cursor = (main.length > 0 ? main : state.nodes).reduce((last, p) => (p.node.line >= last.node.line ? p : last))
    .node.id
  return builder.finish(
    {
      format: 'claude-code',
      version: state.versionRange(),
      ...(state.sessionId ? { sessionId: state.sessionId } : {}),
      ...(state.cwd ? { cwd: state.cwd } : {}),
      ...(state.firstTime ? { createdAt: new Date(state.firstTime).toISOString() } : {}),
      ...(state.title ? { title: state.title } : {}),
    },
    cursor,
  )
}

export class ClaudeState {
  readonly nodes: Pending[] = []
  private readonly builder: TreeBuilder
  private readonly prefix: string
  /** Claude uuid → node id it resolves to (merged, transparent and compaction-summary records alias). */
  private readonly alias = new Map<string, string | null>()
  private readonly byMessageId = new Map<string, Pending>()
  private readonly byId = new Map<string, Pending>()
  private readonly versions = new Set<string>()
  sessionId: string | undefined
  cwd: string | undefined
  private customTitle: string | undefined
  private aiTitle: string | undefined
  /** `summary` records by the leaf they describe (usually a leaf of another session file). */
  private readonly summaries = new Map<string, string>()
  firstTime = 0
  /** The compaction node waiting for its summary message. */
  private openBoundary: Pending | undefined

  constructor(builder: TreeBuilder, prefix = '') {
    this.builder = builder
    this.prefix = prefix
  }

  /** The session's name: the user's title, else Claude's, else the summary of a leaf of this file. */
  get title(): string | undefined {
    if (this.customTitle ?? this.aiTitle) return this.customTitle ?? this.aiTitle
    for (const [leaf, summary] of [...this.summaries].reverse()) if (this.alias.has(leaf)) return summary
    return undefined
  }

  versionRange(): string {
    const list = [...this.versions].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
    return list.length === 0 ? 'unknown' : list.length === 1 ? list[0]! : `${list[0]}..${list.at(-1)}`
  }

  record(record: LineRecord, inSubagentFile = false): void {
    if (!inSubagentFile) this.builder.lines = record.line
    if (record.kind === 'bad') return this.builder.skip(record.line, record.reason)
    if (record.kind === 'torn') return this.builder.note(`line ${record.line}: ${record.reason}`)
    if (record.recovered) this.builder.recovered++
    const value = record.value
    if (!isJsonObject(value) || typeof value.type !== 'string')
      return this.builder.skip(record.line, 'not a transcript record (no type)')
    if (typeof value.version === 'string') this.versions.add(value.version)
    if (!this.sessionId && typeof value.sessionId === 'string') this.sessionId = value.sessionId
    if (!this.cwd && typeof value.cwd === 'string') this.cwd = value.cwd
    // A title the user set wins over Claude's own; a summary only names this session when its leaf is in it.
    if (value.type === 'custom-title') this.customTitle = str(value.customTitle) ?? str(value.title) ?? this.customTitle
    if (value.type === 'ai-title') this.aiTitle = str(value.aiTitle) ?? str(value.title) ?? this.aiTitle
    if (value.type === 'summary' && str(value.summary) && str(value.leafUuid))
      this.summaries.set(str(value.leafUuid)!, str(value.summary)!)
    if (NON_NODE.has(value.type)) return this.builder.ignore(value.type)
    const uuid = str(value.uuid)
    if (uuid === undefined) return this.builder.ignore(`${value.type} (no uuid)`)
    const time = timeOf(value.timestamp, 0)
    if (this.firstTime === 0 && time > 0) this.firstTime = time
    const parent = this.resolve(str(value.parentUuid) ?? null)
    const sidechain = value.isSidechain === true || inSubagentFile
    const place: Place = { uuid, parent, time, line: record.line, sidechain, agentId: str(value.agentId) }
    switch (value.type) {
      case 'assistant':
        return this.assistant(value, place)
      case 'user':
        return this.user(value, place)
      case 'system':
        if (value.subtype === 'compact_boundary') return this.boundary(value, place)
        this.builder.ignore(`system:${String(value.subtype ?? 'unknown')}`)
        return this.transparent(uuid, parent)
      default:
        // progress, attachment and future record types: kept out of the tree, children kept.
        this.builder.ignore(value.type)
        return this.transparent(uuid, parent)
    }
  }

  /** Node id a Claude uuid stands for now (`null`: a root). A uuid we never saw stays (an orphan, reported later). */
  private resolve(uuid: string | null): string | null {
    if (uuid === null) return null
    const found = this.alias.get(uuid)
    return found === undefined ? this.prefix + uuid : found
  }

  private transparent(uuid: string, parent: string | null): void {
    this.alias.set(uuid, parent)
  }

  private add(pending: Pending): void {
    this.nodes.push(pending)
    this.byId.set(pending.node.id, pending)
    this.alias.set(pending.uuid, pending.node.id)
  }

  private assistant(value: JsonObject, place: Place): void {
    const { uuid, parent, time, line } = place
    const message = isJsonObject(value.message) ? value.message : {}
    const parts = assistantParts(message.content)
    const messageId = str(message.id)
    const merged = messageId === undefined ? undefined : this.byMessageId.get(messageId)
    if (merged && merged.node.entry.kind === 'assistant') {
      // Another streamed block of the same response: one node.
      const previous: AssistantEntry = merged.node.entry
      const entry: AssistantEntry = {
        ...previous,
        parts: [...previous.parts, ...parts],
        ...stopAndUsage(previous, message),
      }
      merged.node = { ...merged.node, entry, raw: [...(merged.node.raw ?? []), value] }
      this.alias.set(uuid, merged.node.id)
      return
    }
    const isError = value.isApiErrorMessage === true
    const entry: Entry = isError
      ? {
          kind: 'custom',
          customType: 'api-error',
          summary: oneLine(parts.map((p) => (p.type === 'text' ? p.text : '')).join(' ') || 'API error'),
        }
      : {
          kind: 'assistant',
          parts,
          provider: 'anthropic',
          ...(str(message.model) ? { model: str(message.model)! } : {}),
          ...stopAndUsage({}, message),
        }
    const pending = pendingAt(place, { id: this.prefix + uuid, parentId: parent, time, entry, line, raw: [value] })
    this.add(pending)
    if (messageId !== undefined && !isError) this.byMessageId.set(messageId, pending)
  }

  private user(value: JsonObject, place: Place): void {
    const { uuid, parent, time, line } = place
    const message = isJsonObject(value.message) ? value.message : {}
    const content = message.content
    if (value.isCompactSummary === true && this.openBoundary && this.openBoundary.node.id === parent) {
      // The summary the model reads after the boundary: it is the compaction's text.
      const text =
        typeof content === 'string'
          ? content
          : inputParts(content)
              .map((p) => (p.type === 'text' ? p.text : ''))
              .join('\n')
      const boundary = this.openBoundary
      if (boundary.node.entry.kind === 'compaction') {
        boundary.node = {
          ...boundary.node,
          entry: { ...boundary.node.entry, summary: text, contextText: text },
          raw: [...(boundary.node.raw ?? []), value],
        }
      }
      this.alias.set(uuid, boundary.node.id)
      this.openBoundary = undefined
      return
    }
    const origin = value.isMeta === true || value.isCompactSummary === true ? 'context' : 'prompt'
    const blocks: JsonValue[] =
      typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : []
    // Tool results first (one node each, in block order), then any other content as one message.
    let at = parent
    let n = 0
    const rest: JsonValue[] = []
    for (const block of blocks) {
      if (!isJsonObject(block) || block.type !== 'tool_result') {
        rest.push(block)
        continue
      }
      const callId = str(block.tool_use_id) ?? ''
      const id = this.prefix + (n === 0 ? uuid : `${uuid}#${n}`)
      n++
      const entry: Entry = {
        kind: 'tool_result',
        callId,
        parts: inputParts(block.content),
        isError: block.is_error === true,
      }
      const node = { id, parentId: at, time, entry, line, raw: n === 1 ? [value] : [] }
      this.add(pendingAt(place, node, n === 1 ? uuid : `${uuid}#${n - 1}`))
      at = id
    }
    if (rest.length > 0 || n === 0) {
      const parts = inputParts(rest)
      const id = this.prefix + (n === 0 ? uuid : `${uuid}#text`)
      const node = {
        id,
        parentId: at,
        time,
        entry: { kind: 'user', parts, origin } as const,
        line,
        raw: n === 0 ? [value] : [],
      }
      this.add(pendingAt(place, node, n === 0 ? uuid : `${uuid}#text`))
      at = id
    }
    // Later records naming this uuid continue after everything it held.
    this.alias.set(uuid, at)
  }

  private boundary(value: JsonObject, place: Place): void {
    const { uuid, time, line, sidechain } = place
    const logical = this.resolve(str(value.logicalParentUuid) ?? null)
    const meta = isJsonObject(value.compactMetadata) ? value.compactMetadata : {}
    const text = str(value.content) ?? 'Conversation compacted'
    // 2.1.x keeps the newest messages after the summary (`preservedSegment` head..tail, on the logical path).
    const segment = isJsonObject(meta.preservedSegment) ? meta.preservedSegment : undefined
    const head = segment !== undefined ? str(segment.headUuid) : undefined
    const firstKept = head !== undefined ? this.resolve(head) : null
    const pending: Pending = {
      node: {
        id: this.prefix + uuid,
        parentId: logical,
        time,
        entry: {
          kind: 'compaction',
          summary: text,
          contextText: text,
          firstKept,
          ...(num(meta.preTokens) !== undefined ? { tokensBefore: num(meta.preTokens)! } : {}),
        },
        line,
        raw: [value],
      },
      uuid,
      sidechain,
    }
    this.add(pending)
    this.openBoundary = pending
  }

  /** Take the nodes of a subagent file (already prefixed); their roots are linked later. */
  adopt(other: ClaudeState, name: string): void {
    for (const pending of other.nodes) {
      this.nodes.push(pending)
      this.byId.set(pending.node.id, pending)
    }
    if (other.nodes.length > 0) this.builder.note(`subagent transcript ${name}: ${other.nodes.length} node(s)`)
  }

  /**
   * Structural siblings → a chain: the results of one response's calls
   * follow each other in write order, and whatever continued from any of them
   * continues from the last one.
   */
  linearize(): void {
    const children = new Map<string, Pending[]>()
    for (const p of this.nodes) {
      if (p.node.parentId === null) continue
      const list = children.get(p.node.parentId) ?? []
      list.push(p)
      children.set(p.node.parentId, list)
    }
    let chained = 0
    for (const p of this.nodes) {
      if (p.node.entry.kind !== 'assistant') continue
      const calls = new Set(p.node.entry.parts.flatMap((part) => (part.type === 'tool_call' ? [part.id] : [])))
      if (calls.size < 2) continue
      // The results of this response's calls, wherever in the chain below it they were written.
      const group: Pending[] = []
      const walk = [...(children.get(p.node.id) ?? [])]
      while (walk.length > 0) {
        const child = walk.shift()!
        const entry = child.node.entry
        if (entry.kind !== 'tool_result' || !calls.has(entry.callId)) continue
        group.push(child)
        walk.push(...(children.get(child.node.id) ?? []))
      }
      if (group.length < 2) continue
      group.sort((a, b) => a.node.line - b.node.line)
      const inGroup = new Set(group.map((g) => g.node.id))
      const last = group.at(-1)!
      for (let i = 0; i < group.length; i++) {
        const wanted = i === 0 ? p.node.id : group[i - 1]!.node.id
        if (group[i]!.node.parentId !== wanted) {
          group[i]!.node = { ...group[i]!.node, parentId: wanted }
          chained++
        }
      }
      for (const g of group.slice(0, -1)) {
        for (const child of children.get(g.node.id) ?? []) {
          if (!inGroup.has(child.node.id)) child.node = { ...child.node, parentId: last.node.id }
        }
      }
      for (const child of children.get(p.node.id) ?? []) {
        if (!inGroup.has(child.node.id) && child.node.entry.kind !== 'user')
          child.node = { ...child.node, parentId: last.node.id }
      }
    }
    if (chained > 0)
      this.builder.note(`${chained} parallel tool result(s) chained after their siblings (structural, not forks)`)
  }
}

function stopAndUsage(
  previous: { usage?: Usage; stopReason?: string },
  message: JsonObject,
): { usage?: Usage; stopReason?: string } {
  const u = isJsonObject(message.usage) ? message.usage : undefined
  const usage: Usage | undefined = u
    ? {
        ...(num(u.input_tokens) !== undefined ? { input: num(u.input_tokens)! } : {}),
        output: Math.max(num(u.output_tokens) ?? 0, previous.usage?.output ?? 0),
        ...(num(u.cache_read_input_tokens) !== undefined ? { cacheRead: num(u.cache_read_input_tokens)! } : {}),
        ...(num(u.cache_creation_input_tokens) !== undefined
          ? { cacheWrite: num(u.cache_creation_input_tokens)! }
          : {}),
      }
    : previous.usage
  const stop = str(message.stop_reason) ?? previous.stopReason
  return { ...(usage ? { usage } : {}), ...(stop ? { stopReason: stop } : {}) }
}

export function assistantParts(content: JsonValue | undefined): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  if (!Array.isArray(content)) return []
  const parts: ContentPart[] = []
  for (const block of content) {
    if (!isJsonObject(block)) continue
    if (block.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text })
    else if (block.type === 'thinking' && typeof block.thinking === 'string')
      parts.push({
        type: 'thinking',
        text: block.thinking,
        ...(str(block.signature) ? { signature: str(block.signature)! } : {}),
      })
    else if (block.type === 'redacted_thinking')
      parts.push({
        type: 'thinking',
        text: '',
        redacted: true,
        ...(str(block.data) ? { signature: str(block.data)! } : {}),
      })
    else if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string')
      parts.push({ type: 'tool_call', id: block.id, name: block.name, arguments: block.input ?? {} })
  }
  return parts
}

export function inputParts(content: JsonValue | undefined): InputPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  if (!Array.isArray(content)) return []
  const parts: InputPart[] = []
  for (const block of content) {
    if (typeof block === 'string') parts.push({ type: 'text', text: block })
    else if (!isJsonObject(block)) continue
    else if (block.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text })
    else if (block.type === 'image' && isJsonObject(block.source)) {
      const source = block.source
      parts.push({
        type: 'image',
        mediaType: str(source.media_type) ?? 'application/octet-stream',
        ...(str(source.data) ? { data: str(source.data)! } : {}),
        ...(str(source.url) ? { url: str(source.url)! } : {}),
      })
    }
  }
  return parts
}
