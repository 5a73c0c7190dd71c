/**
 * One import in a fresh process, for the bench: prints `{ms, maxRssMB}`.
 *   node bench/interchange-child.ts import <file> <dsh home>
 *   node bench/interchange-child.ts baseline        (the same start-up, no import)
 */
import path from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { importSession } from '../src/interchange/session/import.ts'

const [mode, file, home] = process.argv.slice(2)
const ctx = new Context()
ctx.plugin(SessionStore)
ctx.plugin(JsonlSessionPersistence, { root: path.join(home ?? '/tmp/ix-bench-baseline', 'sessions') })
let persistence: unknown
for (let i = 0; i < 200 && !(persistence = (ctx as unknown as { sessionPersistence?: unknown }).sessionPersistence); i++) await new Promise((r) => setTimeout(r, 5))
const t0 = performance.now()
if (mode === 'import') {
  await importSession({ path: file! }, { persistence: persistence as never, sidecarRoot: path.join(home!, 'session-tree') })
}
const ms = performance.now() - t0
console.log(JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024 }))
process.exit(0)
