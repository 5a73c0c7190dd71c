/**
 * `npm run demo`: the Tree panel in a real `dsh web`, one command.
 *
 * 1. installs (or reuses) the pinned stock harness (`dev/harness.ts`, cached in `.cache/`);
 * 2. builds and packs this package (cached by content) and installs the tarball with
 *    `dsh plugin add` into a fresh temporary DSH_HOME;
 * 3. starts an embedded scripted fake model on 127.0.0.1 (no API key, no network) and
 *    `dsh web` on 127.0.0.1, opening nothing;
 * 4. holds a short conversation over HTTP before printing anything (a tool call, a fork
 *    onto a second branch, a label), so the tree has something to show;
 * 5. prints the URL and waits. Ctrl-C stops dsh web and the fake model and removes the
 *    temporary directories (`--keep` keeps them).
 *
 *   npm run demo [-- --keep]
 *
 * The fake model answers every later prompt too: type in the composer, jump and fork
 * in the Tree tab, and watch what the "model" receives in its replies.
 */
import fs from 'node:fs'
import path from 'node:path'
import { ensureHarness } from './harness.ts'
import type { MoveResult, SessionTreeView } from '../src/types.ts'
import { pluginAdd, removeDir, startWeb, tempDir, type WebProcess } from '../test/e2e/support/dsh.ts'
import { type FakeLlm, startFakeLlm } from '../test/e2e/support/fake-llm.ts'
import { packPlugin } from '../test/e2e/support/pack.ts'
import { DEMO_FORK_PROMPT, DEMO_NOTES, DEMO_PROMPTS, DEMO_TITLE, demoModel } from './demo-model.ts'

const keep = process.argv.includes('--keep')
const started = Date.now()
const say = (line: string): void => console.log(`demo: ${line}`)

let web: WebProcess | undefined
let llm: FakeLlm | undefined
let home: string | undefined
let work: string | undefined
let stopping = false

async function stop(code: number): Promise<never> {
  if (stopping) process.exit(code)
  stopping = true
  await web?.stop('SIGTERM', 5_000).catch(() => undefined)
  await llm?.close().catch(() => undefined)
  if (keep) say(`kept ${home} and ${work}`)
  else {
    removeDir(home)
    removeDir(work)
  }
  say('stopped.')
  process.exit(code)
}

process.on('SIGINT', () => void stop(0))
process.on('SIGTERM', () => void stop(0))

try {
  say('installing the pinned dsh harness (first run only; later runs reuse .cache/) …')
  const harness = await ensureHarness('stock', { log: (line) => line.trim() && console.log(`  ${line}`) })
  say(
    `harness ready (${harness.installed ? 'installed' : 'cached'}, ${harness.ms} ms); building and packing this plugin …`,
  )
  const plugin = await packPlugin()
  say(`${path.basename(plugin.tgz)} ${plugin.built ? 'built' : 'cached'} (${plugin.ms} ms)`)
  home = tempDir('demo-home')
  work = tempDir('demo-work')
  fs.writeFileSync(path.join(work, 'notes.txt'), DEMO_NOTES)
  llm = await startFakeLlm({ titleText: DEMO_TITLE, script: Array.from({ length: 10_000 }, () => demoModel) })
  await pluginAdd(home, 'web', plugin.tgz)
  web = await startWeb({ home, cwd: work, llmUrl: llm.url })
  const api = web.api

  // A short conversation with a tool call, then a second branch and a label.
  const { sessionId } = await api.createSession({ cwd: work })
  for (const prompt of DEMO_PROMPTS) await api.promptAndWait(sessionId, prompt)
  const tree = await api.remoteOk<SessionTreeView>('sessionTree/list', { agentId: sessionId })
  const plan = tree.nodes.find((n) => n.message?.role === 'assistant' && n.message.content.startsWith('Day 1'))
  if (!plan) throw new Error('the seeded plan is not in the tree')
  await api.remoteOk('sessionTree/label', { agentId: sessionId, nodeId: plan.nodeId, label: 'first plan' })
  await api.remoteOk<MoveResult>('sessionTree/fork', {
    agentId: sessionId,
    nodeId: plan.nodeId,
    branch: 'porto-instead',
  })
  await api.promptAndWait(sessionId, DEMO_FORK_PROMPT)
  const nodes = (await api.remoteOk<SessionTreeView>('sessionTree/list', { agentId: sessionId })).nodes.length

  console.log('')
  console.log(`  dsh-session-tree demo is running at  ${web.url}`)
  console.log('')
  console.log(`  1. open the URL, press Continue on the "Internal Testing Notice"`)
  console.log(`  2. open "Ungrouped" in the sidebar, then the session "${DEMO_TITLE}"`)
  console.log('  3. press "Tree" in the session header (or the Tree tab)')
  console.log(`     ${nodes} nodes, 2 branches (main, porto-instead), a tool call, a label; the fake model`)
  console.log('     answers every new prompt and quotes what it was sent.')
  console.log('')
  console.log(`  DSH_HOME ${home}${keep ? '' : ' (removed on exit)'}`)
  console.log(`  ready in ${((Date.now() - started) / 1000).toFixed(1)} s — Ctrl-C stops dsh web and the fake model.`)
  console.log('')
} catch (error) {
  console.error(`demo: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  if (web) console.error(`--- dsh web stderr\n${web.logs().stderr.slice(-4000)}`)
  await stop(1)
}
