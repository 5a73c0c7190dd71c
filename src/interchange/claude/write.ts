/**
 * The neutral tree → a Claude Code transcript (2.x shape) of the active path,
 * for `~/.claude/projects/<encoded cwd>/<sessionId>.jsonl` and `claude
 * --resume`. Thinking is kept only where it carries an Anthropic signature
 * (the API refuses thinking it did not sign).
 */
import { createHash, randomUUID } from 'node:crypto'
import { activePath, type ContentPart, type InputPart, type InterchangeNode, type InterchangeTree } from '../model.ts'
import { type JsonValue } from '../../tree/types.ts'

/** The Claude Code version the records are shaped after (the newest real transcripts in test/fixtures). */
export const CLAUDE_RECORD_VERSION = '2.0.57'

export interface ClaudeWriteInput {
  readonly tree: InterchangeTree
  readonly sessionId?: string
  readonly cwd?: string
  readonly now?: number
}

/** A stable UUID-shaped id for a node (a re-export writes the same uuids). */
export function uuidFor(sessionId: string, id: string): string {
  const hex = createHash('sha256').update(`${sessionId}\0${id}`).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

export function* writeClaude(input: ClaudeWriteInput): Generator<string> {
  const { tree } = input
  const sessionId = input.sessionId ?? randomUUID()
  const now = input.now ?? Date.now()
  const cwd = input.cwd ?? tree.meta.cwd ?? '/'
  const byId = new Map(tree.nodes.map((node) => [node.id, node]))
  const path = activePath(tree, byId)
  const fromAnthropic = tree.meta.format === 'claude-code'
  let parent: string | null = null
  let n = 0
  const envelope = (node: InterchangeNode, suffix = '') => {
    const uuid = uuidFor(sessionId, node.id + suffix)
    const record = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd,
      sessionId,
      version: CLAUDE_RECORD_VERSION,
      gitBranch: '',
      uuid,
      timestamp: new Date(node.time > 0 ? node.time : now).toISOString(),
    }
    parent = uuid
    return record
  }
  function* records(node: InterchangeNode, suffix = ''): Generator<string> {
    const entry = node.entry
    switch (entry.kind) {
      case 'user':
        yield JSON.stringify({
          ...envelope(node, suffix),
          type: 'user',
          ...(entry.origin === 'context' ? { isMeta: true } : {}),
          message: { role: 'user', content: userContent(entry.parts) },
        })
        break
      case 'assistant': {
        const content = entry.parts.flatMap((part) => assistantBlock(part, fromAnthropic))
        if (content.length === 0) content.push({ type: 'text', text: '' })
        const calls = entry.parts.some((part) => part.type === 'tool_call')
        yield JSON.stringify({
          ...envelope(node, suffix),
          type: 'assistant',
          requestId: `req_dsh_${++n}`,
          message: {
            model: entry.model ?? 'unknown',
            id: `msg_dsh_${uuidFor(sessionId, node.id + suffix)
              .replace(/-/g, '')
              .slice(0, 24)}`,
            type: 'message',
            role: 'assistant',
            content,
            stop_reason: calls ? 'tool_use' : 'end_turn',
            stop_sequence: null,
            usage: {
              input_tokens: entry.usage?.input ?? 0,
              output_tokens: entry.usage?.output ?? 0,
              cache_creation_input_tokens: entry.usage?.cacheWrite ?? 0,
              cache_read_input_tokens: entry.usage?.cacheRead ?? 0,
            },
          },
        })
        break
      }
      case 'tool_result':
        yield JSON.stringify({
          ...envelope(node, suffix),
          type: 'user',
          message: {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: entry.callId,
                content: userContent(entry.parts),
                ...(entry.isError ? { is_error: true } : {}),
              },
            ],
          },
        })
        break
      case 'compaction': {
        const logical = parent
        parent = null
        yield JSON.stringify({
          ...envelope(node, suffix),
          type: 'system',
          subtype: 'compact_boundary',
          content: 'Conversation compacted',
          isMeta: false,
          level: 'info',
          logicalParentUuid: logical,
          compactMetadata: { trigger: 'manual', preTokens: entry.tokensBefore ?? 0 },
        })
        yield JSON.stringify({
          ...envelope(node, `${suffix}#summary`),
          type: 'user',
          isCompactSummary: true,
          isVisibleInTranscriptOnly: true,
          message: { role: 'user', content: entry.contextText },
        })
        // What the compaction kept (Pi's firstKept, Claude 2.1's preserved segment) is read after the summary: written again there.
        const at = path.indexOf(node)
        const from = entry.firstKept === null ? -1 : path.findIndex((p) => p.id === entry.firstKept)
        if (from !== -1 && from < at)
          for (const kept of path.slice(from, at)) yield* records(kept, `${suffix}#kept:${node.id}`)
        break
      }
      case 'branch_summary':
      case 'custom':
        if (entry.contextText !== undefined)
          yield JSON.stringify({
            ...envelope(node, suffix),
            type: 'user',
            isMeta: true,
            message: { role: 'user', content: entry.contextText },
          })
        break
      case 'model_change':
      case 'label':
        break
    }
  }
  for (const node of path) yield* records(node)
}

function userContent(parts: readonly InputPart[]): JsonValue {
  if (parts.length === 1 && parts[0]!.type === 'text') return parts[0]!.text
  return parts.map((part): JsonValue =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : part.data !== undefined
        ? { type: 'image', source: { type: 'base64', media_type: part.mediaType, data: part.data } }
        : { type: 'text', text: `[image: ${part.mediaType}${part.url ? ` at ${part.url}` : ''}]` },
  )
}

function assistantBlock(part: ContentPart, fromAnthropic: boolean): JsonValue[] {
  switch (part.type) {
    case 'text':
      return [{ type: 'text', text: part.text }]
    case 'thinking':
      if (!fromAnthropic || !part.signature) return []
      return part.redacted
        ? [{ type: 'redacted_thinking', data: part.signature }]
        : [{ type: 'thinking', thinking: part.text, signature: part.signature }]
    case 'tool_call':
      return [{ type: 'tool_use', id: part.id, name: part.name, input: part.arguments }]
    case 'image':
      return [{ type: 'text', text: `[image: ${part.mediaType}]` }]
  }
}
