/**
 * One node as a compare shows it, and how two corresponding nodes differ:
 * their text word by word, their tool calls by name and arguments (argument
 * objects compared key by key, whatever the key order), their tool results.
 */
import type { ArgumentChange, CompareNode, NodeDiff, TextDiff, ToolCallDiff, ToolResultDiff } from './compare-types.ts'
import { diffWords, type DiffBudget } from './diff.ts'
import type { JsonValue, ToolCallPart, ToolResultPart, TreeEntry } from './types.ts'
import { isJsonObject } from './validate.ts'

/** Usage keys that count tokens (what `info().tokenCount` adds up). */
export const TOKEN_KEYS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const

/** Tokens an entry's usage records, or undefined when it records none. */
export function tokensOf(entry: TreeEntry): number | undefined {
  const usage = entry.usage
  if (!usage) return undefined
  let total: number | undefined
  for (const key of TOKEN_KEYS) {
    const value = usage[key]
    if (typeof value === 'number' && Number.isFinite(value)) total = (total ?? 0) + value
  }
  return total
}

/** The node's text: its text parts, or (no content) the message the model reads. */
function textOf(entry: TreeEntry): string {
  const content = entry.content
  if (content && content.length > 0) {
    return content
      .filter((part) => part.type === 'text')
      .map((part) => (part as { text: string }).text)
      .join('\n')
  }
  return entry.message?.content ?? ''
}

export function compareNode(entry: TreeEntry): CompareNode {
  const calls = (entry.content ?? []).filter((part): part is ToolCallPart => part.type === 'tool_call')
  const results = (entry.content ?? []).filter((part): part is ToolResultPart => part.type === 'tool_result')
  const tokens = tokensOf(entry)
  return {
    nodeId: entry.nodeId,
    type: entry.type,
    ...(entry.message ? { role: entry.message.role } : {}),
    text: textOf(entry),
    ...(calls.length > 0 ? { toolCalls: calls.map((call) => ({ name: call.name, arguments: call.arguments })) } : {}),
    ...(results.length > 0
      ? {
          toolResults: results.map((result) =>
            result.isError ? { content: result.content, isError: true } : { content: result.content },
          ),
        }
      : {}),
    ...(entry.label === undefined ? {} : { label: entry.label }),
    ...(entry.model === undefined ? {} : { model: entry.model }),
    ...(tokens === undefined ? {} : { tokens }),
    ...(typeof entry.cost === 'number' ? { cost: entry.cost } : {}),
  }
}

/** Which nodes may correspond: same entry type and role. */
export function kindKey(node: CompareNode): string {
  return `${node.type}:${node.role ?? ''}`
}

/** Structural equality of JSON values (object key order never matters). */
export function sameJson(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((item, i) => sameJson(item, b[i]!))
  }
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key]!, b[key]!))
}

/** A JSON-pointer segment (`~` and `/` escaped). */
function segment(key: string | number): string {
  return `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`
}

/** Differences of two argument values, key by key (objects: A's keys in order, then B's new ones; arrays: by index). */
export function argumentChanges(a: JsonValue, b: JsonValue, budget: DiffBudget, path = ''): ArgumentChange[] {
  if (sameJson(a, b)) return []
  if (isJsonObject(a) && isJsonObject(b)) {
    const out: ArgumentChange[] = []
    for (const key of Object.keys(a)) {
      if (Object.hasOwn(b, key)) out.push(...argumentChanges(a[key]!, b[key]!, budget, path + segment(key)))
      else out.push({ kind: 'removed', path: path + segment(key), a: a[key]! })
    }
    for (const key of Object.keys(b))
      if (!Object.hasOwn(a, key)) out.push({ kind: 'added', path: path + segment(key), b: b[key]! })
    return out
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const out: ArgumentChange[] = []
    const shared = Math.min(a.length, b.length)
    for (let i = 0; i < shared; i++) out.push(...argumentChanges(a[i]!, b[i]!, budget, path + segment(i)))
    for (let i = shared; i < a.length; i++) out.push({ kind: 'removed', path: path + segment(i), a: a[i]! })
    for (let i = shared; i < b.length; i++) out.push({ kind: 'added', path: path + segment(i), b: b[i]! })
    return out
  }
  if (typeof a === 'string' && typeof b === 'string')
    return [{ kind: 'changed', path, a, b, text: diffWords(a, b, { budget }) }]
  return [{ kind: 'changed', path, a, b }]
}

function callDiffs(a: CompareNode, b: CompareNode, budget: DiffBudget): ToolCallDiff[] {
  return byPosition<NonNullable<CompareNode['toolCalls']>[number], ToolCallDiff>(
    a.toolCalls ?? [],
    b.toolCalls ?? [],
    (ca, cb) => {
      const changes = argumentChanges(ca.arguments, cb.arguments, budget)
      return ca.name === cb.name && changes.length === 0
        ? { kind: 'same', name: ca.name }
        : { kind: 'changed', nameA: ca.name, nameB: cb.name, arguments: changes }
    },
    (ca) => ({ kind: 'only_a', name: ca.name, arguments: ca.arguments }),
    (cb) => ({ kind: 'only_b', name: cb.name, arguments: cb.arguments }),
  )
}

function resultDiffs(a: CompareNode, b: CompareNode, budget: DiffBudget): ToolResultDiff[] {
  return byPosition<NonNullable<CompareNode['toolResults']>[number], ToolResultDiff>(
    a.toolResults ?? [],
    b.toolResults ?? [],
    (ra, rb) => {
      const errorA = ra.isError === true
      const errorB = rb.isError === true
      return ra.content === rb.content && errorA === errorB
        ? { kind: 'same' }
        : { kind: 'changed', text: diffWords(ra.content, rb.content, { budget }), errorA, errorB }
    },
    (ra) => ({ kind: 'only_a', content: ra.content }),
    (rb) => ({ kind: 'only_b', content: rb.content }),
  )
}

/** Two lists side by side by position: `both` where each has an i-th item, else the one side's alone. */
function byPosition<T, D>(
  as: readonly T[],
  bs: readonly T[],
  both: (a: T, b: T) => D,
  onlyA: (a: T) => D,
  onlyB: (b: T) => D,
): D[] {
  const out: D[] = []
  for (let i = 0; i < Math.max(as.length, bs.length); i++) {
    const a = as[i]
    const b = bs[i]
    if (a && b) out.push(both(a, b))
    else if (a) out.push(onlyA(a))
    else if (b) out.push(onlyB(b))
  }
  return out
}

function textSame(diff: TextDiff): boolean {
  return diff.kind === 'words' && diff.removed === 0 && diff.added === 0
}

/** Whether two corresponding nodes say the same (no diff computed: what omitted rows are counted by). */
export function sameNode(a: CompareNode, b: CompareNode): boolean {
  const calls = (n: CompareNode) => n.toolCalls ?? []
  const results = (n: CompareNode) => n.toolResults ?? []
  return (
    a.text === b.text &&
    calls(a).length === calls(b).length &&
    calls(a).every((call, i) => call.name === calls(b)[i]!.name && sameJson(call.arguments, calls(b)[i]!.arguments)) &&
    results(a).length === results(b).length &&
    results(a).every(
      (result, i) =>
        result.content === results(b)[i]!.content && (result.isError === true) === (results(b)[i]!.isError === true),
    )
  )
}

/** How two corresponding nodes differ. */
export function nodeDiff(
  a: CompareNode,
  b: CompareNode,
  limits: { maxTokens: number; maxEdits: number; budget: DiffBudget },
): NodeDiff {
  const text = diffWords(a.text, b.text, limits)
  const toolCalls = callDiffs(a, b, limits.budget)
  const toolResults = resultDiffs(a, b, limits.budget)
  const same =
    textSame(text) &&
    toolCalls.every((call) => call.kind === 'same') &&
    toolResults.every((result) => result.kind === 'same')
  return { same, text, toolCalls, toolResults }
}
