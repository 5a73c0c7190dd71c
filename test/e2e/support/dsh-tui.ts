/**
 * The real dsh-TUI (`@deepseek-harness-tui/dsh-tui` 0.10.2 from the npm
 * registry) in a fresh `DSH_HOME` and a fresh `HOME` (it writes `~/.dsh-tui/`),
 * installed the way a user installs it: `dsh plugin --profile dsh-tui add`,
 * then this plugin's tarball into the same profile. The profile starts as
 * `dsh plugin` would make it (the `@deepseek-ai/dsh-base` bundle, pnpm's
 * hoisted layout) plus one `pnpm.overrides` entry that points
 * `dsh-working-activity` at the stand-in in `dev/vendor/` (the registry here
 * lacks it). pnpm's store is `.cache/pnpm-store` (the temp `HOME` would
 * otherwise give every test a cold store), so a warm install links what an
 * earlier one downloaded.
 *
 * Also the reading of its screen: the transcript rows it draws (`❯` a prompt,
 * `●` an answer, `•` a tool card, `!` a row of a plugin renderer).
 */
import fs from 'node:fs'
import path from 'node:path'
import { REPO_ROOT } from '../../../dev/harness.ts'
import { DEMO_NOTES } from '../../../dev/demo-model.ts'
import { dshBin, dshEnv, runDsh, type RunResult } from './dsh.ts'
import { startTerminal, type Terminal } from './tmux.ts'

export const DSH_TUI_PACKAGE = '@deepseek-harness-tui/dsh-tui'
export const DSH_TUI_VERSION = '0.10.2'
export const DSH_TUI_PROFILE = 'dsh-tui'
const VENDOR = path.join(REPO_ROOT, 'dev', 'vendor', 'dsh-working-activity')
export const PNPM_STORE = path.join(REPO_ROOT, '.cache', 'pnpm-store')

export interface TuiHome {
  /** `DSH_HOME`. */
  readonly dshHome: string
  /** `HOME` of the dsh-TUI process (`~/.dsh-tui/` lands here). */
  readonly home: string
  /** The workspace the terminal starts in. */
  readonly cwd: string
}

/** A fresh `DSH_HOME`, `HOME` and workspace under `root`, created. */
export function makeTuiHome(root: string): TuiHome {
  const home = { dshHome: path.join(root, 'dsh'), home: path.join(root, 'home'), cwd: path.join(root, 'work') }
  for (const dir of [home.dshHome, home.home, home.cwd]) fs.mkdirSync(dir, { recursive: true })
  return home
}

function fail(what: string, result: RunResult): Error {
  return new Error(
    `${what} exited ${result.code ?? result.signal}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
  )
}

/** The environment of a dsh-TUI child: hermetic dsh, English UI, a temp HOME, pnpm's store in `.cache/`. */
export function tuiEnv(
  home: TuiHome,
  llmUrl: string,
  extra: Record<string, string | undefined> = {},
): NodeJS.ProcessEnv {
  return dshEnv({
    home: home.dshHome,
    llmUrl,
    extra: {
      HOME: home.home,
      DSH_TUI_LANG: 'en',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      npm_config_store_dir: PNPM_STORE,
      ...extra,
    },
  })
}

/** Make the profile, add dsh-TUI 0.10.2 and this plugin's tarball; returns the two installs' output. */
export async function installTuiProfile(home: TuiHome, tgz: string): Promise<{ tui: RunResult; plugin: RunResult }> {
  const dir = path.join(home.dshHome, 'profiles', DSH_TUI_PROFILE)
  fs.mkdirSync(dir, { recursive: true })
  fs.mkdirSync(PNPM_STORE, { recursive: true })
  // What `dsh plugin` writes for a new profile (dsh-app-boot `initProfile`), plus the stand-in's override.
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: `dsh-profile-${DSH_TUI_PROFILE}`,
        private: true,
        dependencies: {},
        dsh: { profile: { bundles: ['@deepseek-ai/dsh-base'] } },
        pnpm: { overrides: { 'dsh-working-activity': `file:${VENDOR}` } },
      },
      null,
      2,
    )}\n`,
  )
  fs.writeFileSync(path.join(dir, 'cordis.patch.yml'), '[]\n')
  fs.writeFileSync(
    path.join(dir, 'pnpm-workspace.yaml'),
    'packages:\n  - .\n\nnodeLinker: hoisted\nautoInstallPeers: false\n',
  )
  const env = { HOME: home.home, npm_config_store_dir: PNPM_STORE }
  const options = { home: home.dshHome, extra: env, timeoutMs: 300_000 }
  const tui = await runDsh(
    ['plugin', '--profile', DSH_TUI_PROFILE, 'add', `${DSH_TUI_PACKAGE}@${DSH_TUI_VERSION}`],
    options,
  )
  if (tui.code !== 0) throw fail(`dsh plugin add ${DSH_TUI_PACKAGE}@${DSH_TUI_VERSION}`, tui)
  const plugin = await runDsh(['plugin', '--profile', DSH_TUI_PROFILE, 'add', tgz], options)
  if (plugin.code !== 0) throw fail(`dsh plugin add ${tgz}`, plugin)
  return { tui, plugin }
}

/** `dsh --profile dsh-tui [args]` in tmux, waiting for its composer. */
export async function startTui(
  home: TuiHome,
  llmUrl: string,
  options: {
    args?: readonly string[]
    columns?: number
    rows?: number
    extra?: Record<string, string | undefined>
  } = {},
): Promise<Terminal> {
  const terminal = await startTerminal({
    command: [dshBin(), '--profile', DSH_TUI_PROFILE, ...(options.args ?? [])],
    cwd: home.cwd,
    env: tuiEnv(home, llmUrl, options.extra),
    columns: options.columns ?? 160,
    rows: options.rows ?? 48,
  })
  // The composer and the status line under it (a resumed session may scroll the banner away).
  await terminal.until((screen) => COMPOSER.test(screen) && /deepseek-v4/.test(screen), 'the dsh-TUI composer', {
    timeoutMs: 90_000,
  })
  return terminal
}

/** The composer line (its prompt mark and the full-screen editor button). */
const COMPOSER = /❯.*⛶/

/** One transcript row as dsh-TUI draws it. */
export interface TranscriptRow {
  readonly kind: 'user' | 'assistant' | 'tool' | 'plugin' | 'notice'
  readonly text: string
  /** Line index in the capture. */
  readonly line: number
}

/**
 * The transcript rows of a capture, top to bottom: the lines that start a row
 * (`❯ `, `● `, `• `, `! `, `─ turn …`), without the composer and the banner.
 */
export function transcriptRows(screen: string): TranscriptRow[] {
  const rows: TranscriptRow[] = []
  const lines = screen.split('\n')
  lines.forEach((raw, line) => {
    if (COMPOSER.test(raw) || /^\s*[╭╰│]/.test(raw)) return
    const match = /^ {2}([❯●•!]) (.*)$/.exec(raw)
    if (match) {
      const kind = match[1] === '❯' ? 'user' : match[1] === '●' ? 'assistant' : match[1] === '•' ? 'tool' : 'plugin'
      // Full-screen mode draws a scrollbar in the last column: not part of the row.
      rows.push({ kind, text: match[2]!.replace(/\s+[▴▾━─┃│]+\s*$/u, '').trim(), line })
      return
    }
    if (/turn (blocked|error|aborted)/i.test(raw)) rows.push({ kind: 'notice', text: raw.trim(), line })
  })
  return rows
}

/** The session ids of a `DSH_HOME` (newest first by directory mtime). */
export function sessionIds(dshHome: string): string[] {
  const root = path.join(dshHome, 'sessions')
  if (!fs.existsSync(root)) return []
  const found: { id: string; mtime: number }[] = []
  for (const workspace of fs.readdirSync(root)) {
    const dir = path.join(root, workspace)
    if (!fs.statSync(dir).isDirectory()) continue
    for (const id of fs.readdirSync(dir)) {
      const full = path.join(dir, id)
      if (fs.statSync(full).isDirectory()) found.push({ id, mtime: fs.statSync(full).mtimeMs })
    }
  }
  return found.sort((a, b) => b.mtime - a.mtime).map((entry) => entry.id)
}

/** Type a prompt, wait for its answer row and a new request to `requests` (the fake LLM's count), then for the screen to settle. */
export async function sendPrompt(
  terminal: Terminal,
  requests: () => number,
  prompt: string,
  answer: RegExp,
): Promise<void> {
  const before = requests()
  await terminal.type(prompt)
  await terminal.keys('Enter')
  await terminal.until(
    (screen) => answer.test(screen) && requests() > before,
    `the answer to ${JSON.stringify(prompt)}`,
  )
  await terminal.settled(`the answer to ${JSON.stringify(prompt)}`)
}

/** A fresh `DSH_HOME`, `HOME` and workspace under `root`, the workspace holding the demo's notes.txt. */
export function demoTuiHome(root: string): TuiHome {
  const home = { dshHome: path.join(root, 'dsh'), home: path.join(root, 'home'), cwd: path.join(root, 'work') }
  for (const dir of [home.dshHome, home.home, home.cwd]) fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(home.cwd, 'notes.txt'), DEMO_NOTES)
  return home
}
