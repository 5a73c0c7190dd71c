/**
 * Bench section: a big DSH home (issue 25.2). One session is driven for real
 * in `dsh web` with the plugin, then copied under fresh ids to 1,000 sessions,
 * each with its sidecar (`test/e2e/support/big-home.ts`). The same sessions
 * are booted by the real `dsh web` in a home with the plugin and in one
 * without it (the baseline), interleaved run by run: boot time (spawn to the
 * URL line), the first `session.list`, and the resident memory of the process
 * group once the boot settled (the plugin's start-up scan done). Budget: with
 * the plugin within 10% of without. Afterwards: how many sidecars the boot
 * and the listing read (their access times, set back before the boot).
 */
import fs from 'node:fs'
import path from 'node:path'
import { cloneSessions, seedSession, sidecarFilesRead, ageSidecars } from '../test/e2e/support/big-home.ts'
import { ensureDsh, removeDir, startWeb, tempDir } from '../test/e2e/support/dsh.ts'
import { startFakeLlm } from '../test/e2e/support/fake-llm.ts'
import { packPlugin } from '../test/e2e/support/pack.ts'
import { fmt, median, type BenchSection, type Check, type Row, type SectionResult } from './report.ts'

const SESSIONS = 1_000
/** With the plugin, boot time and RSS at most this much above the same home without it. */
export const HOME_OVERHEAD_BUDGET = 0.1

/** Resident set of every process in the process group `pgid` (kB). */
export function groupRssKb(pgid: number): number {
  let total = 0
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[2]) !== pgid) continue // field 5 of stat: the process group
      const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
      total += rss ? Number(rss[1]) : 0
    } catch {
      // the process ended while being read
    }
  }
  return total
}

interface Boot {
  readonly bootMs: number
  readonly listMs: number
  readonly listed: number
  readonly rssMb: number
}

async function boot(home: string, work: string, llmUrl: string, plugin: boolean): Promise<Boot> {
  const web = await startWeb({ home, cwd: work, llmUrl, timeoutMs: 180_000 })
  try {
    const t0 = performance.now()
    const listed = (await web.api.listSessions()).length
    const listMs = performance.now() - t0
    // The plugin's start-up scan runs after the boot: a dry-run gc waits for it.
    if (plugin) await web.api.remoteOk('sessionTree/gc', { dryRun: true })
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    return { bootMs: web.bootMs, listMs, listed, rssMb: groupRssKb(web.pid) / 1024 }
  } finally {
    await web.stop()
  }
}

export const homeSection: BenchSection = {
  name: 'home',
  async run({ runs }): Promise<SectionResult> {
    await ensureDsh()
    const llm = await startFakeLlm({ script: [{ text: 'ANSWER-1: first.' }, { text: 'ANSWER-2: second.' }] })
    const plugin = await packPlugin()
    const seed = await seedSession(plugin.tgz, llm.url, 'bench-home')
    const bare = tempDir('bench-home-bare')
    try {
      // The same 1,000 sessions (logs and sidecars) in the plugin's home and in a home without the plugin.
      cloneSessions(seed.home, seed.sessionId, seed.home, SESSIONS - 1)
      fs.cpSync(path.join(seed.home, 'sessions'), path.join(bare, 'sessions'), { recursive: true })
      const withPlugin: Boot[] = []
      const without: Boot[] = []
      const n = Math.max(3, Math.min(runs, 5))
      let read = { boot: 0, total: 0 }
      for (let i = 0; i < n; i++) {
        without.push(await boot(bare, seed.work, llm.url, false))
        const aged = ageSidecars(seed.home)
        withPlugin.push(await boot(seed.home, seed.work, llm.url, true))
        if (i === 0) read = { boot: sidecarFilesRead(aged).length, total: aged.length }
      }
      const m = (list: readonly Boot[], key: keyof Boot) => median(list.map((b) => b[key]))
      const row = (name: string, list: readonly Boot[]): Row => ({
        home: name,
        'sessions listed': m(list, 'listed'),
        'boot ms': fmt(m(list, 'bootMs'), 0),
        'session.list ms': fmt(m(list, 'listMs'), 0),
        'RSS MB': fmt(m(list, 'rssMb'), 0),
      })
      const ratio = (key: keyof Boot) => m(withPlugin, key) / m(without, key) - 1
      const pct = (r: number) => `${r >= 0 ? '+' : ''}${fmt(r * 100, 1)}%`
      const check = (name: string, key: keyof Boot, unit: string): Check => ({
        name: `${name} with the plugin within ${fmt(HOME_OVERHEAD_BUDGET * 100, 0)}% of without (${SESSIONS.toLocaleString('en-US')} sessions, median of ${n})`,
        pass: ratio(key) <= HOME_OVERHEAD_BUDGET,
        detail: `${fmt(m(withPlugin, key), 0)} ${unit} with, ${fmt(m(without, key), 0)} ${unit} without (baseline): ${pct(ratio(key))}`,
      })
      return {
        title: `a home of ${SESSIONS.toLocaleString('en-US')} sessions with sidecars: dsh web boot`,
        columns: ['home', 'sessions listed', 'boot ms', 'session.list ms', 'RSS MB'],
        rows: [row('without the plugin (baseline)', without), row('with the plugin', withPlugin)],
        notes: [
          `RSS: the dsh web process group after boot, the first session.list and the plugin's start-up scan; runs interleaved.`,
          `Sidecar files read by the boot and the first listing (access times): ${read.boot} of ${read.total}.`,
        ],
        checks: [
          check('boot time', 'bootMs', 'ms'),
          check('RSS after boot', 'rssMb', 'MB'),
          {
            name: 'no sidecar is read at boot or by listing sessions',
            pass: read.boot === 0,
            detail: `${read.boot} of ${read.total} sidecar files read`,
          },
        ],
      }
    } finally {
      await llm.close()
      removeDir(bare)
      removeDir(seed.home)
      removeDir(seed.work)
    }
  },
}
