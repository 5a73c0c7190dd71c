/**
 * The neutral tree → Pi session JSONL v3, lossless for what Pi can hold.
 * Records from a Pi file are written back verbatim. Pi resumes from the file's
 * last entry, so the cursor's entry goes last; when it cannot, label entries
 * (or one `custom` entry marking the cursor) are chained after it, so Pi
 * resumes on exactly the cursor's context.
 */
import { randomUUID } from 'node:crypto'
import type { ContentPart, InterchangeNode, LabeledTree } from '../model.ts'
import type { JsonValue, JsonObject } from '../../tree/types.ts'
import { isJsonObject } from '../../tree/validate.ts'
import { PI_CURRENT_VERSION } from './read.ts'

/** `customType` of the entry that marks DSH's cursor when it is not the last entry. */
export const CURSOR_MARKER_TYPE = 'dsh-session-tree.cursor'

/** The labels are held at the end. */
export interface PiWriteInput extends LabeledTree {
  readonly now?: number
}

/** The file's lines, header first, each a JSON text without the newline. */
export function* writePi(input: PiWriteInput): Generator<string> {
  const { tree } = input
  const now = input.now ?? Date.now()
  const sameFormat = tree.meta.format === 'pi'
  const header =
    sameFormat && isJsonObject(tree.meta.header)
      ? { ...tree.meta.header, version: PI_CURRENT_VERSION }
      : {
          type: 'session',
          version: PI_CURRENT_VERSION,
          id: tree.meta.sessionId ?? randomUUID(),
          timestamp: tree.meta.createdAt ?? new Date(now).toISOString(),
          cwd: tree.meta.cwd ?? '',
        }
  yield JSON.stringify(header)
  // Source order for what came from the file, creation order for the rest; the cursor last when it can be.
  const order = [...tree.nodes].sort(
    (a, b) => (a.line === 0 ? Number.MAX_SAFE_INTEGER : a.line) - (b.line === 0 ? Number.MAX_SAFE_INTEGER : b.line),
  )
  const cursorIndex = order.findIndex((node) => node.id === tree.cursor)
  const hasChildren = new Set(tree.nodes.flatMap((node) => (node.parentId === null ? [] : [node.parentId])))
  if (cursorIndex !== -1 && !hasChildren.has(tree.cursor!)) order.push(...order.splice(cursorIndex, 1))
  const labels = new Map<string, string | null>()
  let last: string | null = null
  for (const node of order) {
    const record = sameFormat ? verbatim(node) : undefined
    const entry = record ?? entryOf(node, now)
    if (entry === undefined) continue
    if (entry.type === 'label' && typeof entry.targetId === 'string')
      labels.set(entry.targetId, typeof entry.label === 'string' && entry.label ? entry.label : null)
    last = node.id
    yield JSON.stringify(entry)
  }
  // Labels as they are now; chained after the cursor so Pi's leaf keeps the cursor's context.
  let leaf = tree.cursor
  const ids = new Set(tree.nodes.map((node) => node.id))
  let n = 0
  const targets = new Set([...labels.keys(), ...input.labels.keys()])
  for (const target of targets) {
    const want = input.labels.get(target) ?? null
    if ((labels.get(target) ?? null) === want || !ids.has(target)) continue
    const id = `dshlabel${++n}`
    yield JSON.stringify({
      type: 'label',
      id,
      parentId: leaf,
      timestamp: new Date(now).toISOString(),
      targetId: target,
      ...(want === null ? {} : { label: want }),
    })
    leaf = id
    last = id
  }
  if (last !== tree.cursor && leaf === tree.cursor) {
    yield JSON.stringify({
      type: 'custom',
      customType: CURSOR_MARKER_TYPE,
      id: 'dshcursor',
      parentId: tree.cursor,
      timestamp: new Date(now).toISOString(),
    })
  }
}

/** A record read from a Pi file, written back (ids given to v1 records by the import). */
function verbatim(node: InterchangeNode): JsonObject | undefined {
  const raw = node.raw?.[0]
  if (!isJsonObject(raw) || typeof raw.type !== 'string' || raw.type === 'session') return undefined
  if (raw.id === node.id && (raw.parentId ?? null) === node.parentId) return raw
  // A v1/v2 record, or a record whose parent changed (say, a DSH node in between): the import's ids.
  const { firstKeptEntryIndex: _index, ...rest } = raw
  const message =
    isJsonObject(rest.message) && rest.message.role === 'hookMessage'
      ? { ...rest.message, role: 'custom' }
      : rest.message
  const out: JsonObject = { ...rest, id: node.id, parentId: node.parentId }
  if (message !== undefined) out.message = message
  if (node.entry.kind === 'compaction') out.firstKeptEntryId = node.entry.firstKept ?? node.id
  return out
}

function entryOf(node: InterchangeNode, now: number): JsonObject | undefined {
  const base = {
    id: node.id,
    parentId: node.parentId,
    timestamp: new Date(node.time > 0 ? node.time : now).toISOString(),
  }
  const ms = node.time > 0 ? node.time : now
  const entry = node.entry
  switch (entry.kind) {
    case 'user': {
      const content = entry.parts.map(inputBlock)
      if (entry.origin === 'context')
        return { type: 'custom_message', customType: 'dsh-session-tree.context', content, display: false, ...base }
      return { type: 'message', ...base, message: { role: 'user', content, timestamp: ms } }
    }
    case 'assistant': {
      const content = entry.parts.flatMap(assistantBlock)
      const calls = entry.parts.some((p) => p.type === 'tool_call')
      const input = entry.usage?.input ?? 0
      const output = entry.usage?.output ?? 0
      return {
        type: 'message',
        ...base,
        message: {
          role: 'assistant',
          content,
          api: 'openai-completions',
          provider: entry.provider ?? 'unknown',
          model: entry.model ?? 'unknown',
          usage: {
            input,
            output,
            cacheRead: entry.usage?.cacheRead ?? 0,
            cacheWrite: entry.usage?.cacheWrite ?? 0,
            totalTokens: input + output,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
          },
          stopReason: calls ? 'toolUse' : entry.error ? 'error' : 'stop',
          ...(entry.error ? { errorMessage: entry.error } : {}),
          timestamp: ms,
        },
      }
    }
    case 'tool_result':
      return {
        type: 'message',
        ...base,
        message: {
          role: 'toolResult',
          toolCallId: entry.callId,
          toolName: entry.toolName ?? 'unknown',
          content: entry.parts.map(inputBlock),
          isError: entry.isError,
          timestamp: ms,
        },
      }
    case 'compaction':
      return {
        type: 'compaction',
        ...base,
        summary: entry.summary,
        firstKeptEntryId: entry.firstKept ?? node.id,
        tokensBefore: entry.tokensBefore ?? 0,
      }
    case 'branch_summary':
      // A Pi branch summary enters the model's context; one the model did not read stays extension data.
      return entry.contextText !== undefined
        ? { type: 'branch_summary', ...base, fromId: entry.fromId ?? 'root', summary: entry.summary }
        : {
            type: 'custom',
            customType: 'dsh-session-tree.branch_summary',
            data: { summary: entry.summary, fromId: entry.fromId },
            ...base,
          }
    case 'model_change':
      return { type: 'model_change', ...base, provider: entry.provider, modelId: entry.model }
    case 'label':
      return { type: 'label', ...base, targetId: entry.target, ...(entry.label === null ? {} : { label: entry.label }) }
    case 'custom':
      return entry.contextText !== undefined
        ? { type: 'custom_message', customType: entry.customType, content: entry.contextText, display: true, ...base }
        : {
            type: 'custom',
            customType: entry.customType,
            ...(entry.data !== undefined ? { data: entry.data } : {}),
            ...base,
          }
  }
}

function inputBlock(
  part: { type: 'text'; text: string } | { type: 'image'; mediaType: string; data?: string; url?: string },
): JsonValue {
  return part.type === 'text'
    ? { type: 'text', text: part.text }
    : { type: 'image', data: part.data ?? '', mimeType: part.mediaType }
}

function assistantBlock(part: ContentPart): JsonValue[] {
  switch (part.type) {
    case 'text':
      return [{ type: 'text', text: part.text }]
    case 'thinking':
      return [
        {
          type: 'thinking',
          thinking: part.text,
          ...(part.signature ? { thinkingSignature: part.signature } : {}),
          ...(part.redacted ? { redacted: true } : {}),
        },
      ]
    case 'tool_call':
      return [{ type: 'toolCall', id: part.id, name: part.name, arguments: part.arguments }]
    case 'image':
      return [{ type: 'text', text: `[image: ${part.mediaType}]` }]
  }
}
