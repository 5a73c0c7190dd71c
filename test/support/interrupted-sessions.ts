/**
 * Real-shaped sessions that break the provider contract when sent as they are stored: written
 * by Pi's own `SessionManager`, cut from the Codex fixture, or built from the records Claude
 * Code 2.0.57 writes (the envelope of test/fixtures/claude-code). Each is one the issue met in
 * real sessions: an answer aborted after a command, a user interrupt during eight edits, a
 * freeform `apply_patch`, interrupted tool uses with Claude Code's interrupt markers.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { assistant, newPiSession, toolResult, user, type SessionManager } from './pi.ts'

const FIXTURES = join(import.meta.dirname, '..', 'fixtures')

/** Pi: a command aborted, then the answer after it aborted by the person (Escape), later an answer the provider failed. */
export function piAbortedAfterCommand(
  dir?: string,
  cwd?: string,
): { pi: SessionManager; aborted: string; errored: string } {
  const pi = newPiSession(dir, cwd)
  pi.appendThinkingLevelChange('high')
  pi.appendMessage(user('run the tests'))
  pi.appendMessage(assistant('', { calls: [{ id: 'call_bash', name: 'bash', args: { command: 'npm test' } }] }))
  pi.appendMessage(toolResult('call_bash', 'bash', 'Command aborted', true))
  const aborted = pi.appendMessage(assistant('', { stopped: { reason: 'aborted', message: 'Request was aborted' } }))
  pi.appendMessage(user('try once more'))
  pi.appendMessage(assistant('I ran them: 3 passed.'))
  pi.appendMessage(user('and the lint?'))
  const errored = pi.appendMessage(assistant('Lint', { stopped: { reason: 'error', message: 'overloaded' } }))
  return { pi, aborted, errored }
}

/** Pi: an answer with 8 `edit` calls, interrupted by the person's next message before any result. */
export function piInterruptedEdits(dir?: string, cwd?: string): SessionManager {
  const pi = newPiSession(dir, cwd)
  pi.appendMessage(user('rename foo to bar in the 8 modules'))
  pi.appendMessage(
    assistant('Editing all eight.', {
      calls: Array.from({ length: 8 }, (_, i) => ({
        id: `call_edit_${i}`,
        name: 'edit',
        args: { path: `src/m${i}.ts`, oldText: 'foo', newText: 'bar' },
      })),
    }),
  )
  pi.appendMessage(user('stop, only m0'))
  pi.appendMessage(assistant('Only m0 then.'))
  return pi
}

/** The raw input of the Codex fixture's freeform `apply_patch` call. */
export function codexPatchInput(): string {
  return readFileSync(join(FIXTURES, 'codex', 'synthetic-rollout.jsonl'), 'utf8')
    .split('\n')
    .map((l) => (l ? (JSON.parse(l) as { payload?: { type?: string; input?: string } }) : {}))
    .find((r) => r.payload?.type === 'custom_tool_call')!.payload!.input!
}

/** The synthetic Codex rollout cut where its freeform apply_patch is answered: the patch turn is where it continues. */
export function codexPatchRollout(dir = mkdtempSync(join(tmpdir(), 'codex-patch-'))): string {
  const lines = readFileSync(join(FIXTURES, 'codex', 'synthetic-rollout.jsonl'), 'utf8')
    .trim()
    .split('\n')
  const output = lines.findIndex((l) => l.includes('"custom_tool_call_output"'))
  const file = join(dir, 'rollout-2026-01-10T09-00-00-01a23186-0000-7000-8000-000000000001.jsonl')
  writeFileSync(file, lines.slice(0, output + 1).join('\n') + '\n')
  return file
}

export const CLAUDE_INTERRUPTED_TOOL_USE = '[Request interrupted by user for tool use]'
export const CLAUDE_INTERRUPTED = '[Request interrupted by user]'

/**
 * Claude Code: a tool use the person interrupted (its result and the marker Claude Code
 * records), two parallel tool uses of which one never ran, a streaming interrupt, and an
 * answer that holds only thinking.
 */
export function claudeInterruptedTranscript(
  dir = mkdtempSync(join(tmpdir(), 'claude-interrupts-')),
  cwd = '/work/shop',
): string {
  const sessionId = '5f1d2c3b-0a9e-4c7d-8b6a-1e2f3a4b5c6d'
  const entries: { type: 'user' | 'assistant'; content: unknown; id?: string }[] = [
    { type: 'user', content: 'clean the build folder' },
    {
      type: 'assistant',
      content: [
        { type: 'text', text: 'Removing it.' },
        { type: 'tool_use', id: 'toolu_rm', name: 'Bash', input: { command: 'rm -rf build' } },
      ],
    },
    {
      type: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_rm', content: CLAUDE_INTERRUPTED_TOOL_USE, is_error: true }],
    },
    { type: 'user', content: [{ type: 'text', text: CLAUDE_INTERRUPTED_TOOL_USE }] },
    { type: 'user', content: 'no, run the tests and read the log instead' },
    {
      type: 'assistant',
      id: 'msg_two',
      content: [{ type: 'tool_use', id: 'toolu_test', name: 'Bash', input: { command: 'npm test' } }],
    },
    {
      type: 'assistant',
      id: 'msg_two',
      content: [{ type: 'tool_use', id: 'toolu_log', name: 'Read', input: { file_path: `${cwd}/test.log` } }],
    },
    { type: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_test', content: '3 passed' }] },
    { type: 'user', content: [{ type: 'text', text: CLAUDE_INTERRUPTED }] },
    { type: 'user', content: 'summarize' },
    { type: 'assistant', content: [{ type: 'thinking', thinking: 'the tests passed', signature: 'sig' }] },
    { type: 'user', content: [{ type: 'text', text: CLAUDE_INTERRUPTED }] },
    { type: 'user', content: 'summarize, briefly' },
    { type: 'assistant', content: [{ type: 'text', text: 'Tests pass; the build folder is still there.' }] },
  ]
  let parent: string | null = null
  const lines = entries.map((entry, i) => {
    const uuid = `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`
    const record = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd,
      sessionId,
      version: '2.0.57',
      gitBranch: 'main',
      type: entry.type,
      message:
        entry.type === 'assistant'
          ? {
              model: 'claude-sonnet-4-5-20250929',
              id: entry.id ?? `msg_${i}`,
              type: 'message',
              role: 'assistant',
              content: entry.content,
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: 10, output_tokens: 5 },
            }
          : { role: 'user', content: entry.content },
      ...(entry.type === 'assistant' ? { requestId: `req_${i}` } : {}),
      uuid,
      timestamp: new Date(Date.parse('2026-01-12T10:00:00Z') + i * 1000).toISOString(),
    }
    parent = uuid
    return JSON.stringify(record)
  })
  const file = join(dir, `${sessionId}.jsonl`)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

/** What DSH sends for `claudeInterruptedTranscript` (as `wireUnits`), before a new prompt. */
export const CLAUDE_INTERRUPTED_SENT = [
  ['user', 'clean the build folder', [], ''],
  ['assistant', 'Removing it.', ['#0 Bash({"command":"rm -rf build"})'], ''],
  ['tool', CLAUDE_INTERRUPTED_TOOL_USE, [], '#0'],
  ['user', CLAUDE_INTERRUPTED_TOOL_USE, [], ''],
  ['user', 'no, run the tests and read the log instead', [], ''],
  ['assistant', '', ['#1 Bash({"command":"npm test"})', '#2 Read({"file_path":"/work/shop/test.log"})'], ''],
  ['tool', '3 passed', [], '#1'],
  // The Read never ran: answered as Claude Code records an interrupted tool use.
  ['tool', CLAUDE_INTERRUPTED_TOOL_USE, [], '#2'],
  ['user', CLAUDE_INTERRUPTED, [], ''],
  ['user', 'summarize', [], ''],
  // The thinking-only answer has nothing to send once thinking is left out: not a message.
  ['user', CLAUDE_INTERRUPTED, [], ''],
  ['user', 'summarize, briefly', [], ''],
  ['assistant', 'Tests pass; the build folder is still there.', [], ''],
] as const
