/**
 * The `dsh-compaction-basic` settings of the preset a live agent runs on, read from that preset's
 * composition file. The engine itself sits in an entry-local realm (`isolate: compaction: true` in
 * DSH's presets) that no other plugin can resolve, so its threshold is read where DSH reads it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parse } from 'yaml'
import { hostService, type HostContext } from './host.ts'

/** What decides when DSH compacts by itself (the fields of `BasicCompactionConfig` that do). */
export interface CompactionSettings {
  readonly thresholdRatio: number
  /** `false`: manual `/compact` only. */
  readonly auto: boolean
  readonly modelPolicies: readonly {
    readonly provider: string
    readonly model: string
    readonly thresholdRatio?: number
  }[]
}

/** The row of the compaction backend, and its default ratio (its README's `thresholdRatio`). */
const ROW = '@deepseek-ai/dsh-compaction-basic'
const DEFAULT_RATIO = 0.8
const COMPOSITION = 'agent.cordis.yml'

/** The slice of `ctx.agentPresets` read here. */
interface Presets {
  composedPreset(agentCtx: unknown): string | undefined
  readonly roots: readonly { readonly path: string }[]
}

export class PresetCompaction {
  private readonly host: HostContext
  /** Per composition file, by its stamp (mtime and size, as DSH stamps a generation). */
  private readonly files = new Map<string, { readonly stamp: string; readonly settings: CompactionSettings | null }>()

  constructor(host: HostContext) {
    this.host = host
  }

  /**
   * The settings of the agent's preset; `null` when it loads no compaction backend; undefined when
   * that cannot be told (no preset roster, an agent on none, a composition that does not parse).
   */
  settingsFor(agent: unknown): CompactionSettings | null | undefined {
    const presets = hostService<Partial<Presets>>(this.host, 'agentPresets')
    const agentCtx = typeof agent === 'object' && agent !== null ? (agent as { ctx?: unknown }).ctx : undefined
    if (typeof presets?.composedPreset !== 'function' || agentCtx === undefined) return undefined
    let id: string | undefined
    try {
      id = presets.composedPreset(agentCtx)
    } catch {
      return undefined
    }
    if (id === undefined || !/^[a-z0-9][a-z0-9-]*$/.test(id)) return undefined
    // An earlier root wins a duplicate id, as in DSH's roster.
    for (const root of presets.roots ?? []) {
      const file = path.join(expandHome(root.path), id, COMPOSITION)
      let stat: fs.Stats
      try {
        stat = fs.statSync(file)
      } catch {
        continue
      }
      if (!stat.isFile()) continue
      const stamp = `${stat.mtimeMs}:${stat.size}`
      const known = this.files.get(file)
      if (known?.stamp === stamp) return known.settings
      const settings = readSettings(file)
      if (settings !== undefined) this.files.set(file, { stamp, settings })
      return settings
    }
    return undefined
  }
}

function expandHome(dir: string): string {
  return dir === '~' || dir.startsWith('~/') ? path.join(os.homedir(), dir.slice(1)) : dir
}

/** The first enabled compaction row of a composition (groups searched in order). */
export function readSettings(file: string): CompactionSettings | null | undefined {
  let rows: unknown
  try {
    // `!!js` rows are expressions for DSH's loader: kept as text, never run here.
    rows = parse(fs.readFileSync(file, 'utf8'), {
      customTags: [{ tag: 'tag:yaml.org,2002:js', resolve: (source: string) => ({ js: source }) }],
    })
  } catch {
    return undefined
  }
  if (!Array.isArray(rows)) return undefined
  const row = findRow(rows)
  if (row === undefined) return null
  const config = typeof row.config === 'object' && row.config !== null ? (row.config as Record<string, unknown>) : {}
  const ratio = config.thresholdRatio
  const policies = Array.isArray(config.modelPolicies) ? config.modelPolicies : []
  return {
    thresholdRatio: typeof ratio === 'number' && ratio > 0 ? ratio : DEFAULT_RATIO,
    auto: config.auto !== false,
    modelPolicies: policies.flatMap((p: unknown) => {
      if (typeof p !== 'object' || p === null) return []
      const { provider, model, thresholdRatio } = p as Record<string, unknown>
      if (typeof provider !== 'string' || typeof model !== 'string') return []
      return [{ provider, model, ...(typeof thresholdRatio === 'number' ? { thresholdRatio } : {}) }]
    }),
  }
}

function findRow(rows: readonly unknown[]): Record<string, unknown> | undefined {
  for (const row of rows) {
    if (typeof row !== 'object' || row === null) continue
    const entry = row as Record<string, unknown>
    // A `!!js` condition cannot be told here: such a row counts as enabled.
    if (entry.disabled === true) continue
    if (entry.name === ROW) return entry
    if (entry.name === 'cordis:group' && Array.isArray(entry.config)) {
      const inner = findRow(entry.config)
      if (inner) return inner
    }
  }
  return undefined
}
