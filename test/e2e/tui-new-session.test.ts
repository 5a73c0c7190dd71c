/**
 * "Open as a new session" (N in the scene) in the real dsh-TUI 0.10.2: the terminal switches to
 * the new session (dsh-TUI's own `channel.resumeTo`, the `/resume` path), its transcript is exactly
 * the selected path, and the next prompt there is answered with that path as its history.
 * Evidence: test/e2e/artifacts/tui-new-session/.
 */
import { afterAll, beforeAll, expect, it, onTestFailed } from 'vitest'
import { demoModel } from '../../dev/demo-model.ts'
import { artifactDir, keepOrRemove, requestsText, saveArtifact } from './support/artifacts.ts'
import { ensureDsh, tempDir } from './support/dsh.ts'
import {
  demoTuiHome,
  installTuiProfile,
  sendPrompt,
  startTui,
  transcriptRows,
  type TuiHome,
} from './support/dsh-tui.ts'
import { type FakeLlm, messageText, startFakeLlm, userPrompts } from './support/fake-llm.ts'
import { packPlugin } from './support/pack.ts'
import { type Terminal } from './support/tmux.ts'
import { describeNeeding, tmux } from '../support/prerequisites.ts'

const FIRST = 'Plan a weekend in Lisbon'
const SECOND = 'Make it a food tour'
const AFTER = 'Actually, plan Porto instead'

describeNeeding([tmux], 'open as a new session in the real dsh-TUI 0.10.2', () => {
  let failed = false
  let artifacts: string
  let llm: FakeLlm
  let home: TuiHome
  let root: string | undefined
  let tui: Terminal | undefined

  beforeAll(async () => {
    artifacts = artifactDir('tui-new-session')
    const [, plugin] = await Promise.all([ensureDsh(), packPlugin()])
    llm = await startFakeLlm({ script: Array.from({ length: 20 }, () => demoModel) })
    root = tempDir('tui-new-session')
    home = demoTuiHome(root)
    await installTuiProfile(home, plugin.tgz)
  }, 600_000)

  afterAll(async () => {
    if (llm) saveArtifact(artifacts, 'requests.txt', requestsText(llm, 50))
    await tui?.kill()
    await llm?.close()
    keepOrRemove('tui-new-session', failed, { home: root }, artifacts)
  })

  /** Type a prompt, wait for its answer row. */
  const send = (prompt: string, answer: RegExp): Promise<void> =>
    sendPrompt(tui!, () => llm.chatRequests().length, prompt, answer)

  it('N opens the path as a new session, the terminal shows exactly it, and the next prompt is answered on it', async () => {
    onTestFailed(() => {
      failed = true
    })
    tui = await startTui(home, llm.url)
    await send(FIRST, /Day 1: Alfama/)
    await send(SECOND, /Food tour:/)
    await tui.keys('M-t')
    await tui.until(
      (s) => /Conversation tree/.test(s) && /\be\d+ /.test(s) && !/Loading the tree/.test(s),
      'the scene',
      {
        visible: true,
      },
    )
    await tui.type('day 1: alfama')
    await tui.until((s) => /search: day 1: alfama/.test(s) && /1 shown/.test(s), 'the search', { visible: true })
    await tui.keys('N')
    await tui.until((s) => !/Conversation tree/.test(s), 'the scene to close', { visible: true })
    const switched = await tui.until(
      (s) => /Day 1: Alfama/.test(s) && !s.includes(SECOND) && s.includes(FIRST),
      'the new session in the terminal',
      { visible: true },
    )
    saveArtifact(artifacts, 'after-new-session.txt', switched)
    await send(AFTER, /Porto instead: Ribeira/)
    const screen = await tui.visible()
    saveArtifact(artifacts, 'after-new-session-prompt.txt', screen)
    const request = llm
      .chatRequests()
      .filter((r) => messageText(userPrompts(r.body).at(-1)!) === AFTER)
      .at(-1)!
    expect(userPrompts(request.body).map(messageText)).toEqual([FIRST, AFTER])
    const rows = transcriptRows(screen).filter((r) => r.kind === 'user')
    expect(rows.map((r) => r.text)).toEqual([FIRST, AFTER])
    expect(screen).not.toMatch(/Turn error|turn blocked/i)
  }, 300_000)
})
