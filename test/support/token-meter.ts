/**
 * The REAL token meter of the pinned harness (`@deepseek-ai/dsh-token-meter`
 * 0.1.0-rc.8, loaded from the installed `dsh` in `.cache/harness/<variant>/`,
 * with its own cordis): the estimator, the positional `measure()` the
 * harness uses, and the O(1) projections (`contextPressure`,
 * `contextBreakdown`) that DSH web's context meter shows, folded over a log
 * exactly as the host folds them. Nothing here re-implements the meter.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { ensureHarness } from '../../dev/harness.ts'
import type { LogBuilder } from './log-builder.ts'

/** One projection unit as the meter registers it with `sessionProjections`. */
interface ProjectionDefinition {
  readonly key: string
  init(): unknown
  apply(state: unknown, event: unknown): unknown
  view(state: unknown): unknown
}

export interface Measurement {
  readonly totalTokens: number
  readonly surfaceTokens: number
  readonly baseline: { readonly kind: string; readonly tokens: number }
}

export interface ContextProjections {
  readonly contextPressure: {
    readonly pressureTokens?: number
    readonly projectedTokens?: number
    readonly contextWindow?: number
  }
  readonly contextBreakdown: {
    readonly systemTokens: number
    readonly toolsTokens: number
    readonly messageTokens: number
  }
}

export interface RealTokenMeter {
  /** The service instance itself (what `ctx.tokenMeter` is in the harness). */
  readonly service: unknown
  /** `ctx.tokenMeter.estimateMessage`. */
  estimateMessage(message: unknown): number
  /** `ctx.tokenMeter.measure` over a log (a fresh fold each call). */
  measure(events: readonly unknown[]): Measurement
  /** The browser's projections after the whole log. */
  projections(events: readonly unknown[]): ContextProjections
}

const loaded = new Map<string, Promise<RealTokenMeter>>()

/**
 * Load the meter once per process and variant (installs the pinned harness when missing):
 * `stock` as published, `native` with `dev/token-meter-selection.patch`.
 */
export function realTokenMeter(variant: 'stock' | 'native' = 'stock'): Promise<RealTokenMeter> {
  if (!loaded.has(variant)) loaded.set(variant, load(variant))
  return loaded.get(variant)!
}

async function load(variant: 'stock' | 'native'): Promise<RealTokenMeter> {
  const install = await ensureHarness(variant)
  const store = path.join(install.dir, 'node_modules', '.pnpm')
  const folder = fs.readdirSync(store).find((name) => name.startsWith('@deepseek-ai+dsh-token-meter@0.1.0-rc.8'))
  if (!folder) throw new Error(`no @deepseek-ai/dsh-token-meter@0.1.0-rc.8 under ${store}`)
  const entry = path.join(store, folder, 'node_modules', '@deepseek-ai', 'dsh-token-meter', 'lib', 'index.js')
  const meterModule = (await import(pathToFileURL(entry).href)) as { TokenMeter: new (...args: never[]) => unknown }
  const cordis = (await import(pathToFileURL(createRequire(entry).resolve('@deepseek-ai/cordis')).href)) as {
    Context: new () => CordisContext
  }
  const ctx = new cordis.Context()
  const definitions: ProjectionDefinition[] = []
  ctx.provide('sessionProjections', {
    register: (definition: ProjectionDefinition) => {
      definitions.push(definition)
      return () => {}
    },
  })
  ctx.plugin(meterModule.TokenMeter)
  const deadline = Date.now() + 10_000
  while ((ctx.tokenMeter === undefined || definitions.length < 3) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 5))
  const meter = ctx.tokenMeter
  if (!meter) throw new Error('the token meter did not start')
  const fold = (key: string, events: readonly unknown[]) => {
    const definition = definitions.find((d) => d.key === key)
    if (!definition) throw new Error(`the token meter registered no ${key} projection`)
    let state = definition.init()
    for (const event of events) state = definition.apply(state, event)
    return definition.view(state)
  }
  return {
    service: meter,
    estimateMessage: (message) => meter.estimateMessage(message),
    measure: (events) => meter.measure({ events: [...events] }),
    projections: (events) => ({
      contextPressure: fold('contextPressure', events) as ContextProjections['contextPressure'],
      contextBreakdown: fold('contextBreakdown', events) as ContextProjections['contextBreakdown'],
    }),
  }
}

interface CordisContext {
  provide(name: string, value: unknown): void
  plugin(plugin: unknown): void
  readonly tokenMeter?: {
    estimateMessage(message: unknown): number
    measure(session: { events: unknown[] }): Measurement
  }
}

/** The conversation the meter tests price: three turns, runtime context, a tool result of some weight, usage samples. */
export function meteredTurns(log: LogBuilder): LogBuilder {
  return log
    .userTurn('first question, with some words in it', 'a first answer that is a little longer than the question', {
      context: 'runtime context',
      usage: 5_000,
    })
    .userTurn('please read x.txt', 'it says: file text', {
      tools: [{ name: 'read', args: { file_path: 'x.txt' }, result: 'file text '.repeat(40) }],
      usage: 5_200,
    })
    .userTurn('third question', 'a third answer', { usage: 5_300 })
}
