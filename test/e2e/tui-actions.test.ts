/**
 * The scene's other moves in the real dsh-TUI 0.10.2 (tmux, 160×48): label, jump with
 * "Summarize", back, forward, fork with "Summarize with my instructions", take the files along
 * (conversation and files; the agent changed no file, so only the conversation moves and a hand
 * edit stays), then quit and resume. Each move is judged at the
 * fake LLM's next recorded request (the path's prompts, a carried summary exactly once) and by the
 * screen with its scrollback, by the one rule of `support/tui-judge.ts`: no "Turn error" or "turn
 * blocked", nothing drawn twice, every message row below the last switch row on the model's path, and
 * that row's hidden count exactly the off-path rows above it. Evidence: test/e2e/artifacts/tui-actions/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import { CARRIED_PREFIX } from '../../src/harness/carried-summary.ts'
import { saveArtifact } from './support/artifacts.ts'
import { sessionIds } from './support/dsh-tui.ts'
import { type ChatRequestBody, type RecordedRequest, messageText, userPrompts } from './support/fake-llm.ts'
import { type Terminal } from './support/tmux.ts'
import { expectReadsAsModel as theRule, readScreen } from './support/tui-judge.ts'
import { tuiSuite } from './support/tui-suite.ts'
import { DEMO_PROMPTS } from '../../dev/demo-model.ts'
import { describeNeeding, tmux } from '../support/prerequisites.ts'

/** The demo model's three prompts: the second makes it call `read`. */
const [FIRST, TOOL, THIRD] = DEMO_PROMPTS
const SUMMARY_ONE = 'MODEL-SUMMARY-ONE: the food tour branch read notes.txt.'
const SUMMARY_TWO = 'MODEL-SUMMARY-TWO: the files were notes.txt.'
const INSTRUCTIONS = 'name the files'
const EDITED = 'Trip notes\n- budget: 900 EUR, edited by hand\n'

/** The typed prompts of a request (the carried summary left out) and how many messages hold `text`. */
const promptsOf = (body: ChatRequestBody): string[] =>
  userPrompts(body)
    .map(messageText)
    .filter((text) => !text.startsWith(CARRIED_PREFIX))
const holding = (body: ChatRequestBody, text: string): number =>
  body.messages.filter((m) => messageText(m).includes(text)).length

describeNeeding([tmux], 'every scene move in the real dsh-TUI 0.10.2', () => {
  const suite = tuiSuite({ name: 'tui-actions', answers: 60, requestsShown: 100 })
  let tui: Terminal | undefined

  /** Type a prompt; returns the request that answered it once its answer is on screen. */
  const ask = async (prompt: string, answer: RegExp): Promise<RecordedRequest> => {
    const before = suite.llm.chatRequests().length
    await tui!.type(prompt)
    await tui!.keys('Enter')
    await tui!.until((s) => answer.test(s) && suite.llm.chatRequests().length > before, `the answer to ${prompt}`)
    await tui!.settled(`the answer to ${prompt}`)
    return suite.llm
      .chatRequests()
      .filter((r) => promptsOf(r.body).at(-1) === prompt)
      .at(-1)!
  }

  const scene = (): Promise<string> => suite.openScene()
  const search = async (query: string): Promise<void> => {
    await tui!.type(query)
    await tui!.until((s) => s.includes(`search: ${query}`) && /\b1 shown/.test(s), `the search ${query}`, {
      visible: true,
    })
  }
  /** Escape clears the search (one press), then closes the scene (another). */
  const leave = async (): Promise<void> => {
    if (/search: [^\n]*▏/.test(await tui!.visible())) {
      await tui!.keys('Escape')
      await tui!.until((s) => !/search: [^\n]*▏/.test(s), 'the search to clear', { visible: true })
    }
    await tui!.keys('Escape')
    await tui!.until((s) => !/Conversation tree/.test(s), 'the scene to close', { visible: true })
  }
  const shot = (name: string): Promise<string> => suite.shot(name)
  /** Every move judged by the one rule (`support/tui-judge.ts`), all four parts. */
  const expectReadsAsModel = async (name: string, request: RecordedRequest): Promise<void> => {
    const reading = readScreen(await shot(name), request, [], suite.llm.chatRequests())
    saveArtifact(suite.artifacts, `${name}.reading.json`, reading)
    theRule(reading)
  }

  it('label, summarize (each choice), back, forward, take the files along, and a resume: each next request is the selected path', async () => {
    // Tall: the live transcript scrolls inside dsh-TUI's own view, and the judge reads every row.
    tui = await suite.start({ rows: 100 })
    await ask(FIRST, /Day 1: Alfama/)
    await ask(TOOL, /budget is 300 EUR/)
    const third = await ask(THIRD, /Food tour:/)

    // Label the first answer; the outline marks it.
    await scene()
    await search('day 1')
    await tui.keys('L')
    await tui.until((s) => /Label \(empty removes it\)/.test(s), 'the label prompt', { visible: true })
    await tui.type('start')
    await tui.keys('Enter')
    await tui.until((s) => /Labeled e\d+/.test(s) && /\[start\]/.test(s), 'the label', { visible: true })
    saveArtifact(suite.artifacts, 'scene-label.txt', await tui.visible())

    // Jump there with "Summarize": the side call writes it, the next request holds it once.
    suite.llm.setSummary({ text: SUMMARY_ONE })
    const summaries = suite.llm.summaryRequests().length
    await tui.keys('Enter')
    await tui.until((s) => /No summary/.test(s) && /Summarize with my instructions/.test(s), 'the summary choice', {
      visible: true,
    })
    await tui.keys('2')
    await tui.until((s) => /Moved to e\d+/.test(s), 'the jump with a summary', { visible: true })
    expect(suite.llm.summaryRequests()).toHaveLength(summaries + 1)
    await leave()
    const afterJump = await ask('After the summarized jump', /the last one: “After the summarized jump”/)
    expect(promptsOf(afterJump.body)).toEqual([FIRST, 'After the summarized jump'])
    expect(holding(afterJump.body, SUMMARY_ONE)).toBe(1)
    await expectReadsAsModel('after-summarized-jump', afterJump)

    // Back: undoes the jump, the model reads the food tour path again.
    await scene()
    await tui.keys('B')
    await tui.until((s) => /Moved to e\d+/.test(s), 'back', { visible: true })
    await leave()
    const afterBack = await ask('After going back', /the last one: “After going back”/)
    expect(promptsOf(afterBack.body)).toEqual([FIRST, TOOL, THIRD, 'After going back'])
    expect(holding(afterBack.body, SUMMARY_ONE)).toBe(0)
    expect(afterBack.body.messages.length).toBeGreaterThan(third.body.messages.length)
    await expectReadsAsModel('after-back', afterBack)

    // Forward: redoes what back undid.
    await scene()
    await tui.keys('R')
    await tui.until((s) => /Moved to e\d+/.test(s), 'forward', { visible: true })
    await leave()
    const afterForward = await ask('After going forward', /the last one: “After going forward”/)
    // Back undid the summarized jump; forward redoes it: the path of the prompt typed after it, its summary once.
    expect(promptsOf(afterForward.body)).toEqual([FIRST, 'After the summarized jump', 'After going forward'])
    expect(holding(afterForward.body, SUMMARY_ONE)).toBe(1)
    await expectReadsAsModel('after-forward', afterForward)

    // Fork at the food tour answer, "Summarize with my instructions": they reach the side call.
    suite.llm.setSummary({ text: SUMMARY_TWO })
    await scene()
    await search('food tour:')
    await tui.keys('F')
    await tui.until((s) => /Name of the new branch/.test(s), 'the fork prompt', { visible: true })
    await tui.type('rainy')
    await tui.keys('Enter')
    await tui.until((s) => /Summarize with my instructions/.test(s), 'the summary choice', { visible: true })
    await tui.keys('3')
    await tui.until((s) => /What should the summary focus on\?/.test(s), 'the instructions prompt', { visible: true })
    await tui.type(INSTRUCTIONS)
    await tui.keys('Enter')
    await tui.until((s) => /Forked rainy @ e\d+/.test(s), 'the fork with instructions', { visible: true })
    expect(messageText(suite.llm.summaryRequests().at(-1)!.body.messages.at(-1)!)).toContain(INSTRUCTIONS)
    await leave()
    const afterFork = await ask('On the rainy branch', /the last one: “On the rainy branch”/)
    expect(promptsOf(afterFork.body)).toEqual([FIRST, TOOL, THIRD, 'On the rainy branch'])
    expect(holding(afterFork.body, SUMMARY_TWO)).toBe(1)
    await expectReadsAsModel('after-fork-instructions', afterFork)

    // Take the files along to the first answer (conversation and files). Checkpoints hold what the agent changed, and
    // it changed nothing here: the preview says so, the hand edit stays (nothing of the user's is lost), the conversation moves.
    fs.writeFileSync(path.join(suite.home.cwd, 'notes.txt'), EDITED)
    await scene()
    await search('day 1: alfama')
    await tui.keys('T')
    await tui.until((s) => /Conversation and files/.test(s), 'the files choice', { visible: true })
    await tui.keys('Down', 'Down', 'Enter')
    const preview = await tui.until((s) => /Restore preview → e\d+/.test(s), 'the restore preview', { visible: true })
    saveArtifact(suite.artifacts, 'restore-preview.txt', preview)
    expect(preview).toMatch(/No file changes\./)
    await tui.keys('Enter')
    const restored = await tui.until((s) => /Files restored → e\d+/.test(s), 'the restore', { visible: true })
    saveArtifact(suite.artifacts, 'restored.txt', restored)
    expect(fs.readFileSync(path.join(suite.home.cwd, 'notes.txt'), 'utf8')).toBe(EDITED)
    await leave()
    const afterRestore = await ask('After taking the files along', /the last one: “After taking the files along”/)
    expect(promptsOf(afterRestore.body)).toEqual([FIRST, 'After taking the files along'])
    await expectReadsAsModel('after-restore', afterRestore)

    // Quit and resume from the log alone: the same judgments.
    const [sessionId] = sessionIds(suite.home.dshHome)
    await tui.type('/exit')
    await tui.keys('Enter')
    for (let i = 0; i < 100 && (await tui.alive()); i++) await new Promise((resolve) => setTimeout(resolve, 100))
    await tui.kill()
    // Tall enough for the whole transcript: dsh-TUI draws a resumed one in its own view, one screen high.
    tui = await suite.start({ args: ['--resume', sessionId!], rows: 120 })
    await tui.until(
      // Drawn whole: the first answer and the last one painted in full (a replay fills the answers in after the rows).
      (s) =>
        s.includes(FIRST) &&
        s.includes('LX Factory in the afternoon.') &&
        s.includes('the last one: “After taking the files along”'),
      'the resumed transcript',
    )
    await tui.settled('the resumed transcript')
    await expectReadsAsModel('after-resume', afterRestore)
    const afterResume = await ask('After the resume', /the last one: “After the resume”/)
    expect(promptsOf(afterResume.body)).toEqual([FIRST, 'After taking the files along', 'After the resume'])
    await expectReadsAsModel('after-resume-prompt', afterResume)
  }, 600_000)
})
