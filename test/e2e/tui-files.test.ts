/**
 * Taking the files along in the real dsh-TUI 0.10.2, with files the agent really wrote: the fake
 * model answers with DSH's own `write`, `read` and `edit` tool calls on two branches (a packing list
 * on `main`, a hiking list on a fork made in the scene), the person edits a file by hand, then in
 * the scene:
 * - T, "Conversation and files" to the tip of `main`: the restore preview lists every file (the
 *   hand-edited one as changed outside the agent), Enter waits until that conflict is decided, `o`
 *   overwrites it; every file's hash is then its state at that node, and the next request is that
 *   path with one restore note;
 * - `/session-tree back --both` (its page in the scene): every file byte for byte as before the
 *   restore, the hand edit included, and the next request is the hiking path again;
 * - T, "Files only", `k` keeps the hand edit: the files move, the conversation does not.
 * After each, the screen with its scrollback is judged by `support/tui-judge.ts`; then quit and resume.
 * Evidence: test/e2e/artifacts/tui-files/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import { demoModel } from '../../dev/demo-model.ts'
import { saveArtifact } from './support/artifacts.ts'
import { type ChatRequestBody, messageText, type StaticStep, userPrompts } from './support/fake-llm.ts'
import { expectReadsAsModel, readScreen } from './support/tui-judge.ts'
import { tuiSuite } from './support/tui-suite.ts'
import { call, hashes, type Files } from './support/workspace-files.ts'
import { describeNeeding, tmux } from '../support/prerequisites.ts'

const WRITE = 'Write the packing list'
const EDIT = 'Add sunscreen to the list'
const HIKE = 'Make it a hiking list'
const HAND = 'boots\nmap\nwater\nmy own snacks\n'
const HAND_AGAIN = 'boots\nmap\nwater\nmy own snacks\nand a hat\n'

/** The model: file steps for the three prompts above (then a text answer), the demo model for the rest. */
function fileModel(): (body: ChatRequestBody) => StaticStep {
  const planned = new Map<string, StaticStep[]>([
    [
      WRITE,
      [call('write', { file_path: 'packing.txt', content: 'passport\ncharger\n' }), { text: 'WROTE: packing list' }],
    ],
    [
      EDIT,
      [
        call('read', { file_path: 'packing.txt' }),
        call('edit', { file_path: 'packing.txt', old_string: 'charger\n', new_string: 'charger\nsunscreen\n' }),
        { text: 'EDITED: sunscreen added' },
      ],
    ],
    [
      HIKE,
      [
        call('read', { file_path: 'packing.txt' }),
        call('write', { file_path: 'packing.txt', content: 'boots\nmap\nwater\n' }),
        call('write', { file_path: 'hike.txt', content: 'trail: Sintra, 12 km\n' }),
        { text: 'WROTE: hiking list' },
      ],
    ],
  ])
  return (body) => {
    const prompt = userPrompts(body).at(-1)
    return (prompt ? planned.get(messageText(prompt))?.shift() : undefined) ?? demoModel(body)
  }
}

/** What the model reads after a restore of `paths` to `nodeId`. */
const note = (nodeId: string, paths: string) =>
  `[session-tree] The workspace files were restored to their state at ${nodeId}. Changed since you last saw them: ${paths}. Read a file again before you edit or overwrite it.`

describeNeeding([tmux], 'taking the files along in the real dsh-TUI 0.10.2', () => {
  const suite = tuiSuite({ name: 'tui-files', answers: 40, model: fileModel(), requestsShown: 100 })
  const states: Record<string, Files> = {}
  const bytes: Record<string, Record<string, string>> = {}
  const work = () => suite.home.cwd
  /** Every workspace file's bytes (base64), by path. */
  const contents = () =>
    Object.fromEntries(
      Object.keys(hashes(work())).map((rel) => [rel, fs.readFileSync(path.join(work(), rel)).toString('base64')]),
    )
  const record = (name: string) => {
    states[name] = hashes(work())
    bytes[name] = contents()
    saveArtifact(suite.artifacts, 'states.json', states)
  }
  const judged = async (name: string, prompt: string) => {
    const screen = await suite.shot(name)
    if (name === 'after-back') suite.forDocs('files-after-back', screen)
    const reading = readScreen(screen, suite.requestFor(prompt), [], suite.llm.chatRequests())
    saveArtifact(suite.artifacts, `${name}.reading.json`, reading)
    expectReadsAsModel(reading)
  }
  const sent = (prompt: string) => suite.requestFor(prompt).body.messages.filter((m) => m.role !== 'system')
  /** The typed prompts and notes of a request (DSH's runtime context left out). */
  const prompts = (prompt: string) => userPrompts(suite.requestFor(prompt).body).map(messageText)
  /** T on the node that holds `text`, then the files choice (1 conversation, 2 files, 3 both): the preview. */
  const takeAlong = async (query: string, choice: 2 | 3): Promise<string> => {
    await suite.openScene()
    await suite.search(query)
    await suite.tui.keys('T')
    await suite.tui.until((s) => /Conversation and files/.test(s), 'the files choice', { visible: true })
    await suite.tui.keys(...Array.from({ length: choice - 1 }, () => 'Down'), 'Enter')
    return suite.tui.until((s) => /Restore preview → e\d+/.test(s), 'the restore preview', { visible: true })
  }

  /** The file the restore preview's selection (▶) is on. */
  const selectedFile = (screen: string) => /▶ \S+ +(\S+)/.exec(screen)?.[1]
  /** Down until `file` is selected, each press waited for: Down wraps, so a press read before it was drawn would skip. */
  const select = async (file: string) => {
    for (let i = 0; i < 4; i++) {
      const now = selectedFile(await suite.tui.visible())
      if (now === file) return
      await suite.tui.keys('Down')
      await suite.tui.until((s) => selectedFile(s) !== now, 'the selection to move', { visible: true })
    }
    throw new Error(`${file} is not in the restore preview:\n${await suite.tui.visible()}`)
  }

  it('the agent writes on two branches; T with "Conversation and files" over a hand edit: preview, the conflict decided, every file as at that node', async () => {
    // Tall: the live transcript scrolls inside dsh-TUI's own view, and the judge reads every row.
    await suite.start({ rows: 100 })
    await suite.send(WRITE, /WROTE: packing list/)
    await suite.send(EDIT, /EDITED: sunscreen added/)
    record('main')
    expect(fs.readFileSync(path.join(work(), 'packing.txt'), 'utf8')).toBe('passport\ncharger\nsunscreen\n')

    // A fork at the first answer, in the scene; the agent writes there too.
    await suite.forkAt('wrote: packing list', 'hiking')
    await suite.send(HIKE, /WROTE: hiking list/)
    record('hiking')
    expect(Object.keys(states.hiking!).sort()).toEqual(['hike.txt', 'notes.txt', 'packing.txt'])
    // Every tool call succeeded: no result is an error.
    const results = sent(HIKE)
    expect(results.length).toBeGreaterThan(0)
    for (const m of suite.llm.chatRequests().flatMap((r) => r.body.messages.filter((x) => x.role === 'tool')))
      expect(messageText(m)).not.toMatch(/^Error|FS_[A-Z_]+/)

    // The person edits the list by hand, then takes the files along to the tip of main.
    fs.writeFileSync(path.join(work(), 'packing.txt'), HAND)
    record('edited')
    const preview = await takeAlong('edited: sunscreen added', 3)
    saveArtifact(suite.artifacts, 'restore-preview.txt', preview)
    expect(preview).toMatch(/delete +hike\.txt/)
    expect(preview).toMatch(/packing\.txt ⚠ changed outside the agent → \?/)
    // Enter with the conflict undecided restores nothing: it selects the undecided conflict.
    expect(selectedFile(preview)).toBe('hike.txt')
    await suite.tui.keys('Enter')
    const asked = await suite.tui.until((s) => selectedFile(s) === 'packing.txt', 'Enter to select the conflict', {
      visible: true,
    })
    expect(asked).toMatch(/Restore preview → e\d+/)
    expect(hashes(work())).toEqual(states.edited)
    // Overwrite it (this plugin keeps my version for back), restore.
    await suite.tui.keys('o')
    const decided = await suite.tui.until((s) => /packing\.txt ⚠ changed outside the agent → overwrite/.test(s), 'o', {
      visible: true,
    })
    saveArtifact(suite.artifacts, 'restore-decided.txt', decided)
    suite.forDocs('files-restore-decided', decided)
    await suite.tui.keys('Enter')
    const restored = await suite.tui.until((s) => /Files restored → e\d+/.test(s), 'the restore', { visible: true })
    saveArtifact(suite.artifacts, 'restored.txt', restored)
    const target = /Files restored → (e\d+)/.exec(restored)![1]!
    expect(hashes(work())).toEqual(states.main)
    await suite.tui.keys('Escape')
    await suite.closeScene()
    const AFTER = 'After taking the files along'
    await suite.send(AFTER, /the last one: “After taking the files along”/)
    expect(prompts(AFTER)).toEqual([WRITE, EDIT, note(target, 'hike.txt, packing.txt'), AFTER])
    await judged('after-restore', AFTER)
  }, 600_000)

  let back = ''
  const BACK = 'After going back'

  it('/session-tree back --both: every file byte for byte as before the restore, the hand edit too; the hiking path again', async () => {
    await suite.tui.type('/session-tree back --both')
    await suite.tui.keys('Enter')
    const page = await suite.tui.until((s) => /\/session-tree back --both/.test(s) && /Esc close/.test(s), 'the page', {
      visible: true,
    })
    saveArtifact(suite.artifacts, 'back-page.txt', page)
    back = /The history now ends at (e\d+)/.exec(page)![1]!
    expect(contents()).toEqual(bytes.edited)
    await suite.tui.keys('Escape')
    await suite.closeScene()
    const AFTER = BACK
    await suite.send(AFTER, /the last one: “After going back”/)
    expect(prompts(AFTER)).toEqual([WRITE, HIKE, note(back, 'hike.txt, packing.txt'), AFTER])
    await judged('after-back', AFTER)
  }, 300_000)

  it('T with "Files only" over a new hand edit, k keeps it: the files move, the conversation stays; then a resume', async () => {
    // The hand edit that back put back is the plugin's own write now; a new one is the person's again.
    fs.writeFileSync(path.join(work(), 'packing.txt'), HAND_AGAIN)
    record('edited-again')
    const preview = await takeAlong('edited: sunscreen added', 2)
    expect(preview).toMatch(/packing\.txt ⚠ changed outside the agent → \?/)
    saveArtifact(suite.artifacts, 'files-only-preview.txt', preview)
    await select('packing.txt')
    await suite.tui.keys('k')
    await suite.tui.until((s) => /packing\.txt ⚠ changed outside the agent → keep mine/.test(s), 'k', { visible: true })
    await suite.tui.keys('Enter')
    const restored = await suite.tui.until((s) => /Files restored → e\d+/.test(s), 'the restore', { visible: true })
    const target = /Files restored → (e\d+)/.exec(restored)![1]!
    // The hand edit stays; the rest is as at the tip of main (hike.txt gone).
    expect(hashes(work())).toEqual({ ...states.main, 'packing.txt': states['edited-again']!['packing.txt'] })
    await suite.tui.keys('Escape')
    await suite.closeScene()
    const AFTER = 'After taking only the files'
    await suite.send(AFTER, /the last one: “After taking only the files”/)
    expect(prompts(AFTER)).toEqual([
      WRITE,
      HIKE,
      note(back, 'hike.txt, packing.txt'),
      BACK,
      note(target, 'hike.txt'),
      AFTER,
    ])
    await judged('after-files-only', AFTER)

    await suite.resume((s) => s.includes(WRITE) && s.includes(`the last one: “${AFTER}”`))
    await judged('after-resume', AFTER)
  }, 300_000)
})
