/**
 * No polling (issue 25.4), judged from outside in real Chromium against the real `dsh web`: every
 * HTTP request the pages send is recorded (playwright's request events, the DevTools protocol's
 * network log). An open Tree tab and an open Chat, idle, send no request over a fixed observation
 * window (a count: the polling they replaced sent one `session` read a second per view); each holds
 * one `watch` the service answers when the session's tree moves. A move made elsewhere — `/tree` in
 * another client (the web's command remote), a label and a jump in another tab — shows in the Tree
 * tab and in the Chat. The time from a move to the Tree tab showing it is a bench figure
 * (`npm run bench`, section live), not judged here.
 *
 * Evidence: test/e2e/artifacts/live-tree/ (network.log, windows.json, screenshots).
 */
import { beforeAll, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { chatTranscript, openSession, pathTranscript, sameRows, visibleRows, type Row } from './support/chat-page.ts'
import { openTreeTab, TREE_ROWS } from './support/tree-tab.ts'
import { until } from './support/until.ts'
import { readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

const TITLE = 'Live tree'
/** How long an idle page is watched: the polling it replaced sent 10 `session` reads per view in it. */
const WINDOW_MS = 10_000

const options = {
  name: 'live-tree',
  llm: { titleText: TITLE, script: readOrAnswerScript(20) },
  browser: true,
}

/** The requests a page sends (method and path), and which of them are still open. */
function requestsOf(page: Page) {
  const started: string[] = []
  /** What each started request carried (its body, cut), for the evidence and a failure's message. */
  const bodies: string[] = []
  const open = new Map<object, { name: string; body: string }>()
  page.on('request', (r) => {
    const name = `${r.method()} ${new URL(r.url()).pathname}`
    started.push(name)
    bodies.push(`${name} ${(r.postData() ?? '').slice(0, 300)}`)
    open.set(r, { name, body: r.postData() ?? '' })
  })
  page.on('requestfinished', (r) => open.delete(r))
  page.on('requestfailed', (r) => open.delete(r))
  return {
    started,
    bodies,
    /**
     * The page's own calls are done and it holds its push channel: one `watch`, nothing else of ours open,
     * and that watch holds `revision` (the session's now), so it answers only when the session changes.
     */
    settled: (revision: string) => {
      const ours = [...open.values()].filter((r) => r.name.includes('/api/sessionTree/'))
      return (
        ours.length === 1 &&
        ours[0]!.name === 'POST /api/sessionTree/watch' &&
        ours[0]!.body.includes(`"revision":"${revision}"`)
      )
    },
  }
}

describeWeb('the Tree tab and the Chat learn of changes without polling, in Chromium', options, (dsh) => {
  let sessionId: string
  let treePage: Page
  let chatPage: Page
  let tree: ReturnType<typeof requestsOf>
  let chat: ReturnType<typeof requestsOf>
  const windows: Record<string, unknown> = {}
  dsh.evidence('windows.json', windows)

  const row = (page: Page, nodeId: string) => page.locator(`${TREE_ROWS}[data-node-id="${nodeId}"]`)
  const cursorRow = (page: Page) => page.locator(`${TREE_ROWS}[aria-current="location"]`).getAttribute('data-node-id')
  const command = (line: string) =>
    dsh.api.remoteOk<{ result: { kind: string; text?: string } }>('commands/execute', {
      agentId: sessionId,
      line,
      images: [],
    })
  /** The Chat shows the session's selected path, exactly. */
  const chatShowsPath = async (what: string) => {
    const view = await dsh.api.tree(sessionId)
    const expected = pathTranscript(view.nodes, view.cursor)
    let seen: Row[] = []
    await until(
      `${what}: the Chat shows the selected path`,
      async () => {
        // The host's own row for a `/tree` command (its answer) is not part of the path.
        seen = chatTranscript(await visibleRows(chatPage)).filter((r) => r.role !== 'command')
        return sameRows(expected, seen)
      },
      30_000,
    ).catch((error) => {
      throw new Error(`${String(error)}\nexpected ${JSON.stringify(expected)}\nvisible ${JSON.stringify(seen)}`)
    })
  }

  beforeAll(async () => {
    ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
    await dsh.api.promptAndWait(sessionId, 'first question')
    await dsh.api.promptAndWait(sessionId, 'second question')
    treePage = dsh.page
    tree = requestsOf(treePage)
    chatPage = await dsh.newPage()
    chat = requestsOf(chatPage)
    await openTreeTab(treePage, dsh.url, new RegExp(`^(${TITLE}|first question)$`))
    await openSession(chatPage, dsh.url, new RegExp(`^(${TITLE}|first question)$`))
  }, 600_000)

  it('an idle open Tree tab and an idle Chat send no request', async () => {
    const { revision } = await dsh.api.status(sessionId)
    await until(
      'the Tree tab holds its push channel at the revision now, nothing else',
      () => tree.settled(revision),
      30_000,
    )
    await until(
      'the Chat holds its push channel at the revision now, nothing else',
      () => chat.settled(revision),
      30_000,
    )
    // Nothing moved meanwhile (else a page could be told of it in the window).
    expect((await dsh.api.status(sessionId)).revision).toBe(revision)
    const from = { tree: tree.started.length, chat: chat.started.length }
    // An observation window, not a race: what is counted is what the pages sent in it.
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS))
    const sent = { tree: tree.started.slice(from.tree), chat: chat.started.slice(from.chat) }
    const carried = { tree: tree.bodies.slice(from.tree), chat: chat.bodies.slice(from.chat) }
    windows.idle = { windowMs: WINDOW_MS, ...carried }
    const ours = (names: string[]) => names.filter((name) => name.includes('/api/sessionTree/'))
    expect(ours(sent.tree), `the Tree tab, idle: ${JSON.stringify(carried.tree)}`).toEqual([])
    expect(ours(sent.chat), `the Chat, idle: ${JSON.stringify(carried.chat)}`).toEqual([])
    // Nor does anything else of the page (the host's own pushes come over its WebSocket).
    expect(
      sent.tree.filter((name) => name.includes('/api/')),
      'the Tree tab page, idle',
    ).toEqual([])
    expect(
      sent.chat.filter((name) => name.includes('/api/')),
      'the Chat page, idle',
    ).toEqual([])
  }, 120_000)

  it('/tree in another client: the Tree tab and the Chat show the move', async () => {
    const first = await dsh.api.nodeWith(sessionId, 'ANSWER to: first question')
    const answered = await command(`/tree jump ${first.nodeId}`)
    expect(answered.result.kind, JSON.stringify(answered.result)).toBe('success')
    await until(
      'the Tree tab shows the cursor where /tree put it',
      async () => (await cursorRow(treePage)) === first.nodeId,
      30_000,
    )
    await chatShowsPath('/tree jump')
    await dsh.shot('tree-after-command.png', treePage)
    await dsh.shot('chat-after-command.png', chatPage)
    await command(`/tree label ${first.nodeId} "from the command"`)
    await until(
      'the Tree tab shows the label /tree set',
      async () => ((await row(treePage, first.nodeId).textContent()) ?? '').includes('from the command'),
      30_000,
    )
  }, 120_000)

  it('a label and a jump in another tab show in this one, and in the Chat', async () => {
    const other = await dsh.newPage()
    await openTreeTab(other, dsh.url, new RegExp(`^(${TITLE}|first question)$`))
    const second = await dsh.api.nodeWith(sessionId, 'ANSWER to: second question')
    await row(other, second.nodeId).click()
    await other.keyboard.press('l')
    const input = other.getByTestId('session-tree-label-form').locator('input')
    await expect.poll(() => input.evaluate((el) => el === document.activeElement)).toBe(true)
    await input.fill('from the other tab')
    await input.press('Enter')
    await until(
      'this Tree tab shows the label the other tab set',
      async () => ((await row(treePage, second.nodeId).textContent()) ?? '').includes('from the other tab'),
      30_000,
    )
    await row(other, second.nodeId).click()
    await other.keyboard.press('Enter')
    await until(
      'this Tree tab shows the jump the other tab made',
      async () => (await cursorRow(treePage)) === second.nodeId,
      30_000,
    )
    await chatShowsPath('a jump in another tab')
    await dsh.shot('tree-after-other-tab.png', treePage)
    await other.close()
  }, 120_000)
})
