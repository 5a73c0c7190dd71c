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
import { afterEach, expect } from 'vitest'
import * as AgentLoopInvariant from '@deepseek-ai/dsh-agent-loop/invariant'
import * as AgentInvariant from '@deepseek-ai/dsh-agent/invariant'
import InvariantRegistry from '@deepseek-ai/dsh-invariants'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import * as LlmInvariant from '@deepseek-ai/dsh-llm/invariant'
import { SessionId } from '@deepseek-ai/dsh-session'
import * as SessionInvariant from '@deepseek-ai/dsh-session/invariant'
import * as ToolsInvariant from '@deepseek-ai/dsh-tools/invariant'
import SessionTreeService from '../../src/index.ts'
import { mountDsh, ScriptedModel, type ScriptEntry } from './scripted-loop.ts'
export { mountDsh, ScriptedModel, transcript, type Reply, type ScriptEntry } from './scripted-loop.ts'
import * as treeInvariant from '../../src/invariant.ts'
import * as treeTool from '../../src/tool/index.ts'

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
  await mountDsh(ctx)
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

/**
 * `loopRig` for the calling file's tests: every rig it makes is disposed after its test, which then
 * fails if the invariant check found the tree and the model's history apart.
 */
export function checkedRigs(): (script?: ScriptEntry[], options?: LoopRigOptions) => Promise<LoopRig> {
  const rigs: LoopRig[] = []
  afterEach(async () => {
    const done = rigs.splice(0)
    for (const rig of done) await rig.dispose()
    for (const rig of done) expect(rig.invariantFailures).toEqual([])
  })
  return async (script, options) => {
    const made = await loopRig(script, options)
    rigs.push(made)
    return made
  }
}
