/**
 * "Open as a new session" (N in the scene) in the real dsh-TUI 0.10.2: the terminal switches to
 * the new session (dsh-TUI's own `channel.resumeTo`, the `/resume` path), its transcript is exactly
 * the selected path, and the next prompt there is answered with that path as its history.
 * Evidence: test/e2e/artifacts/tui-new-session/.
 */
import { expect, it } from 'vitest'
import { saveArtifact } from './support/artifacts.ts'
import { transcriptRows } from './support/dsh-tui.ts'
import { messageText, userPrompts } from './support/fake-llm.ts'
import { expectReadsAsModel, readScreen } from './support/tui-judge.ts'
import { tuiSuite } from './support/tui-suite.ts'
import { describeNeeding, tmux } from '../support/prerequisites.ts'

const FIRST = 'Plan a weekend in Lisbon'
const SECOND = 'Make it a food tour'
const AFTER = 'Actually, plan Porto instead'

describeNeeding([tmux], 'open as a new session in the real dsh-TUI 0.10.2', () => {
  const suite = tuiSuite({ name: 'tui-new-session', answers: 20 })

  it('N opens the path as a new session, the terminal shows exactly it, and the next prompt is answered on it', async () => {
    const tui = await suite.start()
    await suite.send(FIRST, /Day 1: Alfama/)
    await suite.send(SECOND, /Food tour:/)
    await suite.openScene()
    await tui.type('day 1: alfama')
    await tui.until((s) => /search: day 1: alfama/.test(s) && /1 shown/.test(s), 'the search', { visible: true })
    await tui.keys('N')
    await tui.until((s) => !/Conversation tree/.test(s), 'the scene to close', { visible: true })
    const switched = await tui.until(
      (s) => /Day 1: Alfama/.test(s) && !s.includes(SECOND) && s.includes(FIRST),
      'the new session in the terminal',
      { visible: true },
    )
    saveArtifact(suite.artifacts, 'after-new-session.txt', switched)
    await suite.send(AFTER, /Porto instead: Ribeira/)
    const screen = await tui.visible()
    saveArtifact(suite.artifacts, 'after-new-session-prompt.txt', screen)
    const request = suite.llm
      .chatRequests()
      .filter((r) => messageText(userPrompts(r.body).at(-1)!) === AFTER)
      .at(-1)!
    expect(userPrompts(request.body).map(messageText)).toEqual([FIRST, AFTER])
    const rows = transcriptRows(screen).filter((r) => r.kind === 'user')
    expect(rows.map((r) => r.text)).toEqual([FIRST, AFTER])
    // The shared rule: nothing hidden to count (no switch row), every row on the path, nothing twice.
    const reading = readScreen(screen, request)
    saveArtifact(suite.artifacts, 'after-new-session-prompt.reading.json', reading)
    expectReadsAsModel(reading)
    expect(reading.switches).toEqual([])
  }, 300_000)
})
