/**
 * Our Claude Code export, judged by the real `claude` (2.1.197, dev/agent-clis.ts)
 * against the recording fake of the Messages API on 127.0.0.1: a session
 * imported from a transcript the real CLI wrote (with a fork and a
 * compaction) is exported as Claude Code JSONL where `claude --resume` looks,
 * and `claude -p --resume <id>` continues it. The request the CLI then sends
 * must hold exactly the exported path followed by the new prompt — for the
 * active path (through the compaction) and after a jump to the other branch.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureAgentClis } from '../../dev/agent-clis.ts'
import { claudeEnv } from '../../dev/fixtures/claude-code.ts'
import { importSession } from '../../src/interchange/session/import.ts'
import { defaultExportPath, exportTree, writeNewFile } from '../../src/interchange/session/export.ts'
import { TreeSidecar } from '../../src/sidecar/index.ts'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.ts'
import { dshHome, loadTree } from '../support/interchange.ts'
import { pathUnits, requestUnits } from '../support/claude-units.ts'

const SOURCE = path.join(
  import.meta.dirname,
  '..',
  'fixtures',
  'claude-code',
  'generated',
  '7d0c1c2e-5b1a-4c1e-9a57-3f1f0d2b6a10.jsonl',
)

function run(
  bin: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c))
    child.stderr.on('data', (c: Buffer) => (stderr += c))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('claude --resume continues our Claude Code export (real CLI, fake Messages API)', () => {
  let claude: string
  let fake: FakeAnthropic
  let root: string

  beforeAll(async () => {
    claude = ensureAgentClis().claude
    fake = await startFakeAnthropic(() => ({ text: 'Continuing from the exported path.' }))
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-claude-resume-'))
  }, 900_000)

  afterAll(async () => {
    await fake?.close()
    if (root) fs.rmSync(root, { recursive: true, force: true })
  })

  for (const where of ['the active path (through the compaction)', 'the other branch, after a jump'] as const) {
    it(`${where}: the request claude sends holds the exported path, then the new prompt`, async () => {
      const home = await dshHome()
      const outcome = await importSession(
        { path: SOURCE },
        { persistence: home.persistence, sidecarRoot: home.sidecarRoot },
      )
      const { tree } = await loadTree(home, outcome.sessionId!)
      if (where !== 'the active path (through the compaction)') {
        const target = tree.list().find((n) => n.message?.role === 'assistant' && n.message.content === 'Greeting.')!
        expect(tree.jump(target.nodeId).ok).toBe(true)
      }
      const cursor = tree.cursor!
      const expected = pathUnits(tree, cursor)
      const work = fs.mkdtempSync(path.join(root, 'work-'))
      const claudeHome = fs.mkdtempSync(path.join(root, 'home-'))
      const env = claudeEnv(claudeHome, fake.url)
      const exported = await exportTree(tree, {
        format: 'claude-code',
        sidecarDir: new TreeSidecar(home.sidecarRoot).dirFor(outcome.sessionId!),
        cwd: work,
      })
      const file = defaultExportPath('claude-code', exported, {
        cwd: work,
        exportsDir: root,
        sessionId: outcome.sessionId!,
        env,
      })
      expect(file.startsWith(path.join(claudeHome, '.claude', 'projects'))).toBe(true)
      writeNewFile(file, exported.lines)
      const before = fake.requests.length
      const prompt = `Go on (${where}).`
      const result = await run(claude, ['-p', '--output-format', 'json', '--resume', exported.fileSessionId, prompt], {
        cwd: work,
        env,
      })
      expect(result.code, result.stderr + result.stdout).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({
        is_error: false,
        session_id: exported.fileSessionId,
        result: 'Continuing from the exported path.',
      })
      const sent = fake.requests.slice(before)
      expect(sent).toHaveLength(1)
      expect(requestUnits(sent[0]!.body.messages as never)).toEqual([...expected, ['user', prompt]])
      // What the CLI then appended to our file is its own continuation of it (the same session id and chain).
      const lines = fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type?: string; sessionId?: string; message?: { content?: unknown } })
      expect(lines.length).toBeGreaterThan(exported.lines.length)
      expect(lines.filter((l) => l.type === 'user' && l.message?.content === prompt)).toHaveLength(1)
    }, 600_000)
  }
})
