/**
 * Entries: built from `append` arguments, checked when they come back from a snapshot or a log, and rewritten by
 * the only two changes an entry gets (a label, a tool result). Every builder emits one canonical key order, so
 * equal entries serialize to equal bytes. An entry is stored without the summary its content implies (a second
 * copy of the text's first 120 characters, two bytes a character once an ellipsis is in it): that one is derived
 * when read (`nodes.ts` caches it, mostly as a prefix length); a summary a producer wrote that differs is kept.
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
  copyFlatObject,
  copyJsonObject,
  deepFreeze,
  finiteNumber,
  Invalid,
  isRecord,
  str,
  type Mutable,
} from './validate.ts'

type Distribute<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/** What a reader of a stored entry may rely on: every field but the summary (derived when read, `SessionTree.get`). */
export type StoredFields = Distribute<TreeEntry, 'summary'>

/** An entry as the tree stores it: `summary` only when it is not the one its content implies. */
export type StoredEntry = StoredFields & { readonly summary?: string }

/** An entry while it is being built: every field settable, `replaces` allowed (kept to compactions). */
export type Draft = Mutable<Omit<EntryFields, 'summary'>> & {
  type: TreeEntryType
  replaces?: readonly string[]
  summary?: string
}

/** The summary an entry's content implies. */
export function impliedSummary(entry: StoredEntry): string {
  return defaultSummary(entry.message, entry.content)
}

/** A stored entry as callers see it: with its summary. */
export function publicEntry(entry: StoredEntry, summary: string = entry.summary ?? impliedSummary(entry)): TreeEntry {
  return (entry.summary !== undefined ? entry : { ...entry, summary }) as TreeEntry
}

/** A complete entry as the tree stores it (its summary dropped when the content implies it), frozen. */
export function toStored(entry: TreeEntry): StoredEntry {
  const { summary, ...rest } = entry
  const stored: Draft = rest
  if (summary !== impliedSummary(rest as StoredEntry)) stored.summary = summary
  return freeze(canonical(stored))
}

/** The optional fields of an entry, in canonical order (bit `i` of a shape is `ENTRY_FIELDS[i]`). */
export const ENTRY_FIELDS = [
  'message',
  'content',
  'model',
  'provider',
  'usage',
  'cost',
  'error',
  'metadata',
  'label',
  'origin',
  'replaces',
  'summary',
] as const

// Derived fields a view adds (branch, forkCount): accepted and dropped so a view node can be stored back.
const ENTRY_KEYS = new Set<string>(['nodeId', 'parentId', 'type', 'createdAt', ...ENTRY_FIELDS, 'branch', 'forkCount'])

/** A complete entry from outside (a log record, a sidecar), validated and copied. */
export function checkEntry(value: unknown, where: string): TreeEntry {
  if (!isRecord(value)) throw new Invalid(`${where} must be an object`)
  for (const key of Object.keys(value)) {
    if (!ENTRY_KEYS.has(key)) throw new Invalid(`${where}.${key} is not a node field`)
  }
  const nodeId = checkNodeId(value.nodeId, `${where}.nodeId`)
  const parentId = value.parentId === null ? null : checkNodeId(value.parentId, `${where}.parentId`)
  if (parentId === nodeId) throw new Invalid(`${where} is its own parent`)
  const entry: Draft = {
    nodeId,
    parentId,
    type: checkEntryType(value.type, `${where}.type`),
    createdAt: checkTime(value.createdAt, `${where}.createdAt`),
  }
  const summary = str(value.summary, `${where}.summary`)
  if (value.message !== undefined) entry.message = checkMessage(value.message, `${where}.message`)
  checkFields(value, entry, where)
  entry.summary = summary
  return canonical(entry) as TreeEntry
}

/** Where a value sits, for a reason: the text, or how to make it (made only when a check fails). */
export type Where = string | (() => string)

const at = (where: Where, field: string): string => `${typeof where === 'string' ? where : where()}.${field}`

/**
 * The fields beyond id, parent, type, time and message, validated and copied
 * into `entry` (throws `Invalid`). The common values (names, flat usage
 * records) pass a quick test; the full checks, and their reasons, run for the rest.
 */
export function checkFields(value: Readonly<Record<string, unknown>>, entry: Draft, where: Where): void {
  const { content, model, provider, usage, cost, error, metadata, label, origin, replaces } = value
  if (content !== undefined) entry.content = checkContent(content, at(where, 'content'))
  if (model !== undefined) entry.model = typeof model === 'string' ? model : str(model, at(where, 'model'))
  if (provider !== undefined)
    entry.provider = typeof provider === 'string' ? provider : str(provider, at(where, 'provider'))
  if (usage !== undefined) entry.usage = copyFlatObject(usage) ?? copyJsonObject(usage, at(where, 'usage'))
  if (cost !== undefined) entry.cost = finiteNumber(cost, at(where, 'cost'))
  if (error !== undefined) entry.error = typeof error === 'string' ? error : str(error, at(where, 'error'))
  if (metadata !== undefined)
    entry.metadata = copyFlatObject(metadata) ?? copyJsonObject(metadata, at(where, 'metadata'))
  if (label !== undefined) {
    entry.label = checkLabel(label, at(where, 'label'))
    if (entry.label !== label) throw new Invalid(`${at(where, 'label')} is not trimmed`)
  }
  if (origin !== undefined) entry.origin = checkOrigin(origin, at(where, 'origin'))
  if (replaces !== undefined) {
    if (entry.type !== 'compaction') throw new Invalid(`${at(where, 'replaces')} is only allowed on compaction nodes`)
    entry.replaces = checkNodeIds(replaces, at(where, 'replaces'))
  }
}

/** A validated draft as the tree stores it: canonical and frozen. */
export function stored(entry: Draft): StoredEntry {
  return freeze(canonical(entry))
}

/** Freeze an entry we built (every part of it is a fresh copy), walking only what can nest. */
export function freeze(entry: Draft | StoredEntry): StoredEntry {
  if (entry.message) Object.freeze(entry.message)
  if (entry.content) {
    for (const part of entry.content) {
      if (part.type === 'tool_call') deepFreeze(part.arguments)
      Object.freeze(part)
    }
    Object.freeze(entry.content)
  }
  if (entry.usage) deepFreeze(entry.usage)
  if (entry.metadata) deepFreeze(entry.metadata)
  if (entry.origin) Object.freeze(entry.origin)
  if (entry.replaces) Object.freeze(entry.replaces)
  return Object.freeze(entry) as StoredEntry
}

/** Names repeated across many entries, one string each (bounded: ids and long texts are never kept here). */
const NAMES = new Map<string, string>()
const MAX_NAMES = 10_000

function intern(name: string): string {
  if (name.length > 64) return name
  const known = NAMES.get(name)
  if (known !== undefined) return known
  if (NAMES.size < MAX_NAMES) NAMES.set(name, name)
  return name
}

/**
 * Model, provider, tool and origin names: a handful of values repeated on
 * every entry (each event or snapshot row brings its own copy), shared.
 */
function shareNames(entry: Draft): void {
  if (entry.model !== undefined) entry.model = intern(entry.model)
  if (entry.provider !== undefined) entry.provider = intern(entry.provider)
  if (entry.origin !== undefined) {
    const origin = entry.origin
    if (origin.source !== intern(origin.source) || (origin.kind !== undefined && origin.kind !== intern(origin.kind))) {
      entry.origin = {
        ...origin,
        source: intern(origin.source),
        ...(origin.kind === undefined ? {} : { kind: intern(origin.kind) }),
      }
    }
  }
  const message = entry.message
  if (message?.name !== undefined && message.name !== intern(message.name))
    entry.message = { ...message, name: intern(message.name) }
}

/** A message with its keys in canonical order. */
function canonicalMessage(message: LlmMessage): LlmMessage {
  const { role, content, name, toolCallId } = message
  // Literals, not added properties: each message is then one allocation.
  if (name !== undefined)
    return toolCallId !== undefined ? { role, content, name, toolCallId } : { role, content, name }
  return toolCallId !== undefined ? { role, content, toolCallId } : { role, content }
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

/**
 * The entry rebuilt in the one canonical key order (nodeId, parentId, type,
 * createdAt, message, content, model, provider, usage, cost, error, metadata,
 * label, origin, replaces, summary), equal texts sharing one string.
 */
function canonical(entry: Draft): StoredEntry {
  shareNames(entry)
  // A frozen message is one the tree built (in canonical order already): no second copy.
  const message = entry.message && (Object.isFrozen(entry.message) ? entry.message : canonicalMessage(entry.message))
  // One scratch list for every entry built (a restore builds one per row).
  const values = SCRATCH
  values[0] = message
  values[1] = entry.content && shareText(entry.content, message?.content)
  values[2] = entry.model
  values[3] = entry.provider
  values[4] = entry.usage
  values[5] = entry.cost
  values[6] = entry.error
  values[7] = entry.metadata
  values[8] = entry.label
  values[9] = entry.origin
  values[10] = entry.type === 'compaction' ? entry.replaces : undefined
  values[11] = entry.summary !== undefined && entry.summary === message?.content ? message.content : entry.summary
  let shape = 0
  for (let i = 0; i < values.length; i++) if (values[i] !== undefined) shape |= 1 << i
  // A copy of the shape's template is an object at its exact size (properties added one at a time
  // would spill into a second, larger store); its values are then written in place.
  const out: Record<string, unknown> = { ...(TEMPLATES[shape] ??= template(shape)) }
  out.nodeId = entry.nodeId
  out.parentId = entry.parentId
  out.type = entry.type
  out.createdAt = entry.createdAt
  for (let i = 0; i < values.length; i++) if (values[i] !== undefined) out[ENTRY_FIELDS[i]!] = values[i]
  return out as StoredEntry
}

const SCRATCH: unknown[] = new Array(ENTRY_FIELDS.length).fill(undefined)

/** One template object per shape of entry, made on first use. */
const TEMPLATES: (Record<string, unknown> | undefined)[] = []

/**
 * An object with the shape's keys in canonical order, at its exact size:
 * JSON.parse sizes each object it makes for its properties (added one at a
 * time, they would spill into a second, larger store).
 */
function template(shape: number): Record<string, unknown> {
  const keys = ENTRY_FIELDS.filter((_, i) => (shape & (1 << i)) !== 0).map((key) => `,"${key}":0`)
  return JSON.parse(`{"nodeId":"","parentId":null,"type":"custom","createdAt":""${keys.join('')}}`) as Record<
    string,
    unknown
  >
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
export function buildEntry(message: LlmMessage | null, options: AppendOptions, tree: EntryContext): StoredEntry {
  if (!isRecord(options)) throw new Invalid('options must be an object')
  const msg = message === null || message === undefined ? null : checkMessage(message)
  const nodeId = options.nodeId === undefined ? tree.mint() : checkNodeId(options.nodeId, 'options.nodeId')
  const parentId =
    options.parentId === undefined
      ? tree.cursor
      : options.parentId === null
        ? null
        : checkNodeId(options.parentId, 'options.parentId')
  const type = options.type === undefined ? (msg ? 'message' : 'custom') : checkEntryType(options.type, 'options.type')
  const createdAt =
    options.createdAt === undefined ? tree.now().toISOString() : checkTime(options.createdAt, 'options.createdAt')
  const entry: Draft = msg ? { nodeId, parentId, type, createdAt, message: msg } : { nodeId, parentId, type, createdAt }
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
  if (options.summary !== undefined) {
    const summary = oneLine(str(options.summary, 'options.summary'))
    if (summary !== defaultSummary(msg, entry.content)) entry.summary = summary
  }
  return freeze(canonical(entry))
}

/** The entry with its label set (text) or removed (null). */
export function relabeled(entry: StoredEntry, label: string | null): StoredEntry {
  const next: Draft = { ...entry }
  if (label === null) delete next.label
  else next.label = label
  return Object.freeze(canonical(next))
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
 * the error to match (and the summary that content implies). Undefined when
 * that very result is already there (attaching is idempotent). Throws
 * `Invalid` for a malformed result.
 */
export function withResult(entry: StoredEntry, callId: string, result: ToolResult): StoredEntry | undefined {
  if (!isRecord(result) || typeof result.content !== 'string') throw new Invalid('result.content must be a string')
  if (result.isError !== undefined && typeof result.isError !== 'boolean')
    throw new Invalid('result.isError must be a boolean')
  if (result.error !== undefined && typeof result.error !== 'string') throw new Invalid('result.error must be a string')
  const call = entry.content?.find((part) => part.type === 'tool_call')
  const resultPart: ContentPart = result.isError
    ? { type: 'tool_result', toolCallId: callId, content: result.content, isError: true }
    : { type: 'tool_result', toolCallId: callId, content: result.content }
  const existing = entry.content?.find((part) => part.type === 'tool_result')
  if (existing && JSON.stringify(existing) === JSON.stringify(resultPart)) return undefined
  const next: Draft = { ...entry }
  next.content = [...(entry.content ?? []).filter((part) => part.type !== 'tool_result'), resultPart]
  next.message =
    call && call.type === 'tool_call'
      ? { role: 'tool', content: result.content, toolCallId: callId, name: call.name }
      : { role: 'tool', content: result.content, toolCallId: callId }
  delete next.summary
  const error = result.error ?? (result.isError ? oneLine(result.content) : undefined)
  if (error !== undefined) next.error = error
  else delete next.error
  if (result.metadata !== undefined)
    next.metadata = { ...entry.metadata, ...copyJsonObject(result.metadata, 'result.metadata') }
  return freeze(canonical(next))
}
