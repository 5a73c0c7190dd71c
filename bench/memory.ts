/**
 * Bench section: memory per open session (issue 25.2). A home of 1,000
 * sessions (one driven for real, copied with its sidecar, `big-home.ts`) and
 * one of 100, each booted by the real `dsh web` with the plugin and, as the
 * baseline, without it (the same session files), interleaved run by run.
 * Sessions are opened the way the web page opens one (its requests, recorded
 * from Chromium: the host's `session.history`, `commands/list` and a few more, then the plugin's `session`, `chatPath` and
 * `outline`; the last three only where the plugin is), 1, 10 and 50 of them,
 * and after each step the process's V8 heap is read after a full collection
 * (through the inspector: `HeapProfiler.collectGarbage`, `Runtime.getHeapUsage`),
 * with the resident memory of its process group beside it.
 * Figures: what the plugin adds per open session (its heap growth from 1 to 50
 * open, less the host's), and what it holds with one session open in a
 * 1,000-session home against a 100-session one (it must not grow with the home).
 */
import fs from 'node:fs'
import path from 'node:path'
import { cloneSessions, seedSession } from '../test/e2e/support/big-home.ts'
import { ensureDsh, removeDir, startWeb, tempDir } from '../test/e2e/support/dsh.ts'
import { startFakeLlm } from '../test/e2e/support/fake-llm.ts'
import { packPlugin } from '../test/e2e/support/pack.ts'
import { groupRssKb } from './home.ts'
import { fmt, median, type BenchSection, type Check, type Row, type SectionResult } from './report.ts'

const OPEN = [1, 10, 50] as const
const HOMES = [1_000, 100] as const
/** The plugin adds at most this much V8 heap per open (small) session. */
export const PER_OPEN_BUDGET_BYTES = 64 * 1024
/** With one session open, the plugin holds at most this much more in a 1,000-session home than in a 100-session one. */
export const HOME_SIZE_BUDGET_BYTES = 1024 * 1024

const INSPECTOR_LINE = /Debugger listening on (ws:\/\/[^\s]+)/g

/** One inspector request on a fresh connection. */
function inspect(url: string, method: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url)
    socket.onerror = () => reject(new Error(`inspector ${url}: connection failed`))
    socket.onopen = () => socket.send(JSON.stringify({ id: 1, method }))
    socket.onmessage = (message) => {
      const reply = JSON.parse(String(message.data)) as { id?: number; result?: Record<string, unknown> }
      if (reply.id !== 1) return
      socket.close()
      resolve(reply.result ?? {})
    }
  })
}

/** Used V8 heap (bytes) after a full collection, summed over every Node process of the web (each has an inspector). */
async function heapUsed(stderr: string): Promise<number> {
  const urls = [...stderr.matchAll(INSPECTOR_LINE)].map((m) => m[1]!)
  if (urls.length === 0) throw new Error('dsh web printed no inspector URL (NODE_OPTIONS=--inspect)')
  let used = 0
  for (const url of urls) {
    await inspect(url, 'HeapProfiler.collectGarbage')
    used += Number((await inspect(url, 'Runtime.getHeapUsage')).usedSize)
  }
  return used
}

interface Sample {
  /** Open sessions (0: after boot and the first listing). */
  readonly open: number
  readonly heap: number
  readonly rssKb: number
}

async function openAndMeasure(home: string, work: string, llmUrl: string, plugin: boolean): Promise<Sample[]> {
  const web = await startWeb({
    home,
    cwd: work,
    llmUrl,
    timeoutMs: 180_000,
    extra: { NODE_OPTIONS: '--inspect=127.0.0.1:0' },
  })
  try {
    const ids = (await web.api.listSessions()).map((s) => s.sessionId)
    // The plugin's start-up scan runs after the boot: a dry-run gc waits for it.
    if (plugin) await web.api.remoteOk('sessionTree/gc', { dryRun: true })
    const sample = async (open: number): Promise<Sample> => ({
      open,
      heap: await heapUsed(web.logs().stderr),
      rssKb: groupRssKb(web.pid),
    })
    const samples = [await sample(0)]
    let opened = 0
    for (const k of OPEN.filter((k) => k <= ids.length)) {
      for (; opened < k; opened++) {
        const agentId = ids[opened]!
        // The host's requests of the page, in its order (`commands/list` is the one that loads a stored session).
        await web.api.call('subagent.list', { parentSessionId: agentId })
        await web.api.history(agentId, { maxMessages: 50 })
        await web.api.remoteOk('commands/list', { agentId })
        await web.api.call('skill.list', { sessionId: agentId })
        await web.api.call('session.models', { sessionId: agentId })
        if (plugin)
          for (const read of ['session', 'chatPath']) await web.api.remoteOk(`sessionTree/${read}`, { agentId })
        // The Tree tab's first read of the outline (it keeps what changed since, per tree).
        if (plugin) await web.api.remoteOk('sessionTree/outlineChanges', { agentId, since: null })
      }
      samples.push(await sample(k))
    }
    return samples
  } finally {
    await web.stop()
  }
}

export const memorySection: BenchSection = {
  name: 'memory',
  async run({ runs }): Promise<SectionResult> {
    await ensureDsh()
    const llm = await startFakeLlm({ script: [{ text: 'ANSWER-1: first.' }, { text: 'ANSWER-2: second.' }] })
    const plugin = await packPlugin()
    const seed = await seedSession(plugin.tgz, llm.url, 'bench-memory')
    const dirs: string[] = []
    try {
      // Per home size: a home with the plugin (the seed's profile, the copies) and a bare one with the same files.
      const homes = HOMES.map((size) => {
        const withPlugin = size === HOMES[0] ? seed.home : tempDir(`bench-memory-${size}`)
        if (withPlugin !== seed.home) {
          dirs.push(withPlugin)
          fs.cpSync(seed.home, withPlugin, {
            recursive: true,
            filter: (from) => from !== path.join(seed.home, 'sessions'),
          })
          cloneSessions(seed.home, seed.sessionId, withPlugin, size)
        } else cloneSessions(seed.home, seed.sessionId, seed.home, size - 1)
        const bare = tempDir(`bench-memory-bare-${size}`)
        dirs.push(bare)
        fs.cpSync(path.join(withPlugin, 'sessions'), path.join(bare, 'sessions'), { recursive: true })
        return { size, withPlugin, bare }
      })
      const n = Math.max(1, Math.min(runs, 3))
      const results = new Map<string, Sample[][]>()
      const record = (key: string, samples: Sample[]) => results.set(key, [...(results.get(key) ?? []), samples])
      for (let i = 0; i < n; i++)
        for (const home of homes) {
          record(`${home.size} without`, await openAndMeasure(home.bare, seed.work, llm.url, false))
          record(`${home.size} with`, await openAndMeasure(home.withPlugin, seed.work, llm.url, true))
        }
      /** Median over the runs of one figure at `open` sessions. */
      const at = (key: string, open: number, figure: 'heap' | 'rssKb') =>
        median(results.get(key)!.map((samples) => samples.find((s) => s.open === open)![figure]))
      const mb = (bytes: number) => fmt(bytes / 1024 / 1024, 1)
      const rows: Row[] = []
      for (const home of homes)
        for (const plugged of ['without', 'with']) {
          const key = `${home.size} ${plugged}`
          const row: Record<string, string> = {
            home: `${home.size.toLocaleString('en-US')} sessions, ${plugged} the plugin${plugged === 'without' ? ' (baseline)' : ''}`,
          }
          for (const open of [0, ...OPEN].filter((k) => k <= home.size))
            row[`heap MB, ${open} open`] = mb(at(key, open, 'heap'))
          row[`RSS MB, ${OPEN.at(-1)} open`] = fmt(at(key, OPEN.at(-1)!, 'rssKb') / 1024, 0)
          rows.push(row)
        }
      const big = HOMES[0]
      const last = OPEN.at(-1)!
      const perOpen = (key: string) => (at(key, last, 'heap') - at(key, 1, 'heap')) / (last - 1)
      const host = perOpen(`${big} without`)
      const added = perOpen(`${big} with`) - host
      const held = (size: number) => at(`${size} with`, 1, 'heap') - at(`${size} without`, 1, 'heap')
      const kb = (bytes: number) => `${fmt(bytes / 1024, 1)} kB`
      const checks: Check[] = [
        {
          name: `the plugin adds <= ${kb(PER_OPEN_BUDGET_BYTES)} of heap per open session (1 → ${last} open of ${big.toLocaleString('en-US')}, median of ${n})`,
          pass: added <= PER_OPEN_BUDGET_BYTES,
          detail: `${kb(added)} per open session (${fmt(added, 0)} B); baseline of this run: dsh web without the plugin ${kb(host)} per open session`,
        },
        {
          name: `with 1 session open, the plugin holds no more than ${kb(HOME_SIZE_BUDGET_BYTES)} extra in a ${big.toLocaleString('en-US')}-session home than in a ${HOMES[1]}-session one`,
          pass: held(big) - held(HOMES[1]) <= HOME_SIZE_BUDGET_BYTES,
          detail: `plugin's heap with 1 open: ${mb(held(big))} MB at ${big.toLocaleString('en-US')} sessions, ${mb(held(HOMES[1]))} MB at ${HOMES[1]} (each against the same home without it): ${kb(held(big) - held(HOMES[1]))} apart`,
        },
      ]
      return {
        title: 'memory per open session: dsh web with and without the plugin',
        columns: [...new Set(rows.flatMap((row) => Object.keys(row)))],
        rows,
        notes: [
          `heap: V8 heap used after a full collection (inspector), every Node process of dsh web summed; RSS: its process group. Medians of ${n} runs, interleaved.`,
          "opening a session: the requests the web page sends when a person opens it (subagent.list, session.history, commands/list, skill.list, session.models; with the plugin also sessionTree session, chatPath, outline), sessions in listing order; each is the seed's 2-prompt session with its sidecar.",
        ],
        checks,
      }
    } finally {
      await llm.close()
      for (const dir of dirs) removeDir(dir)
      removeDir(seed.home)
      removeDir(seed.work)
    }
  },
}
