/**
 * DSH's own Chat shows the selected path, and never breaks: Debian
 * `chromium` (playwright-core) against the real `dsh web` with this package
 * installed from its tarball, the recording fake LLM as the model. In stock
 * mode (the unpatched harness) and in native mode (the patched one).
 *
 * The conversation: three turns with a tool call, a jump across the tool
 * exchange, a prompt, back, a prompt, a fork at an earlier node, a prompt,
 * then ‹ k / n › to a sibling branch and a prompt. After EVERY step, live and
 * after a full page reload:
 * - no "Failed to load history", no console error, no page error;
 * - the visible Chat rows, in order, are exactly the model's history: the
 *   fake LLM's last request body (injected runtime context aside) plus its
 *   reply after a prompt; after a move, the tree path, which the NEXT request
 *   is then checked against (so the screen is tied to what the model reads);
 * - hence no row of an abandoned branch and no message twice.
 * "Show" reveals the hidden rows (dimmed) and "Hide" hides them again. A long
 * session (more than the Chat's first page of 50 messages) is scrolled back
 * page by page. Screenshots (light and dark) after a switch go to
 * test/e2e/artifacts/chat-<mode>/ (`UPDATE_DOCS_SCREENSHOT=1`: docs/ too).
 */
import { beforeAll, expect, it } from 'vitest'
import type { ChatPath } from '../../src/types.ts'
import { recordFromLoad, startFrames, stopFrames, violations } from './support/chat-frames.ts'
import {
  appliedRevision,
  chatTranscript,
  openSession,
  pathTranscript,
  requestTranscript,
  sameRows,
  visibleRows,
  type Row,
} from './support/chat-page.ts'
import { messageText, readOrAnswer, userPrompts, type ChatRequestBody, type StaticStep } from './support/fake-llm.ts'
import { until as waitUntil, type Probe } from './support/until.ts'
import { notesWorkspace } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'
import { cjkFont, requirePrerequisites } from '../support/prerequisites.ts'

const TITLE = 'Chat follows the tree'
/** How late the page gets every `chatPath` answer: the window in which a switch's rows could flash. */
const ANSWER_DELAY_MS = 700

const until = <T>(
  what: string,
  probe: Probe<T>,
  timeoutMs = 30_000,
  describeLast?: () => Promise<string>,
): Promise<T> => waitUntil(what, probe, timeoutMs, describeLast)

/**
 * The suites' model: `readOrAnswer`, and for a prompt saying `JUMP TO e<n>` it moves its own history
 * there with the `tree` tool's jump (inside its step), then answers MOVED-DONE after the move's result.
 */
function model(body: ChatRequestBody): StaticStep {
  const messages = body.messages
  const lastAssistant = messages.map((m) => m.role).lastIndexOf('assistant')
  if (messages.slice(lastAssistant + 1).some((m) => m.role === 'tool' && messageText(m).startsWith('Moved')))
    return { text: 'MOVED-DONE' }
  const prompt = userPrompts(body).at(-1)
  const target =
    prompt && messages.lastIndexOf(prompt) > lastAssistant ? /JUMP TO (e\d+)/.exec(messageText(prompt))?.[1] : undefined
  if (target) return { toolCalls: [{ name: 'tree', arguments: { action: 'jump', node: target } }] }
  return readOrAnswer(body)
}

/** The Chat's rows after the first three turns (the second reads notes.txt). */
const THREE_TURNS = [
  'first question',
  'ANSWER to: first question',
  'please READ notes.txt',
  'read',
  'READ-DONE: banana',
  'third question',
  'ANSWER to: third question',
]
const show = (rows: readonly Row[]) => rows.map((r) => `${r.role}: ${r.text}`).join('\n')

for (const mode of ['stock', 'native'] as const) {
  const options = {
    name: `chat-${mode}`,
    variant: mode,
    workspace: notesWorkspace,
    llm: { titleText: TITLE, script: Array.from({ length: 200 }, () => model) },
    browser: { viewport: { width: 1280, height: 900 } },
  }
  describeWeb(`DSH's Chat follows the tree in ${mode} mode (real dsh web, Chromium)`, options, (dsh) => {
    let sessionId: string
    const problems: string[] = []
    const evidence: Record<string, unknown> = {}
    const frameEvidence: Record<string, unknown> = {}
    dsh.evidence('chat-rows.json', evidence)
    dsh.evidence('chat-frames.json', frameEvidence)
    dsh.evidence('problems.txt', () => problems.join('\n'))

    const tree = () => dsh.api.tree(sessionId)
    const status = () => dsh.api.status(sessionId)
    const chatPath = () => dsh.api.remoteOk<ChatPath>('sessionTree/chatPath', { agentId: sessionId })
    const nodeWith = (text: string) => dsh.api.nodeWith(sessionId, text)
    const lastRequest = () => dsh.llm.chatRequests().at(-1)!

    /**
     * Every painted state of the Chat is recorded from just before a change (a move, a prompt, a page
     * load, an older page) until the Chat shows its final rows; `expectChat` then checks that no
     * recorded state, from the one where the change reached the page on, showed a row the final state
     * does not show. The service's `chatPath` answers reach the page late (`ANSWER_DELAY_MS`, at the
     * HTTP layer), so the time between a switch's events and the answer is long and certain.
     */
    let recording:
      { readonly before: ReadonlySet<string>; readonly answers: number; readonly inStep?: number } | undefined
    let delayedAnswers = 0
    /** `inStep`: the move happens inside the model's step, after the prompt's own rows (record from the log's seq now). */
    const watch = async (inStep = false) => {
      const before = new Set(
        await dsh.page.evaluate(() =>
          [...document.querySelectorAll('[data-chat-flow] > [data-chat-flow-key]')].map(
            (el) => (el as HTMLElement).dataset.chatFlowKey!,
          ),
        ),
      )
      const fromSeq = inStep ? await dsh.api.lastSeq(sessionId) : undefined
      await startFrames(dsh.page)
      recording = { before, answers: delayedAnswers, ...(fromSeq === undefined ? {} : { inStep: fromSeq }) }
    }
    /**
     * A move inside the model's step lands with its first event that changes the history (a
     * replacement or a copy, read from the log): until then the rows it leaves are the history.
     */
    const switchSeat = async (fromSeq: number): Promise<(key: string) => boolean> => {
      const events = (await dsh.api.history(sessionId, { maxMessages: 50 })).events.map((e) => e.event)
      const first = events.find(
        (e) =>
          e.seq > fromSeq &&
          (typeof e.surfaceOp === 'object' ||
            (e.surfaceOp === 'append' && Array.isArray(e.sourceEventSeqs) && e.sourceEventSeqs.length === 1)),
      )
      expect(first, 'the in-step move left a replacement or a copy in the log').toBeDefined()
      return (key) => key.endsWith(`:session-tree-fork${first!.seq}`)
    }
    const checkFrames = async (step: string) => {
      if (!recording) return
      const { before, answers, inStep } = recording
      recording = undefined
      const frames = await stopFrames(dsh.page)
      const final = new Set((await visibleRows(dsh.page)).map((r) => r.key))
      const landsWith = inStep === undefined ? undefined : await switchSeat(inStep)
      const { landed, bad } = violations(frames, before, final, sessionId, landsWith)
      frameEvidence[step] = { frames: frames.length, landed, answersDelayed: delayedAnswers - answers, bad }
      expect(landed, `${step}: the change reached the Chat while it was recorded`).toBeGreaterThanOrEqual(0)
      expect(delayedAnswers, `${step}: a late chatPath answer came in while the Chat was recorded`).toBeGreaterThan(
        answers,
      )
      expect(bad, `${step}: painted states that showed a row the Chat then hides (of ${frames.length})`).toEqual([])
    }

    /** The Chat shows exactly `expected` (and our decorations were applied at the session's current revision). */
    const expectChat = async (step: string, expected: readonly Row[]) => {
      const revision = (await status()).revision
      await until(
        `the Chat to show the model's history (${step})`,
        async () => {
          if ((await appliedRevision(dsh.page)) !== revision) return false
          return sameRows(expected, chatTranscript(await visibleRows(dsh.page)))
        },
        30_000,
        async () =>
          `expected:\n${show(expected)}\nvisible:\n${show(chatTranscript(await visibleRows(dsh.page)))}\napplied ${await appliedRevision(dsh.page)}, session ${revision}`,
      )
      const rows = chatTranscript(await visibleRows(dsh.page))
      const seen = rows.map((r) => `${r.role}:${r.text}`)
      expect(new Set(seen).size, `a message shown twice (${step})`).toBe(seen.length)
      expect(
        await dsh.page.evaluate(() => document.body.innerText.includes('Failed to load history')),
        `"Failed to load history" (${step})`,
      ).toBe(false)
      expect(problems, `console or page errors (${step})`).toEqual([])
      evidence[step] = rows
      await checkFrames(step)
    }
    /** The same after a full page reload (recorded from the new page's first paint). */
    const expectChatAfterReload = async (step: string, expected: readonly Row[]) => {
      recording = { before: new Set(), answers: delayedAnswers }
      await dsh.page.reload()
      await openSession(dsh.page, undefined, TITLE)
      await expectChat(`${step}, after a reload`, expected)
    }
    /** After a prompt: the Chat is the last request plus the reply. */
    const afterPrompt = async (step: string) => {
      const expected = requestTranscript(lastRequest().body, lastRequest().reply)
      await expectChat(step, expected)
      await expectChatAfterReload(step, expected)
      return expected
    }
    /** After a move: the Chat is the tree path (checked against the next request by `promptVia`). */
    const afterMove = async (step: string) => {
      const view = await tree()
      const expected = pathTranscript(view.nodes, view.cursor)
      await expectChat(step, expected)
      await expectChatAfterReload(step, expected)
      return expected
    }
    /** Send a prompt (the UI composer, as a person would) and check the model read `before` plus it. */
    const promptVia = async (text: string, before: readonly Row[]) => {
      await watch()
      const requests = dsh.llm.chatRequests().length
      const lastSeq = await dsh.api.lastSeq(sessionId)
      const composer = dsh.page.locator('[data-slot="conversation.composer"] textarea')
      await composer.fill(text)
      await dsh.page.getByRole('button', { name: 'Send message' }).click()
      await dsh.llm.waitForChat(requests + 1, 30_000)
      await dsh.api.waitTurnEnd(sessionId, lastSeq)
      const first = dsh.llm.chatRequests()[requests]!
      expect(requestTranscript(first.body), `the request after "${text}" holds what the Chat showed`).toEqual([
        ...before,
        { role: 'user', text },
      ])
    }
    beforeAll(async () => {
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
      await dsh.api.promptAndWait(sessionId, 'first question')
      dsh.page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()}`)
      })
      dsh.page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
      // The page calls every method through `attempt` (src/client/remote.ts): hold back the ones that carry `chatPath`.
      await dsh.page.route('**/api/sessionTree/attempt', async (route) => {
        let method: unknown
        try {
          method = (route.request().postDataJSON() as { payload?: { args?: { method?: unknown } } } | null)?.payload
            ?.args?.method
        } catch {
          method = undefined
        }
        if (method === 'chatPath') {
          await new Promise((resolve) => setTimeout(resolve, ANSWER_DELAY_MS))
          delayedAnswers++
        }
        await route.continue()
      })
      await recordFromLoad(dsh.page)
      recording = { before: new Set(), answers: delayedAnswers }
      await openSession(dsh.page, dsh.url, TITLE)
    }, 600_000)

    it('three turns with a tool call, live and after a reload: the Chat is the model history', async () => {
      const status0 = await status()
      expect(status0.surfaceMode).toBe(mode)
      // The page as it first opened (recorded from its first paint).
      await expectChat('first open', requestTranscript(lastRequest().body, lastRequest().reply))
      await watch()
      await dsh.api.promptAndWait(sessionId, 'please READ notes.txt')
      await dsh.api.promptAndWait(sessionId, 'third question')
      const expected = await afterPrompt('three turns')
      expect(expected.map((r) => r.text)).toEqual(THREE_TURNS)
    }, 600_000)

    it('a jump across the tool exchange hides the abandoned turns behind one switch row; Show reveals them dimmed', async () => {
      const a1 = await nodeWith('ANSWER to: first question')
      await watch()
      await dsh.api.remoteOk('sessionTree/jump', { agentId: sessionId, nodeId: a1.nodeId })
      const expected = await afterMove('jump across the tool exchange')
      expect(expected.map((r) => r.text)).toEqual(['first question', 'ANSWER to: first question'])
      const row = dsh.page.getByTestId('session-tree-switch').filter({ visible: true })
      await expect.poll(() => row.count()).toBe(1)
      expect(await row.innerText()).toMatch(/Switched to main\s*·\s*5 messages hidden\s*·\s*Show/)
      await row.getByTestId('session-tree-switch-toggle').click()
      const revealed = await until('the hidden rows to show', async () => {
        const rows = await visibleRows(dsh.page)
        return rows.some((r) => r.text.startsWith('third question')) ? rows : false
      })
      const dim = revealed.filter((r) => r.opacity < 1).map((r) => r.kind)
      expect(
        sameRows(
          [
            { role: 'user', text: 'please READ notes.txt' },
            { role: 'tool', text: 'read' },
            { role: 'assistant', text: 'READ-DONE: banana' },
            { role: 'user', text: 'third question' },
            { role: 'assistant', text: 'ANSWER to: third question' },
          ],
          chatTranscript(revealed.filter((r) => r.opacity < 1)),
        ),
      ).toBe(true)
      expect(dim).toContain('turn-tail')
      expect(await row.innerText()).toMatch(/5 messages the model no longer reads\s*·\s*Hide/)
      await dsh.shot('show-light.png')
      await row.getByTestId('session-tree-switch-toggle').click()
      await expectChat('jump, hidden again', expected)
    }, 600_000)

    let afterRewind: Row[] = []
    it('a prompt after the jump: the model reads exactly what the Chat showed', async () => {
      await promptVia('after the rewind', pathTranscript((await tree()).nodes, (await tree()).cursor))
      afterRewind = await afterPrompt('prompt after the jump')
      expect(afterRewind.map((r) => r.text)).toEqual([
        'first question',
        'ANSWER to: first question',
        'after the rewind',
        'ANSWER to: after the rewind',
      ])
    }, 600_000)

    it('back to the tool exchange: the originals show again, the copies never do', async () => {
      await watch()
      await dsh.api.remoteOk('sessionTree/back', { agentId: sessionId })
      const expected = await afterMove('back')
      expect(expected.map((r) => r.text)).toEqual(THREE_TURNS)
      await promptVia('after going back', expected)
      await afterPrompt('prompt after back')
    }, 600_000)

    it('a fork at an earlier node and a prompt: "New branch" row, ‹ 3 / 3 › on the new prompt', async () => {
      const a1 = await nodeWith('ANSWER to: first question')
      await watch()
      await dsh.api.remoteOk('sessionTree/fork', { agentId: sessionId, nodeId: a1.nodeId, branch: 'alt' })
      const expected = await afterMove('fork at the first answer')
      await promptVia('on the alt branch', expected)
      const rows = await afterPrompt('prompt on the fork')
      expect(rows.map((r) => r.text)).toEqual([
        'first question',
        'ANSWER to: first question',
        'on the alt branch',
        'ANSWER to: on the alt branch',
      ])
      const fork = dsh.page.getByTestId('session-tree-fork').filter({ visible: true })
      await expect.poll(() => fork.count()).toBe(1)
      expect((await fork.innerText()).replace(/\s+/g, ' ')).toBe('‹ 3 / 3 ›')
      const lead = dsh.page.getByTestId('session-tree-switch').filter({ visible: true })
      expect(await lead.innerText()).toMatch(/New branch alt\s*·\s*\d+ messages hidden\s*·\s*Show/)
      // Screenshots of the Chat after a switch, light and dark (the README shows them).
      await dsh.shot('chat-light.png')
      await dsh.shotDark('chat-dark.png')
      if (mode === 'stock') {
        dsh.toDocs('chat-light.png', 'chat.png')
        dsh.toDocs('chat-dark.png')
      }
      // The same Chat for a person whose browser speaks Chinese (the host follows it): same rows, Chinese words.
      const zh = await dsh.browser.newContext({
        viewport: { width: 1280, height: 900 },
        colorScheme: 'dark',
        locale: 'zh-CN',
      })
      try {
        const other = await zh.newPage()
        const errors: string[] = []
        other.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text())
        })
        other.on('pageerror', (e) => errors.push(e.message))
        await openSession(other, dsh.url, TITLE)
        await until(
          'the Chinese Chat',
          async () =>
            sameRows(rows, chatTranscript(await visibleRows(other))) &&
            (await appliedRevision(other)) === (await status()).revision,
        )
        expect(await other.getByTestId('session-tree-switch').filter({ visible: true }).innerText()).toMatch(
          /新分支\s*alt\s*·\s*已隐藏 9 条消息\s*·\s*显示/,
        )
        expect(
          await other
            .getByTestId('session-tree-fork')
            .filter({ visible: true })
            .getByRole('button')
            .first()
            .getAttribute('aria-label'),
        ).toBe('上一个分支')
        // Drawn in a CJK font, not as tofu: without one, every Han character is the same missing-glyph box.
        requirePrerequisites(cjkFont)
        const glyphs = await other
          .getByTestId('session-tree-switch')
          .filter({ visible: true })
          .evaluate((el) => {
            const font = getComputedStyle(el).font
            const draw = (text: string) => {
              const canvas = document.createElement('canvas')
              canvas.width = 64
              canvas.height = 32
              const g = canvas.getContext('2d')!
              g.font = font
              g.fillStyle = '#000'
              g.fillText(text, 4, 24)
              return canvas.toDataURL()
            }
            return { font, a: draw('新'), b: draw('支'), c: draw('隐') }
          })
        expect(new Set([glyphs.a, glyphs.b, glyphs.c]).size, `distinct Han glyphs in ${glyphs.font}`).toBe(3)
        await dsh.shot('chat-zh-dark.png', other)
        if (mode === 'stock') dsh.toDocs('chat-zh-dark.png')
        expect(errors).toEqual([])
      } finally {
        await zh.close()
      }
    }, 600_000)

    it('‹ moves to the sibling branch; the next request follows it', async () => {
      const before = await chatPath()
      const fork = dsh.page.getByTestId('session-tree-fork').filter({ visible: true })
      await watch()
      await fork.getByRole('button', { name: 'Previous branch' }).click()
      await until(
        'the move to land',
        async () =>
          (await chatPath()).revision !== before.revision &&
          (await status()).cursor === (await nodeWith('ANSWER to: after the rewind')).nodeId,
      )
      const expected = await afterMove('‹ to the sibling')
      expect(expected).toEqual(afterRewind)
      await expect
        .poll(async () =>
          (await dsh.page.getByTestId('session-tree-fork').filter({ visible: true }).innerText()).replace(/\s+/g, ' '),
        )
        .toBe('‹ 2 / 3 ›')
      await promptVia('after the arrows', expected)
      await afterPrompt('prompt after ‹')
      expect(dsh.llm.faults).toEqual([])
    }, 600_000)

    if (mode === 'stock') {
      it("the model's own move (a tree jump inside its step): the prompt it left is hidden behind a switch row", async () => {
        ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
        await dsh.api.promptAndWait(sessionId, 'model one')
        await dsh.api.promptAndWait(sessionId, 'model two')
        const a1 = await nodeWith('ANSWER to: model one')
        recording = { before: new Set(), answers: delayedAnswers }
        await dsh.page.reload()
        await openSession(dsh.page, undefined, TITLE)
        await expectChat("before the model's move", requestTranscript(lastRequest().body, lastRequest().reply))
        // Live: the model moves inside its step; the prompt it left must never show with the copies.
        await watch(true)
        await dsh.api.promptAndWait(sessionId, `please JUMP TO ${a1.nodeId}`)
        expect(lastRequest().reply).toEqual({ text: 'MOVED-DONE' })
        const expected = await afterPrompt("the model's move")
        expect(expected.map((r) => r.text)).toEqual(['model one', 'ANSWER to: model one', 'tree', 'MOVED-DONE'])
        const sw = dsh.page.getByTestId('session-tree-switch').filter({ visible: true })
        expect(await sw.innerText()).toMatch(/Switched to main\s*·\s*3 messages hidden\s*·\s*Show/)
      }, 600_000)

      it('a long session (more than the first page) scrolled back: every page reads as the model history', async () => {
        ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
        for (let i = 1; i <= 30; i++) await dsh.api.promptAndWait(sessionId, `long ${i}`)
        const early = await nodeWith('ANSWER to: long 3')
        await dsh.api.remoteOk('sessionTree/jump', { agentId: sessionId, nodeId: early.nodeId })
        await dsh.api.promptAndWait(sessionId, 'back near the start')
        const expected = requestTranscript(lastRequest().body, lastRequest().reply)
        expect(expected.map((r) => r.text)).toEqual([
          'long 1',
          'ANSWER to: long 1',
          'long 2',
          'ANSWER to: long 2',
          'long 3',
          'ANSWER to: long 3',
          'back near the start',
          'ANSWER to: back near the start',
        ])
        // Recorded from the reload through every older page: no page shows a row the scrolled-back Chat hides.
        recording = { before: new Set(), answers: delayedAnswers }
        await dsh.page.reload()
        // The second session has the same title (the fake model names every session alike): the newest is first.
        await openSession(dsh.page, undefined, TITLE)
        const older = dsh.page.getByRole('button', { name: 'Load earlier' })
        // The first page holds the tail only: the switch row and the new turn, the older path not yet.
        await until(
          'the first page',
          async () => (await appliedRevision(dsh.page)) === (await status()).revision && (await older.isVisible()),
        )
        expect(chatTranscript(await visibleRows(dsh.page))).toEqual([
          { role: 'user', text: 'back near the start' },
          { role: 'assistant', text: 'ANSWER to: back near the start' },
        ])
        for (let pages = 0; await older.isVisible(); pages++) {
          expect(pages, 'pages of history').toBeLessThan(10)
          const count = await dsh.page.locator('[data-chat-flow] > [data-chat-flow-key]').count()
          await older.click()
          await until(
            'an older page',
            async () => (await dsh.page.locator('[data-chat-flow] > [data-chat-flow-key]').count()) > count,
          )
        }
        await expectChat('long session, scrolled back', expected)
        const sw = dsh.page.getByTestId('session-tree-switch').filter({ visible: true })
        expect(await sw.innerText()).toMatch(/Switched to main\s*·\s*54 messages hidden/)

        // "Show" on the first page: the hidden turns lie in older pages, and Show loads the pages it needs.
        await dsh.page.reload()
        await openSession(dsh.page, undefined, TITLE)
        await until(
          'the first page again',
          async () => (await appliedRevision(dsh.page)) === (await status()).revision && (await older.isVisible()),
        )
        const lead = dsh.page.getByTestId('session-tree-switch').filter({ visible: true })
        await lead.getByTestId('session-tree-switch-toggle').click()
        const hiddenTurns = Array.from({ length: 27 }, (_, i) => [
          { role: 'user', text: `long ${i + 4}` },
          { role: 'assistant', text: `ANSWER to: long ${i + 4}` },
        ]).flat()
        await until(
          'Show to load the older pages it reveals',
          async () =>
            (await dsh.page.getByTestId('session-tree-switch-loading').count()) === 0 &&
            sameRows(hiddenTurns, chatTranscript((await visibleRows(dsh.page)).filter((r) => r.opacity < 1))),
          60_000,
          async () =>
            JSON.stringify({
              row: await lead.innerText(),
              older: await older.isVisible(),
              dimmed: chatTranscript((await visibleRows(dsh.page)).filter((r) => r.opacity < 1)).map((r) => r.text),
            }),
        )
        expect(
          await lead.getByTestId('session-tree-switch-partial').count(),
          'a Show that could not load its rows',
        ).toBe(0)
        expect(await lead.innerText()).toMatch(/54 messages the model no longer reads\s*·\s*Hide/)
        await lead.getByTestId('session-tree-switch-toggle').click()
        await until(
          'hidden again',
          async () => chatTranscript((await visibleRows(dsh.page)).filter((r) => r.opacity < 1)).length === 0,
        )
        expect(problems, 'console or page errors (Show across pages)').toEqual([])
      }, 600_000)
    }
  })
}
