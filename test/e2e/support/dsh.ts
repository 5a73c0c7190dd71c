/**
 * Run the real, pinned `dsh` CLI (installed by `dev/harness.ts` into
 * `.cache/harness/<variant>/`) hermetically: its own `DSH_HOME`, the fake LLM
 * as its only model provider, no telemetry, the repository's Node 22 first on
 * PATH (the `dsh` shim runs `node` from PATH) and pnpm on PATH (`dsh plugin
 * add` runs it).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { cleanEnv, ensureHarness, harnessBin, type HarnessInstall, run, type RunResult } from '../../../dev/harness.ts'
import { DshApi } from './api.ts'

export type { RunResult } from '../../../dev/harness.ts'

/** The variant every helper uses unless told otherwise. */
export const DEFAULT_VARIANT = 'stock'

/** An address nothing listens on: the provider URL of children that must never reach a model. */
const NO_LLM = 'http://127.0.0.1:9/v1'

/** Install (or confirm) the pinned harness; call it from a `beforeAll` with a long timeout. */
export function ensureDsh(variant: string = DEFAULT_VARIANT): Promise<HarnessInstall> {
  return ensureHarness(variant)
}

/** The `dsh` binary of an installed variant (throws when it is not installed). */
export function dshBin(variant: string = DEFAULT_VARIANT): string {
  const bin = harnessBin(variant)
  if (!fs.existsSync(bin))
    throw new Error(`${bin} is missing: call ensureDsh('${variant}') first (or run \`node dev/harness.ts ${variant}\`)`)
  return bin
}

/** A fresh temporary directory (the caller removes it, e.g. with `removeDir`). */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `dsh-session-tree-e2e-${prefix}-`))
}

export function removeDir(dir: string | undefined): void {
  if (dir) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
}

/** Write a `--patch` file (Loader patch list YAML) and return its path. */
export function writePatch(dir: string, name: string, yaml: string): string {
  const file = path.join(dir, name.endsWith('.yml') ? name : `${name}.yml`)
  fs.writeFileSync(file, yaml.endsWith('\n') ? yaml : `${yaml}\n`)
  return file
}

/**
 * A `--patch` for the `session-tree` row: its sidecar under `sidecarRoot` (default
 * `<home>/session-tree`), `surfaceMode` (default auto) and any further config keys.
 */
export function sessionTreePatch(
  home: string,
  name: string,
  config: { readonly sidecarRoot?: string; readonly surfaceMode?: string } & Record<string, string | number> = {},
): string {
  const { sidecarRoot = path.join(home, 'session-tree'), surfaceMode = 'auto', ...rest } = config
  const lines = Object.entries(rest).map(([key, value]) => `    ${key}: ${value}`)
  return writePatch(
    home,
    name,
    [
      '- id: session-tree',
      '  config:',
      `    sidecarRoot: ${JSON.stringify(sidecarRoot)}`,
      `    surfaceMode: ${surfaceMode}`,
      ...lines,
      '',
    ].join('\n'),
  )
}

export interface DshEnvOptions {
  /** The `DSH_HOME` (a temp dir per test). */
  readonly home: string
  /** The fake LLM's base URL (`http://127.0.0.1:PORT/v1`); children without one get an unreachable address. */
  readonly llmUrl?: string
  /** Extra variables (undefined deletes). */
  readonly extra?: Record<string, string | undefined>
}

/** The environment of a hermetic dsh child. */
export function dshEnv({ home, llmUrl, extra = {} }: DshEnvOptions): NodeJS.ProcessEnv {
  const env = cleanEnv()
  // No other provider may be picked up from the developer's environment.
  for (const key of Object.keys(env))
    if (/(_API_KEY|_BASE_URL|_AUTH_TOKEN)$/.test(key) || key.startsWith('DSH_')) delete env[key]
  Object.assign(env, {
    DSH_HOME: home,
    DEEPSEEK_BASE_URL: llmUrl ?? NO_LLM,
    DEEPSEEK_API_KEY: 'fake-key',
    DSH_TELEMETRY_DISABLED: '1',
    // The suite's own setting passes through: imports in the real dsh web rebuild and compare too (vitest.config.ts).
    ...(process.env.DSH_SESSION_TREE_IMPORT_CHECK
      ? { DSH_SESSION_TREE_IMPORT_CHECK: process.env.DSH_SESSION_TREE_IMPORT_CHECK }
      : {}),
  })
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

export interface DshRunOptions extends DshEnvOptions {
  /** Working directory (the session workspace); default `home`. */
  readonly cwd?: string
  readonly variant?: string
  readonly timeoutMs?: number
}

/** Run `dsh <args>` to completion. */
export function runDsh(args: readonly string[], options: DshRunOptions): Promise<RunResult> {
  return run(dshBin(options.variant), args, {
    cwd: options.cwd ?? options.home,
    env: dshEnv(options),
    timeoutMs: options.timeoutMs ?? 120_000,
  })
}

function failure(what: string, result: RunResult): Error {
  return new Error(
    `${what} exited ${result.code ?? result.signal}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
  )
}

/** `dsh plugin --profile <profile> add <tgz>`; throws with its output when it fails. */
export async function pluginAdd(
  home: string,
  profile: string,
  tgz: string,
  options: Omit<DshRunOptions, 'home'> = {},
): Promise<RunResult> {
  const result = await runDsh(['plugin', '--profile', profile, 'add', tgz], { ...options, home })
  if (result.code !== 0) throw failure(`dsh plugin --profile ${profile} add ${tgz}`, result)
  return result
}

/** `dsh --profile <profile> --dump-config`: the composed profile tree (YAML text). */
export async function dumpConfig(
  home: string,
  profile: string,
  options: Omit<DshRunOptions, 'home'> & { patches?: readonly string[] } = {},
): Promise<string> {
  const patches = patchArgs(options.patches)
  const result = await runDsh(['--profile', profile, ...patches, '--dump-config'], { ...options, home })
  if (result.code !== 0) throw failure(`dsh --profile ${profile} --dump-config`, result)
  return result.stdout
}

export interface HeadlessOptions extends DshRunOptions {
  readonly task: string
  readonly patches?: readonly string[]
}

/** `dsh --profile headless [--patch …] "<task>"`: prints the last assistant text, exit 0 on a completed turn. */
export function runHeadless(options: HeadlessOptions): Promise<RunResult> {
  const patches = patchArgs(options.patches)
  return runDsh(['--profile', 'headless', ...patches, options.task], options)
}

// ---------------------------------------------------------------------------
// dsh web

export interface WebOptions extends DshEnvOptions {
  /** The workspace (sessions are keyed by it). */
  readonly cwd: string
  readonly llmUrl: string
  readonly patches?: readonly string[]
  readonly variant?: string
  /** Extra arguments for the web app (after its `--host/--port/--no-open`). */
  readonly args?: readonly string[]
  /** How long to wait for the URL line (default 60 s). */
  readonly timeoutMs?: number
}

export interface StopResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly ms: number
}

export interface WebProcess {
  /** `http://127.0.0.1:PORT` */
  readonly url: string
  readonly api: DshApi
  readonly pid: number
  readonly bootMs: number
  /** Output so far. */
  logs(): { stdout: string; stderr: string }
  /**
   * Signal the whole process group (default SIGTERM: graceful, flushes the
   * sessions), SIGKILL it after `graceMs`, and wait for the exit. Idempotent.
   */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<StopResult>
}

/** Process groups started here that are still running; killed if the test process exits first. */
const liveGroups = new Set<number>()
let exitHookInstalled = false

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}

function track(child: ChildProcess): void {
  const pid = child.pid
  if (pid === undefined) return
  liveGroups.add(pid)
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.on('exit', () => {
      for (const group of liveGroups) killGroup(group, 'SIGKILL')
    })
  }
}

const URL_LINE = /dsh web: (http:\/\/127\.0\.0\.1:\d+)/

/**
 * Start `dsh web --host 127.0.0.1 --port 0 --no-open` in its own process group
 * and wait for its `dsh web: <url>` line. Rejects with stdout and stderr when
 * the process exits (or times out) first.
 */
export async function startWeb(options: WebOptions): Promise<WebProcess> {
  const started = Date.now()
  // `--patch` belongs to the `web` command and must precede the web app's own flags.
  const args = [
    'web',
    ...patchArgs(options.patches),
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--no-open',
    ...(options.args ?? []),
  ]
  const child = spawn(dshBin(options.variant), args, {
    cwd: options.cwd,
    env: dshEnv(options),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  track(child)
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d
  })
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      if (child.pid !== undefined) {
        // Reap anything the harness left in its group (tool subprocesses).
        killGroup(child.pid, 'SIGKILL')
        liveGroups.delete(child.pid)
      }
      resolve({ code, signal })
    })
  })
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<StopResult> => {
    const t0 = Date.now()
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      killGroup(child.pid, signal)
    }
    const timer = setTimeout(() => {
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL')
    }, graceMs)
    const result = await exited
    clearTimeout(timer)
    return { ...result, ms: Date.now() - t0 }
  }
  const timeoutMs = options.timeoutMs ?? 60_000
  const url = await new Promise<string>((resolve, reject) => {
    const describe = (): string => `\n--- stdout\n${stdout}\n--- stderr\n${stderr}`
    const timer = setTimeout(() => {
      cleanup()
      void stop('SIGKILL')
      reject(new Error(`dsh web printed no URL within ${timeoutMs} ms${describe()}`))
    }, timeoutMs)
    const onData = (): void => {
      const match = URL_LINE.exec(stdout)
      if (match?.[1]) {
        cleanup()
        resolve(match[1])
      }
    }
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      cleanup()
      reject(new Error(`dsh web exited (${code ?? signal}) before printing its URL${describe()}`))
    }
    const onError = (error: Error): void => {
      cleanup()
      reject(error)
    }
    const cleanup = (): void => {
      clearTimeout(timer)
      child.stdout.off('data', onData)
      child.off('exit', onExit)
      child.off('error', onError)
    }
    child.stdout.on('data', onData)
    child.on('exit', onExit)
    child.on('error', onError)
    onData()
  })
  return {
    url,
    api: new DshApi(url),
    pid: child.pid as number,
    bootMs: Date.now() - started,
    logs: () => ({ stdout, stderr }),
    stop,
  }
}

/** `--patch <file>` for each extra bundle patch. */
function patchArgs(patches: readonly string[] | undefined): string[] {
  return (patches ?? []).flatMap((p) => ['--patch', p])
}
