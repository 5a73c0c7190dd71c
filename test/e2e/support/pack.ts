/**
 * Build this package and `npm pack` it, once per content: the tarball is
 * cached in `.cache/pack/<hash>/` where the hash covers every build input
 * (package.json, package-lock.json, cordis.patch.yml, the README pair, tsconfig*.json,
 * src/, docs/ and dev/ except the harness definitions). Concurrent callers (vitest
 * workers) serialise on a lock directory; the second one reuses the first
 * one's tarball. A cache hit skips the build entirely.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { cleanEnv, REPO_ROOT, run, withLock } from '../../../dev/harness.ts'

export const PACK_CACHE = path.join(REPO_ROOT, '.cache', 'pack')

const INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'cordis.patch.yml',
  'README.md',
  'README.zh.md',
  'README.i18n.yaml',
  'tsconfig.json',
  'tsconfig.build.json',
]
const INPUT_DIRS = ['src', 'dev', 'docs']
const SKIPPED_DIRS = new Set([path.join('dev', 'harness'), 'node_modules'])

function listFiles(dir: string, relative: string, out: string[]): void {
  if (!fs.existsSync(dir)) return
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = path.join(relative, entry.name)
    if (SKIPPED_DIRS.has(rel) || SKIPPED_DIRS.has(entry.name)) continue
    if (entry.isDirectory()) listFiles(path.join(dir, entry.name), rel, out)
    else if (entry.isFile() || entry.isSymbolicLink()) out.push(rel)
  }
}

/** The hash of every build input. */
export function packInputHash(root: string = REPO_ROOT): string {
  const files = INPUT_FILES.filter((f) => fs.existsSync(path.join(root, f)))
  for (const dir of INPUT_DIRS) listFiles(path.join(root, dir), dir, files)
  const hash = createHash('sha256').update('dsh-session-tree-pack/1\n')
  for (const file of files.sort()) {
    hash.update(`${file}\n`)
    hash.update(fs.readFileSync(path.join(root, file)))
    hash.update('\n')
  }
  return hash.digest('hex').slice(0, 24)
}

export interface PackedPlugin {
  /** Absolute path of the tarball. */
  readonly tgz: string
  readonly name: string
  readonly version: string
  /** Paths inside the tarball (from `npm pack --json`). */
  readonly files: ReadonlyArray<string>
  /** True when this call built and packed; false on a cache hit. */
  readonly built: boolean
  readonly ms: number
}

interface PackJson {
  readonly name: string
  readonly version: string
  readonly filename: string
  readonly files: ReadonlyArray<{ readonly path: string }>
}

let inProcess: Promise<PackedPlugin> | undefined

/**
 * Build (`npm run build`) and pack this package, cached by content; one call
 * per process does the work. `E2E_PLUGIN_TGZ=<path>` uses that tarball instead
 * (e.g. a release candidate), without building.
 */
export function packPlugin(): Promise<PackedPlugin> {
  const override = process.env.E2E_PLUGIN_TGZ
  if (override) return Promise.resolve(prebuilt(path.resolve(override)))
  inProcess ??= packOnce().catch((error: unknown) => {
    inProcess = undefined
    throw error
  })
  return inProcess
}

function prebuilt(tgz: string): PackedPlugin {
  if (!fs.existsSync(tgz)) throw new Error(`E2E_PLUGIN_TGZ=${tgz} does not exist`)
  const files = execFileSync('tar', ['-tzf', tgz], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.startsWith('package/') && !line.endsWith('/'))
    .map((line) => line.slice('package/'.length))
  const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tgz, 'package/package.json'], { encoding: 'utf8' })) as {
    name: string
    version: string
  }
  return { tgz, name: manifest.name, version: manifest.version, files, built: false, ms: 0 }
}

async function packOnce(): Promise<PackedPlugin> {
  const started = Date.now()
  const key = packInputHash()
  const dir = path.join(PACK_CACHE, key)
  const manifest = path.join(dir, 'pack.json')
  const cached = (): PackedPlugin | undefined => {
    if (!fs.existsSync(manifest)) return undefined
    const info = JSON.parse(fs.readFileSync(manifest, 'utf8')) as PackJson
    const tgz = path.join(dir, info.filename)
    if (!fs.existsSync(tgz)) return undefined
    return {
      tgz,
      name: info.name,
      version: info.version,
      files: info.files.map((f) => f.path),
      built: false,
      ms: Date.now() - started,
    }
  }
  const hit = cached()
  if (hit) return hit
  return withLock(path.join(PACK_CACHE, 'build.lock'), async (lock) => {
    const again = cached()
    if (again) return again
    const env = cleanEnv()
    const build = await run('npm', ['run', 'build'], {
      cwd: REPO_ROOT,
      env,
      timeoutMs: 5 * 60_000,
      onSpawn: (pid) => lock.addPid(pid),
    })
    if (build.code !== 0)
      throw new Error(`npm run build failed (exit ${build.code ?? build.signal})\n${build.stdout}\n${build.stderr}`)
    fs.rmSync(dir, { recursive: true, force: true })
    fs.mkdirSync(dir, { recursive: true })
    // The build just ran; --ignore-scripts keeps `prepare` from running it again.
    const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
      cwd: REPO_ROOT,
      env,
      timeoutMs: 2 * 60_000,
      onSpawn: (pid) => lock.addPid(pid),
    })
    if (pack.code !== 0)
      throw new Error(`npm pack failed (exit ${pack.code ?? pack.signal})\n${pack.stdout}\n${pack.stderr}`)
    const [info] = JSON.parse(pack.stdout) as PackJson[]
    if (!info || !fs.existsSync(path.join(dir, info.filename)))
      throw new Error(`npm pack wrote no tarball into ${dir}\n${pack.stdout}`)
    fs.writeFileSync(manifest, JSON.stringify(info, null, 2))
    // Keep the cache small: drop tarballs of other inputs.
    for (const other of fs.readdirSync(PACK_CACHE)) {
      if (other !== key && other !== 'build.lock')
        fs.rmSync(path.join(PACK_CACHE, other), { recursive: true, force: true })
    }
    return {
      tgz: path.join(dir, info.filename),
      name: info.name,
      version: info.version,
      files: info.files.map((f) => f.path),
      built: true,
      ms: Date.now() - started,
    }
  })
}
