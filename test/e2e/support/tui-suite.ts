/**
 * One dsh-TUI e2e suite's set-up and tear-down, shared by the terminal tests: the packed plugin and
 * the real dsh-TUI installed into a fresh demo home, a fake LLM scripted with the demo model, the
 * terminal and its requests kept as evidence, the temp home kept when a test failed.
 */
import { afterAll, afterEach, beforeAll } from 'vitest'
import { demoModel } from '../../../dev/demo-model.ts'
import { artifactDir, keepOrRemove, requestsText, saveArtifact } from './artifacts.ts'
import { ensureDsh, tempDir } from './dsh.ts'
import { demoTuiHome, installTuiProfile, sendPrompt, startTui, type TuiHome } from './dsh-tui.ts'
import { type FakeLlm, startFakeLlm } from './fake-llm.ts'
import { packPlugin } from './pack.ts'
import { type Terminal } from './tmux.ts'

/** What `startTui` takes besides the home and the LLM (`--resume <id>`, the terminal's size). */
export type TuiStartOptions = Parameters<typeof startTui>[2]

export interface TuiSuiteOptions {
  /** The artifacts folder and temp-dir prefix. */
  readonly name: string
  /** How many demo-model answers the fake LLM has. */
  readonly answers: number
  /** How many recorded requests `requests.txt` shows. */
  readonly requestsShown?: number
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
  /** Open the scene by Alt+T (or `/session-tree`) and wait for its outline. */
  openScene(how?: 'shortcut' | 'command'): Promise<string>
  /** Escape: the scene closes. */
  closeScene(): Promise<void>
  /** The whole screen with its scrollback, saved as `<name>.txt`. */
  shot(name: string): Promise<string>
}

export function tuiSuite(options: TuiSuiteOptions): TuiSuite {
  let failed = false
  let artifacts: string | undefined
  let llm: FakeLlm | undefined
  let home: TuiHome | undefined
  let root: string | undefined
  let tui: Terminal | undefined

  const there = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not there (the suite's set-up has not run or failed)`)
    return value
  }

  beforeAll(async () => {
    try {
      artifacts = artifactDir(options.name)
      const [, plugin] = await Promise.all([ensureDsh(), packPlugin()])
      llm = await startFakeLlm({ script: Array.from({ length: options.answers }, () => demoModel) })
      root = tempDir(options.name)
      home = demoTuiHome(root)
      const installed = await installTuiProfile(home, plugin.tgz)
      saveArtifact(
        artifacts,
        'install.log',
        `${installed.tui.stdout}\n${installed.tui.stderr}\n${installed.plugin.stdout}`,
      )
    } catch (error) {
      failed = true
      throw error
    }
  }, 600_000)

  afterEach((context) => {
    if (context.task.result?.state === 'fail') failed = true
  })

  afterAll(async () => {
    if (llm && artifacts) saveArtifact(artifacts, 'requests.txt', requestsText(llm, options.requestsShown ?? 50))
    await tui?.kill()
    await llm?.close()
    keepOrRemove(options.name, failed, { home: root }, artifacts)
  })

  const terminal = (): Terminal => there(tui, 'the terminal')

  return {
    get artifacts() {
      return there(artifacts, 'the artifacts directory')
    },
    get llm() {
      return there(llm, 'the fake LLM')
    },
    get home() {
      return there(home, 'the dsh-TUI home')
    },
    get failed() {
      return failed
    },
    get tui() {
      return terminal()
    },
    async start(start) {
      await tui?.kill()
      tui = await startTui(there(home, 'the dsh-TUI home'), there(llm, 'the fake LLM').url, start)
      return tui
    },
    send(prompt, answer) {
      return sendPrompt(terminal(), () => llm!.chatRequests().length, prompt, answer)
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
    async closeScene() {
      await terminal().keys('Escape')
      await terminal().until((screen) => !/Conversation tree/.test(screen), 'the scene to close', { visible: true })
    },
    async shot(name) {
      const screen = await terminal().screen()
      saveArtifact(there(artifacts, 'the artifacts directory'), `${name}.txt`, screen)
      return screen
    },
  }
}
