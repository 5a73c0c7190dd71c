/**
 * Pi session JSONL v1 to v3 (`~/.pi/agent/sessions/--<cwd>--/<ts>_<id>.jsonl`),
 * as Pi's `SessionManager` reads it. Line 1 must be the header; v1 entries are
 * chained in file order with ids from the line (`L<line>`), so a re-import is
 * stable (Pi's own migration draws random ids); the leaf is the last entry (Pi
 * does not persist it). The mapping: docs/interchange.md, "What each format
 * becomes".
 */
import { TreeBuilder, type RawSink } from '../builder.ts'
import { InterchangeError } from '../errors.ts'
import type { LineRecord } from '../lines.ts'
import type { ContentPart, Entry, ImportReport, InputPart, InterchangeTree, Usage } from '../model.ts'
import type { JsonValue, JsonObject } from '../../tree/types.ts'
import { num, str, timeOf } from '../values.ts'
import { isJsonObject } from '../../tree/validate.ts'
import { oneLine } from '../../tree/text.ts'
import {
  BRANCH_SUMMARY_PREFIX,
  BRANCH_SUMMARY_SUFFIX,
  COMPACTION_SUMMARY_PREFIX,
  COMPACTION_SUMMARY_SUFFIX,
  bashExecutionText,
} from './context.ts'

export const PI_CURRENT_VERSION = 3

/** Whether a first record is a Pi session header. */
export function isPiHeader(value: unknown): boolean {
  return isJsonObject(value) && value.type === 'session' && typeof value.id === 'string'
}

export async function readPi(
  records: AsyncIterable<LineRecord>,
  sink?: RawSink,
): Promise<{ tree: InterchangeTree; report: ImportReport }> {
  const builder = new TreeBuilder(sink)
  let header: JsonObject | undefined
  let version = 1
  let previous: string | null = null
  let lastId: string | undefined
  // v1: ids of the file's records by index (0 = header), for firstKeptEntryIndex.
  const byIndex: string[] = []
  let v1Compactions = 0
  let title: string | undefined
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
    if (header === undefined) {
      if (!isPiHeader(value))
        throw new InterchangeError(
          'NOT_A_SESSION',
          `line ${record.line} is not a Pi session header ({"type":"session","id":…})`,
          { line: record.line },
        )
      header = value as JsonObject
      version = num(header.version) ?? 1
      if (version > PI_CURRENT_VERSION || version < 1 || !Number.isInteger(version)) {
        throw new InterchangeError(
          'UNSUPPORTED_VERSION',
          `Pi session version ${String(header.version)} (this package reads 1 to ${PI_CURRENT_VERSION})`,
          { version: String(header.version) },
        )
      }
      byIndex.push('')
      continue
    }
    if (!isJsonObject(value) || typeof value.type !== 'string') {
      builder.skip(record.line, 'not an entry (no type)')
      continue
    }
    if (value.type === 'session') {
      builder.skip(record.line, 'a second session header')
      continue
    }
    let id: string
    let parentId: string | null
    if (version < 2) {
      id = `L${record.line}${builder.has(`L${record.line}`) ? `.${builder.size}` : ''}`
      parentId = previous
    } else {
      const rawId = str(value.id)
      if (rawId === undefined || rawId === '') {
        builder.skip(record.line, `${value.type} entry without an id`)
        continue
      }
      id = rawId
      parentId = typeof value.parentId === 'string' ? value.parentId : null
    }
    byIndex.push(id)
    let entry = entryOf(value, version, builder)
    if (entry?.kind === 'compaction' && version < 2 && typeof value.firstKeptEntryIndex === 'number') {
      // An index into the file's records (0 = header); Pi's migration resolves it the same way.
      const index = value.firstKeptEntryIndex
      entry = { ...entry, firstKept: index > 0 && index < byIndex.length ? byIndex[index]! : null }
      v1Compactions++
    }
    if (entry === undefined) {
      builder.skip(record.line, `${value.type} entry that cannot be read`)
      continue
    }
    const time = timeOf(value.timestamp, timeOf(isJsonObject(value.message) ? value.message.timestamp : undefined, 0))
    if (!builder.add({ id, parentId, time, entry, line: record.line, raw: [value] })) continue
    if (value.type === 'session_info') title = str(value.name)?.trim() || undefined
    previous = id
    lastId = id
  }
  if (header === undefined) throw new InterchangeError('NOT_A_SESSION', 'the file is empty')
  if (v1Compactions > 0) builder.note(`${v1Compactions} v1 compaction(s): firstKeptEntryIndex mapped to entry ids`)
  if (version < PI_CURRENT_VERSION)
    builder.note(`Pi v${version} session migrated to v${PI_CURRENT_VERSION} (ids derived from line numbers)`)
  return builder.finish(
    {
      format: 'pi',
      version: String(version),
      ...(str(header.id) ? { sessionId: str(header.id)! } : {}),
      ...(str(header.cwd) ? { cwd: str(header.cwd)! } : {}),
      ...(str(header.timestamp) ? { createdAt: str(header.timestamp)! } : {}),
      ...(title ? { title } : {}),
      header,
    },
    lastId ?? null,
  )
}

function entryOf(value: JsonObject, version: number, builder: TreeBuilder): Entry | undefined {
  switch (value.type) {
    case 'message':
      return messageEntry(value.message, version, builder)
    case 'model_change': {
      const provider = str(value.provider)
      const model = str(value.modelId)
      return provider !== undefined && model !== undefined ? { kind: 'model_change', provider, model } : undefined
    }
    case 'thinking_level_change':
      return {
        kind: 'custom',
        customType: 'thinking_level_change',
        summary: `thinking level: ${String(value.thinkingLevel)}`,
      }
    case 'compaction': {
      const summary = str(value.summary)
      if (summary === undefined) return undefined
      return {
        kind: 'compaction',
        summary,
        contextText: COMPACTION_SUMMARY_PREFIX + summary + COMPACTION_SUMMARY_SUFFIX,
        firstKept: str(value.firstKeptEntryId) ?? null,
        ...(num(value.tokensBefore) !== undefined ? { tokensBefore: num(value.tokensBefore)! } : {}),
      }
    }
    case 'branch_summary': {
      const summary = str(value.summary) ?? ''
      const from = str(value.fromId)
      return {
        kind: 'branch_summary',
        summary,
        fromId: from === undefined || from === 'root' ? null : from,
        // Pi's buildSessionContext skips an empty summary.
        ...(summary ? { contextText: BRANCH_SUMMARY_PREFIX + summary + BRANCH_SUMMARY_SUFFIX } : {}),
      }
    }
    case 'label': {
      const target = str(value.targetId)
      if (target === undefined) return undefined
      const label = str(value.label)
      return { kind: 'label', target, label: label ? label : null }
    }
    case 'session_info':
      return { kind: 'custom', customType: 'session_info', summary: `session name: ${str(value.name) ?? ''}` }
    case 'custom':
      builder.opaque(`custom:${String(value.customType)}`)
      return {
        kind: 'custom',
        customType: `custom:${String(value.customType)}`,
        summary: `${String(value.customType)} (extension state)`,
        ...(value.data !== undefined ? { data: value.data } : {}),
      }
    case 'custom_message': {
      const text = textOf(value.content)
      builder.opaque(`custom_message:${String(value.customType)}`)
      return {
        kind: 'custom',
        customType: `custom_message:${String(value.customType)}`,
        summary: oneLine(text || String(value.customType)),
        contextText: text,
      }
    }
    default:
      builder.opaque(String(value.type))
      return { kind: 'custom', customType: String(value.type), summary: `${String(value.type)} (unknown entry type)` }
  }
}

function messageEntry(message: JsonValue | undefined, version: number, builder: TreeBuilder): Entry | undefined {
  if (!isJsonObject(message)) return undefined
  const role = version < 3 && message.role === 'hookMessage' ? 'custom' : message.role
  switch (role) {
    case 'user': {
      const parts = inputParts(message.content)
      return parts === undefined ? undefined : { kind: 'user', parts, origin: 'prompt' }
    }
    case 'assistant': {
      if (!Array.isArray(message.content)) return undefined
      const parts: ContentPart[] = []
      for (const block of message.content) {
        if (!isJsonObject(block)) continue
        if (block.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text })
        else if (block.type === 'thinking' && typeof block.thinking === 'string') {
          parts.push({
            type: 'thinking',
            text: block.thinking,
            ...(str(block.thinkingSignature) ? { signature: str(block.thinkingSignature)! } : {}),
            ...(block.redacted === true ? { redacted: true } : {}),
          })
        } else if (block.type === 'toolCall' && typeof block.id === 'string' && typeof block.name === 'string') {
          parts.push({ type: 'tool_call', id: block.id, name: block.name, arguments: block.arguments ?? {} })
        }
      }
      const usage = usageOf(message.usage)
      const stopReason = str(message.stopReason)
      return {
        kind: 'assistant',
        parts,
        ...(str(message.provider) ? { provider: str(message.provider)! } : {}),
        ...(str(message.model) ? { model: str(message.model)! } : {}),
        ...(usage ? { usage } : {}),
        ...(stopReason ? { stopReason } : {}),
        ...(str(message.errorMessage) ? { error: str(message.errorMessage)! } : {}),
        // pi-ai's transform-messages leaves these out of every request.
        ...(stopReason === 'error' || stopReason === 'aborted'
          ? { leftOut: `the answer stopped with ${stopReason}` }
          : {}),
      }
    }
    case 'toolResult': {
      const callId = str(message.toolCallId)
      const parts = inputParts(message.content)
      if (callId === undefined || parts === undefined) return undefined
      return {
        kind: 'tool_result',
        callId,
        ...(str(message.toolName) ? { toolName: str(message.toolName)! } : {}),
        parts,
        isError: message.isError === true,
      }
    }
    case 'bashExecution': {
      const command = str(message.command) ?? ''
      const excluded = message.excludeFromContext === true
      return {
        kind: 'custom',
        customType: 'bashExecution',
        summary: `$ ${oneLine(command)}`,
        ...(excluded ? {} : { contextText: bashExecutionText(message) }),
      }
    }
    case 'custom': {
      const text = textOf(message.content)
      builder.opaque(`message:custom:${String(message.customType)}`)
      return {
        kind: 'custom',
        customType: `message:custom:${String(message.customType)}`,
        summary: oneLine(text),
        contextText: text,
      }
    }
    case 'branchSummary':
    case 'compactionSummary': {
      const summary = str(message.summary) ?? ''
      const [prefix, suffix] =
        role === 'branchSummary'
          ? [BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX]
          : [COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX]
      return {
        kind: 'custom',
        customType: `message:${role}`,
        summary: oneLine(summary),
        contextText: prefix + summary + suffix,
      }
    }
    default:
      // Pi's convertToLlm drops roles it does not know.
      builder.opaque(`message:${String(role)}`)
      return {
        kind: 'custom',
        customType: `message:${String(role)}`,
        summary: `${String(role)} message (unknown role)`,
      }
  }
}

function inputParts(content: JsonValue | undefined): InputPart[] | undefined {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  if (!Array.isArray(content)) return undefined
  const parts: InputPart[] = []
  for (const block of content) {
    if (!isJsonObject(block)) continue
    if (block.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text })
    else if (block.type === 'image')
      parts.push({
        type: 'image',
        mediaType: str(block.mimeType) ?? 'application/octet-stream',
        ...(str(block.data) ? { data: str(block.data)! } : {}),
      })
  }
  return parts
}

function textOf(content: JsonValue | undefined): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((block) => (isJsonObject(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .join('')
}

function usageOf(value: JsonValue | undefined): Usage | undefined {
  if (!isJsonObject(value)) return undefined
  const usage: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number } = {}
  if (num(value.input) !== undefined) usage.input = num(value.input)!
  if (num(value.output) !== undefined) usage.output = num(value.output)!
  if (num(value.cacheRead) !== undefined) usage.cacheRead = num(value.cacheRead)!
  if (num(value.cacheWrite) !== undefined) usage.cacheWrite = num(value.cacheWrite)!
  return Object.keys(usage).length > 0 ? usage : undefined
}
