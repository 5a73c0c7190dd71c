/**
 * Branches across a real DSH compaction in the real dsh-TUI 0.10.2 (issue 26 in the terminal): a
 * conversation with a tool call, a fork before the compaction made in the scene, dsh-TUI's own
 * `/compact` (DSH's `dsh-compaction-basic`; the fake LLM answers its summarization request with a
 * scripted summary), then:
 * - the compaction is a node of the scene: its row, its summary and what it replaced in the preview;
 * - a jump from the scene to a node before it gives the next request that path's original messages
 *   (as DSH sent them before the compaction);
 * - a jump back to the compacted tip gives what DSH gave after the compaction (its summary and the
 *   kept messages);
 * - after each move plus a prompt, and after quitting and resuming, the screen reads as the model's
 *   history (`support/tui-judge.ts`): no "Turn error"/"turn blocked", no message drawn twice, every
 *   message row on the path or marked hidden.
 * Evidence: test/e2e/artifacts/tui-compaction/.
 */
import { expect, it } from 'vitest'
import { saveArtifact } from './support/artifacts.ts'
import { orchard, said, type Said } from './support/compaction-session.ts'
import { COMPACTION_MARK, history, readOrAnswer, type RecordedRequest } from './support/fake-llm.ts'
import { expectReadsAsModel, readScreen } from './support/tui-judge.ts'
import { tuiSuite } from './support/tui-suite.ts'
import { describeNeeding, tmux } from '../support/prerequisites.ts'

/** A long prompt to compact; tmux's send-keys takes a trailing `;` for its command separator, so none. */
const long = (n: number): string => orchard(n).replace(/;$/, '')

/** What the model read before `prompt` in `request` (DSH's runtime-context snapshot may follow the prompt). */
const before = (request: RecordedRequest, prompt: string): Said => {
  const read = said(request.body)
  return read.slice(
    0,
    read.findLastIndex((m) => m.role === 'user' && m.text === prompt),
  )
}

describeNeeding([tmux], 'branches across a real DSH /compact in the real dsh-TUI 0.10.2', () => {
  const suite = tuiSuite({ name: 'tui-compaction', answers: 60, model: readOrAnswer, requestsShown: 120 })
  const original = new Map<string, Said>()
  let compacted: Said

  /** Prompt; returns what the model read before it. */
  const say = async (prompt: string): Promise<Said> => {
    await suite.send(prompt, new RegExp(`ANSWER to: ${prompt.slice(0, 30)}|READ-DONE`))
    return before(suite.requestFor(prompt), prompt)
  }
  /** The screen with its scrollback, judged against the request that answered `prompt`. */
  const judged = async (name: string, prompt: string): Promise<void> => {
    const screen = await suite.shot(name)
    if (name === 'after-jump-compaction') suite.forDocs('compaction-after-jump-back', screen)
    const reading = readScreen(
      screen,
      suite.requestFor(prompt),
      suite.llm.compactionRequests(),
      suite.llm.chatRequests(),
    )
    saveArtifact(suite.artifacts, `${name}.reading.json`, reading)
    expectReadsAsModel(reading)
  }
  /**
   * Both sides of the compaction, each `[shot name, prompt]`: a jump to a node before it gives the original
   * messages; a jump back to the compacted tip, what DSH gave after the compaction; still one compaction.
   */
  const bothSides = async ([beforeShot, beforePrompt]: [string, string], [tipShot, tipPrompt]: [string, string]) => {
    await suite.jumpTo('answer to: question 3:')
    expect(await say(beforePrompt)).toEqual(original.get(long(4)))
    await judged(beforeShot, beforePrompt)
    await suite.jumpTo('compacted')
    expect(await say(tipPrompt)).toEqual(compacted)
    await judged(tipShot, tipPrompt)
    expect(suite.llm.compactionRequests()).toHaveLength(1)
  }

  it('a fork in the scene, dsh-TUI’s /compact, the compaction in the scene, jumps to either side of it', async () => {
    // Tall: the live transcript scrolls inside dsh-TUI's own view, and the judge reads every row.
    await suite.start({ rows: 150 })
    const prompts = [long(1), 'please READ notes.txt', long(3), long(4)]
    for (const prompt of prompts) original.set(prompt, await say(prompt))

    // A fork before the compaction, in the scene, and a prompt there.
    await suite.forkAt('answer to: question 1:', 'alt')
    expect(await say('on alt')).toEqual(original.get('please READ notes.txt'))

    // Back to the main tip, then DSH's compaction from dsh-TUI's own command.
    await suite.jumpTo('answer to: question 4:')
    await suite.tui.type('/compact')
    await suite.tui.keys('Enter')
    await suite.tui.until(() => suite.llm.compactionRequests().length === 1, 'the compaction request')
    await suite.tui.settled('the compaction')
    await suite.shot('after-compact')
    const asked = history(suite.llm.compactionRequests()[0]!.body).map((m) => m.text)
    expect(asked.at(-1)).toContain(COMPACTION_MARK)
    expect(asked).toContain(long(1))
    expect(asked).not.toContain('on alt')

    compacted = await say(long(5))
    expect(compacted[0]?.text).toContain('<compacted-summary>')
    expect(compacted.map((m) => m.text)).not.toContain(long(1))
    await judged('after-compact-prompt', long(5))

    // The compaction in the scene: its row, and in the preview its summary and what it replaced.
    await suite.openScene()
    await suite.search('compacted')
    const scene = await suite.tui.visible()
    saveArtifact(suite.artifacts, 'scene-compaction.txt', scene)
    suite.forDocs('compaction-scene', scene)
    expect(scene).toMatch(/\be\d+ compaction /)
    expect(scene).toMatch(/COMPACTED: from "question 1:/)
    expect(scene).toMatch(/replaces \d+ earlier node\(s\) of this path, e\d+ … e\d+/)

    // Jumps from the scene to a node before it and back to the compacted tip.
    await suite.tui.keys('Escape')
    await suite.closeScene()
    await bothSides(['after-jump-before', 'after the third, again'], ['after-jump-compaction', 'from the compaction'])
  }, 600_000)

  it('after quitting and resuming: the same reading, and both sides of the compaction still hold', async () => {
    // Drawn whole: a replay paints the answers in after the rows.
    await suite.resume(
      (s) =>
        s.includes(`ANSWER to: ${long(1).slice(0, 100)}`) &&
        s.includes('READ-DONE: nothing') &&
        s.includes('ANSWER to: from the compaction'),
    )
    await judged('after-resume', 'from the compaction')
    await bothSides(
      ['after-resume-jump', 'third, after the resume'],
      ['after-resume-compaction', 'compaction, after the resume'],
    )
  }, 600_000)
})
