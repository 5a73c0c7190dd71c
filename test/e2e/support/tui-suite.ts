/**
 * One dsh-TUI e2e suite's set-up and tear-down, shared by the terminal tests: the packed plugin and
 * the real dsh-TUI installed into a fresh demo home, a fake LLM scripted with the demo model, the
 * terminal and its requests kept as evidence, the temp home kept when a test failed.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll } from 'vitest'
import { REPO_ROOT } from '../../../dev/harness.ts'
import { demoModel } from '../../../dev/demo-model.ts'
import { artifactDir, keepOrRemove, requestsText, saveArtifact } from './artifacts.ts'
import { ensureDsh, tempDir } from './dsh.ts'
import { demoTuiHome, installTuiProfile, sendPrompt, sessionIds, startTui, type TuiHome } from './dsh-tui.ts'
import {
  type FakeLlm,
  type FakeLlmOptions,
  messageText,
  type RecordedRequest,
  type ScriptStep,
  startFakeLlm,
  userPrompts,
} from './fake-llm.ts'
import { packPlugin } from './pack.ts'
import { type Terminal } from './tmux.ts'
import { suiteLife, there, withHandles } from './suite-life.ts'

/** What `startTui` takes besides the home and the LLM (`--resume <id>`, the terminal's size). */
export type TuiStartOptions = Parameters<typeof startTui>[2]

export interface TuiSuiteOptions {
  /** The artifacts folder and temp-dir prefix. */
  readonly name: string
  /** How many demo-model answers the fake LLM has. */
  readonly answers: number
  /** How many recorded requests `requests.txt` shows. */
  readonly requestsShown?: number
  /** The model answering every chat request (default: the demo model). */
  readonly model?: ScriptStep
  /** More of the fake LLM (its compaction answer, …). */
  readonly llm?: Omit<FakeLlmOptions, 'script'>
  /** Files the workspace starts with besides the demo's notes.txt. */
  readonly workspace?: (cwd: string) => void
}

/** The suite's handles, there once its `beforeAll` ran. */
export interface TuiSuite {
  readonly artifacts: string
  readonly llm: FakeLlm
  readonly home: TuiHome
  /** Whether a test of the suite (or its set-up) failed so far. */
  readonly failed: boolean
  /** The running terminal (after `start`). */
  readonly tui: Terminal
  /** Start dsh-TUI in tmux against the fake LLM (again for a resume: the earlier terminal is killed first). */
  start(options?: TuiStartOptions): Promise<Terminal>
  /** Type a prompt, wait for its answer row and its request. */
  send(prompt: string, answer: RegExp): Promise<void>
  /** The last chat request whose last typed prompt is `prompt` (dsh-TUI's own side requests left out). */
  requestFor(prompt: string): RecordedRequest
  /** Quit (`/exit`), start again on the newest session (`--resume`), wait until `ready` holds and the screen settles. */
  resume(ready: (screen: string) => boolean, start?: TuiStartOptions): Promise<Terminal>
  /** In the open scene: type a search and wait until it shows exactly one row. */
  search(query: string): Promise<void>
  /** In the open scene: Enter on the selection, then "No summary" if the move asks; waits for "Moved to". */
  jumpHere(): Promise<void>
  /** Open the scene by Alt+T (or `/session-tree`) and wait for its outline. */
  openScene(how?: 'shortcut' | 'command'): Promise<string>
  /** In a new scene: search for the one node `query` shows, jump there (no summary), close the scene. */
  jumpTo(query: string): Promise<void>
  /** In a new scene: search for the one node `query` shows, fork a branch `name` there (no summary), close the scene. */
  forkAt(query: string, name: string): Promise<void>
  /** Escape: the scene closes. */
  closeScene(): Promise<void>
  /** The whole screen with its scrollback, saved as `<name>.txt`. */
  shot(name: string): Promise<string>
  /** A capture docs/tui.md shows: written to docs/tui/<name>.txt after the suite, only when every test passed and `UPDATE_DOCS_SCREENS=1`. */
  forDocs(name: string, screen: string): void
}

export function tuiSuite(options: TuiSuiteOptions): TuiSuite {
  let artifacts: string | undefined
  let llm: FakeLlm | undefined
  let home: TuiHome | undefined
  let root: string | undefined
  let tui: Terminal | undefined
  const docs = new Map<string, string>()

  const life = suiteLife(async () => {
    artifacts = artifactDir(options.name)
    const [, plugin] = await Promise.all([ensureDsh(), packPlugin()])
    const model = options.model ?? demoModel
    llm = await startFakeLlm({ ...options.llm, script: Array.from({ length: options.answers }, () => model) })
    root = tempDir(options.name)
    home = demoTuiHome(root)
    options.workspace?.(home.cwd)
    const installed = await installTuiProfile(home, plugin.tgz)
    saveArtifact(
      artifacts,
      'install.log',
      `${installed.tui.stdout}\n${installed.tui.stderr}\n${installed.plugin.stdout}`,
    )
  })

  afterAll(async () => {
    if (llm && artifacts) saveArtifact(artifacts, 'requests.txt', requestsText(llm, options.requestsShown ?? 50))
    await tui?.kill()
    await llm?.close()
    keepOrRemove(options.name, life.failed, { home: root }, artifacts)
    if (!life.failed && process.env.UPDATE_DOCS_SCREENS === '1') {
      const dir = path.join(REPO_ROOT, 'docs', 'tui')
      fs.mkdirSync(dir, { recursive: true })
      for (const [name, screen] of docs) fs.writeFileSync(path.join(dir, `${name}.txt`), screen)
    }
  })

  const terminal = (): Terminal => there(tui, 'the terminal')

  type Handles = Pick<TuiSuite, 'artifacts' | 'llm' | 'home' | 'failed' | 'tui'>
  const methods: Omit<TuiSuite, keyof Handles> = {
    async start(start) {
      await tui?.kill()
      tui = await startTui(there(home, 'the dsh-TUI home'), there(llm, 'the fake LLM').url, start)
      return tui
    },
    send(prompt, answer) {
      return sendPrompt(terminal(), () => llm!.chatRequests().length, prompt, answer)
    },
    requestFor(prompt) {
      const found = there(llm, 'the fake LLM')
        .chatRequests()
        .filter((r) => {
          const last = userPrompts(r.body).at(-1)
          return last !== undefined && messageText(last) === prompt
        })
        .at(-1)
      if (!found) throw new Error(`no request answered ${JSON.stringify(prompt)}\n${requestsText(llm!)}`)
      return found
    },
    async resume(ready, start) {
      const [sessionId] = sessionIds(there(home, 'the dsh-TUI home').dshHome)
      if (sessionId === undefined) throw new Error('no session to resume')
      const running = terminal()
      await running.type('/exit')
      await running.keys('Enter')
      // dsh-TUI flushes and exits on its own; the pane stays (remain-on-exit), so wait for it to be dead.
      await running.until(() => true, 'exit')
      for (let i = 0; i < 100 && (await running.alive()); i++) await new Promise((resolve) => setTimeout(resolve, 100))
      await running.kill()
      // Tall by default: dsh-TUI draws a resumed transcript in its own view, one screen high.
      tui = await startTui(there(home, 'the dsh-TUI home'), llm!.url, {
        rows: 150,
        ...start,
        args: ['--resume', sessionId, ...(start?.args ?? [])],
      })
      await tui.until(ready, 'the resumed transcript')
      await tui.settled('the resumed transcript')
      return tui
    },
    async search(query) {
      // A search still typed is cleared first; typing right after Escape would arrive as Alt+<key>.
      if (/search: [^\n]*▏/.test(await terminal().visible())) {
        await terminal().keys('Escape')
        await terminal().until((screen) => !/search: [^\n]*▏/.test(screen), 'the search to clear', { visible: true })
      }
      await terminal().type(query)
      await terminal().until(
        (screen) => screen.includes(`search: ${query}`) && /\b1 shown/.test(screen),
        `the search ${JSON.stringify(query)}`,
        { visible: true },
      )
    },
    async jumpHere() {
      await terminal().keys('Enter')
      const asked = await terminal().until(
        (screen) => /No summary/.test(screen) || /Moved to e\d+/.test(screen),
        'the summary choice or the jump',
        { visible: true },
      )
      if (/No summary/.test(asked)) await terminal().keys('1')
      await terminal().until((screen) => /Moved to e\d+/.test(screen), 'the jump', { visible: true })
    },
    async openScene(how = 'shortcut') {
      if (how === 'command') {
        await terminal().type('/session-tree')
        await terminal().keys('Enter')
      } else {
        await terminal().keys('M-t')
      }
      // The outline arrives after the first frame ("Loading the tree…").
      return terminal().until(
        (screen) =>
          /Conversation tree/.test(screen) &&
          /Enter jump/.test(screen) &&
          /\be\d+ /.test(screen) &&
          !/Loading the tree/.test(screen),
        `the scene (${how})`,
        { visible: true },
      )
    },
    async jumpTo(query) {
      await this.openScene()
      await this.search(query)
      await this.jumpHere()
      // The first Escape clears the search, the second closes the scene.
      await terminal().keys('Escape')
      await this.closeScene()
    },
    async forkAt(query, name) {
      await this.openScene()
      await this.search(query)
      await terminal().keys('F')
      await terminal().until((s) => /Name of the new branch/.test(s), 'the fork prompt', { visible: true })
      await terminal().type(name)
      await terminal().keys('Enter')
      await terminal().until((s) => /No summary/.test(s), 'the summary choice', { visible: true })
      await terminal().keys('1')
      await terminal().until((s) => new RegExp(`Forked ${name} @ e\\d+`).test(s), 'the fork', { visible: true })
      await terminal().keys('Escape')
      await this.closeScene()
    },
    async closeScene() {
      await terminal().keys('Escape')
      await terminal().until((screen) => !/Conversation tree/.test(screen), 'the scene to close', { visible: true })
    },
    forDocs(name, screen) {
      docs.set(name, screen)
    },
    async shot(name) {
      const screen = await terminal().screen()
      saveArtifact(there(artifacts, 'the artifacts directory'), `${name}.txt`, screen)
      return screen
    },
  }
  return withHandles<typeof methods, Handles>(methods, {
    artifacts: () => there(artifacts, 'the artifacts directory'),
    llm: () => there(llm, 'the fake LLM'),
    home: () => there(home, 'the dsh-TUI home'),
    failed: () => life.failed,
    tui: terminal,
  })
}
