/**
 * Entries: how one is built from `append` arguments, checked when it comes
 * back from a snapshot or a log, and rewritten by the two changes an entry
 * ever gets (a label, a tool result). Every builder emits the same canonical
 * key order, so equal entries serialize to equal bytes.
 */
import { defaultSummary, oneLine } from './text.ts'
import type { AppendOptions, ContentPart, EntryFields, LlmMessage, TreeEntry, TreeEntryType } from './types.ts'
import {
  checkContent,
  checkEntryType,
  checkLabel,
  checkMessage,
  checkNodeId,
  checkNodeIds,
  checkOrigin,
  checkTime,
  copyJsonObject,
  deepFreeze,
  finiteNumber,
  Invalid,
  isRecord,
  str,
  type Mutable,
} from './validate.ts'

/**
 * An entry while it is being built: every field settable, `replaces` allowed
 * (the builder keeps it to compactions; the result is a `TreeEntry`).
 */
export type EntryDraft = Mutable<EntryFields> & { type: TreeEntryType; replaces?: readonly string[] }

const ENTRY_KEYS = new Set([
  'nodeId', 'parentId', 'type', 'summary', 'createdAt', 'message', 'content', 'model', 'provider',
  'usage', 'cost', 'error', 'metadata', 'label', 'origin', 'replaces',
  // Derived fields a view adds; accepted and dropped so a view node can be stored back.
  'branch', 'forkCount',
])

/** A complete stored entry (snapshot nodes, log records). */
export function checkEntry(value: unknown, where: string): TreeEntry {
  if (!isRecord(value)) throw new Invalid(`${where} must be an object`)
  for (const key of Object.keys(value)) {
    if (!ENTRY_KEYS.has(key)) throw new Invalid(`${where}.${key} is not a node field`)
  }
  const nodeId = checkNodeId(value.nodeId, `${where}.nodeId`)
  const parentId = value.parentId === null ? null : checkNodeId(value.parentId, `${where}.parentId`)
  if (parentId === nodeId) throw new Invalid(`${where} is its own parent`)
  const entry: EntryDraft = {
    nodeId,
    parentId,
    summary: str(value.summary, `${where}.summary`),
    createdAt: checkTime(value.createdAt, `${where}.createdAt`),
    // Entries written before `type` was always set: the type an append gives them.
    type: value.type !== undefined ? checkEntryType(value.type, `${where}.type`) : value.message !== undefined ? 'message' : 'custom',
  }
  if (value.message !== undefined) entry.message = checkMessage(value.message, `${where}.message`)
  if (value.content !== undefined) entry.content = checkContent(value.content, `${where}.content`)
  if (value.model !== undefined) entry.model = str(value.model, `${where}.model`)
  if (value.provider !== undefined) entry.provider = str(value.provider, `${where}.provider`)
  if (value.usage !== undefined) entry.usage = copyJsonObject(value.usage, `${where}.usage`)
  if (value.cost !== undefined) entry.cost = finiteNumber(value.cost, `${where}.cost`)
  if (value.error !== undefined) entry.error = str(value.error, `${where}.error`)
  if (value.metadata !== undefined) entry.metadata = copyJsonObject(value.metadata, `${where}.metadata`)
  if (value.label !== undefined) {
    entry.label = checkLabel(value.label, `${where}.label`)
    if (entry.label !== value.label) throw new Invalid(`${where}.label is not trimmed`)
  }
  if (value.origin !== undefined) entry.origin = checkOrigin(value.origin, `${where}.origin`)
  if (value.replaces !== undefined) {
    if (entry.type !== 'compaction') throw new Invalid(`${where}.replaces is only allowed on compaction nodes`)
    entry.replaces = checkNodeIds(value.replaces, `${where}.replaces`)
  }
  // Built in canonical key order already (a restore reads every node through here: no second copy).
  return shareStrings(entry)
}

/** A message with its keys in canonical order. */
export function canonicalMessage(message: LlmMessage): LlmMessage {
  const out: Mutable<LlmMessage> = { role: message.role, content: message.content }
  if (message.name !== undefined) out.name = message.name
  if (message.toolCallId !== undefined) out.toolCallId = message.toolCallId
  return out
}

/**
 * A text part that repeats the message text holds the very same string: the
 * two are equal, and one copy in memory is enough (a tree keeps many).
 */
function shareText(content: readonly ContentPart[], text: string | undefined): readonly ContentPart[] {
  // Strings compare by value in JS; rebuilding the equal parts makes them share the message's string.
  if (text === undefined || !content.some((part) => part.type === 'text' && part.text === text)) return content
  return content.map((part) => (part.type === 'text' && part.text === text ? { type: 'text', text } : part))
}

/** Rebuild an entry with its keys in the one canonical order (stable JSON). */
export function canonicalEntry(entry: TreeEntry): TreeEntry {
  const out: EntryDraft = {
    nodeId: entry.nodeId,
    parentId: entry.parentId,
    summary: entry.summary,
    createdAt: entry.createdAt,
    type: entry.type,
  }
  if (entry.message !== undefined) out.message = canonicalMessage(entry.message)
  if (entry.content !== undefined) out.content = entry.content
  if (entry.model !== undefined) out.model = entry.model
  if (entry.provider !== undefined) out.provider = entry.provider
  if (entry.usage !== undefined) out.usage = entry.usage
  if (entry.cost !== undefined) out.cost = entry.cost
  if (entry.error !== undefined) out.error = entry.error
  if (entry.metadata !== undefined) out.metadata = entry.metadata
  if (entry.label !== undefined) out.label = entry.label
  if (entry.origin !== undefined) out.origin = entry.origin
  if (entry.type === 'compaction' && entry.replaces !== undefined) out.replaces = entry.replaces
  return shareStrings(out)
}

/**
 * Make equal texts one string: a one-line message is its own summary, and a text part equal to the
 * message is the message's string (a parsed snapshot holds separate equal copies of each).
 */
export function shareStrings(entry: EntryDraft): TreeEntry {
  const text = entry.message?.content
  if (text === undefined) return entry as TreeEntry
  if (entry.summary === text) entry.summary = text
  if (entry.content !== undefined) entry.content = shareText(entry.content, text)
  return entry as TreeEntry
}

/** What `append` needs from its tree to build an entry. */
export interface EntryContext {
  /** A fresh node id. */
  mint(): string
  /** The default parent. */
  readonly cursor: string | null
  now(): Date
}

/** A new entry from `append` arguments, validated and frozen (throws `Invalid`). */
export function buildEntry(message: LlmMessage | null, options: AppendOptions, tree: EntryContext): TreeEntry {
  if (!isRecord(options)) throw new Invalid('options must be an object')
  const msg = message === null || message === undefined ? null : checkMessage(message)
  const entry: EntryDraft = {
    nodeId: options.nodeId === undefined ? tree.mint() : checkNodeId(options.nodeId, 'options.nodeId'),
    parentId: options.parentId === undefined
      ? tree.cursor
      : options.parentId === null ? null : checkNodeId(options.parentId, 'options.parentId'),
    summary: '',
    createdAt: options.createdAt === undefined ? tree.now().toISOString() : checkTime(options.createdAt, 'options.createdAt'),
    type: options.type === undefined ? (msg ? 'message' : 'custom') : checkEntryType(options.type, 'options.type'),
  }
  if (msg) entry.message = msg
  if (options.content !== undefined) entry.content = checkContent(options.content, 'options.content')
  if (options.model !== undefined) entry.model = str(options.model, 'options.model')
  if (options.provider !== undefined) entry.provider = str(options.provider, 'options.provider')
  if (options.usage !== undefined) entry.usage = copyJsonObject(options.usage, 'options.usage')
  if (options.cost !== undefined) entry.cost = finiteNumber(options.cost, 'options.cost')
  if (options.error !== undefined) entry.error = str(options.error, 'options.error')
  if (options.metadata !== undefined) entry.metadata = copyJsonObject(options.metadata, 'options.metadata')
  if (options.label !== undefined) entry.label = checkLabel(options.label, 'options.label')
  if (options.origin !== undefined) entry.origin = checkOrigin(options.origin, 'options.origin')
  if (options.replaces !== undefined) {
    if (entry.type !== 'compaction') throw new Invalid(`node ${entry.nodeId} carries replaces but is not a compaction`)
    entry.replaces = checkNodeIds(options.replaces, 'options.replaces')
  }
  entry.summary = options.summary === undefined ? defaultSummary(msg, entry.content) : oneLine(str(options.summary, 'options.summary'))
  // Built in canonical key order (a second copy through canonicalEntry would cost every append).
  return deepFreeze(shareStrings(entry))
}

/** The entry with its label set (text) or removed (null). */
export function relabeled(entry: TreeEntry, label: string | null): TreeEntry {
  const next: EntryDraft = { ...entry }
  if (label === null) delete next.label
  else next.label = label
  return Object.freeze(canonicalEntry(next as TreeEntry))
}

/** A tool result as `attachToolResult` takes it. */
export interface ToolResult {
  readonly content: string
  readonly isError?: boolean
  readonly error?: string
  readonly metadata?: Record<string, unknown>
}

/**
 * A tool-call entry with `result` folded in: a tool message, one result part,
 * the summary and error to match. Undefined when that very result is already
 * there (attaching is idempotent). Throws `Invalid` for a malformed result.
 */
export function withResult(entry: TreeEntry, callId: string, result: ToolResult): TreeEntry | undefined {
  if (!isRecord(result) || typeof result.content !== 'string') throw new Invalid('result.content must be a string')
  if (result.isError !== undefined && typeof result.isError !== 'boolean') throw new Invalid('result.isError must be a boolean')
  if (result.error !== undefined && typeof result.error !== 'string') throw new Invalid('result.error must be a string')
  const call = entry.content?.find((part) => part.type === 'tool_call')
  const resultPart: ContentPart = result.isError
    ? { type: 'tool_result', toolCallId: callId, content: result.content, isError: true }
    : { type: 'tool_result', toolCallId: callId, content: result.content }
  const existing = entry.content?.find((part) => part.type === 'tool_result')
  if (existing && JSON.stringify(existing) === JSON.stringify(resultPart)) return undefined
  const next: EntryDraft = { ...entry }
  next.content = [...(entry.content ?? []).filter((part) => part.type !== 'tool_result'), resultPart]
  next.message = call && call.type === 'tool_call'
    ? { role: 'tool', content: result.content, toolCallId: callId, name: call.name }
    : { role: 'tool', content: result.content, toolCallId: callId }
  next.summary = defaultSummary(next.message, next.content)
  const error = result.error ?? (result.isError ? oneLine(result.content) : undefined)
  if (error !== undefined) next.error = error
  else delete next.error
  if (result.metadata !== undefined) next.metadata = { ...entry.metadata, ...copyJsonObject(result.metadata, 'result.metadata') }
  return canonicalEntry(next as TreeEntry)
}
