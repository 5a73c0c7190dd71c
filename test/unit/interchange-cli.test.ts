/**
 * The `dsh-session-tree` bin, as a user runs it (a child process on this
 * repository's Node 22): import a Pi session into a fresh DSH_HOME through the
 * published JSONL persistence, export it back, and the errors by code.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { assistant, newPiSession, piContext, SessionManager, user } from '../support/pi.ts'

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts')

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } })
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
    expect(JSON.parse(dry.stdout)).toMatchObject({ ok: true, dryRun: true, sessionId: null, report: { format: 'pi', nodes: 6, branches: 2 } })
    expect(readdirSync(home)).toEqual([])
    const imported = await cli(['import', pi.getSessionFile()!, '--json'], { DSH_HOME: home })
    expect(imported.code).toBe(0)
    const result = JSON.parse(imported.stdout) as { sessionId: string; home: string; cwd: string }
    expect(result).toMatchObject({ ok: true, home, cwd: '/work/project' })
    expect(readdirSync(join(home, 'sessions'), { recursive: true })).toContain(join('--work-project--', result.sessionId, 'session.jsonl.zstd'))
    const out = join(mkdtempSync(join(tmpdir(), 'export-')), 'back.jsonl')
    const exported = await cli(['export', 'pi', result.sessionId, out, '--home', home])
    expect(exported).toMatchObject({ code: 0, stdout: `Exported pi to ${out} (7 lines, ${readFileSync(pi.getSessionFile()!).length} bytes).\n` })
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
})
