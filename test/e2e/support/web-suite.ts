/**
 * The one set-up of an e2e suite: the pinned real `dsh` (its own DSH_HOME and workspace in temp
 * dirs), this package added from its tarball, the recording fake LLM as the only model, `dsh web`
 * on 127.0.0.1 and, for a browser suite, Debian's Chromium with one page. After the suite it
 * stops everything, writes the evidence to test/e2e/artifacts/<name>/ and keeps the temp dirs
 * when anything in the suite failed.
 */
import fs from 'node:fs'
import path from 'node:path'
import { chromium as playwright, type Browser, type BrowserContextOptions, type Page } from 'playwright-core'
import { afterAll, type RunnerTask } from 'vitest'
import { REPO_ROOT } from '../../../dev/harness.ts'
import { chromium, CHROMIUM_PATH, describeNeeding, requirePrerequisites } from '../../support/prerequisites.ts'
import type { DshApi } from './api.ts'
import { artifactDir, keepOrRemove, requestsText, saveArtifact, saveWebEvidence, stopwatch } from './artifacts.ts'
import {
  DEFAULT_VARIANT,
  ensureDsh,
  pluginAdd,
  startWeb,
  tempDir,
  type StopResult,
  type WebOptions,
  type WebProcess,
} from './dsh.ts'
import { startFakeLlm, type FakeLlm, type FakeLlmOptions } from './fake-llm.ts'
import { packPlugin, type PackedPlugin } from './pack.ts'
import { suiteLife, there, withHandles } from './suite-life.ts'
import { until } from './until.ts'

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

/** Debian's Chromium through playwright-core, as every browser suite drives it. */
function launchChromium(): Promise<Browser> {
  return playwright.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
}

export type PageOptions = Pick<BrowserContextOptions, 'viewport' | 'colorScheme' | 'locale' | 'acceptDownloads'>

/** What a screenshot can be taken of: a page or a locator. */
export interface Shootable {
  screenshot(options: { path: string }): Promise<unknown>
}

const DEFAULT_PAGE: PageOptions = { viewport: { width: 1440, height: 900 }, colorScheme: 'light', locale: 'en-US' }

/** How `dsh web` starts: bundle patches, extra environment, extra web-app arguments, another model. */
export type StartOptions = Pick<WebOptions, 'patches' | 'extra' | 'args'> & { readonly llm?: FakeLlm }

export interface WebSuiteOptions {
  /** Names the artifacts directory and the temp dirs. */
  readonly name: string
  readonly variant?: string
  readonly llm?: FakeLlmOptions
  /** The profiles the plugin is added to before the suite (default `web`). */
  readonly profiles?: readonly string[]
  /** Writes the workspace's files before `dsh web` starts. */
  readonly workspace?: (work: string) => void
  /** Start `dsh web` before the suite (default); `false`: the suite calls `startWeb` itself. */
  readonly start?: boolean | StartOptions
  /** Launch Chromium and open one page (default: no browser). */
  readonly browser?: boolean | PageOptions
}

export interface WebSuite {
  readonly name: string
  readonly variant: string
  readonly artifacts: string
  /** The DSH_HOME. */
  readonly home: string
  /** The workspace (its real path). */
  readonly work: string
  readonly plugin: PackedPlugin
  readonly llm: FakeLlm
  /** The running `dsh web` (throws when none is). */
  readonly web: WebProcess
  readonly url: string
  readonly api: DshApi
  /** Every `dsh web` the suite started, in order. */
  readonly webs: readonly WebProcess[]
  readonly browser: Browser
  readonly page: Page
  /** Console lines and page errors of every page opened through the suite. */
  readonly console: readonly string[]
  readonly pageErrors: readonly string[]
  readonly timings: Record<string, number>
  /** Start `dsh web` (the suite must have none running). */
  startWeb(options?: StartOptions): Promise<WebProcess>
  /** Stop the running `dsh web` (throws when none is). */
  stopWeb(signal?: NodeJS.Signals, graceMs?: number): Promise<StopResult>
  /**
   * A further `dsh web` on the suite's home and workspace, beside the suite's own (a second
   * process); stopped after the suite, its output in the evidence with the others'.
   */
  otherWeb(options?: StartOptions): Promise<WebProcess>
  /** A further fake LLM, closed after the suite (its requests in `llm-<n>-requests.txt`). */
  fakeLlm(options?: FakeLlmOptions): Promise<FakeLlm>
  /** A further page in the suite's browser (launched on first use), its console recorded. */
  newPage(options?: PageOptions): Promise<Page>
  /** Time a step into `timings.json`. */
  time<T>(label: string, fn: () => Promise<T>): Promise<T>
  /** Write `value` (or what `value()` gives then) to the artifacts after the suite. */
  evidence(name: string, value: unknown): void
  /** A screenshot of `target` (default: the suite's page) in the artifacts; returns its path. */
  shot(name: string, target?: Shootable): Promise<string>
  /** `shot` of the suite's page in the host's dark theme (emulated, then back to light); returns its path. */
  shotDark(name: string): Promise<string>
  /** With `UPDATE_DOCS_SCREENSHOT=1`: copy an artifact to `docs/<docsName>`. */
  toDocs(name: string, docsName?: string): void
}

function failedWithin(task: Readonly<RunnerTask>): boolean {
  return task.result?.state === 'fail' || (task.type === 'suite' && task.tasks.some(failedWithin))
}

/**
 * Register the suite's set-up and tear-down in the current `describe` and return its handle; the
 * handle's fields are there once the suite's `beforeAll` ran.
 */
export function webSuite(options: WebSuiteOptions): WebSuite {
  const variant = options.variant ?? DEFAULT_VARIANT
  const webs: WebProcess[] = []
  const consoleLines: string[] = []
  const pageErrors: string[] = []
  /** Every HTTP request of every page: when it went, when (and how) it ended; the evidence of a stall. */
  const network: string[] = []
  const timings: Record<string, number> = {}
  const time = stopwatch(timings)
  const evidence = new Map<string, unknown>()
  const moreLlms: FakeLlm[] = []
  let artifacts: string | undefined
  let home: string | undefined
  let work: string | undefined
  let plugin: PackedPlugin | undefined
  let llm: FakeLlm | undefined
  let web: WebProcess | undefined
  let browser: Browser | undefined
  let page: Page | undefined

  const running = (): WebProcess => {
    if (!web) throw new Error('dsh web is not running (an earlier step failed)')
    return web
  }
  const newPage = async (pageOptions: PageOptions = {}): Promise<Page> => {
    if (!browser) {
      requirePrerequisites(chromium)
      browser = await time('launchChromium', launchChromium)
    }
    const opened = await browser.newPage({ ...DEFAULT_PAGE, ...pageOptions })
    opened.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`))
    opened.on('pageerror', (e) => {
      pageErrors.push(e.message)
      consoleLines.push(`pageerror: ${e.message}`)
    })
    const stamp = (): string => new Date().toISOString().slice(11, 23)
    const named = (r: { method(): string; url(): string }): string => `${r.method()} ${new URL(r.url()).pathname}`
    opened.on('request', (r) => network.push(`${stamp()} start ${named(r)}`))
    opened.on('requestfinished', (r) => network.push(`${stamp()} end ${named(r)}`))
    opened.on('requestfailed', (r) => network.push(`${stamp()} failed ${named(r)}: ${r.failure()?.errorText ?? ''}`))
    return opened
  }
  const launch = async (start: StartOptions): Promise<WebProcess> => {
    const started = await time('startWeb', () =>
      startWeb({
        home: there(home, 'DSH_HOME'),
        cwd: there(work, 'the workspace'),
        llmUrl: there(llm, 'the fake LLM').url,
        variant,
        ...start,
      }),
    )
    webs.push(started)
    return started
  }
  const boot = async (start: StartOptions = {}): Promise<WebProcess> => {
    if (web) throw new Error('dsh web is already running')
    web = await launch(start)
    return web
  }
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs?: number): Promise<StopResult> => {
    const current = running()
    web = undefined
    return current.stop(signal, graceMs)
  }

  const life = suiteLife(async () => {
    artifacts = artifactDir(options.name)
    const harness = await time('ensureHarness', () => ensureDsh(variant))
    timings.harnessInstalled = harness.installed ? 1 : 0
    plugin = await time('pack', () => packPlugin())
    home = tempDir(`${options.name}-home`)
    work = fs.realpathSync(tempDir(`${options.name}-work`))
    options.workspace?.(work)
    llm = await startFakeLlm(options.llm)
    for (const profile of options.profiles ?? ['web'])
      await time(`pluginAdd ${profile}`, () => pluginAdd(home!, profile, plugin!.tgz, { variant }))
    if (options.start !== false) await boot(options.start === true ? {} : options.start)
    if (options.browser) page = await newPage(options.browser === true ? {} : options.browser)
  })

  afterAll(async ({}, suite) => {
    if (failedWithin(suite)) life.fail()
    await browser?.close()
    for (const each of webs) await each.stop('SIGTERM', 5_000)
    await llm?.close()
    for (const more of moreLlms) await more.close()
    if (artifacts) {
      for (const [name, value] of evidence)
        saveArtifact(artifacts, name, typeof value === 'function' ? (value as () => unknown)() : value)
      if (Object.keys(timings).length > 0) saveArtifact(artifacts, 'timings.json', timings)
      if (browser) saveArtifact(artifacts, 'console.log', consoleLines.join('\n'))
      if (browser) saveArtifact(artifacts, 'network.log', network.join('\n'))
      if (llm) saveArtifact(artifacts, 'requests.txt', requestsText(llm, 300))
      moreLlms.forEach((more, i) => saveArtifact(artifacts!, `llm-${i + 2}-requests.txt`, requestsText(more, 400)))
      saveWebEvidence(artifacts, webs)
    }
    keepOrRemove(options.name, life.failed, { home, work }, artifacts)
  }, 600_000)

  type Handles = Pick<
    WebSuite,
    'artifacts' | 'home' | 'work' | 'plugin' | 'llm' | 'web' | 'url' | 'api' | 'browser' | 'page'
  >
  const methods: Omit<WebSuite, keyof Handles> = {
    name: options.name,
    variant,
    webs,
    console: consoleLines,
    pageErrors,
    timings,
    startWeb: boot,
    stopWeb: stop,
    otherWeb: (start = {}) => launch(start),
    async fakeLlm(more) {
      const started = await startFakeLlm(more)
      moreLlms.push(started)
      return started
    },
    newPage,
    time,
    evidence: (name, value) => void evidence.set(name, value),
    async shot(name, target) {
      const file = path.join(there(artifacts, 'the artifacts directory'), name)
      await (target ?? there(page, 'the page')).screenshot({ path: file })
      return file
    },
    async shotDark(name) {
      const shown = there(page, 'the page')
      await shown.emulateMedia({ colorScheme: 'dark' })
      try {
        await until(
          'the host dark theme',
          async () => shown.evaluate(() => document.body.hasAttribute('data-ds-dark-theme')),
          30_000,
        )
        return await this.shot(name)
      } finally {
        await shown.emulateMedia({ colorScheme: 'light' })
      }
    },
    toDocs(name, docsName = name) {
      if (process.env.UPDATE_DOCS_SCREENSHOT)
        fs.copyFileSync(
          path.join(there(artifacts, 'the artifacts directory'), name),
          path.join(REPO_ROOT, 'docs', docsName),
        )
    },
  }
  return withHandles<typeof methods, Handles>(methods, {
    artifacts: () => there(artifacts, 'the artifacts directory'),
    home: () => there(home, 'DSH_HOME'),
    work: () => there(work, 'the workspace'),
    plugin: () => there(plugin, 'the packed plugin'),
    llm: () => there(llm, 'the fake LLM'),
    web: running,
    url: () => running().url,
    api: () => running().api,
    browser: () => there(browser, 'the browser'),
    page: () => there(page, 'the page'),
  })
}

/**
 * A `describe` around `webSuite(options)`: a browser suite needs Chromium (`describeNeeding`: without it,
 * the suite fails naming the Debian package).
 */
export function describeWeb(title: string, options: WebSuiteOptions, body: (dsh: WebSuite) => void): void {
  describeNeeding(options.browser ? [chromium] : [], title, () => body(webSuite(options)))
}
