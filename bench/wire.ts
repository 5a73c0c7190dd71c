/**
 * Bench section: the bytes this package adds to every model request (issue 25).
 * The first request of a prompt from the real, in-process DSH agent loop,
 * serialized by DSH's own DeepSeek adapter and captured at a loopback server
 * (`test/support/wire-cost.ts`), with the built plugins (`lib/`, what the
 * tarball ships; `npm run build`) and without them, in the same run. Bytes
 * are deterministic, so `npm test` holds the same budget
 * (`test/unit/tool/tool-wire.test.ts`); this prints it for the build.
 */
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO_ROOT } from '../dev/harness.ts'
import { ADDED_BYTES_BUDGET, wireCost } from '../test/support/wire-cost.ts'
import { fmt, type BenchSection, type SectionResult } from './report.ts'

/** What the same measure gave for the nine tree_* tools this replaced (0.1.0-rc, issue 25), for the record. */
const BEFORE = { added: 8_995, tools: 7_631, toolCount: 9, system: 1_345 }

export const wireSection: BenchSection = {
  name: 'wire',
  async run(): Promise<SectionResult> {
    const title = 'bytes added to every model request (first request of a prompt, DSH agent loop)'
    const entries = [path.join(REPO_ROOT, 'lib', 'index.js'), path.join(REPO_ROOT, 'lib', 'tool', 'index.js')]
    if (!entries.every((file) => fs.existsSync(file)))
      return {
        title,
        columns: ['request'],
        rows: [],
        notes: ['lib/ is missing (npm run build)'],
        checks: [
          { name: `added bytes <= ${ADDED_BYTES_BUDGET}`, pass: 'skip', detail: 'lib/ is missing (npm run build)' },
        ],
      }
    const [service, tool] = await Promise.all(entries.map((file) => import(pathToFileURL(file).href)))
    const cost = await wireCost({ service: service.default, tool })
    const bytes = (n: number) => fmt(n, 0)
    return {
      title,
      columns: ['request', 'bytes', 'tree tools', 'tool schema bytes', 'system prompt bytes'],
      rows: [
        { request: 'without the plugin (baseline)', bytes: bytes(cost.without), 'tree tools': 0 },
        { request: 'with the plugin', bytes: bytes(cost.with), 'tree tools': cost.toolCount },
        {
          request: 'added by the plugin',
          bytes: bytes(cost.added),
          'tree tools': cost.toolCount,
          'tool schema bytes': bytes(cost.tools),
          'system prompt bytes': bytes(cost.system),
        },
        {
          request: 'added at f12e141 (nine tree_* tools; recorded, not run)',
          bytes: bytes(BEFORE.added),
          'tree tools': BEFORE.toolCount,
          'tool schema bytes': bytes(BEFORE.tools),
          'system prompt bytes': bytes(BEFORE.system),
        },
      ],
      notes: [
        'The baseline is the same loop with no tree plugin: DSH runtime, an empty persona, no other tools.',
        `About ${fmt(cost.added / 4, 0)} tokens at four bytes a token, in every request, cached or not.`,
      ],
      checks: [
        {
          name: `added bytes <= ${bytes(ADDED_BYTES_BUDGET)}`,
          pass: cost.added <= ADDED_BYTES_BUDGET,
          detail: `${bytes(cost.added)} B added (${bytes(cost.with)} B with, ${bytes(cost.without)} B baseline); before: ${bytes(BEFORE.added)} B`,
        },
      ],
    }
  },
}
