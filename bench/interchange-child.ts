/**
 * One measured run in a fresh process, for the bench: prints `{ms, maxRssMB, …}`.
 *   node bench/interchange-child.ts baseline                 the same start-up, nothing else
 *   node bench/interchange-child.ts read <file>              the bare streaming read: every line parsed, then dropped
 *   node bench/interchange-child.ts import <file> <dsh home> the whole import, through the published JSONL persistence
 *   node bench/interchange-child.ts open <dsh home>          what opening the imported session costs: the harness
 *                                                            persistence's load + the plugin's tree (TreeSync.attach)
 */
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { TreeSync } from '../src/harness/sync.ts'
import { readJsonl } from '../src/interchange/lines.ts'
import { importSession } from '../src/interchange/session/import.ts'
import { openSource } from '../src/interchange/source.ts'
import { TreeSidecar } from '../src/sidecar/index.ts'
import { SessionTreeStore } from '../src/tree/store.ts'

const [mode, first, second] = process.argv.slice(2)
const home = mode === 'import' ? second! : mode === 'open' ? first! : '/tmp/ix-bench-baseline'
const ctx = new Context()
ctx.plugin(SessionStore)
await ctx.plugin(JsonlSessionPersistence, { root: path.join(home, 'sessions') })
const persistence = (ctx as unknown as { sessionPersistence: JsonlSessionPersistence }).sessionPersistence
const t0 = performance.now()
let extra: Record<string, number> = {}
if (mode === 'read') {
  let records = 0
  for await (const record of readJsonl(openSource(first!).stream)) if (record.kind === 'record') records++
  extra = { records }
} else if (mode === 'import') {
  const outcome = await importSession(
    { path: first! },
    { persistence: persistence as never, sidecarRoot: path.join(home, 'session-tree') },
  )
  extra = { nodes: outcome.report.nodes, events: outcome.events }
} else if (mode === 'open') {
  const project = readdirSync(path.join(home, 'sessions')).find((name) => !name.startsWith('.'))!
  const id = readdirSync(path.join(home, 'sessions', project))[0]!
  const loaded = await persistence.load(SessionId(id))
  const state = new TreeSync(new SessionTreeStore(), new TreeSidecar(path.join(home, 'session-tree'))).attach({
    id,
    events: loaded.events as unknown[],
  })
  extra = { nodes: state.projector.tree.nodeCount, events: loaded.events.length }
}
const ms = performance.now() - t0
console.log(JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024, ...extra }))
process.exit(0)
