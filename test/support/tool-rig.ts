/**
 * A real, in-process DSH agent loop for unit tests: the published
 * `dsh-agent-loop` with the published session store, system prompt, tool
 * registry, command registry and agent registry, this package's service and
 * tool plugin, and a scripted model adapter standing in for the LLM (the only
 * thing mocked). Every request the loop sends to the "model" is recorded, and
 * checked as a strict provider checks it: the body DSH's own DeepSeek adapter
 * would send (`dsh-wire.ts`) is refused (an LLM error, as a 400 is) when it
 * breaks the provider contract, and recorded in `model.refusals`; `dispose()`
 * fails on a refusal nobody took (`model.refusals.splice(0)`).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import AgentLoop from '@deepseek-ai/dsh-agent-loop'
import * as AgentLoopInvariant from '@deepseek-ai/dsh-agent-loop/invariant'
import * as AgentInvariant from '@deepseek-ai/dsh-agent/invariant'
import InvariantRegistry from '@deepseek-ai/dsh-invariants'
import CommandRuntime from '@deepseek-ai/dsh-commands'
import LlmRuntime, {
  CallId,
  createUserMessage,
  LlmAdapter,
  LlmError,
  type GenerateOptions,
  type LlmResolvedModelInfo,
  type StreamChunk,
} from '@deepseek-ai/dsh-llm'
import * as LlmInvariant from '@deepseek-ai/dsh-llm/invariant'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import * as SessionInvariant from '@deepseek-ai/dsh-session/invariant'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime from '@deepseek-ai/dsh-tools'
import * as ToolsInvariant from '@deepseek-ai/dsh-tools/invariant'
import SessionTreeService from '../../src/index.ts'
import { contractViolations, type ContractViolation } from './provider-contract.ts'
import { wireBody, type WireBody } from './dsh-wire.ts'
import * as treeInvariant from '../../src/invariant.ts'
import * as treeTool from '../../src/tool/index.ts'

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
  /** The chat-completions body DSH's DeepSeek adapter sends for each request, in order. */
  readonly wire: WireBody[] = []
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
    const body = await wireBody(options.messages, options.system)
    this.wire.push(body)
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

export interface LoopRig {
  readonly ctx: Context
  readonly model: ScriptedModel
  readonly service: SessionTreeService
  readonly tool: treeTool.SessionTreeTool
  readonly agent: any
  readonly sessionId: string
  /**
   * Every invariant violation reported while the rig ran (this package's
   * companion — the tree path equals the model history before every committed
   * event — and the harness's own: session log, agent status, request
   * reconstruction, tool pipeline, stream grammar). A violation also vetoes
   * the event, so the loop fails loudly; the list keeps the message.
   */
  readonly invariantFailures: string[]
  /** Queue a user prompt (followup) and wait until the agent is idle again (and any deferred move settled). */
  say(text: string): Promise<void>
  /** Wait until the agent is idle and no deferred move waits. */
  settle(): Promise<void>
  /** Unload the tool plugin (its fiber). */
  unloadTool(): Promise<void>
  /** Stop the whole context (a process exit) and hand back what a restart needs: the log and the sidecar root. */
  stop(): Promise<{ readonly sessionId: string; readonly events: readonly unknown[]; readonly sidecarRoot: string }>
  dispose(): Promise<void>
}

export interface LoopRigOptions {
  readonly surfaceMode?: 'auto' | 'stock' | 'projection'
  readonly toolConfig?: Partial<treeTool.Config>
  /** Mount the invariant registry and the companions (default true). */
  readonly invariants?: boolean
  /**
   * A restart: resume this session from its log, with the sidecar root it used
   * (`rig.stop()` returns both). The root is then left in place on dispose.
   */
  readonly resume?: { readonly sessionId: string; readonly events: readonly unknown[]; readonly sidecarRoot: string }
  /** The session's workspace directory (absolute). */
  readonly cwd?: string
  /** Extra plugins, loaded after the service and before the agent is created. */
  readonly setup?: (ctx: Context) => Promise<void>
}

export async function loopRig(script: ScriptEntry[] = [], options: LoopRigOptions = {}): Promise<LoopRig> {
  const root = options.resume?.sidecarRoot ?? mkdtempSync(join(tmpdir(), 'tree-tool-'))
  const ctx = new Context()
  const model = new ScriptedModel(script)
  const invariantFailures: string[] = []
  if (options.invariants !== false) {
    await ctx.plugin(InvariantRegistry, { enabled: true })
    // Record each violation before the registry's `fail` throws it (the throw vetoes the event).
    const registry = (ctx as any).invariants as { register(name: string, installer: any): unknown }
    const register = registry.register.bind(registry)
    registry.register = (name: string, installer: any) =>
      register(
        name,
        Object.assign(
          (child: Context, fail: (message: string) => never) =>
            installer(child, (message: string) => {
              invariantFailures.push(`${name}: ${message}`)
              return fail(message)
            }),
          installer.inject === undefined ? {} : { inject: installer.inject },
        ),
      )
  }
  await ctx.plugin(LlmRuntime)
  await ctx.plugin(SessionStore)
  await ctx.plugin(SystemPrompt, { persona: '' })
  await ctx.plugin(ToolRuntime)
  await ctx.plugin(AgentRegistry)
  await ctx.plugin(CommandRuntime)
  await ctx.plugin(AgentLoop, { agents: [] })
  await ctx.plugin(SessionTreeService, { sidecarRoot: root, surfaceMode: options.surfaceMode ?? 'auto' })
  const toolFiber = ctx.plugin(treeTool, (options.toolConfig ?? {}) as treeTool.Config)
  await toolFiber
  await options.setup?.(ctx)
  if (options.invariants !== false) {
    for (const companion of [
      SessionInvariant,
      AgentInvariant,
      AgentLoopInvariant,
      ToolsInvariant,
      LlmInvariant,
      treeInvariant,
    ])
      await ctx.plugin(companion as any)
    await new Promise((r) => setTimeout(r, 10))
  }
  ;(ctx as any).llm.registerAdapter(['mock'], model)
  const service = (ctx as unknown as { sessionTree: SessionTreeService }).sessionTree
  const tool = treeTool.sessionTreeToolOf(service)!
  const sessionId = options.resume?.sessionId ?? `session-${Math.random().toString(36).slice(2)}`
  const { agent } = await (ctx as any).agents.create({
    sessionId: SessionId(sessionId),
    agentOptions: { provider: 'mock', model: 'mock-1' },
    ...(options.resume ? { seed: options.resume.events } : {}),
    ...(options.cwd ? { meta: { cwd: options.cwd } } : {}),
  })
  const settle = async () => {
    for (let i = 0; i < 50; i++) {
      await agent.whenIdle()
      await tool.moves.settled(sessionId)
      await new Promise((r) => setTimeout(r, 5))
      if (agent.status === 'idle' && !tool.moves.pending(sessionId) && !agent.inbox.hasPending) return
    }
    throw new Error('the agent did not settle')
  }
  return {
    ctx,
    model,
    service,
    tool,
    agent,
    sessionId,
    settle,
    invariantFailures,
    unloadTool: async () => {
      await toolFiber.dispose()
    },
    async stop() {
      await settle()
      const events = structuredClone([...agent.session.events])
      await ctx.fiber.dispose()
      return { sessionId, events, sidecarRoot: root }
    },
    async say(text: string) {
      agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }))
      await settle()
    },
    async dispose() {
      if (!options.resume) rmSync(root, { recursive: true, force: true })
      const refused = model.refusals.splice(0)
      if (refused.length > 0)
        throw new Error(
          `requests a strict provider refuses: ${refused
            .map(
              (r) =>
                `#${r.n} ${r.violations.map((v) => `${v.rule} at ${v.param}`).join(', ')}\n  ${r.transcript.join('\n  ')}`,
            )
            .join('\n')}`,
        )
    },
  }
}
