/**
 * Pinned DeepSeek Harness installs for the end-to-end tests.
 *
 * A *variant* is a folder `dev/harness/<variant>/` holding a `package.json`
 * (the exact CLI set plus `pnpm.overrides`, and optionally
 * `pnpm.patchedDependencies`) and the committed `pnpm-lock.yaml` generated
 * from it. `ensureHarness(variant)` copies those files into
 * `.cache/harness/<variant>/` (gitignored) and runs
 * `pnpm install --frozen-lockfile` there, but only when the stamp (a hash of
 * every definition file, the pnpm version and the platform) differs from the
 * one written by the last successful install. Concurrent callers (vitest
 * workers, a second `npm test`) serialise on a lock directory; the loser
 * finds the fresh stamp and returns at once.
 *
 * Patch files named in `pnpm.patchedDependencies` are copied to the same
 * relative path inside the install folder (that is where pnpm and the
 * lockfile look for them), so they must live inside the variant folder. To
 * apply a patch kept elsewhere in the repository, put a symlink to it in the
 * variant folder: it is copied as the file it points to.
 *
 * Runs on the repository's Node 22 (type stripping), as a module or a CLI:
 *
 *   node dev/harness.ts [ensure] <variant>   install (or confirm) .cache/harness/<variant>
 *   node dev/harness.ts lock <variant>       regenerate dev/harness/<variant>/pnpm-lock.yaml
 *   node dev/harness.ts path <variant>       print the dsh binary path
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root (this file lives in `<root>/dev/`). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
/** Where variant definitions live. */
export const HARNESS_DEFINITIONS = path.join(REPO_ROOT, 'dev', 'harness')
/** Where variants get installed (gitignored). */
export const HARNESS_CACHE = path.join(REPO_ROOT, '.cache', 'harness')

const STAMP_FILE = '.dsh-harness-stamp'
const LOCKFILE = 'pnpm-lock.yaml'

export interface HarnessInstall {
  /** Variant name, e.g. `stock`. */
  readonly variant: string
  /** The install folder, `.cache/harness/<variant>`. */
  readonly dir: string
  /** `<dir>/node_modules/.bin/dsh`. */
  readonly bin: string
  /** The stamp the install was made for. */
  readonly stamp: string
  /** True when this call ran `pnpm install`; false when the cached install was current. */
  readonly installed: boolean
  /** Wall time of this call in milliseconds. */
  readonly ms: number
}

export interface EnsureHarnessOptions {
  /** Folder holding `<variant>/package.json` (default `dev/harness`). */
  readonly definitions?: string
  /** Folder holding the installs (default `.cache/harness`). */
  readonly cache?: string
  /** Give up waiting for another process's install after this long (default 10 minutes). */
  readonly lockTimeoutMs?: number
  /** Receives pnpm's output lines and progress notes (default: silent). */
  readonly log?: (line: string) => void
}

// ---------------------------------------------------------------------------
// Tools: the repository's own Node 22 and pnpm (devDependencies)

/** Absolute path of the repository's Node binary (`node_modules/.bin/node`, Node 22). */
export function repoNode(): string {
  const shim = path.join(REPO_ROOT, 'node_modules', '.bin', 'node')
  if (!fs.existsSync(shim)) throw new Error(`${shim} is missing: run \`npm install\` in ${REPO_ROOT} first`)
  return fs.realpathSync(shim)
}

/** Absolute path of pnpm's entry script (`node_modules/pnpm/bin/pnpm.cjs`). */
export function repoPnpm(): string {
  const entry = path.join(REPO_ROOT, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs')
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run \`npm install\` in ${REPO_ROOT} first`)
  return entry
}

/**
 * PATH for child processes: the repository's Node 22 first (the `dsh` shim runs
 * `node` from PATH, and Node 20 cannot load it), then `node_modules/.bin`
 * (pnpm, which `dsh plugin add` needs), then the inherited PATH.
 */
export function toolPath(inherited: string | undefined = process.env.PATH): string {
  return [
    path.dirname(repoNode()),
    path.join(REPO_ROOT, 'node_modules', '.bin'),
    ...(inherited ? [inherited] : []),
  ].join(path.delimiter)
}

/** npm configuration a child pnpm should still honour: registry, store, proxy and TLS settings. */
const KEPT_NPM_CONFIG = /^npm_config_(registry|store_dir|https?_proxy|proxy|no_proxy|noproxy|strict_ssl|cafile|ca)$/i

/**
 * A copy of `process.env` without what npm, vitest and the test process put
 * there (`npm run`'s `npm_*` variables, which pnpm would read as its own
 * configuration, except the registry, store, proxy and TLS settings; `NODE_ENV=test`,
 * `VITEST*`, `NODE_OPTIONS`), with `toolPath()` as PATH.
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue
    if (/^npm_/i.test(key) && !KEPT_NPM_CONFIG.test(key)) continue
    if (/^(VITEST|TINYPOOL|JEST_WORKER)/i.test(key)) continue
    if (['NODE_ENV', 'NODE_OPTIONS', 'TEST', 'INIT_CWD', 'FORCE_COLOR', 'NO_COLOR'].includes(key)) continue
    env[key] = value
  }
  env.PATH = toolPath(process.env.PATH)
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

export interface RunResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

/** Run a command to completion (never rejects on a non-zero exit; see `code`). */
export function run(
  command: string,
  args: readonly string[],
  options: {
    cwd?: string
    env?: NodeJS.ProcessEnv
    timeoutMs?: number
    onLine?: (line: string) => void
    onSpawn?: (pid: number | undefined) => void
  } = {},
): Promise<RunResult> {
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    options.onSpawn?.(child.pid)
    let stdout = ''
    let stderr = ''
    let pending = ''
    const feed = (chunk: string): void => {
      if (!options.onLine) return
      pending += chunk
      const lines = pending.split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines) options.onLine(line)
    }
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d
      feed(d)
    })
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d
      feed(d)
    })
    const timer =
      options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
    child.on('error', (error) => {
      if (timer) clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer)
      if (pending && options.onLine) options.onLine(pending)
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started })
    })
  })
}

// ---------------------------------------------------------------------------
// Lock directory: mkdir is atomic; the owner file lets a waiter break the lock
// of a process that died holding it.

/** What a lock holder can do while it holds the lock. */
export interface LockHandle {
  /**
   * Record a child process working under this lock: the lock counts as held
   * while the owner *or* any recorded child is alive, so a waiter never breaks
   * the lock of a killed owner whose pnpm is still writing.
   */
  addPid(pid: number | undefined): void
}

interface LockOwner {
  readonly pids: number[]
  readonly host: string
  readonly since: string
}

/**
 * Run `fn` while holding `<lockDir>` (created with an atomic mkdir). A lock
 * whose owner and recorded children are all gone is broken; otherwise waiters
 * poll until `timeoutMs`.
 */
export async function withLock<T>(
  lockDir: string,
  fn: (lock: LockHandle) => Promise<T>,
  timeoutMs = 10 * 60_000,
): Promise<T> {
  fs.mkdirSync(path.dirname(lockDir), { recursive: true })
  const deadline = Date.now() + timeoutMs
  const ownerFile = path.join(lockDir, 'owner.json')
  const owner: LockOwner = { pids: [process.pid], host: os.hostname(), since: new Date().toISOString() }
  const writeOwner = (): void => {
    const temp = `${ownerFile}.${process.pid}.tmp`
    fs.writeFileSync(temp, JSON.stringify(owner))
    fs.renameSync(temp, ownerFile)
  }
  for (;;) {
    try {
      fs.mkdirSync(lockDir)
      writeOwner()
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      if (lockIsStale(ownerFile)) {
        fs.rmSync(lockDir, { recursive: true, force: true })
        continue
      }
      if (Date.now() > deadline)
        throw new Error(`timed out after ${timeoutMs} ms waiting for the lock ${lockDir} (${readOwner(ownerFile)})`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
  const handle: LockHandle = {
    addPid(pid) {
      if (pid === undefined) return
      owner.pids.push(pid)
      writeOwner()
    },
  }
  try {
    return await fn(handle)
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true })
  }
}

function readOwner(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return 'owner unknown'
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function lockIsStale(ownerFile: string): boolean {
  let owner: Partial<LockOwner>
  try {
    owner = JSON.parse(fs.readFileSync(ownerFile, 'utf8')) as Partial<LockOwner>
  } catch {
    // Between the owner's mkdir and its first write, or a crash right there: stale only once old.
    try {
      return Date.now() - fs.statSync(path.dirname(ownerFile)).mtimeMs > 30_000
    } catch {
      return false
    }
  }
  // A lock taken on another host (shared disk) is never broken from here.
  if (owner.host !== os.hostname() || !Array.isArray(owner.pids)) return false
  return !owner.pids.some((pid) => typeof pid === 'number' && alive(pid))
}

// ---------------------------------------------------------------------------
// Variants

interface VariantFiles {
  /** Relative path inside the variant folder → absolute source path. */
  readonly files: ReadonlyMap<string, string>
  readonly stamp: string
}

function readVariant(variant: string, definitions: string): VariantFiles {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(variant)) throw new Error(`invalid harness variant name ${JSON.stringify(variant)}`)
  const root = path.join(definitions, variant)
  const manifestPath = path.join(root, 'package.json')
  if (!fs.existsSync(manifestPath)) {
    const known = fs.existsSync(definitions)
      ? fs.readdirSync(definitions).filter((d) => fs.existsSync(path.join(definitions, d, 'package.json')))
      : []
    throw new Error(
      `unknown harness variant ${JSON.stringify(variant)}: ${manifestPath} is missing (known: ${known.join(', ') || 'none'})`,
    )
  }
  if (!fs.existsSync(path.join(root, LOCKFILE))) {
    throw new Error(
      `${path.join(root, LOCKFILE)} is missing: generate it with \`node dev/harness.ts lock ${variant}\` and commit it`,
    )
  }
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as {
    pnpm?: { patchedDependencies?: Record<string, string> }
  }
  const files = new Map<string, string>([
    ['package.json', manifestPath],
    [LOCKFILE, path.join(root, LOCKFILE)],
  ])
  for (const [dependency, patch] of Object.entries(manifest.pnpm?.patchedDependencies ?? {})) {
    const relative = path.normalize(patch)
    if (path.isAbsolute(relative) || relative.startsWith('..')) {
      throw new Error(
        `harness variant ${variant}: the patch for ${dependency} (${patch}) must be inside ${root}; ` +
          'put a symlink to it there (it is copied as the file it points to)',
      )
    }
    const source = path.join(root, relative)
    if (!fs.existsSync(source))
      throw new Error(`harness variant ${variant}: patch file ${source} for ${dependency} is missing`)
    files.set(relative, source)
  }
  const hash = createHash('sha256')
  hash.update(`dsh-harness-stamp/1 ${process.platform}-${process.arch} pnpm ${pnpmVersion()}\n`)
  for (const [relative, source] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    hash.update(`${relative}\n`)
    hash.update(fs.readFileSync(source))
    hash.update('\n')
  }
  return { files, stamp: hash.digest('hex') }
}

function pnpmVersion(): string {
  const manifest = path.join(REPO_ROOT, 'node_modules', 'pnpm', 'package.json')
  return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version
}

function readStamp(dir: string): string | undefined {
  try {
    return fs.readFileSync(path.join(dir, STAMP_FILE), 'utf8').trim()
  } catch {
    return undefined
  }
}

/** The dsh binary of a variant's install folder (which may not exist yet). */
export function harnessBin(variant: string, cache: string = HARNESS_CACHE): string {
  return path.join(cache, variant, 'node_modules', '.bin', 'dsh')
}

/**
 * Make `.cache/harness/<variant>` hold exactly the pinned set of
 * `dev/harness/<variant>/`, installing with `pnpm install --frozen-lockfile`
 * only when the definition changed since the last successful install.
 */
export async function ensureHarness(variant: string, options: EnsureHarnessOptions = {}): Promise<HarnessInstall> {
  const started = Date.now()
  const definitions = options.definitions ?? HARNESS_DEFINITIONS
  const cache = options.cache ?? HARNESS_CACHE
  const log = options.log ?? ((): void => {})
  const { files, stamp } = readVariant(variant, definitions)
  const dir = path.join(cache, variant)
  const bin = harnessBin(variant, cache)
  const current = (): boolean => readStamp(dir) === stamp && fs.existsSync(bin)
  if (current()) return { variant, dir, bin, stamp, installed: false, ms: Date.now() - started }

  return withLock(
    path.join(cache, `${variant}.lock`),
    async (lock) => {
      if (current()) return { variant, dir, bin, stamp, installed: false, ms: Date.now() - started }
      log(`harness ${variant}: installing into ${dir}`)
      fs.mkdirSync(dir, { recursive: true })
      fs.rmSync(path.join(dir, STAMP_FILE), { force: true })
      for (const [relative, source] of files) {
        const target = path.join(dir, relative)
        fs.mkdirSync(path.dirname(target), { recursive: true })
        fs.rmSync(target, { force: true })
        fs.copyFileSync(source, target)
      }
      const result = await run(
        repoNode(),
        [repoPnpm(), 'install', '--frozen-lockfile', '--config.confirmModulesPurge=false', '--reporter=append-only'],
        {
          cwd: dir,
          env: cleanEnv({ CI: '1' }),
          timeoutMs: 15 * 60_000,
          onLine: log,
          onSpawn: (pid) => lock.addPid(pid),
        },
      )
      if (result.code !== 0) {
        throw new Error(
          `harness ${variant}: pnpm install --frozen-lockfile failed in ${dir} (exit ${result.code ?? result.signal}); ` +
            `if dev/harness/${variant}/package.json or a patch changed, run \`node dev/harness.ts lock ${variant}\` and commit the lockfile\n` +
            `${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`,
        )
      }
      if (!fs.existsSync(bin)) throw new Error(`harness ${variant}: pnpm install succeeded but ${bin} does not exist`)
      fs.writeFileSync(path.join(dir, STAMP_FILE), `${stamp}\n`)
      log(`harness ${variant}: installed in ${Date.now() - started} ms`)
      return { variant, dir, bin, stamp, installed: true, ms: Date.now() - started }
    },
    options.lockTimeoutMs,
  )
}

/** Regenerate `dev/harness/<variant>/pnpm-lock.yaml` from its package.json (network; commit the result). */
export async function relockHarness(
  variant: string,
  definitions: string = HARNESS_DEFINITIONS,
  log: (line: string) => void = console.log,
): Promise<void> {
  const root = path.join(definitions, variant)
  if (!fs.existsSync(path.join(root, 'package.json')))
    throw new Error(`unknown harness variant ${variant}: ${root}/package.json is missing`)
  const result = await run(repoNode(), [repoPnpm(), 'install', '--lockfile-only', '--reporter=append-only'], {
    cwd: root,
    env: cleanEnv(),
    onLine: log,
  })
  if (result.code !== 0)
    throw new Error(`pnpm install --lockfile-only failed in ${root} (exit ${result.code ?? result.signal})`)
}

// ---------------------------------------------------------------------------
// CLI

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [first, second] = process.argv.slice(2)
  const command = second === undefined ? 'ensure' : first
  const variant = second ?? first
  if (variant === undefined || !['ensure', 'lock', 'path'].includes(command ?? '')) {
    console.error('usage: node dev/harness.ts [ensure|lock|path] <variant>')
    process.exit(2)
  }
  try {
    if (command === 'lock') {
      await relockHarness(variant)
    } else if (command === 'path') {
      console.log(harnessBin(variant))
    } else {
      const install = await ensureHarness(variant, { log: (line) => console.error(line) })
      console.log(
        JSON.stringify({ variant: install.variant, bin: install.bin, installed: install.installed, ms: install.ms }),
      )
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  }
}
