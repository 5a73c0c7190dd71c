/**
 * DSH web's own views of a session with stock switches (issue 10, host half),
 * in Debian's Chromium against the real `dsh web` (pinned stock harness, this
 * package installed from its tarball) and the recording fake LLM:
 *
 * - the Chat never breaks: three turns with a tool call, a jump across the
 *   tool exchange, a prompt, back, a prompt, a fork at an earlier node, a
 *   prompt; after each step and after a reload, no "Failed to load history",
 *   no console or page error (copies carry fresh call ids);
 * - the context meter stays right: after each move its figures (read in the
 *   page) equal the harness's own `measure()` and what the fake LLM received
 *   next (the fake reports usage priced by the same real estimator);
 * - the Trajectory tab places every tool row under the call that issued it;
 * - "Branch into a new conversation" on a turn followed by a switch seeds a
 *   child whose Chat loads and whose next request is that turn's history;
 * - a session whose provider reused a call id loads in DSH's own Chat and
 *   Trajectory in place (the browser half re-keys DSH's tool Definitions):
 *   the visible rows are the model's last request plus the reply, live, after
 *   a reload and after one more jump; `session` and the Tree tab report the
 *   log; export to Pi and import gives a new session with the whole tree
 *   (the provider's ids kept, and reported), whose Chat loads too.
 *
 * Evidence of every run: test/e2e/artifacts/chat-views/ (screenshots, meter.json,
 * requests, page console).
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { ExportResult, ImportResult, MoveResult, SessionStatus, SessionTreeView } from '../../src/types.ts'
import { DEMO_NOTES, DEMO_PROMPTS, DEMO_TITLE, demoModel } from '../../dev/demo-model.ts'
import { realTokenMeter, type RealTokenMeter } from '../support/token-meter.ts'
import { type ChatRequestBody, history } from './support/fake-llm.ts'
import { rowNodes } from './support/tree-tab.ts'
import {
  chatTranscript,
  dismissNotice,
  openSession as openChatSession,
  pathTranscript,
  requestTranscript,
  sameRows,
  visibleRows,
  watchChatProblems,
  type Row,
} from './support/chat-page.ts'
import { displayedRange, readMeter as readContextMeter } from './support/context-meter.ts'
import { meteredUsage, requestTokens } from './support/wire-tokens.ts'
import { until as waitUntil, type Probe } from './support/until.ts'
import { describeWeb } from './support/web-suite.ts'

const RESTORED_TITLE = 'Reused call ids, exported and imported'
const REUSED_TITLE = 'A provider that reuses call ids'

const until = <T>(what: string, probe: Probe<T>, timeoutMs = 15_000): Promise<T> => waitUntil(what, probe, timeoutMs)

/** The real token meter (set before the first prompt): the fake LLM reports the usage it prices. */
let meter: RealTokenMeter

const options = {
  name: 'chat-views',
  workspace: (work: string) => fs.writeFileSync(path.join(work, 'notes.txt'), DEMO_NOTES),
  llm: {
    titleText: DEMO_TITLE,
    script: Array.from({ length: 60 }, () => demoModel),
    usage: (...args: Parameters<ReturnType<typeof meteredUsage>>) => meteredUsage(meter)(...args),
  },
  browser: true,
}

describeWeb(
  "DSH web's Chat, context meter, Trajectory and Branch on a session with stock switches, in Chromium",
  options,
  (dsh) => {
    let sessionId: string
    /** The session whose provider reused a call id (set by its test). */
    let reuseId: string | undefined
    const problems: string[] = []
    const measured: Record<string, unknown> = {}
    dsh.evidence('meter.json', measured)

    const tree = (agentId = sessionId) => dsh.api.tree(agentId)
    const nodeWith = async (text: string) =>
      (await dsh.api.nodeWith(sessionId, (content) => content.startsWith(text))).nodeId
    const allEvents = async (id = sessionId) =>
      (await dsh.api.history(id, { maxMessages: 1_000_000 })).events.map((e) => e.event)

    const openSession = (title: string) => openChatSession(dsh.page, undefined, title)
    /**
     * The Chat shows `visible` (and, once the page shows the right session, not `absent`), with no load error and
     * no page error or console error since `from`.
     */
    const expectHealthyChat = async (label: string, from: number, visible: string, absent?: RegExp) => {
      await until(
        `${label}: "${visible}" in the Chat${absent ? `, without ${absent}` : ''}`,
        async () => {
          const text = await dsh.page.locator('body').innerText()
          return text.includes(visible) && !(absent && absent.test(text))
        },
        600_000,
      )
      expect(await dsh.page.getByText(/Failed to load history/).count(), `${label}: load error`).toBe(0)
      expect(problems.slice(from), `${label}: console or page errors`).toEqual([])
    }
    /**
     * The Chat's visible rows are exactly the model's request `body` plus the reply, with no load, console or page
     * error since `from`. Returns where the checked errors end.
     */
    const expectModelView = async (label: string, body: ChatRequestBody, from: number): Promise<number> => {
      const expected = requestTranscript(body, demoModel(body))
      let seen: Row[] = []
      await until(
        `${label}: the Chat's visible rows are the model's last request plus its reply, with no load error`,
        async () => {
          seen = chatTranscript(await visibleRows(dsh.page))
          return sameRows(expected, seen) && (await dsh.page.getByText(/Failed to load history/).count()) === 0
        },
        60_000,
      ).catch((error) => {
        throw new Error(`${String(error)}\nexpected ${JSON.stringify(expected)}\nvisible ${JSON.stringify(seen)}`)
      })
      expect(await dsh.page.getByText(/Failed to load history/).count(), `${label}: load error`).toBe(0)
      expect(problems.slice(from), `${label}: console or page errors`).toEqual([])
      return problems.length
    }
    const reloadAndOpen = async (title: string) => {
      await dsh.page.reload()
      await dsh.page.waitForLoadState('domcontentloaded')
      await dismissNotice(dsh.page)
      if (
        !(await dsh.page
          .getByRole('tab', { name: 'Chat' })
          .isVisible()
          .catch(() => false))
      )
        await openSession(title)
    }

    /**
     * A reload on which this plugin's bundle is slow. The host must not open the history before the bundle is in
     * (package.json `dsh.client.immediately`: the host prefetches the bundle with its own first tier and creates no
     * plugin entry before it arrives), else its Chat meets a repeated call id unwrapped and shows "Failed to load
     * history". No timer decides it: the bundle is held until either the history is requested (the host went on
     * without it: the order check below fails) or the host is visibly waiting for it (every other bundle of the
     * first tier served, and nothing of the later tier requested).
     */
    const reloadWithPluginSlow = async (title: string) => {
      // The first tier is the boot graph's `immediately` rows, as the host serves them.
      const html = await (await fetch(dsh.url)).text()
      const graph = JSON.parse(/window\.__DSH_BOOT__ = (\{.*?\})<\/script>/s.exec(html)![1]!) as {
        entries: { id: string; url: string; immediately?: boolean }[]
      }
      const ours = '/plugins/dsh-session-tree/client.js'
      const pathOf = (url: string) => new URL(url, dsh.url).pathname
      const firstTier = graph.entries.filter((row) => row.immediately).map((row) => pathOf(row.url))
      expect(firstTier.length, 'the boot graph has a first tier').toBeGreaterThan(0)
      const seen: string[] = []
      let check: () => void = () => {}
      const record = (kind: 'req' | 'res') => (event: { url(): string }) => {
        const url = event.url()
        if (url.includes('/plugins/') || url.includes('/api/session.history')) {
          seen.push(`${kind} ${pathOf(url)}`)
          check()
        }
      }
      const onRequest = record('req')
      const onResponse = record('res')
      dsh.page.on('request', onRequest)
      dsh.page.on('response', onResponse)
      const bundle = '**/plugins/dsh-session-tree/client.js*'
      await dsh.page.route(bundle, async (route) => {
        await new Promise<void>((release) => {
          check = () => {
            const historyAsked = seen.includes('req /api/session.history')
            const othersIn = firstTier.filter((p) => p !== ours).every((p) => seen.includes(`res ${p}`))
            const laterAsked = seen.some((line) => {
              const asked = line.startsWith('req /plugins/') ? line.slice(4) : undefined
              return asked !== undefined && asked !== ours && !firstTier.includes(asked)
            })
            // Outside the first tier the host would not wait for it at all: only the history ends the hold.
            if (historyAsked || (firstTier.includes(ours) && othersIn && !laterAsked)) release()
          }
          check()
        })
        await route.continue()
      })
      try {
        await reloadAndOpen(title)
        const bundleIn = seen.indexOf(`res ${ours}`)
        const historyAsked = seen.indexOf('req /api/session.history')
        expect(bundleIn, `this plugin's bundle arrived: ${seen.join(', ')}`).toBeGreaterThanOrEqual(0)
        expect(
          historyAsked > bundleIn,
          `the host asked for the history only after this plugin's bundle arrived: ${seen.join(', ')}`,
        ).toBe(true)
      } finally {
        dsh.page.off('request', onRequest)
        dsh.page.off('response', onResponse)
        check = () => {}
        await dsh.page.unroute(bundle)
      }
    }
    const readMeter = () => readContextMeter(dsh.page)

    /**
     * After a move: the page's meter, the host projections it shows, and the harness's own measurement;
     * then the next prompt, and what the fake LLM received. Returns the figures (saved as evidence).
     */
    const measureMove = async (label: string, prompt: string) => {
      const events = await allEvents()
      const projections = (await dsh.api.history(sessionId, { maxMessages: 1 })).projections!.values as {
        contextPressure: { projectedTokens: number; pressureTokens: number }
        contextBreakdown: { systemTokens: number; toolsTokens: number; messageTokens: number }
      }
      const harness = meter.measure(events)
      // What an unpriced switch (earlier versions) would show: the same log without the price events.
      const unpriced = meter.projections(events.filter((e) => e.type !== 'compaction/prune'))
      await until(`${label}: the meter shows the host's figure`, async () => {
        const shown = await readMeter()
        const [low, high] = displayedRange(shown.messages)
        return projections.contextBreakdown.messageTokens >= low && projections.contextBreakdown.messageTokens <= high
      })
      const shown = await readMeter()
      const before = dsh.llm.chatRequests().length
      const lastSeq = await dsh.api.lastSeq(sessionId)
      await dsh.api.prompt(sessionId, prompt)
      await dsh.llm.waitForChat(before + 1, 30_000)
      await dsh.api.waitTurnEnd(sessionId, lastSeq)
      const next = dsh.llm.chatRequests()[before]!.body
      expect(history(next).at(-1), `${label}: the next request ends with the prompt`).toEqual({
        role: 'user',
        text: prompt,
      })
      const received = requestTokens(meter, next)
      const promptTokens = received.messages.at(-1)!
      const figures = {
        page: shown,
        host: { projectedTokens: projections.contextPressure.projectedTokens, ...projections.contextBreakdown },
        harness: {
          totalTokens: harness.totalTokens,
          surfaceTokens: harness.surfaceTokens,
          baseline: harness.baseline.kind,
        },
        fakeLlm: {
          promptTokens: received.total,
          messageTokens: received.messages.reduce((a, b) => a + b, 0),
          newPromptTokens: promptTokens,
        },
        unpriced: {
          projectedTokens: unpriced.contextPressure.projectedTokens,
          messageTokens: unpriced.contextBreakdown.messageTokens,
        },
      }
      measured[label] = figures
      // Messages: the page's figure is the host's; it is the harness's measurement of the history; and it is what
      // the model received next, before the new prompt.
      const [low, high] = displayedRange(shown.messages)
      expect(figures.host.messageTokens, `${label}: page Messages ${shown.messages}`).toBeGreaterThanOrEqual(low)
      expect(figures.host.messageTokens, `${label}: page Messages ${shown.messages}`).toBeLessThanOrEqual(high)
      expect(figures.host.messageTokens, label).toBe(figures.harness.surfaceTokens)
      expect(figures.host.messageTokens, label).toBe(figures.fakeLlm.messageTokens - promptTokens)
      // Occupancy: the page's figure is the host's; it is the harness's total; and it is the next request's prompt
      // tokens as the fake LLM priced them, before the new prompt.
      const [usedLow, usedHigh] = displayedRange(shown.used)
      expect(figures.host.projectedTokens, `${label}: page figure ${shown.used}`).toBeGreaterThanOrEqual(usedLow)
      expect(figures.host.projectedTokens, `${label}: page figure ${shown.used}`).toBeLessThanOrEqual(usedHigh)
      expect(figures.host.projectedTokens, label).toBe(figures.fakeLlm.promptTokens - promptTokens)
      // The harness prices the request envelope itself (its system prompt and tool schemas, as the page's breakdown
      // rows show them): its total is the breakdown's sum.
      expect(figures.harness.totalTokens, label).toBe(
        figures.host.systemTokens + figures.host.toolsTokens + figures.host.messageTokens,
      )
      return figures
    }

    beforeAll(async () => {
      meter = await realTokenMeter()
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
      for (const prompt of DEMO_PROMPTS) await dsh.api.promptAndWait(sessionId, prompt)
      watchChatProblems(dsh.page, problems)
      await openChatSession(dsh.page, dsh.url, DEMO_TITLE)
    }, 600_000)

    afterAll(() => {
      if (Object.keys(measured).length > 0) console.log(`chat e2e meter: ${JSON.stringify(measured)}`)
    })

    it('a jump across the tool exchange, a prompt, back, a prompt, a fork, a prompt: the Chat loads, live and after a reload, and the meter agrees with each next request', async () => {
      await expectHealthyChat('start', 0, 'Food tour:')
      const steps: Array<{ label: string; move: () => Promise<MoveResult>; prompt: string }> = [
        {
          label: 'jump',
          move: async () =>
            dsh.api.remoteOk<MoveResult>('sessionTree/jump', { agentId: sessionId, nodeId: await nodeWith('Day 1:') }),
          prompt: 'after the jump',
        },
        {
          label: 'back',
          move: () => dsh.api.remoteOk<MoveResult>('sessionTree/back', { agentId: sessionId }),
          prompt: 'after the back',
        },
        {
          label: 'fork',
          move: async () =>
            dsh.api.remoteOk<MoveResult>('sessionTree/fork', {
              agentId: sessionId,
              nodeId: await nodeWith('Your notes say'),
              branch: 'budget',
            }),
          prompt: 'on the budget branch',
        },
      ]
      for (const step of steps) {
        const from = problems.length
        const moved = await step.move()
        expect(moved.mode, step.label).toBe('stock')
        expect(moved.switch?.noop, step.label).toBe(false)
        await measureMove(step.label, step.prompt)
        await expectHealthyChat(`${step.label}, live`, from, `the last one: “${step.prompt}”`)
        await dsh.shot(`chat-${step.label}.png`)
        await reloadAndOpen(DEMO_TITLE)
        await expectHealthyChat(`${step.label}, after a reload`, from, `the last one: “${step.prompt}”`)
      }
      // The back crossed the tool exchange again: its copies carry fresh ids, and no id repeats in the log.
      const calls = (await allEvents())
        .filter((e) => e.type === 'tool/call')
        .map((e) => (e.data as { callId: string }).callId)
      expect(calls.length).toBeGreaterThanOrEqual(2)
      expect(new Set(calls).size).toBe(calls.length)
      const status = await dsh.api.remoteOk<SessionStatus>('sessionTree/session', { agentId: sessionId })
      expect(status.logWarnings).toEqual([])
      expect(status.quarantine).toEqual([])
    }, 600_000)

    it('the Trajectory tab shows every tool row under the call that issued it, live and after a reload', async () => {
      const from = problems.length
      const calls = (await allEvents())
        .filter((e) => e.type === 'tool/call')
        .map((e) => (e.data as { callId: string }).callId)
      for (const phase of ['live', 'after a reload']) {
        if (phase !== 'live') await reloadAndOpen(DEMO_TITLE)
        await dsh.page.getByRole('tab', { name: 'Trajectory' }).click()
        const rows = dsh.page.locator('tr[data-trajectory-row-key]')
        await until('the trajectory rows', async () => (await rows.count()) > 10)
        const keys = await rows.evaluateAll((els) =>
          els.map((el) => decodeURIComponent(el.getAttribute('data-trajectory-row-key')!).split('\0')),
        )
        const toolRows = keys.flatMap((key, i) => (key[0] === 'tool' ? [{ i, callId: key[2]! }] : []))
        expect(toolRows.map((r) => r.callId).sort(), phase).toEqual([...calls].sort())
        for (const { i, callId } of toolRows) {
          // The row right before a tool row is the assistant message that called it (the copy's own step).
          expect(keys[i - 1]?.[0], `${phase}: the row before the tool row of ${callId}`).toBe('assistant')
        }
        expect(problems.slice(from), phase).toEqual([])
        await dsh.shot(`trajectory-${phase.replaceAll(' ', '-')}.png`)
        await dsh.page.getByRole('tab', { name: 'Chat' }).click()
      }
    }, 600_000)

    it('"Branch into a new conversation" on a turn followed by a switch: the child\'s Chat loads, its Tree tab works, and its next request is that turn\'s history', async () => {
      await dsh.page.getByRole('tab', { name: 'Chat' }).click()
      const from = problems.length
      const before = new Set((await dsh.api.listSessions()).map((s) => s.sessionId))
      // The turn that answered "after the jump" is followed by the back switch (its marker is queued before the
      // next turn starts, so the host's fork seed holds it).
      const events = await allEvents()
      const answer = events.find(
        (e) => e.type === 'assistant/message' && JSON.stringify(e.data).includes('the last one: “after the jump”'),
      )!
      const turn = (answer.data as { turn: number }).turn
      const seedEnd = events.findIndex((e) => e.type === 'turn/start' && e.seq > answer.seq)
      expect(
        events
          .slice(
            events.findIndex((e) => e.type === 'turn/end' && e.seq > answer.seq),
            seedEnd,
          )
          .some((e) => JSON.stringify(e.data).includes('dsh-session-tree:switch:')),
      ).toBe(true)
      const pathThen = history(
        dsh.llm.chatRequests().find((r) => history(r.body).at(-1)?.text === 'after the jump')!.body,
      )
      // That turn is off the path now (its rows, its tail with the Branch button, are hidden): "Show" first, as a person would.
      const tail = dsh.page.locator(`[data-turn-tail="${turn}"]`)
      for (const toggle of await dsh.page.getByTestId('session-tree-switch-toggle').filter({ visible: true }).all()) {
        if (await tail.isVisible()) break
        if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click()
      }
      await until('the hidden turn shown', () => tail.isVisible())
      await dsh.page
        .locator(`[data-turn-tail="${turn}"]`)
        .getByRole('button', { name: 'Branch into a new conversation' })
        .click()
      const child = await until(
        'the child session',
        async () => (await dsh.api.listSessions()).find((s) => !before.has(s.sessionId))?.sessionId,
      )
      // The page opens the child: the parent's later turns are gone.
      await expectHealthyChat('the child', from, 'the last one: “after the jump”', /the last one: “after the back”/)
      await dsh.shot('branch-child.png')
      // The child's tree: rebuilt from its seed, the cursor at the answer it was branched from.
      const childTree = await tree(child)
      expect(childTree.nodes.find((n) => n.nodeId === childTree.cursor)?.message?.content).toContain(
        'the last one: “after the jump”',
      )
      await dsh.page.getByTestId('session-tree-open').click()
      // One row per node, a tool exchange (request + call) being one row.
      await until(
        "the child's Tree rows",
        async () =>
          (await dsh.page.locator('[data-session-tree] [role="treeitem"]').count()) === rowNodes(childTree).length,
      )
      await dsh.page.getByRole('tab', { name: 'Chat' }).click()
      // The child runs no stale switch: its next request is the path of that turn, then the new prompt.
      const requests = dsh.llm.chatRequests().length
      await dsh.api.promptAndWait(child, 'in the child')
      expect(dsh.llm.chatRequests()).toHaveLength(requests + 1)
      expect(history(dsh.llm.chatRequests().at(-1)!.body)).toEqual([
        ...pathThen,
        {
          role: 'assistant',
          text: '(fake model) I was sent 2 prompt(s) on this path; the last one: “after the jump”.',
        },
        { role: 'user', text: 'in the child' },
      ])
      await expectHealthyChat('the child after a prompt', from, 'the last one: “in the child”')
      const status = await dsh.api.remoteOk<SessionStatus>('sessionTree/session', { agentId: child })
      expect([status.quarantine, status.logWarnings, status.pendingSwitch]).toEqual([[], [], undefined])
    }, 600_000)

    it("a provider that reuses a call id (the demo model numbers its calls by prompt count, so a read after a jump back gets the id of the read it left): DSH's Chat and Trajectory load, live and after a reload", async () => {
      const { sessionId: reuse } = await dsh.api.createSession({ cwd: dsh.work })
      reuseId = reuse
      await dsh.api.promptAndWait(reuse, DEMO_PROMPTS[0]!)
      await dsh.api.promptAndWait(reuse, DEMO_PROMPTS[1]!)
      const firstAnswer = (await tree(reuse)).nodes.find((n) => n.message?.content.startsWith('Day 1:'))!.nodeId
      await dsh.api.remoteOk('sessionTree/jump', { agentId: reuse, nodeId: firstAnswer })
      await dsh.api.promptAndWait(reuse, 'Read notes.txt once more')
      await dsh.api.callOk('session.rename', { sessionId: reuse, title: REUSED_TITLE })
      const calls = (await allEvents(reuse))
        .filter((e) => e.type === 'tool/call')
        .map((e) => (e.data as { callId: string }).callId)
      expect(calls).toEqual(['call_notes_2', 'call_notes_2'])
      const status = await dsh.api.remoteOk<SessionStatus>('sessionTree/session', { agentId: reuse })
      expect(status.logWarnings).toEqual([
        expect.objectContaining({ code: 'REPEATED_CALL_IDS', count: 1, callId: 'call_notes_2' }),
      ])
      const body = dsh.llm.chatRequests().at(-1)!.body
      expect(history(body).filter((m) => m.role === 'tool')).toHaveLength(1)
      let from = problems.length
      await openChatSession(dsh.page, dsh.url, REUSED_TITLE)
      await expectModelView('live', body, from)
      await dsh.shot('reused-id-chat.png')
      await reloadAndOpen(REUSED_TITLE)
      await expectModelView('after a reload', body, from)
      await reloadWithPluginSlow(REUSED_TITLE)
      from = await expectModelView('after a reload with this plugin slow to load', body, from)
      // "Show" brings back the read the jump left, as its own card with its own result.
      // Toggles are read on every try (one may still be drawing); each is clicked once: a second click would mean
      // a shown switch row collapsed by itself.
      const toggles = dsh.page.getByTestId('session-tree-switch-toggle').filter({ visible: true })
      let clicks = 0
      await until('both read cards shown', async () => {
        for (const toggle of await toggles.all()) {
          if ((await toggle.getAttribute('aria-expanded')) === 'false') {
            await toggle.click()
            clicks += 1
          }
        }
        return (await visibleRows(dsh.page)).filter((row) => row.kind === 'tool-call').length === 2
      })
      expect(clicks, 'each Show clicked once (none collapsed again by itself)').toBeLessThanOrEqual(
        await toggles.count(),
      )
      await dsh.shot('reused-id-chat-shown.png')
      expect(problems.slice(from), 'after Show: console or page errors').toEqual([])
      await dsh.page.getByRole('tab', { name: 'Trajectory' }).click()
      const rows = dsh.page.locator('tr[data-trajectory-row-key]')
      await until('the trajectory rows', async () => (await rows.count()) > 5)
      const toolRows = await rows.evaluateAll((els) =>
        els
          .map((el) => decodeURIComponent(el.getAttribute('data-trajectory-row-key')!).split('\0'))
          .filter((key) => key[0] === 'tool'),
      )
      expect(toolRows).toHaveLength(2)
      expect(problems.slice(from), 'Trajectory: console or page errors').toEqual([])
      await dsh.shot('reused-id-trajectory.png')
      // The Tree tab reports the log and says the Chat reads it.
      await dsh.page.getByTestId('session-tree-open').click()
      const banner = dsh.page.getByTestId('session-tree-log-warning')
      await banner.waitFor({ timeout: 15_000 })
      expect(await banner.getAttribute('data-code')).toBe('REPEATED_CALL_IDS')
      expect(await banner.textContent()).toBe(
        `This session’s log repeats a call id (1 tool call, first at event ${status.logWarnings![0]!.firstSeq}: the provider reused it, or an import answered a call on two branches). DSH’s Chat and Trajectory show it here: this plugin keys those calls apart. A program that reads the log by itself may not.`,
      )
      await dsh.shot('reused-id-tree.png')
      // One more move across the same tool exchange, then a prompt: the Chat follows, still with no error.
      await dsh.page.getByRole('tab', { name: 'Chat' }).click()
      await dsh.api.remoteOk('sessionTree/jump', { agentId: reuse, nodeId: firstAnswer })
      await dsh.api.promptAndWait(reuse, 'after one more jump')
      const last = dsh.llm.chatRequests().at(-1)!.body
      expect(history(last).at(-1)).toEqual({ role: 'user', text: 'after one more jump' })
      await expectModelView('after one more jump', last, from)
      await reloadAndOpen(REUSED_TITLE)
      await expectModelView('after one more jump and a reload', last, from)
    }, 600_000)
    it('the whole tree of such a session comes back in a new session: exportAs pi, then importSession; its Chat loads and shows the selected path, live and after a reload', async () => {
      if (!reuseId) throw new Error('the session with reused call ids was not made (an earlier step failed)')
      // A stored session loads in the harness when it gets a message.
      await dsh.api.promptAndWait(reuseId, 'before the export')
      const old = await tree(reuseId)
      const path = pathTranscript(old.nodes, old.cursor)
      const exported = await dsh.api.remoteOk<ExportResult>('sessionTree/exportAs', {
        request: { agentId: reuseId, format: 'pi', path: null, inline: true },
      })
      const imported = await dsh.api.remoteOk<ImportResult>('sessionTree/importSession', {
        request: { path: null, content: exported.content, format: 'pi', dryRun: false, cwd: dsh.work },
      })
      const restored = imported.sessionId!
      // The provider's ids come along as they were (two calls, one id, on two branches), and the tree reports it.
      const calls = (await allEvents(restored))
        .filter((e) => e.type === 'tool/call')
        .map((e) => (e.data as { callId: string }).callId)
      expect(calls).toEqual(['call_notes_2', 'call_notes_2'])
      await dsh.api.callOk('session.rename', { sessionId: restored, title: RESTORED_TITLE })
      // The model goes on from the selected path.
      const requests = dsh.llm.chatRequests().length
      await dsh.api.promptAndWait(restored, 'in the restored session')
      expect(dsh.llm.chatRequests()).toHaveLength(requests + 1)
      const body = dsh.llm.chatRequests().at(-1)!.body
      expect(requestTranscript(body)).toEqual([...path, { role: 'user', text: 'in the restored session' }])
      // Every node came along (plus the new prompt and its answer; the harness's runtime-context snapshots aside).
      const fresh = await tree(restored)
      const shape = (view: SessionTreeView) =>
        view.nodes
          .filter((n) => (n.message || n.type === 'tool_call') && !n.origin?.injected)
          .map((n) => `${n.type}:${n.message?.content ?? ''}`)
      expect(shape(fresh)).toHaveLength(shape(old).length + 2)
      expect(shape(fresh)).toEqual(expect.arrayContaining(shape(old)))
      expect((await dsh.api.remoteOk<SessionStatus>('sessionTree/session', { agentId: restored })).logWarnings).toEqual(
        [expect.objectContaining({ code: 'REPEATED_CALL_IDS', count: 1, callId: 'call_notes_2' })],
      )
      // In the page: the Chat loads and shows exactly that request plus the reply, with no error.
      const from = problems.length
      await openChatSession(dsh.page, dsh.url, RESTORED_TITLE)
      const expected = requestTranscript(body, demoModel(body))
      for (const phase of ['live', 'after a reload']) {
        if (phase !== 'live') await reloadAndOpen(RESTORED_TITLE)
        let seen: Row[] = []
        await until(
          `${phase}: the restored Chat's visible rows are the model's last request plus its reply`,
          async () => {
            seen = chatTranscript(await visibleRows(dsh.page))
            return sameRows(expected, seen)
          },
          60_000,
        ).catch((error) => {
          throw new Error(`${String(error)}\nexpected ${JSON.stringify(expected)}\nvisible ${JSON.stringify(seen)}`)
        })
        expect(await dsh.page.getByText(/Failed to load history/).count(), `${phase}: load error`).toBe(0)
        expect(problems.slice(from), `${phase}: console or page errors`).toEqual([])
      }
      await dsh.shot('reused-id-restored.png')
    }, 600_000)
  },
)
