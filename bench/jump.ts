/**
 * Bench section: a jump's round trip in a 100,000-event session (issue 25.2),
 * in the real `dsh web` with the packed plugin and real Chromium. Two sessions
 * are written on disk next to a real seed session the way DSH stores them
 * (`writeSession`, the harness log of `sync.ts`): one of ~100,000 events and a
 * small one of ~200 (the baseline, measured in the same run, interleaved).
 * In each page a person selects a row of the Tree tab (timed to its preview)
 * and clicks Jump here; timed from that click (a capturing listener in the
 * page) to the Chat showing the new path (its column's
 * `data-session-tree-revision` changing, in a second page holding the same
 * session's Chat: the Tree tab takes the Chat's place in its own page) and to the Tree tab's cursor on the
 * row (`aria-current`), both with `whenShown` of `live.ts`.
 * Budget: 1 s at 100,000 events (median), the limit for a person's flow of
 * thought to stay with the action (Nielsen); a jump there is one click, so the
 * answer must feel like the click's, not like a load.
 */
import fs from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'
import { seedSession, writeSession } from '../test/e2e/support/big-home.ts'
import { ensureDsh, removeDir, startWeb, type WebProcess } from '../test/e2e/support/dsh.ts'
import { startFakeLlm } from '../test/e2e/support/fake-llm.ts'
import { packPlugin } from '../test/e2e/support/pack.ts'
import type { SessionLogEvent } from '../test/e2e/support/session-log.ts'
import { openSession } from '../test/e2e/support/chat-page.ts'
import { openTreeTab, TREE_ROWS } from '../test/e2e/support/tree-tab.ts'
import { CHROMIUM, whenShown } from './live.ts'
import { fmt, median, type BenchSection, type Check, type Row, type SectionResult } from './report.ts'
import { harnessLog } from './sync.ts'

const BIG = 100_000
const SMALL = 200
/** A jump at 100,000 events shows in the Chat and in the Tree tab within this (median of the runs). */
export const JUMP_BUDGET_MS = 1_000

interface Timed {
  readonly select: number[]
  readonly chat: number[]
  readonly cursor: number[]
}

interface Opened {
  readonly name: string
  readonly events: number
  readonly page: Page
  /** A second page with the same session's Chat (the Tree tab replaces the Chat in its page). */
  readonly chatPage: Page
  /** Two rows on the active path to jump between (neither the cursor at the start). */
  readonly targets: readonly [string, string]
  readonly times: Timed
}

const title = (events: number) => `Jump bench ${events.toLocaleString('en-US')} events`

function skipped(reason: string): SectionResult {
  return {
    title: `a jump's round trip at ${BIG.toLocaleString('en-US')} events (Chromium, dsh web)`,
    columns: ['session'],
    rows: [],
    notes: [reason],
    checks: [{ name: `a jump at 100,000 events shows < ${JUMP_BUDGET_MS} ms`, pass: 'skip', detail: reason }],
  }
}

async function open(browser: Browser, web: WebProcess, events: number): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'en-US' })
  await openTreeTab(page, web.url, title(events))
  // The time of the person's click on Jump here, taken in the page (capture phase: before any handler).
  await page.evaluate(() => {
    document.addEventListener(
      'click',
      (event) => {
        const button = (event.target as Element | null)?.closest('button')
        if (button?.textContent?.trim() === 'Jump here')
          (window as unknown as { jumpClickedAt: number }).jumpClickedAt = Date.now()
      },
      true,
    )
  })
  // Rows drawn near the cursor: the two nearest answers before it, on the active path.
  const rows = await page.evaluate(
    (selector) =>
      [...document.querySelectorAll(selector)].map((row) => ({
        id: row.getAttribute('data-node-id') ?? '',
        kind: row.querySelector('.dst-kind')?.getAttribute('data-kind') ?? '',
        current: row.getAttribute('aria-current') === 'location',
      })),
    TREE_ROWS,
  )
  const at = rows.findIndex((row) => row.current)
  const prompts = rows.slice(0, at === -1 ? rows.length : at).filter((row) => row.kind === 'assistant' && row.id)
  if (prompts.length < 2) throw new Error(`${title(events)}: fewer than two answer rows drawn before the cursor`)
  const targets = [prompts.at(-1)!.id, prompts.at(-2)!.id] as const
  const chatPage = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'en-US' })
  await openSession(chatPage, web.url, title(events))
  return { name: title(events), events, page, chatPage, targets, times: { select: [], chat: [], cursor: [] } }
}

/** One jump as a person makes it: click the row, wait for its preview, click Jump here; times recorded into `times`. */
async function jump(opened: Opened, nodeId: string, times?: Timed): Promise<void> {
  const { page, chatPage } = opened
  const row = page.locator(`${TREE_ROWS}[data-node-id="${nodeId}"]`)
  const revision = await chatPage.evaluate(
    () => document.querySelector('[data-chat-flow]')?.getAttribute('data-session-tree-revision') ?? null,
  )
  const selectedAt = page.evaluate(
    (id) =>
      new Promise<number>((resolve) => {
        const holds = () =>
          document.querySelector('[data-testid="session-tree-preview"]')?.getAttribute('data-node-id') === id
        const observer = new MutationObserver(() => {
          if (!holds()) return
          observer.disconnect()
          resolve(Date.now())
        })
        observer.observe(document.body, { subtree: true, childList: true, attributes: true })
      }),
    nodeId,
  )
  await page.evaluate(() => 0)
  const t0 = Date.now()
  await row.click()
  const selected = await selectedAt
  const chat = whenShown(chatPage, { kind: 'chat', from: revision })
  const cursor = whenShown(page, { kind: 'cursor', nodeId })
  // Let both observers be in place before the click (an evaluate round trip).
  await Promise.all([page.evaluate(() => 0), chatPage.evaluate(() => 0)])
  await page.getByRole('button', { name: 'Jump here' }).click()
  const [chatAt, cursorAt] = await Promise.all([chat, cursor])
  const clicked = await page.evaluate(() => (window as unknown as { jumpClickedAt: number }).jumpClickedAt)
  if (!times) return
  times.select.push(selected - t0)
  times.chat.push(chatAt - clicked)
  times.cursor.push(cursorAt - clicked)
}

export const jumpSection: BenchSection = {
  name: 'jump',
  async run({ runs }): Promise<SectionResult> {
    if (!fs.existsSync(CHROMIUM)) return skipped(`${CHROMIUM} is missing (apt-get install -y chromium)`)
    await ensureDsh()
    const llm = await startFakeLlm({ script: [{ text: 'ANSWER-1: first.' }, { text: 'ANSWER-2: second.' }] })
    const plugin = await packPlugin()
    const seed = await seedSession(plugin.tgz, llm.url, 'bench-jump')
    let web: WebProcess | undefined
    let browser: Browser | undefined
    try {
      for (const events of [SMALL, BIG])
        writeSession(seed.home, seed.sessionId, harnessLog(events) as SessionLogEvent[], title(events))
      web = await startWeb({ home: seed.home, cwd: seed.work, llmUrl: llm.url, timeoutMs: 180_000 })
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless'] })
      const sessions = [await open(browser, web, SMALL), await open(browser, web, BIG)]
      // One unmeasured jump each (JIT, first paint of the Chat's switch row), then the runs, interleaved.
      for (const s of sessions) await jump(s, s.targets[1])
      const n = Math.max(7, runs)
      for (let i = 0; i < n; i++) for (const s of sessions) await jump(s, s.targets[i % 2]!, s.times)
      const rows: Row[] = sessions.map((s) => ({
        session: `${s.name}${s.events === SMALL ? ' (baseline)' : ''}`,
        'row → preview ms': fmt(median(s.times.select), 0),
        'Jump here → Chat median ms': fmt(median(s.times.chat), 0),
        'worst ms': fmt(Math.max(...s.times.chat), 0),
        'Jump here → Tree cursor median ms': fmt(median(s.times.cursor), 0),
        'worst ms ': fmt(Math.max(...s.times.cursor), 0),
      }))
      const [small, big] = sessions as [Opened, Opened]
      const check = (what: string, key: 'chat' | 'cursor'): Check => ({
        name: `a jump at ${BIG.toLocaleString('en-US')} events shows in ${what} < ${JUMP_BUDGET_MS} ms (median of ${n})`,
        pass: median(big.times[key]) < JUMP_BUDGET_MS,
        detail: `${fmt(median(big.times[key]), 0)} ms; baseline of this run (${SMALL} events) ${fmt(median(small.times[key]), 0)} ms`,
      })
      return {
        title: `a jump's round trip at ${BIG.toLocaleString('en-US')} events (Chromium, dsh web)`,
        columns: Object.keys(rows[0]!),
        rows,
        notes: [
          `${n} jumps per session between two answers on the active path, interleaved; each: click the row (→ its preview), click Jump here (→ the Chat's revision attribute changes in a second page with the session's Chat open, → the row carries the cursor), MutationObserver and Date.now in the page.`,
          `sessions written on disk as DSH stores them (the harness log of sync.ts, ${SMALL} and ${BIG.toLocaleString('en-US')} events), no sidecar: the plugin projects each tree when the session is opened.`,
        ],
        checks: [check('the Chat', 'chat'), check('the Tree tab', 'cursor')],
      }
    } finally {
      await browser?.close()
      await web?.stop()
      await llm.close()
      removeDir(seed.home)
      removeDir(seed.work)
    }
  },
}
