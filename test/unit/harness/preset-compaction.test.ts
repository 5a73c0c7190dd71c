/**
 * The compaction settings of the preset a live agent runs on, read from real composition files laid
 * out as DSH's roster lays them out (roots, one directory per preset id, `agent.cordis.yml`), in
 * the shape DSH's shipped presets have: the backend inside an isolated `cordis:group`, `!!js` rows.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDirs } from '../../support/temp-each.ts'
import { PresetCompaction } from '../../../src/harness/preset-compaction.ts'
import type { HostContext } from '../../../src/harness/host.ts'

const root = tempDirs('dst-presets-')

const write = (dir: string, id: string, yaml: string) => {
  fs.mkdirSync(path.join(dir, id), { recursive: true })
  fs.writeFileSync(path.join(dir, id, 'agent.cordis.yml'), yaml)
}

const composition = (config: string) => `
- id: tool-bash
  name: '@deepseek-ai/dsh-tool-bash'
  disabled: !!js process.platform === 'win32'
- id: compaction
  name: cordis:group
  group: true
  isolate:
    compaction: true
  config:
    - id: compaction-basic
      name: '@deepseek-ai/dsh-compaction-basic'
${config}
    - id: command-compact
      name: '@deepseek-ai/dsh-command-compact'
`

const agent = { ctx: { agent: 'scope' } }
const presets = (roots: string[], id: string | undefined) =>
  new PresetCompaction({
    get: (name: never) =>
      name === ('agentPresets' as never)
        ? {
            composedPreset: (ctx: unknown) => (ctx === agent.ctx ? id : undefined),
            roots: roots.map((p) => ({ path: p })),
          }
        : undefined,
  } as HostContext)

describe('PresetCompaction', () => {
  it("reads the backend's config inside its group; defaults where the row sets none", () => {
    const dir = root()
    write(
      dir,
      'small',
      composition(
        '      config:\n        thresholdRatio: 0.25\n        retainTokens: 400\n        modelPolicies:\n          - provider: deepseek\n            model: deepseek-chat\n            thresholdRatio: 0.5\n',
      ),
    )
    write(dir, 'plain', composition(''))
    expect(presets([dir], 'small').settingsFor(agent)).toEqual({
      thresholdRatio: 0.25,
      auto: true,
      modelPolicies: [{ provider: 'deepseek', model: 'deepseek-chat', thresholdRatio: 0.5 }],
    })
    expect(presets([dir], 'plain').settingsFor(agent)).toEqual({ thresholdRatio: 0.8, auto: true, modelPolicies: [] })
  })

  it('manual only, no backend, a disabled row: said as such (null: none loaded)', () => {
    const dir = root()
    write(dir, 'manual', composition('      config:\n        auto: false\n'))
    write(dir, 'none', "- id: tool-fs\n  name: '@deepseek-ai/dsh-tool-fs'\n")
    write(dir, 'off', composition('      disabled: true\n'))
    expect(presets([dir], 'manual').settingsFor(agent)).toMatchObject({ auto: false })
    expect(presets([dir], 'none').settingsFor(agent)).toBeNull()
    expect(presets([dir], 'off').settingsFor(agent)).toBeNull()
  })

  it('an earlier root wins a duplicate id; an edit is read again (its stamp changed)', () => {
    const first = root()
    const second = root()
    write(second, 'code', composition('      config:\n        thresholdRatio: 0.3\n'))
    const reader = presets([first, second], 'code')
    expect(reader.settingsFor(agent)).toMatchObject({ thresholdRatio: 0.3 })
    write(first, 'code', composition('      config:\n        thresholdRatio: 0.6\n'))
    expect(reader.settingsFor(agent)).toMatchObject({ thresholdRatio: 0.6 })
    write(first, 'code', composition('      config:\n        thresholdRatio: 0.65\n'))
    expect(reader.settingsFor(agent)).toMatchObject({ thresholdRatio: 0.65 })
  })

  it('what cannot be told is undefined: no roster, no preset, a bad id, a missing or unparsable file', () => {
    const dir = root()
    write(dir, 'broken', '- id: [unclosed\n')
    expect(presets([dir], 'broken').settingsFor(agent)).toBeUndefined()
    expect(presets([dir], 'missing').settingsFor(agent)).toBeUndefined()
    expect(presets([dir], '../escape').settingsFor(agent)).toBeUndefined()
    expect(presets([dir], undefined).settingsFor(agent)).toBeUndefined()
    expect(presets([dir], 'broken').settingsFor({})).toBeUndefined()
    expect(new PresetCompaction({ get: () => undefined }).settingsFor(agent)).toBeUndefined()
  })
})
