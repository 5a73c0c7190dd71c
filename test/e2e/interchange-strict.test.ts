/**
 * Imported sessions continue with a request a strict API accepts, in the real `dsh web` with
 * this package installed from its tarball, against the strict fake provider (it refuses with
 * HTTP 400 what a real chat-completions API refuses). The sessions are real-shaped ones that
 * break the contract when sent as stored (`test/support/interrupted-sessions.ts`): written by
 * Pi's own SessionManager (an answer aborted after a command; a user interrupt during 8 edit
 * calls), the Codex fixture's freeform `apply_patch`, Claude Code's interrupted tool uses.
 * They are imported as a person does, with `npx dsh-session-tree import` (in a project that
 * installed the same tarball with the optional persistence peer), before `dsh web` starts; then
 * each gets a prompt in `dsh web`.
 * What the fake receives is judged: Pi's requests against pi-ai's own `convertMessages`.
 *
 * Evidence: test/e2e/artifacts/interchange-strict/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { cleanEnv, run } from '../../dev/harness.ts'
import { removeDir, tempDir } from './support/dsh.ts'
import { readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'
import { piProviderMessages, wireUnits, type SessionManager } from '../support/pi.ts'
import {
  CLAUDE_INTERRUPTED_SENT,
  claudeInterruptedTranscript,
  codexPatchInput,
  codexPatchRollout,
  piAbortedAfterCommand,
  piInterruptedEdits,
} from '../support/interrupted-sessions.ts'

describeWeb(
  'real-shaped sessions imported with npx dsh-session-tree import continue in dsh web against a strict provider',
  // `dsh web` starts once the sessions are imported (the bin writes into its DSH_HOME).
  { name: 'interchange-strict', llm: { script: readOrAnswerScript(20) }, start: false },
  (dsh) => {
    const imported = new Map<string, string>()
    let aborted: SessionManager
    let edits: SessionManager
    let project: string

    /** `npx dsh-session-tree import <file> --home <home> --cwd <work> --json`, in a project that installed the package. */
    async function cliImport(file: string): Promise<string> {
      const result = await run(
        'npx',
        ['--no', 'dsh-session-tree', 'import', file, '--home', dsh.home, '--cwd', dsh.work, '--json'],
        { cwd: project, env: cleanEnv(), timeoutMs: 120_000 },
      )
      if (result.code !== 0)
        throw new Error(`npx dsh-session-tree import exited ${result.code}\n${result.stdout}\n${result.stderr}`)
      const out = JSON.parse(result.stdout) as { ok: boolean; sessionId?: string; error?: unknown }
      expect(out, `import ${file}: ${result.stderr}`).toMatchObject({ ok: true })
      return out.sessionId!
    }

    beforeAll(async () => {
      // The CLI as a person gets it: the package (the same tarball) and the optional peer its import writes with.
      project = tempDir('ix-strict-cli')
      fs.writeFileSync(path.join(project, 'package.json'), '{"name":"cli-user","private":true}\n')
      const installed = await run(
        'npm',
        [
          'install',
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
          dsh.plugin.tgz,
          '@deepseek-ai/dsh-session-persistence-jsonl@0.1.0-rc.8',
        ],
        { cwd: project, env: cleanEnv(), timeoutMs: 300_000 },
      )
      expect(installed.code, installed.stderr).toBe(0)
      const sources = path.join(dsh.work, '.sources')
      fs.mkdirSync(sources)
      aborted = piAbortedAfterCommand(sources, dsh.work).pi
      edits = piInterruptedEdits(sources, dsh.work)
      imported.set('pi-aborted', await cliImport(aborted.getSessionFile()!))
      imported.set('pi-edits', await cliImport(edits.getSessionFile()!))
      imported.set('codex-patch', await cliImport(codexPatchRollout(fs.mkdtempSync(path.join(sources, 'codex-')))))
      imported.set(
        'claude-interrupted',
        await cliImport(claudeInterruptedTranscript(fs.mkdtempSync(path.join(sources, 'claude-')))),
      )
      dsh.evidence('imported.json', Object.fromEntries(imported))
      dsh.evidence('refusals.json', () => dsh.llm.refusals)
      await dsh.startWeb()
      removeDir(project)
    }, 600_000)

    /** A prompt in dsh web; the request the strict fake accepted for it, as units, without that prompt. */
    async function continued(name: string, prompt: string) {
      const sessionId = imported.get(name)!
      expect((await dsh.api.listSessions()).map((s) => s.sessionId)).toContain(sessionId)
      const before = dsh.llm.chatRequests().length
      await dsh.api.promptAndWait(sessionId, prompt)
      expect(dsh.llm.takeRefusals(), `the request after "${prompt}" in ${name}`).toEqual([])
      expect(dsh.llm.chatRequests().length).toBe(before + 1)
      const body = dsh.llm.chatRequests().at(-1)!.body
      const units = wireUnits(body.messages as never)
      expect(units.at(-1)).toEqual(['user', prompt, [], ''])
      return { body, sent: units.slice(0, -1) }
    }

    it("Pi, an answer aborted after a command: the next request leaves it out, exactly as Pi's provider layer does", async () => {
      const { sent } = await continued('pi-aborted', 'go on')
      expect(sent).toEqual(wireUnits(piProviderMessages(aborted)))
      expect(sent.some(([role, text, calls]) => role === 'assistant' && text === '' && calls.length === 0)).toBe(false)
    }, 600_000)

    it('Pi, a user interrupt during 8 edit calls: each call is answered "No result provided" before the next prompt, as Pi sends it', async () => {
      const { sent } = await continued('pi-edits', 'go on')
      expect(sent).toEqual(wireUnits(piProviderMessages(edits)))
      expect(sent.filter(([role, text]) => role === 'tool' && text === 'No result provided')).toHaveLength(8)
    }, 600_000)

    it('Codex, a freeform apply_patch: sent as JSON arguments {"input": <the patch>}', async () => {
      const { body } = await continued('codex-patch', 'and now?')
      const call = body.messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.function.name === 'apply_patch')!
      expect(JSON.parse(call.function.arguments)).toEqual({ input: codexPatchInput() })
    }, 600_000)

    it('Claude Code, interrupted tool uses and interrupt markers: the markers are sent, the call that never ran is answered', async () => {
      const { sent } = await continued('claude-interrupted', 'go on')
      expect(sent).toEqual(CLAUDE_INTERRUPTED_SENT)
    }, 600_000)
  },
)
