/**
 * What the plugin adds to every model request, in bytes on the wire: the
 * first request of a prompt from the real, in-process DSH agent loop (the
 * runtime `tool-rig.ts` mounts, its request serialized by DSH's own DeepSeek
 * adapter), once with this package's two plugins (the service and the tool)
 * and once without them. Deterministic: the same code sends the same bytes,
 * so a budget on it may live in `npm test` (`test/unit/tool/tool-wire.test.ts`)
 * as well as in `npm run bench` (`bench/wire.ts`).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { mountDsh, ScriptedModel } from './scripted-loop.ts'
import type { WireBody } from './dsh-wire.ts'

/** Bytes the plugin may add to every request (issue 25: from 8,966 down to this). */
export const ADDED_BYTES_BUDGET = 3_000

/** One first request: its body and its size. */
export interface FirstRequest {
  readonly body: WireBody & { readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }> }
  readonly bytes: number
}

/**
 * This package's two plugins as modules: `src/` in unit tests, the built
 * `lib/` (what the tarball ships) in the bench, which plain Node runs.
 */
export interface TreePlugins {
  readonly service: unknown
  readonly tool: unknown
}

/** The first request the loop sends for `prompt`, with the plugins or (undefined) without them. */
export async function firstRequest(plugins: TreePlugins | undefined, prompt = 'Hello.'): Promise<FirstRequest> {
  const root = mkdtempSync(join(tmpdir(), 'tree-wire-'))
  const ctx = new Context()
  const model = new ScriptedModel([{ text: 'Hi.' }])
  try {
    await mountDsh(ctx)
    if (plugins) {
      const load = ctx.plugin.bind(ctx) as unknown as (plugin: unknown, config: unknown) => PromiseLike<unknown>
      await load(plugins.service, { sidecarRoot: root, surfaceMode: 'auto' })
      await load(plugins.tool, {})
    }
    ;(ctx as any).llm.registerAdapter(['mock'], model)
    const { agent } = await (ctx as any).agents.create({
      sessionId: SessionId(`wire-${plugins ? 'with' : 'without'}`),
      agentOptions: { provider: 'mock', model: 'mock-1' },
    })
    agent.followup(createUserMessage({ content: [{ type: 'text', text: prompt }], source: { kind: 'user' } }))
    while (model.wire.length === 0 || agent.status !== 'idle') await agent.whenIdle()
    if (model.refusals.length > 0) throw new Error(`refused: ${model.refusals[0]!.violations[0]!.message}`)
    return { body: model.wire[0]! as FirstRequest['body'], bytes: model.wireBytes[0]! }
  } finally {
    await ctx.fiber.dispose()
    rmSync(root, { recursive: true, force: true })
  }
}

/** The plugin's cost: the first request with and without it, and where the added bytes go. */
export interface WireCost {
  readonly without: number
  readonly with: number
  readonly added: number
  /** Bytes of the tree tool's definitions as sent (`tools[i]`, JSON). */
  readonly tools: number
  /** How many tree tool definitions the request holds. */
  readonly toolCount: number
  /** Bytes the system message grew by. */
  readonly system: number
}

export async function wireCost(plugins: TreePlugins): Promise<WireCost> {
  const without = await firstRequest(undefined)
  const withIt = await firstRequest(plugins)
  const ours = (withIt.body.tools ?? []).filter(
    (tool) => !(without.body.tools ?? []).some((other) => other.function.name === tool.function.name),
  )
  const systemOf = (request: FirstRequest) =>
    Buffer.byteLength(JSON.stringify(request.body.messages.find((m) => m.role === 'system') ?? ''))
  return {
    without: without.bytes,
    with: withIt.bytes,
    added: withIt.bytes - without.bytes,
    tools: ours.reduce((sum, tool) => sum + Buffer.byteLength(JSON.stringify(tool)), 0),
    toolCount: ours.length,
    system: systemOf(withIt) - systemOf(without),
  }
}
