/**
 * The `dsh-session-tree` bin, as a user runs it (a child process on this
 * repository's Node 22): import a Pi session into a fresh DSH_HOME through the
 * published JSONL persistence, export it back, and the errors by code.
 */
import { execFile } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { assistant, newPiSession, piContext, SessionManager, user } from '../../support/pi.ts'

const CLI = join(import.meta.dirname, '..', '..', '..', 'src', 'cli', 'main.ts')

async function cli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      ...(cwd ? { cwd } : {}),
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

describe('dsh-session-tree (bin)', () => {
  it('import --json writes the session under --home; export pi gives the file back; DSH_HOME is honoured', async () => {
    const pi = newPiSession()
    pi.appendMessage(user('hello'))
    const a = pi.appendMessage(assistant('hi'))
    pi.appendMessage(user('one way'))
    pi.appendMessage(assistant('first'))
    pi.branch(a)
    pi.appendMessage(user('another way'))
    pi.appendMessage(assistant('second'))
    const home = mkdtempSync(join(tmpdir(), 'dsh-home-'))
    const dry = await cli(['import', pi.getSessionFile()!, '--home', home, '--dry-run', '--json'])
    expect(dry.code).toBe(0)
    expect(JSON.parse(dry.stdout)).toMatchObject({
      ok: true,
      dryRun: true,
      sessionId: null,
      report: { format: 'pi', nodes: 6, branches: 2 },
    })
    expect(readdirSync(home)).toEqual([])
    const imported = await cli(['import', pi.getSessionFile()!, '--json'], { DSH_HOME: home })
    expect(imported.code).toBe(0)
    const result = JSON.parse(imported.stdout) as { sessionId: string; home: string; cwd: string }
    expect(result).toMatchObject({ ok: true, home, cwd: '/work/project' })
    expect(readdirSync(join(home, 'sessions'), { recursive: true })).toContain(
      join('--work-project--', result.sessionId, 'session.jsonl.zstd'),
    )
    const out = join(mkdtempSync(join(tmpdir(), 'export-')), 'back.jsonl')
    const exported = await cli(['export', 'pi', result.sessionId, out, '--home', home])
    expect(exported).toMatchObject({
      code: 0,
      stdout: `Exported pi to ${out} (7 lines, ${readFileSync(pi.getSessionFile()!).length} bytes).\n`,
    })
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(pi.getSessionFile()!, 'utf8'))
    expect(piContext(SessionManager.open(out))).toEqual(piContext(pi))
  })

  it('errors: a typed code and exit 1; usage mistakes exit 2', async () => {
    const home = mkdtempSync(join(tmpdir(), 'dsh-home-'))
    const missing = await cli(['import', join(home, 'nope.jsonl'), '--home', home, '--json'])
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stdout)).toMatchObject({ ok: false, error: { code: 'INVALID_PATH' } })
    const notSession = await cli(['import', CLI, '--home', home])
    expect(notSession).toMatchObject({ code: 1, stderr: expect.stringMatching(/^dsh-session-tree: NOT_A_SESSION: /) })
    expect((await cli(['export', 'html', 'x', '--home', home])).code).toBe(2)
    expect((await cli(['import'])).code).toBe(2)
    expect((await cli(['frobnicate'])).code).toBe(2)
    expect(readdirSync(home)).toEqual([])
  })

  it('every command of the import/export block in docs/interchange.md works as written (paths and ids replaced by real ones)', async () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'interchange.md'), 'utf8')
    const section = doc.slice(doc.indexOf('# Import and export'))
    const block = section.slice(section.indexOf('```sh') + 5, section.indexOf('```', section.indexOf('```sh') + 5))
    const commands = block
      .trim()
      .split('\n')
      .map((line) =>
        line
          .replace(/\s+#.*$/, '')
          .trim()
          .split(/\s+/),
      )
    expect(commands.length).toBeGreaterThanOrEqual(7)
    for (const words of commands) expect(words.slice(0, 2)).toEqual(['npx', 'dsh-session-tree'])
    // Real files where the document names a tool's file; a fresh home, Pi and Claude Code dirs; the session id of the first import.
    const root = mkdtempSync(join(tmpdir(), 'readme-'))
    const home = join(root, 'dsh')
    const pi = newPiSession()
    pi.appendMessage(user('hello'))
    pi.appendMessage(assistant('hi'))
    const claude = join(root, 'claude')
    cpSync(join(import.meta.dirname, '..', '..', 'fixtures', 'claude-code', 'generated'), claude, { recursive: true })
    const codexDir = join(import.meta.dirname, '..', '..', 'fixtures', 'codex', 'generated')
    const [thread, fork] = readdirSync(codexDir)
      .filter((n) => n.startsWith('rollout-'))
      .sort()
    const dated = join(root, 'codex', 'sessions', '2026', '01', '10')
    mkdirSync(dated, { recursive: true })
    for (const name of [thread!, fork!]) copyFileSync(join(codexDir, name), join(dated, name))
    mkdirSync(join(root, 'a'))
    mkdirSync(join(root, 'b'))
    copyFileSync(join(codexDir, fork!), join(root, 'a', 'fork.jsonl'))
    copyFileSync(join(codexDir, thread!), join(root, 'b', 'thread.jsonl'))
    let sessionId: string | undefined
    const real = (word: string): string => {
      if (word === '~/.dsh') return home
      if (word.startsWith('~/.pi/')) return pi.getSessionFile()!
      if (word.startsWith('~/.claude/')) return join(claude, '7d0c1c2e-5b1a-4c1e-9a57-3f1f0d2b6a10.jsonl')
      if (word.startsWith('~/.codex/')) return join(dated, thread!)
      if (word === 'fork.jsonl') return join(root, 'a', 'fork.jsonl')
      if (word === 'thread.jsonl') return join(root, 'b', 'thread.jsonl')
      if (/^[0-9a-f]{8}-/.test(word)) return sessionId!
      return word
    }
    const env = {
      DSH_HOME: home,
      PI_CODING_AGENT_DIR: join(root, 'pi-agent'),
      CLAUDE_CONFIG_DIR: join(root, 'claude-config'),
    }
    const outputs: string[] = []
    for (const words of commands) {
      const args = words.slice(2).map(real)
      const run = await cli(args, env, root)
      expect(run, words.join(' ')).toMatchObject({ code: 0 })
      outputs.push(run.stdout)
      sessionId ??= /Imported as session (\S+) /.exec(run.stdout)?.[1]
    }
    // What the block promises: the Codex imports join the fork, the dry run lists branches, the exports land where each tool looks.
    expect(outputs[2]).toContain('branches (* continues):')
    expect(outputs[2]).toContain('joined as a branch')
    expect(outputs[3]).toContain('joined as a branch')
    expect(readdirSync(join(root, 'pi-agent', 'sessions'))).toHaveLength(1)
    expect(readdirSync(root)).toEqual(expect.arrayContaining(['session.jsonl', 'session.md']))
    expect(basename(real('2bb0ce6a-…'))).toBe(sessionId)
  }, 300_000) // seven real CLI processes: a loaded 2-core machine can take minutes
})
