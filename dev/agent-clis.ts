/**
 * The real Claude Code and Codex CLIs, pinned, for generating fixtures and
 * for the tests that hand our exports to them. Both are npm packages whose
 * native binary ships inside a registry package (`@anthropic-ai/claude-code-linux-x64`,
 * `@openai/codex-linux-x64`), so a plain `npm install` brings them; they are
 * installed into `.cache/agent-clis/` (gitignored) on first use, not as dev
 * dependencies (about 650 MB together). Concurrent callers serialise on a
 * lock directory.
 *
 *   node dev/agent-clis.ts            install (or confirm) and print the binaries
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const CLIS_DIR = path.join(REPO_ROOT, '.cache', 'agent-clis')

/** The versions the fixtures were generated with and the tests run. */
export const AGENT_CLIS = { '@anthropic-ai/claude-code': '2.1.197', '@openai/codex': '0.171.0' } as const

export interface AgentClis {
  readonly claude: string
  readonly codex: string
}

function bins(): AgentClis {
  return {
    claude: path.join(CLIS_DIR, 'node_modules', '.bin', 'claude'),
    codex: path.join(CLIS_DIR, 'node_modules', '.bin', 'codex'),
  }
}

function stamp(): string {
  return JSON.stringify(AGENT_CLIS) + process.platform + process.arch
}

/** Install the pinned CLIs when missing; returns their binaries. Throws with npm's output when the install fails. */
export function ensureAgentClis(): AgentClis {
  const stampFile = path.join(CLIS_DIR, '.stamp')
  const current = () => fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp()
  if (current()) return bins()
  fs.mkdirSync(path.dirname(CLIS_DIR), { recursive: true })
  const lock = `${CLIS_DIR}.lock`
  const deadline = Date.now() + 10 * 60_000
  for (;;) {
    try {
      fs.mkdirSync(lock)
      break
    } catch {
      if (Date.now() > deadline)
        throw new Error(`${lock} is held for more than 10 minutes; remove it if no install runs`)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500)
      if (current()) return bins()
    }
  }
  try {
    if (current()) return bins()
    fs.rmSync(CLIS_DIR, { recursive: true, force: true })
    fs.mkdirSync(CLIS_DIR, { recursive: true })
    fs.writeFileSync(
      path.join(CLIS_DIR, 'package.json'),
      JSON.stringify({ name: 'agent-clis', private: true, dependencies: AGENT_CLIS }, null, 2),
    )
    // Claude Code's postinstall copies its native binary over the bin stub; scripts must run.
    const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts=false'], {
      cwd: CLIS_DIR,
      encoding: 'utf8',
      timeout: 15 * 60_000,
    })
    if (npm.status !== 0)
      throw new Error(
        `npm install of ${Object.keys(AGENT_CLIS).join(', ')} failed (${npm.status ?? npm.signal}):\n${npm.stdout}\n${npm.stderr}`,
      )
    for (const bin of Object.values(bins())) {
      const version = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000 })
      if (version.status !== 0) throw new Error(`${bin} --version failed: ${version.stderr || version.error?.message}`)
    }
    fs.writeFileSync(stampFile, stamp())
    return bins()
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const found = ensureAgentClis()
  for (const [name, bin] of Object.entries(found)) {
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8' })
    console.log(`${name}: ${bin} (${version.stdout.trim()})`)
  }
}
