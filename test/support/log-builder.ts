/**
 * Builds real harness session logs for tests: every event goes through a real
 * `Session` of the published `@deepseek-ai/dsh-session`, so the surface rules
 * (replace ranges, cited seqs, tool-result rewrites) are the harness's own.
 */
import { CallId, createAssistantMessage, createToolResultMessage, createUserMessage } from '@deepseek-ai/dsh-llm'
import { Session, SessionId } from '@deepseek-ai/dsh-session'

export const PROVIDER = 'fake-provider'
export const MODEL = 'fake-model'

export interface ToolCallSpec {
  readonly name: string
  readonly args: unknown
  readonly result: string
  readonly isError?: boolean
}

export class LogBuilder {
  readonly session: Session
  private turn = 0
  private callCounter = 0

  constructor(id: string | Session = 'test-session') {
    this.session = typeof id === 'string' ? Session.create(SessionId(id)) : id
    for (const event of this.session.events)
      if (event.type === 'turn/start') this.turn = Math.max(this.turn, event.data.turn)
  }

  get events() {
    return this.session.events
  }

  /** Next turn number (maintenance turns of a fake agent share the counter). */
  nextTurn(): number {
    return ++this.turn
  }

  /** A new turn opened at its first step, nothing in it yet; returns the turn. */
  openTurn(): number {
    const turn = this.nextTurn()
    this.session.append('turn/start', { turn })
    this.session.append('step/start', { turn, step: 1 })
    return turn
  }

  /** A new turn opened at its first step with the typed `prompt`; returns the turn. */
  private begin(prompt: string): number {
    const s = this.session
    const turn = this.openTurn()
    s.append(
      'user/message',
      createUserMessage({ content: [{ type: 'text', text: prompt }], source: { kind: 'user' } }),
      { surfaceOp: 'append' },
    )
    return turn
  }

  /** One turn: a typed prompt, optional injected context, tool rounds, then a final answer. */
  /** `usage`: provider usage on the answers (true: small fixed figures; a number: that many input tokens on the final answer). */
  userTurn(
    prompt: string,
    answer: string,
    options: { tools?: ToolCallSpec[]; context?: string; usage?: boolean | number } = {},
  ): this {
    const s = this.session
    const turn = this.begin(prompt)
    if (options.context !== undefined) {
      s.append(
        'user/message',
        createUserMessage({
          content: [{ type: 'text', text: options.context }],
          source: { kind: 'plugin', plugin: '@deepseek-ai/dsh-system-prompt' },
        }),
        { surfaceOp: 'append' },
      )
    }
    s.append('request/header', {
      header: { config: { provider: PROVIDER, model: MODEL } },
      reason: turn === 1 ? 'initial' : 'change',
    } as never)
    let step = 1
    if (options.tools && options.tools.length > 0) {
      const calls = options.tools.map((tool) => ({ ...tool, id: CallId(`call_${++this.callCounter}`) }))
      s.append(
        'assistant/message',
        {
          turn,
          step,
          message: createAssistantMessage({
            content: calls.map((c) => ({
              type: 'tool-call' as const,
              id: c.id,
              name: c.name,
              arguments: JSON.stringify(c.args),
            })),
            source: { provider: PROVIDER, model: MODEL },
          }),
          ...(options.usage ? { usage: { inputTokens: 100, outputTokens: 10 } } : {}),
        },
        { surfaceOp: 'append' },
      )
      for (const c of calls)
        s.append('tool/call', { turn, step, callId: c.id, name: c.name, arguments: JSON.stringify(c.args) })
      for (const c of calls) {
        s.append(
          'tool/result',
          {
            turn,
            step,
            message: createToolResultMessage({
              callId: c.id,
              content: [{ type: 'text', text: c.result }],
              isError: c.isError ?? false,
            }),
          },
          { surfaceOp: 'append' },
        )
      }
      s.append('step/end', { turn, step })
      step = 2
      s.append('step/start', { turn, step })
    }
    s.append(
      'assistant/message',
      {
        turn,
        step,
        message: createAssistantMessage({
          content: [{ type: 'text', text: answer }],
          source: { provider: PROVIDER, model: MODEL },
        }),
        ...(options.usage
          ? { usage: { inputTokens: typeof options.usage === 'number' ? options.usage : 120, outputTokens: 20 } }
          : {}),
      },
      { surfaceOp: 'append' },
    )
    s.append('step/end', { turn, step })
    s.append('turn/end', { turn, reason: { kind: 'completed' } })
    return this
  }

  /**
   * A turn stopped at the model's one tool call in its first step (`tool/call` written, no result
   * yet), as when the model makes a move: the typed prompt, the assistant's call, the call event.
   */
  openCall(prompt: string, call: { readonly id: string; readonly name: string; readonly arguments: string }) {
    const s = this.session
    const turn = this.begin(prompt)
    const callId = CallId(call.id)
    s.append(
      'assistant/message',
      {
        turn,
        step: 1,
        message: createAssistantMessage({
          content: [{ type: 'tool-call', id: callId, name: call.name, arguments: call.arguments }],
          source: { provider: PROVIDER, model: MODEL },
        }),
      },
      { surfaceOp: 'append' },
    )
    const event = s.append('tool/call', { turn, step: 1, callId, name: call.name, arguments: call.arguments })
    return { turn, event }
  }

  /** `openCall` for the model's `tree` jump (call `jump_1`) to `node`; without a node, the bare action. */
  openJump(prompt: string, node?: string) {
    return this.openCall(prompt, { id: 'jump_1', name: 'tree', arguments: JSON.stringify({ action: 'jump', node }) })
  }

  /** The tool's answer to call `callId` in step `step` of `turn` (a turn `openCall` left open). */
  toolResult(turn: number, callId: string, text: string, step = 1): this {
    this.session.append(
      'tool/result',
      {
        turn,
        step,
        message: createToolResultMessage({
          callId: CallId(callId),
          content: [{ type: 'text', text }],
          isError: false,
        }),
      },
      { surfaceOp: 'append' },
    )
    return this
  }

  /**
   * A compaction's summary message as `dsh-compaction-basic` writes it: a plugin `user/message`
   * replacing the first `count` surface nodes.
   */
  compactedBy(text: string, count: number): this {
    const surface = [...this.session.surface.nodes]
    ;(this.session.append as (type: string, data: unknown, intent?: unknown) => unknown).call(
      this.session,
      'user/message',
      createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'plugin', plugin: 'compaction' } }),
      {
        surfaceOp: { op: 'replace', start: surface[0], end: surface[count - 1] },
        sourceEventSeqs: surface.slice(0, count),
      },
    )
    return this
  }

  /** Texts of the model-visible history right now. */
  modelTexts(): string[] {
    return this.session.deriveMessages().map((m) => m.content.map((b) => blockText(b as ContentBlock)).join(''))
  }
}

/** A message content block as far as `modelTexts` reads it. */
export type ContentBlock = { type: string; text?: string; name?: string; content?: unknown }

/** How `modelTexts` flattens a content block: its text, `call:<tool>`, `result:<text>`, or nothing. */
export function blockText(b: ContentBlock): string {
  if (b.type === 'text') return b.text ?? ''
  if (b.type === 'tool-call') return `call:${b.name}`
  if (b.type === 'tool-result') return `result:${(b.content as { text?: string }[]).map((c) => c.text).join('')}`
  return ''
}
/**
 * What the model reads of its tool exchanges: each assistant message's call
 * ids, and the result ids (`tool-result` blocks, and the result message's
 * `source.callId`) that follow it before the next assistant message.
 */
export function callPairing(session: Session): { calls: string[]; results: string[]; sources: string[] }[] {
  const out: { calls: string[]; results: string[]; sources: string[] }[] = []
  for (const message of session.deriveMessages()) {
    if (message.role === 'assistant') {
      const calls = message.content.flatMap((b) => (b.type === 'tool-call' ? [b.id as string] : []))
      if (calls.length > 0) out.push({ calls, results: [], sources: [] })
      continue
    }
    const results = message.content.flatMap((b) => (b.type === 'tool-result' ? [b.toolCallId as string] : []))
    if (results.length === 0) continue
    const open = out.at(-1) ?? { calls: [], results: [], sources: [] }
    if (out.length === 0) out.push(open)
    open.results.push(...results)
    const source = message.source as { callId?: string }
    if (typeof source.callId === 'string') open.sources.push(source.callId)
  }
  return out
}
