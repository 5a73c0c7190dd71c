/**
 * Input and snapshot validation. Validators copy what they accept (the tree
 * never keeps a caller's mutable object) and throw `Invalid` with a precise
 * reason; API edges turn that into an `INVALID_ARGUMENT` or `INVALID_SNAPSHOT`
 * result.
 */
import { clipped, fail, ok, quoted, type TreeResult, noNode } from './errors.ts'
import type { SessionTree } from './session-tree.ts'
import { timeOfIso } from './time.ts'
import type {
  ContentPart,
  JsonObject,
  JsonValue,
  LlmMessage,
  NodeOrigin,
  Role,
  TreeEntryType,
  TreePosition,
} from './types.ts'

/** A validation failure with a reason that names the offending field. */
export class Invalid extends Error {
  readonly reason: string
  constructor(reason: string) {
    super(reason)
    this.reason = reason
  }
}

/**
 * A check's value as a result, `INVALID_ARGUMENT` with its reason when it
 * fails: how layers above the tree take its checks, so `Invalid` (an
 * exception of this layer) never crosses into theirs.
 */
export function validated<T>(check: () => T): TreeResult<T> {
  try {
    return ok(check())
  } catch (error) {
    if (error instanceof Invalid) return fail('INVALID_ARGUMENT', error.reason)
    throw error
  }
}

export const MAX_NAME_LENGTH = 100
export const MAX_LABEL_LENGTH = 200
export const MAX_ID_LENGTH = 200

const ROLES: ReadonlyMap<string, Role> = new Map(
  (['system', 'user', 'assistant', 'tool'] as const).map((role) => [role, role]),
)
const ENTRY_TYPES: ReadonlyMap<string, TreeEntryType> = new Map(
  (['message', 'tool_call', 'tool_result', 'model_change', 'compaction', 'branch_summary', 'custom'] as const).map(
    (type) => [type, type],
  ),
)
// Control characters (C0, DEL, C1) make names unprintable in the panel and in `/tree` output.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
// Bidirectional embeddings, overrides and isolates make a name display as something else ("\u202eabc" shows as "cba").
const BIDI = /[\u202a-\u202e\u2066-\u2069]/

export function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** `isRecord` for a value read as JSON: the same check, typed as the JSON object it then is. */
export function isJsonObject(value: unknown): value is JsonObject {
  return isRecord(value)
}

export function str(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Invalid(`${where} must be a string`)
  return value
}

function optStr(value: unknown, where: string): string | undefined {
  return value === undefined ? undefined : str(value, where)
}

/** A branch name: trimmed, 1..100 printable characters. */
export function checkBranchName(value: unknown, where = 'branch'): string {
  return checkName(value, where, MAX_NAME_LENGTH)
}

/** A label: trimmed, 1..200 printable characters. */
export function checkLabel(value: unknown, where = 'label'): string {
  return checkName(value, where, MAX_LABEL_LENGTH)
}

/** What is wrong with a trimmed branch name or label of at most `max` characters, if anything (the panel asks too). */
export function nameProblem(name: string, max: number): 'empty' | 'tooLong' | 'control' | 'bidi' | undefined {
  if (name === '') return 'empty'
  if (name.length > max) return 'tooLong'
  if (CONTROL.test(name)) return 'control'
  if (BIDI.test(name)) return 'bidi'
  return undefined
}

function checkName(value: unknown, where: string, max: number): string {
  if (typeof value !== 'string') throw new Invalid(`${where} must be a string`)
  const name = value.trim()
  switch (nameProblem(name, max)) {
    case 'empty':
      throw new Invalid(`${where} must not be empty or whitespace`)
    case 'tooLong':
      throw new Invalid(`${where} must be at most ${max} characters`)
    case 'control':
      throw new Invalid(`${where} must not contain control characters`)
    case 'bidi':
      throw new Invalid(
        `${where} must not contain bidirectional override or isolate characters (U+202A–U+202E, U+2066–U+2069)`,
      )
  }
  return name
}

/** A node id: 1..200 printable characters, no surrounding whitespace. */
export function checkNodeId(value: unknown, where = 'nodeId'): string {
  if (isNodeId(value)) return value
  if (typeof value !== 'string') throw new Invalid(`${where} must be a string`)
  if (value === '' || value.trim() !== value)
    throw new Invalid(`${where} must be non-empty without surrounding whitespace`)
  if (value.length > MAX_ID_LENGTH) throw new Invalid(`${where} must be at most ${MAX_ID_LENGTH} characters`)
  if (CONTROL.test(value)) throw new Invalid(`${where} must not contain control characters`)
  return value
}

/**
 * A node id a request names (a move's target, a workspace request's node, a compare's side), `where` its
 * argument: malformed (empty, padded, too long, control characters, not a string) is `INVALID_ARGUMENT`, not
 * a missing node; well-formed but not in the tree `NODE_NOT_FOUND`.
 */
export function checkNode(tree: Pick<SessionTree, 'has'>, nodeId: unknown, where = 'nodeId'): TreeResult<string> {
  if (typeof nodeId === 'string' && nodeId.length > MAX_ID_LENGTH) {
    // A huge id is echoed clipped, with its length.
    return fail('INVALID_ARGUMENT', `${where} ${quoted(nodeId)} is longer than ${MAX_ID_LENGTH} characters`, {
      nodeId: clipped(nodeId),
    })
  }
  const checked = validated(() => checkNodeId(nodeId, where))
  if (!checked.ok)
    return fail('INVALID_ARGUMENT', checked.error.message, {
      nodeId: typeof nodeId === 'string' ? clipped(nodeId) : typeof nodeId,
    })
  const id = checked.value
  if (!tree.has(id)) return noNode(id)
  return ok(id)
}

/**
 * Whether a value is a valid node id, without building a reason (a restore
 * checks every id): `checkNodeId` says why when it is not.
 */
export function isNodeId(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH) return false
  const first = value.charCodeAt(0)
  const last = value.charCodeAt(value.length - 1)
  // Fast case: printable ASCII throughout, no space at either end (anything else takes the full check).
  if (first === 32 || last === 32) return false
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 32 || c > 126) return false
  }
  return true
}

/** An ISO-8601 timestamp as produced by `Date.prototype.toISOString`. */
export function checkTime(value: unknown, where: string): string {
  // What toISOString writes (most times) passes a character check; anything else takes the full one.
  if (typeof value === 'string' && timeOfIso(value) !== undefined) return value
  const text = str(value, where)
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/.test(text) || Number.isNaN(Date.parse(text))) {
    throw new Invalid(`${where} must be an ISO-8601 UTC time`)
  }
  return text
}

export function finiteNumber(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Invalid(`${where} must be a finite number`)
  return value
}

/**
 * Validate and copy a JSON value iteratively (no recursion limit on depth),
 * rejecting cycles, non-finite numbers and exotic objects.
 */
export function copyJson(value: unknown, where: string): JsonValue {
  // Most values are flat (usage counters, small metadata): copied in one pass.
  const flat = flatCopy(value)
  if (flat !== undefined) return flat
  type Frame = { src: unknown; set: (v: JsonValue) => void; path: string }
  let root: JsonValue = null
  const stack: Frame[] = [
    {
      src: value,
      set: (v) => {
        root = v
      },
      path: where,
    },
  ]
  const onPath = new Set<unknown>()
  const exits: { obj: unknown; at: number }[] = []
  while (stack.length > 0) {
    const frame = stack.pop()!
    while (exits.length > 0 && exits[exits.length - 1]!.at > stack.length) onPath.delete(exits.pop()!.obj)
    const { src, path } = frame
    if (src === null || typeof src === 'string' || typeof src === 'boolean') {
      frame.set(src)
    } else if (typeof src === 'number') {
      frame.set(finiteNumber(src, path))
    } else if (Array.isArray(src)) {
      if (onPath.has(src)) throw new Invalid(`${path} is cyclic`)
      const out: JsonValue[] = new Array(src.length)
      frame.set(out)
      onPath.add(src)
      exits.push({ obj: src, at: stack.length })
      for (let i = src.length - 1; i >= 0; i--) {
        if (!(i in src)) throw new Invalid(`${path}[${i}] is a hole`)
        stack.push({
          src: src[i],
          set: (v) => {
            out[i] = v
          },
          path: `${path}[${i}]`,
        })
      }
    } else if (isRecord(src)) {
      if (onPath.has(src)) throw new Invalid(`${path} is cyclic`)
      const out: { [key: string]: JsonValue } = {}
      frame.set(out)
      onPath.add(src)
      exits.push({ obj: src, at: stack.length })
      const keys = Object.keys(src)
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!
        const child = src[key]
        if (child === undefined) continue
        // `out[key] = v` with key "__proto__" would set the prototype; define an own property instead.
        stack.push({
          src: child,
          set: (v) => {
            defineOwn(out, key, v)
          },
          path: `${path}.${key}`,
        })
      }
    } else {
      throw new Invalid(`${path} is not JSON (${typeof src})`)
    }
  }
  return root
}

/** A copy of a primitive, or of a plain object or array of primitives; undefined for anything else (the general copy decides). */
function flatCopy(value: unknown): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (Array.isArray(value)) {
    const out: JsonValue[] = new Array(value.length)
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return undefined
      const item = flatPrimitive(value[i])
      if (item === undefined) return undefined
      out[i] = item
    }
    return out
  }
  if (!isRecord(value)) return undefined
  // A spread copies a plain source at its exact size (JSON.parse and literals make them so); the
  // copy is then checked, so what is checked is what is kept.
  const out: Record<string, unknown> = { ...value }
  for (const key in out) {
    const child = out[key]
    if (child === undefined || flatPrimitive(child) === undefined) return undefined
  }
  if (Object.getOwnPropertySymbols(out).length > 0) return undefined
  return out as { [key: string]: JsonValue }
}

function flatPrimitive(value: unknown): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/** Set an own enumerable property, whatever the key (including "__proto__"). */
export function defineOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

/** A copy of a plain object of primitives (see `copyJson`), or undefined when it is anything else. */
export function copyFlatObject(value: unknown): Record<string, JsonValue> | undefined {
  return isRecord(value) ? (flatCopy(value) as Record<string, JsonValue> | undefined) : undefined
}

/** A record built from entries, safe for any key. */
export function recordOf<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const out: Record<string, T> = {}
  for (const [key, value] of entries) defineOwn(out, key, value)
  return out
}

/** A JSON object (plain record) copy. */
export function copyJsonObject(value: unknown, where: string): Record<string, JsonValue> {
  if (!isRecord(value)) throw new Invalid(`${where} must be a JSON object`)
  return copyJson(value, where) as Record<string, JsonValue>
}

const MESSAGE_KEYS = new Set(['role', 'content', 'name', 'toolCallId'])

/** A flattened LLM message. */
export function checkMessage(value: unknown, where = 'message'): LlmMessage {
  if (!isRecord(value)) throw new Invalid(`${where} must be an object`)
  for (const key of Object.keys(value)) {
    if (!MESSAGE_KEYS.has(key) && value[key] !== undefined) throw new Invalid(`${where}.${key} is not a message field`)
  }
  const role = checkRole(value.role, `${where}.role`)
  const content = str(value.content, `${where}.content`)
  const name = optStr(value.name, `${where}.name`)
  const toolCallId = optStr(value.toolCallId, `${where}.toolCallId`)
  // Literals, not added properties: each message is then one allocation.
  if (name !== undefined)
    return toolCallId !== undefined ? { role, content, name, toolCallId } : { role, content, name }
  return toolCallId !== undefined ? { role, content, toolCallId } : { role, content }
}

/** The shared role or entry type string equal to `value`, if it is one (no reason built: `checkRole`/`checkEntryType` give it). */
export function knownRole(value: unknown): Role | undefined {
  return typeof value === 'string' ? ROLES.get(value) : undefined
}

export function knownEntryType(value: unknown): TreeEntryType | undefined {
  return typeof value === 'string' ? ENTRY_TYPES.get(value) : undefined
}

/** A role, as the one shared string of that name (a parsed snapshot would hold a copy per node). */
export function checkRole(value: unknown, where: string): Role {
  const role = typeof value === 'string' ? ROLES.get(value) : undefined
  if (role === undefined) throw new Invalid(`${where} must be one of system, user, assistant, tool`)
  return role
}

/** Structured content parts; an unknown part type is refused. */
export function checkContent(value: unknown, where = 'content'): ContentPart[] {
  if (!Array.isArray(value)) throw new Invalid(`${where} must be an array`)
  return value.map((part, i) => checkPart(part, `${where}[${i}]`))
}

function checkPart(part: unknown, where: string): ContentPart {
  if (!isRecord(part)) throw new Invalid(`${where} must be an object`)
  switch (part.type) {
    case 'text':
      return { type: 'text', text: str(part.text, `${where}.text`) }
    case 'reasoning':
      return { type: 'reasoning', text: str(part.text, `${where}.text`) }
    case 'tool_call':
      return {
        type: 'tool_call',
        id: str(part.id, `${where}.id`),
        name: str(part.name, `${where}.name`),
        arguments: copyJson(part.arguments === undefined ? null : part.arguments, `${where}.arguments`),
      }
    case 'tool_result': {
      const out: { type: 'tool_result'; toolCallId: string; content: string; isError?: boolean } = {
        type: 'tool_result',
        toolCallId: str(part.toolCallId, `${where}.toolCallId`),
        content: str(part.content, `${where}.content`),
      }
      if (part.isError !== undefined) {
        if (typeof part.isError !== 'boolean') throw new Invalid(`${where}.isError must be a boolean`)
        out.isError = part.isError
      }
      return out
    }
    default:
      throw new Invalid(`${where}.type ${JSON.stringify(part.type)} is not a known content part`)
  }
}

/** An entry type, as the one shared string of that name. */
export function checkEntryType(value: unknown, where = 'type'): TreeEntryType {
  const type = ENTRY_TYPES.get(str(value, where))
  if (type === undefined) throw new Invalid(`${where} ${JSON.stringify(value)} is not a known node type`)
  return type
}

const ORIGIN_KEYS = new Set(['source', 'seq', 'ref', 'sessionId', 'kind', 'injected'])

/** A list of node ids (compaction `replaces`). */
export function checkNodeIds(value: unknown, where: string): string[] {
  if (!Array.isArray(value)) throw new Invalid(`${where} must be an array`)
  return value.map((id, i) => checkNodeId(id, `${where}[${i}]`))
}

export function checkOrigin(value: unknown, where = 'origin'): NodeOrigin {
  if (!isRecord(value)) throw new Invalid(`${where} must be an object`)
  const origin: Mutable<NodeOrigin> = {
    source: str(value.source, `${where}.source`),
  }
  if (origin.source === '') throw new Invalid(`${where}.source must not be empty`)
  if (value.seq !== undefined) {
    const seq = finiteNumber(value.seq, `${where}.seq`)
    if (!Number.isSafeInteger(seq) || seq < 0) throw new Invalid(`${where}.seq must be a non-negative integer`)
    origin.seq = seq
  }
  const ref = optStr(value.ref, `${where}.ref`)
  if (ref !== undefined) origin.ref = ref
  const sessionId = optStr(value.sessionId, `${where}.sessionId`)
  if (sessionId !== undefined) origin.sessionId = sessionId
  const kind = optStr(value.kind, `${where}.kind`)
  if (kind !== undefined) origin.kind = kind
  if (value.injected !== undefined) {
    if (typeof value.injected !== 'boolean') throw new Invalid(`${where}.injected must be a boolean`)
    origin.injected = value.injected
  }
  for (const key of Object.keys(value)) {
    if (!ORIGIN_KEYS.has(key)) throw new Invalid(`${where}.${key} is not an origin field`)
  }
  return origin
}

export function checkPosition(value: unknown, where: string): TreePosition {
  if (!isRecord(value)) throw new Invalid(`${where} must be an object`)
  return Object.freeze({
    cursor: value.cursor === null ? null : checkNodeId(value.cursor, `${where}.cursor`),
    branch: checkBranchName(value.branch, `${where}.branch`),
  })
}

/** Freeze an object graph we own (fresh copies only). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  const stack: object[] = [value]
  while (stack.length > 0) {
    const item = stack.pop() as Record<string, unknown>
    Object.freeze(item)
    for (const key in item) {
      const child = item[key]
      if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) stack.push(child)
    }
  }
  return value
}

export type Mutable<T> = { -readonly [K in keyof T]: T[K] }
