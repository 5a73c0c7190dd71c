/**
 * The tree in the real dsh-TUI: `@deepseek-harness-tui/dsh-tui` 0.10.2 and this
 * package's tarball installed by the test into one profile of a fresh
 * `DSH_HOME` (and a fresh `HOME`), driven in tmux at 160×48, judged by the
 * screen text against what the recording fake LLM was sent.
 *
 * - The scene opens from `/session-tree` and from Alt+T, with node ids and the
 *   first prompt.
 * - A jump and a fork made in the scene change the next request to the
 *   selected path.
 * - After each move and a prompt, and after quitting and resuming: no "turn
 *   blocked" row and no "Turn error", no message row drawn twice, and every
 *   message row is on the model's path or counted by the switch row below it
 *   ("N message(s) above hidden from the model").
 * - `/session-tree list` opens its whole text in the scene (not a 200-cell toast).
 * - At 80 columns in Chinese the scene fits and a compare stacks.
 * - A switch to another branch draws no prompt or answer twice (its copies are
 *   shaped for dsh-TUI), live, after a prompt and after quitting and resuming.
 * - What is left, measured: a switch to a branch with a tool exchange draws that
 *   exchange's tool card a second time, exactly as many as the switch row says.
 *
 * tmux is required (`.ci/run` installs it): without it the suite fails, naming
 * the Debian package (`test/support/prerequisites.ts`). Evidence: test/e2e/artifacts/tui/
 * (every screen, the requests); `UPDATE_DOCS_SCREENS=1` copies the screens
 * that docs/tui.md shows into docs/tui/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { REPO_ROOT } from '../../dev/harness.ts'
import { saveArtifact } from './support/artifacts.ts'
import { sessionIds, transcriptRows } from './support/dsh-tui.ts'
import { messageText, userPrompts } from './support/fake-llm.ts'
import { expectReadsAsModel, readScreen } from './support/tui-judge.ts'
import { type Terminal } from './support/tmux.ts'
import { tuiSuite } from './support/tui-suite.ts'
import { DEMO_PROMPTS } from '../../dev/demo-model.ts'
import { describeNeeding, tmux } from '../support/prerequisites.ts'

const DOCS = path.join(REPO_ROOT, 'docs', 'tui')
/** The demo model's three prompts: the second makes it call `read`. */
const [FIRST, TOOL, THIRD] = DEMO_PROMPTS
const AFTER_JUMP = 'Actually, plan Porto instead'
const AFTER_FORK = 'What about two days in Sintra?'
const AFTER_RESUME = 'One more idea for the evening'
const AFTER_SIBLING = 'And a rainy-day plan?'
const AFTER_TOOL_BRANCH = 'And on the last evening?'

/** The kind of a judged row (`user …`, `tool …`, `assistant …`). */
const kindOf = (row: string): string => row.split(' ')[0]!

describeNeeding([tmux], 'the tree in the real dsh-TUI 0.10.2, in tmux', () => {
  const suite = tuiSuite({ name: 'tui', answers: 100, requestsShown: 200 })
  let tui: Terminal | undefined
  const screens: Record<string, string> = {}

  const save = async (name: string, options: { visible?: boolean } = {}): Promise<string> => {
    const screen = options.visible ? await tui!.visible() : await tui!.screen()
    screens[name] = screen
    saveArtifact(suite.artifacts, `${name}.txt`, screen)
    return screen
  }

  const requestFor = (prompt: string) => suite.requestFor(prompt)
  const send = (prompt: string, answer: RegExp): Promise<void> => suite.send(prompt, answer)
  const openScene = (how: 'command' | 'shortcut'): Promise<string> => suite.openScene(how)
  const closeScene = (): Promise<void> => suite.closeScene()

  // The captures go to docs/ only from a run where every test passed.
  afterAll(() => {
    if (!suite.failed && process.env.UPDATE_DOCS_SCREENS === '1') {
      fs.mkdirSync(DOCS, { recursive: true })
      for (const [name, screen] of Object.entries(screens)) fs.writeFileSync(path.join(DOCS, `${name}.txt`), screen)
    }
  })

  it('opens the scene from /session-tree and Alt+T; a jump and a fork there change the next request; the transcript says what the model reads, live and after a resume', async () => {
    tui = await suite.start()
    await send(FIRST, /Day 1: Alfama/)
    await send(TOOL, /budget is 300 EUR/)
    await send(THIRD, /Food tour:/)

    // The scene from the command: node ids and the first prompt.
    const scene = await openScene('command')
    await save('scene-160', { visible: true })
    expect(scene).toMatch(/\be\d+ user Plan a weekend in Lisbon/)
    expect(scene).toMatch(/◀ you are here/)
    await closeScene()
    // …and from the shortcut.
    await openScene('shortcut')

    // Jump: search for the first answer, Enter, no summary.
    await tui.type('day 1')
    await tui.until((screen) => /search: day 1/.test(screen) && /1 shown/.test(screen), 'the search', { visible: true })
    await tui.keys('Enter')
    await tui.until((screen) => /No summary/.test(screen), 'the summary choice', { visible: true })
    await tui.keys('1')
    await tui.until((screen) => /Moved to e\d+/.test(screen), 'the jump', { visible: true })
    await tui.keys('Escape')
    await closeScene()
    await send(AFTER_JUMP, /Porto instead: Ribeira/)
    const afterJump = requestFor(AFTER_JUMP)
    expect(userPrompts(afterJump.body).map(messageText)).toEqual([FIRST, AFTER_JUMP])
    const jumped = readScreen(await save('after-jump'), afterJump)
    expectReadsAsModel(jumped)
    expect(jumped.switches).toHaveLength(1)
    // What the model no longer reads: the tool turn and the food tour (prompt, card, answer; prompt, answer).
    expect(jumped.offPathAbove.map(kindOf)).toEqual(['user', 'tool', 'assistant', 'user', 'assistant'])

    // Fork at the first answer, named, from the scene; then a prompt on the new branch.
    await openScene('shortcut')
    // The Porto answer says "day 1" too: search for the first answer's own words.
    await tui.type('day 1: alfama')
    await tui.until((screen) => /search: day 1: alfama/.test(screen) && /1 shown/.test(screen), 'the search', {
      visible: true,
    })
    await tui.keys('F')
    await tui.until((screen) => /Name of the new branch/.test(screen), 'the fork prompt', { visible: true })
    await tui.type('sintra')
    await tui.keys('Enter')
    await tui.until((screen) => /No summary/.test(screen), 'the summary choice', { visible: true })
    await tui.keys('1')
    await tui.until((screen) => /Forked sintra @ e\d+/.test(screen), 'the fork', { visible: true })
    await tui.keys('Escape')
    await save('scene-after-fork', { visible: true })
    await closeScene()
    await send(AFTER_FORK, /Sintra|prompt\(s\) on this path/)
    const afterFork = requestFor(AFTER_FORK)
    expect(userPrompts(afterFork.body).map(messageText)).toEqual([FIRST, AFTER_FORK])
    const forked = readScreen(await save('after-fork'), afterFork)
    expectReadsAsModel(forked)
    expect(forked.switches).toHaveLength(2)
    expect(forked.switches[1]!.text).toMatch(/Switched to sintra/)

    // A text subcommand: its whole output, in the scene (a toast would cut it at 200 cells).
    await tui.type('/session-tree list')
    await tui.keys('Enter')
    const listing = await tui.until(
      (screen) => /\/session-tree list/.test(screen) && /Esc close/.test(screen),
      'the listing page',
      { visible: true },
    )
    await save('list-page', { visible: true })
    const page = listing.split('\n').filter((line) => /\be\d+\b/.test(line))
    expect(page.length).toBeGreaterThanOrEqual(6)
    expect(listing).toContain(FIRST)
    expect(listing).toContain(AFTER_FORK)
    expect(page.join('\n').length).toBeGreaterThan(200)
    // A line longer than the terminal wraps in the page (it used to be cut at the right edge with "…").
    expect(listing).toMatch(/the\s+selected\s+path,\s+also\s+after\s+a\s+restart\./)
    await tui.keys('Escape')
    await closeScene()

    // Quit, resume from the log alone: the same transcript, still no error and nothing twice.
    const [sessionId] = sessionIds(suite.home.dshHome)
    expect(sessionId).toBeDefined()
    await tui.type('/exit')
    await tui.keys('Enter')
    await tui.until(() => true, 'exit')
    for (let i = 0; i < 100 && (await tui.alive()); i++) await new Promise((resolve) => setTimeout(resolve, 100))
    await tui.kill()
    tui = await suite.start({ args: ['--resume', sessionId!] })
    await tui.until(
      (screen) => screen.includes(AFTER_FORK) && /Day 1: Alfama/.test(screen) && /Porto instead: Ribeira/.test(screen),
      'the resumed transcript',
    )
    await tui.settled('the resumed transcript')
    const resumed = readScreen(await save('after-resume'), afterFork)
    expectReadsAsModel(resumed)
    expect(resumed.switches.map((row) => row.hidden)).toEqual(forked.switches.map((row) => row.hidden))
    await send(AFTER_RESUME, /prompt\(s\) on this path/)
    expect(userPrompts(requestFor(AFTER_RESUME).body).map(messageText)).toEqual([FIRST, AFTER_FORK, AFTER_RESUME])
  }, 600_000)

  it('at 80 columns in Chinese (dsh-TUI’s language): the scene fits, its words are Chinese, a compare stacks', async () => {
    const [sessionId] = sessionIds(suite.home.dshHome)
    expect(sessionId).toBeDefined()
    await tui?.kill()
    tui = await suite.start({
      args: ['--resume', sessionId!],
      columns: 80,
      rows: 30,
      extra: { DSH_TUI_LANG: 'zh' },
    })
    await tui.keys('M-t')
    const scene = await tui.until(
      (screen) => /对话树/.test(screen) && /\be\d+ /.test(screen) && !/正在读取/.test(screen),
      'the scene in Chinese',
      { visible: true },
    )
    await save('scene-80-zh', { visible: true })
    expect(scene).toMatch(/当前位置/)
    expect(scene).toMatch(/Enter 跳转/)
    expect(scene).toMatch(/\be\d+ 用户 Plan a weekend in Lisbon/)
    // The preview sits under the outline at 80 columns.
    expect(scene).toMatch(/── 预览/)
    // Compare the cursor with the Porto answer (another branch after e19): the page stacks A over B.
    await tui.keys('C')
    await tui.until((screen) => /对比：选择第二个节点/.test(screen), 'the compare hint', { visible: true })
    await tui.type('porto instead: ribeira')
    await tui.until((screen) => /搜索: porto instead: ribeira/.test(screen) && /1 显示/.test(screen), 'the search', {
      visible: true,
    })
    await tui.keys('C')
    const compare = await tui.until((screen) => /两条路径分叉于/.test(screen), 'the compare page', { visible: true })
    await save('compare-80-zh', { visible: true })
    expect(compare).toMatch(/^\s*A e\d+ user: What about two days in Sintra\?/m)
    expect(compare).toMatch(/^\s*B e\d+ user: Actually, plan Porto instead/m)
    expect(compare).not.toMatch(/ │ /)
    await tui.keys('Escape')
  }, 300_000)

  /** Quit dsh-TUI (its `/exit`), then start it again on the same session (`--resume`, the log alone). */
  const quitAndResume = async (ready: (screen: string) => boolean): Promise<void> => {
    // Tall enough for the whole transcript: dsh-TUI draws a resumed one in its own view, one screen high.
    tui = await suite.resume(ready, { rows: 100 })
  }

  /** A resumed transcript drawn whole: its first prompt, the answers painted (a replay fills them in after the rows). */
  const wholeTranscript = (screen: string): boolean =>
    screen.includes(FIRST) &&
    /Day 1: Alfama/.test(screen) &&
    /Porto instead: Ribeira/.test(screen) &&
    screen.includes(`the last one: “${AFTER_SIBLING}”`)

  it('a switch to another branch draws nothing twice (its copies are shaped for dsh-TUI), live and after quitting and resuming', async () => {
    const [sessionId] = sessionIds(suite.home.dshHome)
    await tui?.kill()
    tui = await suite.start({ args: ['--resume', sessionId!] })
    await tui.settled('the resumed transcript')
    await openScene('shortcut')
    await tui.type('porto instead: ribeira')
    await tui.until((screen) => /search: porto instead: ribeira/.test(screen) && /1 shown/.test(screen), 'the search', {
      visible: true,
    })
    await tui.keys('Enter')
    await tui.until((screen) => /No summary/.test(screen), 'the summary choice', { visible: true })
    await tui.keys('1')
    await tui.until((screen) => /Moved to e\d+/.test(screen), 'the switch', { visible: true })
    await tui.keys('Escape')
    await closeScene()
    await tui.until((text) => (text.match(/Switched to/g) ?? []).length >= 3, 'the third switch row')
    await tui.settled('the third switch row')
    const live = await save('after-sibling-switch')
    // The Porto prompt and answer stay drawn once, where they were typed and answered.
    expect(live.match(/Actually, plan Porto instead/g)).toHaveLength(1)
    expect(transcriptRows(live).filter((row) => /restate the path/.test(row.text))).toEqual([])
    await send(AFTER_SIBLING, /prompt\(s\) on this path/)
    const request = requestFor(AFTER_SIBLING)
    expect(userPrompts(request.body).map(messageText)).toEqual([FIRST, AFTER_JUMP, AFTER_SIBLING])
    const judged = readScreen(await save('after-sibling-prompt'), request)
    expectReadsAsModel(judged)
    expect(judged.switches).toHaveLength(3)

    await quitAndResume((screen) => wholeTranscript(screen) && (screen.match(/Switched to/g) ?? []).length >= 3)
    const resumed = readScreen(await save('after-sibling-resume'), request)
    expectReadsAsModel(resumed)
    expect(resumed.switches.map((row) => row.hidden)).toEqual(judged.switches.map((row) => row.hidden))
    expect(resumed.rows).toEqual(judged.rows)
  }, 300_000)

  it('what is left, measured: a switch back to a branch with a tool exchange draws its tool card twice, as the switch row says', async () => {
    await openScene('shortcut')
    await tui!.type('food tour:')
    await tui!.until((screen) => /search: food tour:/.test(screen) && /1 shown/.test(screen), 'the search', {
      visible: true,
    })
    await tui!.keys('Enter')
    await tui!.until((screen) => /No summary/.test(screen), 'the summary choice', { visible: true })
    await tui!.keys('1')
    await tui!.until((screen) => /Moved to e\d+/.test(screen), 'the switch', { visible: true })
    await tui!.keys('Escape')
    await closeScene()
    await tui!.until((text) => /Switched to main at e\d+ · 8 message/.test(text), 'the fourth switch row')
    await tui!.settled('the fourth switch row')
    saveArtifact(suite.artifacts, 'after-tool-branch-switch-live.txt', await tui!.screen())
    // The resumed transcript is drawn whole into the scrollback (the live one scrolls inside dsh-TUI's own view).
    await quitAndResume((text) => wholeTranscript(text) && (text.match(/Switched to/g) ?? []).length >= 4)
    const screen = await save('after-tool-branch-switch')
    // Only the tool card of the copied exchange is drawn twice (dsh-TUI draws one for every call), as the row says.
    expect(transcriptRows(screen).filter((row) => row.kind === 'tool')).toHaveLength(2)
    // A prompt there: the screen reads as the model's history (the card twice is what the switch row says it restated).
    await send(AFTER_TOOL_BRANCH, /the last one: “And on the last evening\?”/)
    const request = requestFor(AFTER_TOOL_BRANCH)
    expect(userPrompts(request.body).map(messageText)).toEqual([FIRST, TOOL, THIRD, AFTER_TOOL_BRANCH])
    const judged = readScreen(await save('after-tool-branch-prompt'), request)
    expectReadsAsModel(judged)
    expect(judged.switches.map((row) => row.restated)).toEqual([0, 0, 0, 1])
    expect(judged.rows.filter((row) => kindOf(row) === 'tool')).toHaveLength(2)
  }, 300_000)
})
