/**
 * The published DSH agent runtime with a scripted model standing in for the
 * LLM (the only thing mocked), and nothing of this package: `tool-rig.ts`
 * adds the service and the tool on top, `wire-cost.ts` measures requests with
 * and without them. Every request the loop sends is recorded, with the body
 * DSH's own DeepSeek adapter would send for it (`dsh-wire.ts`); a body a strict
 * provider refuses is answered with an LLM error, as a 400 is.
 */
import type { Context } from '@deepseek-ai/cordis'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import AgentLoop from '@deepseek-ai/dsh-agent-loop'
import CommandRuntime from '@deepseek-ai/dsh-commands'
import LlmRuntime, {
  CallId,
  LlmAdapter,
  LlmError,
  type GenerateOptions,
  type LlmResolvedModelInfo,
  type StreamChunk,
} from '@deepseek-ai/dsh-llm'
import SessionStore from '@deepseek-ai/dsh-session'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime from '@deepseek-ai/dsh-tools'
import { contractViolations, type ContractViolation } from './provider-contract.ts'
import { wireRequest, type WireBody } from './dsh-wire.ts'

/** One scripted model answer: text, tool calls, or a function of the request. */
export type Reply =
  | { readonly text: string }
  | {
      readonly calls: ReadonlyArray<{
        readonly name: string
        readonly args: Record<string, unknown>
        readonly id?: string
      }>
      readonly text?: string
    }
export type ScriptEntry = Reply | ((request: GenerateOptions) => Reply)

function chunksOf(reply: Reply, n: number): StreamChunk[] {
  const chunks: StreamChunk[] = []
  let index = 0
  const text = 'text' in reply ? reply.text : undefined
  if (text) {
    chunks.push(
      { type: 'block-start', index, blockType: 'text' },
      { type: 'text-delta', index, text },
      { type: 'block-end', index, block: { type: 'text', text } },
    )
    index++
  }
  const calls = 'calls' in reply ? reply.calls : []
  calls.forEach((call, i) => {
    const id = CallId(call.id ?? `call_${n}_${i}`)
    const args = JSON.stringify(call.args)
    chunks.push(
      { type: 'block-start', index, blockType: 'tool-call' },
      { type: 'tool-call-delta', index, id, name: call.name, argumentsDelta: args },
      { type: 'block-end', index, block: { type: 'tool-call', id, name: call.name, arguments: args } },
    )
    index++
  })
  chunks.push(
    { type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } },
    { type: 'finish', reason: { kind: calls.length > 0 ? 'tool-calls' : 'stop' } },
  )
  return chunks
}

/** The scripted model. An exhausted script answers `SCRIPT EXHAUSTED`. */
export class ScriptedModel extends LlmAdapter {
  readonly requests: GenerateOptions[] = []
  /** The chat-completions body DSH's DeepSeek adapter sends for each request (tool definitions included), in order. */
  readonly wire: WireBody[] = []
  /** The size of each of those bodies on the wire, in bytes. */
  readonly wireBytes: number[] = []
  /** Requests a strict provider refuses (1-based request number, what it breaks, the conversation). */
  readonly refusals: { n: number; violations: ContractViolation[]; transcript: string[] }[] = []
  readonly script: ScriptEntry[]
  /** Called when a request arrives, before the answer streams (to race prompts in). */
  onRequest: ((request: GenerateOptions, n: number) => void | Promise<void>) | undefined

  constructor(script: ScriptEntry[] = []) {
    super()
    this.script = script
  }

  override resolveModel(provider: string, model: string): Promise<LlmResolvedModelInfo> {
    return Promise.resolve({ provider, id: model, name: model })
  }

  async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    this.requests.push(options)
    const n = this.requests.length
    const { body, bytes } = await wireRequest(options)
    this.wire.push(body)
    this.wireBytes.push(bytes)
    const violations = contractViolations(body)
    if (violations.length > 0) {
      this.refusals.push({ n, violations, transcript: transcript(options) })
      throw new LlmError(`request ${n} refused: ${violations[0]!.message}`, 'INVALID_REQUEST', { status: 400 })
    }
    await this.onRequest?.(options, n)
    const entry = this.script.shift() ?? { text: 'SCRIPT EXHAUSTED' }
    const reply = typeof entry === 'function' ? entry(options) : entry
    for (const chunk of chunksOf(reply, n)) yield chunk
  }
}

/** A request's conversation as `role: text` lines (system prompt and runtime context left out). */
export function transcript(request: GenerateOptions): string[] {
  const out: string[] = []
  for (const message of request.messages as unknown as ReadonlyArray<{
    role: string
    content: ReadonlyArray<Record<string, unknown>>
  }>) {
    for (const block of message.content) {
      if (block.type === 'text') {
        const text = String(block.text)
        if (message.role === 'user' && text.startsWith('Current runtime context')) continue
        out.push(`${message.role}: ${text}`)
      } else if (block.type === 'tool-call')
        out.push(`${message.role}: call ${String(block.name)}(${String(block.arguments)})`)
      else if (block.type === 'tool-result') {
        const content = block.content as ReadonlyArray<{ type: string; text?: string }> | string
        const text = typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('')
        out.push(`tool: ${text.split('\n')[0]}`)
      }
    }
  }
  return out
}

/** The published DSH runtime the rig runs: model runtime, session store, system prompt, tools, agents, commands, loop. */
export async function mountDsh(ctx: Context): Promise<void> {
  await ctx.plugin(LlmRuntime)
  await ctx.plugin(SessionStore)
  await ctx.plugin(SystemPrompt, { persona: '' })
  await ctx.plugin(ToolRuntime)
  await ctx.plugin(AgentRegistry)
  await ctx.plugin(CommandRuntime)
  await ctx.plugin(AgentLoop, { agents: [] })
}
