/**
 * A DSH session's tree → the neutral model, for export. Nodes that came from
 * an import keep their source id, parent and verbatim source record (from
 * the provenance); nodes made in DSH are described from the tree alone.
 */
import type { SessionTree } from '../../tree/session-tree.ts'
import type { JsonValue, TreeNode } from '../../tree/types.ts'
import type { ContentPart, Entry, InputPart, InterchangeNode, InterchangeTree } from '../model.ts'
import type { Provenance } from './provenance.ts'
import { NO_RESULT_CODE } from './provider-view.ts'

export interface ExportSource {
  readonly tree: InterchangeTree
  /** DSH node id → label, as the DSH tree has them now. */
  readonly labels: ReadonlyMap<string, string>
  /** Neutral node id → DSH node id. */
  readonly dshIds: ReadonlyMap<string, string>
}

export function treeToInterchange(
  tree: SessionTree,
  provenance: Provenance | undefined,
  options: {
    cwd?: string
    /** The results an import gave calls left without one (`provider-view.ts`): kept, or left out like a dangling call. */
    syntheticResults?: 'keep' | 'leave out'
  } = {},
): ExportSource {
  const idOf = new Map<string, string>()
  const dshIds = new Map<string, string>()
  const nodes: InterchangeNode[] = []
  const labels = new Map<string, string>()
  // A dangling call (no result) is no node of its own outside DSH: its children hang on its parent (so do a left-out synthetic result's).
  const skipped = new Map<string, string | null>()
  const parentOf = (node: TreeNode): string | null => {
    let parent = node.parentId
    while (parent !== null && skipped.has(parent)) parent = skipped.get(parent)!
    return parent === null ? null : (idOf.get(parent) ?? null)
  }
  for (const node of tree.list()) {
    if (node.label !== undefined) labels.set(node.nodeId, node.label)
    const source = provenance?.nodes.get(node.nodeId)
    let entry = options.syntheticResults === 'leave out' && node.error === NO_RESULT_CODE ? undefined : entryOf(node)
    if (entry === undefined) {
      skipped.set(node.nodeId, node.parentId)
      continue
    }
    const id = source?.id ?? node.nodeId
    idOf.set(node.nodeId, id)
    if (entry.kind === 'compaction') entry = { ...entry, firstKept: keptFrom(tree, node, idOf) }
    dshIds.set(id, node.nodeId)
    nodes.push({
      id,
      parentId: parentOf(node),
      time: Date.parse(node.createdAt) || 0,
      entry,
      line: source?.line ?? 0,
      ...(source && source.raw.length > 0 ? { raw: source.raw } : {}),
    })
  }
  const meta = provenance?.header.meta
  let cursor = tree.cursor
  while (cursor !== null && skipped.has(cursor)) cursor = skipped.get(cursor)!
  return {
    tree: {
      meta: meta ?? {
        format: 'dsh',
        version: '0',
        sessionId: tree.sessionId,
        ...(options.cwd ? { cwd: options.cwd } : {}),
      },
      nodes,
      cursor: cursor === null ? null : (idOf.get(cursor) ?? null),
    },
    labels,
    dshIds,
  }
}

/**
 * The first message a compaction kept: the model reads the summary, then the
 * path's messages between the last one it replaced and the compaction itself.
 */
function keptFrom(tree: SessionTree, node: TreeNode, idOf: ReadonlyMap<string, string>): string | null {
  const replaced = new Set(node.replaces ?? [])
  if (replaced.size === 0) return null
  let first: string | null = null
  for (let at = node.parentId; at !== null && !replaced.has(at);) {
    const parent = tree.stored(at)
    if (!parent) return null
    if (parent.type === 'message' || parent.type === 'tool_call' || parent.type === undefined) first = at
    at = parent.parentId
  }
  return first === null ? null : (idOf.get(first) ?? null)
}

function entryOf(node: TreeNode): Entry | undefined {
  const parts = node.content ?? []
  const text = (list: readonly { type: string; text?: string }[]) =>
    list
      .filter((p) => p.type === 'text')
      .map((p) => p.text ?? '')
      .join('')
  switch (node.type ?? 'message') {
    case 'message': {
      const role = node.message?.role
      if (role === 'assistant') {
        const out: ContentPart[] = []
        for (const part of parts) {
          if (part.type === 'text') out.push({ type: 'text', text: part.text })
          else if (part.type === 'reasoning') out.push({ type: 'thinking', text: part.text })
          else if (part.type === 'tool_call')
            out.push({ type: 'tool_call', id: part.id, name: part.name, arguments: part.arguments as JsonValue })
        }
        if (out.length === 0 && node.message?.content) out.push({ type: 'text', text: node.message.content })
        return {
          kind: 'assistant',
          parts: out,
          ...(node.provider ? { provider: node.provider } : {}),
          ...(node.model ? { model: node.model } : {}),
          ...(usageOf(node) ? { usage: usageOf(node)! } : {}),
        }
      }
      const input: InputPart[] =
        parts.length > 0 ? [{ type: 'text', text: text(parts) }] : [{ type: 'text', text: node.message?.content ?? '' }]
      return { kind: 'user', parts: input, origin: node.origin?.injected ? 'context' : 'prompt' }
    }
    case 'tool_call': {
      const call = parts.find((p) => p.type === 'tool_call')
      const result = parts.find((p) => p.type === 'tool_result')
      if (!call || call.type !== 'tool_call' || !result || result.type !== 'tool_result') return undefined
      return {
        kind: 'tool_result',
        callId: call.id,
        toolName: call.name,
        parts: [{ type: 'text', text: result.content }],
        isError: result.isError === true,
      }
    }
    case 'tool_result': {
      const result = parts.find((p) => p.type === 'tool_result')
      if (!result || result.type !== 'tool_result') return undefined
      return {
        kind: 'tool_result',
        callId: result.toolCallId,
        parts: [{ type: 'text', text: result.content }],
        isError: result.isError === true,
      }
    }
    case 'compaction': {
      const summary = node.message?.content ?? node.summary
      return { kind: 'compaction', summary, contextText: summary, firstKept: null }
    }
    case 'model_change':
      return { kind: 'model_change', provider: node.provider ?? 'unknown', model: node.model ?? 'unknown' }
    case 'branch_summary': {
      const summary = text(parts) || node.summary
      const from = node.metadata?.fromId
      return { kind: 'branch_summary', summary, fromId: typeof from === 'string' ? from : null }
    }
    default: {
      const customType = typeof node.metadata?.customType === 'string' ? node.metadata.customType : 'dsh'
      return { kind: 'custom', customType, summary: node.summary }
    }
  }
}

function usageOf(node: TreeNode): { input?: number; output?: number } | undefined {
  const usage = node.usage
  if (!usage) return undefined
  const input = typeof usage.inputTokens === 'number' ? usage.inputTokens : undefined
  const output = typeof usage.outputTokens === 'number' ? usage.outputTokens : undefined
  return input === undefined && output === undefined
    ? undefined
    : { ...(input !== undefined ? { input } : {}), ...(output !== undefined ? { output } : {}) }
}
