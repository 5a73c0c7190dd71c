/**
 * Import speed and memory (src/interchange): lines/s per source format for
 * reading alone and for a whole import (read, build the DSH log and tree,
 * check the staged sidecar, publish through the published JSONL persistence), and
 * the peak RSS of importing a ~100 MB Pi session in a child process, next to
 * the peak RSS of the same child doing nothing (the baseline, same run).
 *
 * The sources are generated (deterministic, realistic shapes: split Claude
 * responses, Codex double streams, Pi branches with tool calls).
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { readSession } from '../src/interchange/read.ts'
import { openSource } from '../src/interchange/source.ts'
import { fmt, median, type Check } from './report.ts'

const TEXT = 'The quick brown fox jumps over the lazy dog while the session tree keeps every branch. '
const text = (n: number, i: number) => `${i}: ${TEXT.repeat(Math.ceil(n / TEXT.length)).slice(0, n)}`

/** A Pi v3 session of about `lines` lines: turns with a tool call, a branch every 40 entries. */
export function writePiSession(file: string, lines: number, textBytes = 600): void {
  const out = fs.openSync(file, 'w')
  const w = (value: unknown) => fs.writeSync(out, JSON.stringify(value) + '\n')
  w({ type: 'session', version: 3, id: 'bench-pi', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/bench' })
  const usage = {
    input: 10,
    output: 10,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 20,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  }
  let parent: string | null = null
  let forkFrom: string | null = null
  for (let i = 0; i < lines - 1; i++) {
    const id = `p${i.toString(16)}`
    const at = new Date(1767225600000 + i * 1000).toISOString()
    const kind = i % 4
    let message: unknown
    if (kind === 0) message = { role: 'user', content: text(textBytes, i), timestamp: i }
    else if (kind === 1)
      message = {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: text(textBytes / 2, i), thinkingSignature: 'sig' },
          { type: 'toolCall', id: `c${i}`, name: 'read', arguments: { path: `f${i}` } },
        ],
        api: 'x',
        provider: 'anthropic',
        model: 'm',
        usage,
        stopReason: 'toolUse',
        timestamp: i,
      }
    else if (kind === 2)
      message = {
        role: 'toolResult',
        toolCallId: `c${i - 1}`,
        toolName: 'read',
        content: [{ type: 'text', text: text(textBytes, i) }],
        isError: false,
        timestamp: i,
      }
    else
      message = {
        role: 'assistant',
        content: [{ type: 'text', text: text(textBytes, i) }],
        api: 'x',
        provider: 'anthropic',
        model: 'm',
        usage,
        stopReason: 'stop',
        timestamp: i,
      }
    // Every 40 entries, go back to an earlier answer and branch from there (Pi's /tree).
    const branchHere = kind === 0 && i % 40 === 0 && forkFrom !== null
    w({ type: 'message', id, parentId: branchHere ? forkFrom : parent, timestamp: at, message })
    if (kind === 3 && i % 40 === 19) forkFrom = id
    parent = id
  }
  fs.closeSync(out)
}

/** A Claude Code transcript: each response split over thinking / text / tool_use records sharing message.id. */
export function writeClaudeSession(file: string, lines: number, textBytes = 600): void {
  const out = fs.openSync(file, 'w')
  const w = (value: unknown) => fs.writeSync(out, JSON.stringify(value) + '\n')
  let parent: string | null = null
  const base = {
    isSidechain: false,
    userType: 'external',
    cwd: '/bench',
    sessionId: 'bench-claude',
    version: '2.0.57',
    gitBranch: '',
  }
  for (let i = 0; i < lines;) {
    const at = new Date(1767225600000 + i * 1000).toISOString()
    const uuid = (k: number) => `00000000-0000-4000-8000-${(i * 10 + k).toString(16).padStart(12, '0')}`
    const rec = (k: number, value: Record<string, unknown>) => {
      w({ parentUuid: parent, ...base, ...value, uuid: uuid(k), timestamp: at })
      parent = uuid(k)
      i++
    }
    const mid = `msg_${i}`
    rec(0, { type: 'user', message: { role: 'user', content: text(textBytes, i) } })
    rec(1, {
      type: 'assistant',
      message: {
        id: mid,
        type: 'message',
        role: 'assistant',
        model: 'claude',
        content: [{ type: 'thinking', thinking: text(textBytes / 2, i), signature: 'sig' }],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    })
    rec(2, {
      type: 'assistant',
      message: {
        id: mid,
        type: 'message',
        role: 'assistant',
        model: 'claude',
        content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Read', input: { file_path: `f${i}` } }],
        usage: { input_tokens: 1, output_tokens: 5 },
      },
    })
    rec(3, {
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${i - 1}`, content: text(textBytes, i) }],
      },
    })
    rec(4, {
      type: 'assistant',
      message: {
        id: `${mid}b`,
        type: 'message',
        role: 'assistant',
        model: 'claude',
        content: [{ type: 'text', text: text(textBytes, i) }],
        usage: { input_tokens: 1, output_tokens: 9 },
      },
    })
  }
  fs.closeSync(out)
}

/** A Codex rollout: response items, each mirrored by an event_msg (read once). */
export function writeCodexSession(file: string, lines: number, textBytes = 600): void {
  const out = fs.openSync(file, 'w')
  const w = (type: string, payload: unknown) =>
    fs.writeSync(out, JSON.stringify({ timestamp: '2026-01-01T00:00:00.000Z', type, payload }) + '\n')
  w('session_meta', {
    id: 'bench-codex',
    cwd: '/bench',
    originator: 'codex_cli_rs',
    cli_version: '0.77.0',
    model_provider: 'openai',
  })
  for (let i = 1; i < lines;) {
    const prompt = text(textBytes, i)
    w('turn_context', { cwd: '/bench', model: 'gpt-5-codex' })
    w('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] })
    w('event_msg', { type: 'user_message', message: prompt })
    w('response_item', {
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'thinking' }],
      encrypted_content: 'x',
    })
    w('response_item', {
      type: 'function_call',
      name: 'shell',
      arguments: JSON.stringify({ command: ['ls', `d${i}`] }),
      call_id: `call_${i}`,
    })
    w('response_item', { type: 'function_call_output', call_id: `call_${i}`, output: text(textBytes, i) })
    const answer = text(textBytes, i + 1)
    w('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer }] })
    w('event_msg', { type: 'agent_message', message: answer })
    i += 8
  }
  fs.closeSync(out)
}

const WRITERS = { pi: writePiSession, 'claude-code': writeClaudeSession, codex: writeCodexSession } as const

/**
 * The stated bound: an import holds the session's log and ONE tree, as
 * opening the imported session does, plus the neutral tree without its
 * source records (those are spooled to disk as they are read), and writes the
 * log in bounded batches. So it runs in a fixed V8 heap of this many times the
 * file's size, the heap opening the same session needs give or take a few
 * percent (both are run under that cap, in the same bench run; the cap is a
 * hard limit: a run that needs more dies of heap exhaustion).
 */
export const HEAP_CAP_PER_FILE_MB = 5
/**
 * A ~100 MB import against opening what it wrote. The budget assumed an import is two tree builds; it also
 * reads the source, writes and fsyncs the log and reads the staged sidecar back (docs/interchange.md, "Time").
 */
export const IMPORT_OPEN_RATIO = 2

export const interchangeSection = {
  name: 'import (src/interchange)',
  async run(config: { readonly runs: number }) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ix-bench-'))
    const rows: Record<string, string | number>[] = []
    const checks: Check[] = []
    const notes: string[] = []
    const lines = 40_000
    try {
      const baseline = runChild(['baseline'])
      for (const [format, write] of Object.entries(WRITERS)) {
        const file = path.join(dir, `${format}.jsonl`)
        write(file, lines)
        const bytes = fs.statSync(file).size
        const readMs: number[] = []
        const importMs: number[] = []
        const importRss: number[] = []
        let nodes = 0
        for (let r = 0; r < config.runs; r++) {
          const t0 = performance.now()
          const { report } = await readSession(openSource(file).stream, { sink: () => {} })
          readMs.push(performance.now() - t0)
          nodes = report.nodes
          const child = runChild(['import', file, path.join(dir, `home-${format}-${r}`)])
          importMs.push(child.ms)
          importRss.push(child.maxRssMB)
        }
        const bare = runChild(['read', file])
        const read = median(readMs)
        const whole = median(importMs)
        rows.push({
          format,
          lines: lines.toLocaleString('en-US'),
          MB: fmt(bytes / 1e6, 1),
          nodes: nodes.toLocaleString('en-US'),
          'bare read lines/s': Math.round(lines / (bare.ms / 1000)).toLocaleString('en-US'),
          'read lines/s': Math.round(lines / (read / 1000)).toLocaleString('en-US'),
          'import lines/s': Math.round(lines / (whole / 1000)).toLocaleString('en-US'),
          'bare read RSS MB': fmt(bare.maxRssMB, 0),
          'import RSS MB': fmt(median(importRss), 0),
        })
      }
      notes.push(
        `baseline child (start-up only): peak RSS ${fmt(baseline.maxRssMB, 0)} MB; bare read = every line parsed and dropped (the floor of any streaming reader); read = this package's reader; import = the whole import in a child (read, build the DSH log and tree, the sidecar staged and read back, the log written through the published JSONL persistence), start-up excluded`,
      )
      // Memory: a ~100 MB Pi session, against the bare read of the same file and against opening the session it became.
      const big = path.join(dir, 'big.jsonl')
      writePiSession(big, 150_000, 650)
      const bigMB = fs.statSync(big).size / 1e6
      const bigHome = path.join(dir, 'home-big')
      const cap = Math.ceil(HEAP_CAP_PER_FILE_MB * bigMB)
      const bare = runChild(['read', big])
      const imported = runChild(['import', big, bigHome])
      const capped = runChild(['import', big, path.join(dir, 'home-big-capped')], [`--max-old-space-size=${cap}`])
      const opened = runChild(['open', bigHome], [`--max-old-space-size=${cap}`])
      // The time's baseline: opening what the import wrote, with the same freedom of heap as the import had.
      const openedFree = runChild(['open', bigHome])
      const growth = imported.maxRssMB - baseline.maxRssMB
      notes.push(
        `${fmt(bigMB, 0)} MB Pi session (150,000 lines): bare read ${fmt(bare.ms / 1000, 1)} s, peak RSS ${fmt(bare.maxRssMB, 0)} MB; import ${fmt(imported.ms / 1000, 1)} s, peak RSS ${fmt(imported.maxRssMB, 0)} MB (+${fmt(growth, 0)} MB over the baseline, ${fmt(growth / bigMB, 2)}× the file, V8 left to size its heap)`,
      )
      notes.push(
        `under a heap cap of ${cap} MB (${HEAP_CAP_PER_FILE_MB}× the file): import ${capped.ok ? `${fmt(capped.ms / 1000, 1)} s, peak RSS ${fmt(capped.maxRssMB, 0)} MB` : `FAILED (${capped.error})`}; opening the imported session in the harness + the plugin's tree ${opened.ok ? `${fmt(opened.ms / 1000, 1)} s, peak RSS ${fmt(opened.maxRssMB, 0)} MB` : `FAILED (${opened.error})`}`,
      )
      checks.push({
        name: `a ~100 MB import runs in a V8 heap of ${HEAP_CAP_PER_FILE_MB}× the file (the log and one tree, as opening the session holds; never the source records)`,
        pass: capped.ok,
        detail: capped.ok
          ? `${fmt(bigMB, 0)} MB file, --max-old-space-size=${cap}: peak RSS ${fmt(capped.maxRssMB, 0)} MB (opening it under the same cap: ${opened.ok ? `${fmt(opened.maxRssMB, 0)} MB` : 'failed'})`
          : `failed under --max-old-space-size=${cap}: ${capped.error}`,
      })
      checks.push({
        name: `a ~100 MB import takes at most ${IMPORT_OPEN_RATIO}× opening the session it wrote (the harness's load + the plugin's tree; same run, no heap cap)`,
        pass: imported.ok && openedFree.ok && imported.ms <= IMPORT_OPEN_RATIO * openedFree.ms,
        detail:
          imported.ok && openedFree.ok
            ? `import ${fmt(imported.ms / 1000, 1)} s, opening it ${fmt(openedFree.ms / 1000, 1)} s (${fmt(imported.ms / openedFree.ms, 2)}×); bare read of the file ${fmt(bare.ms / 1000, 1)} s`
            : `import ${imported.ok ? 'ran' : `failed (${imported.error})`}, open ${openedFree.ok ? 'ran' : `failed (${openedFree.error})`}`,
      })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
    return {
      title: 'import: lines/s and peak RSS per format, and memory (src/interchange)',
      columns: [
        'format',
        'lines',
        'MB',
        'nodes',
        'bare read lines/s',
        'read lines/s',
        'import lines/s',
        'bare read RSS MB',
        'import RSS MB',
      ],
      rows,
      notes,
      checks,
    }
  },
}

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'interchange-child.ts')

function runChild(
  args: string[],
  nodeFlags: string[] = [],
): { ok: true; ms: number; maxRssMB: number } | { ok: false; error: string; ms: number; maxRssMB: number } {
  // The child's own clock excludes node start-up; its peak RSS includes it (the baseline child measures that).
  try {
    const out = execFileSync(process.execPath, [...nodeFlags, CHILD, ...args], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    return { ok: true, ...(JSON.parse(out.trim().split('\n').at(-1)!) as { ms: number; maxRssMB: number }) }
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '')
    const reason = /heap out of memory|Reached heap limit/i.test(stderr)
      ? 'heap out of memory'
      : stderr.trim().split('\n').slice(-3).join(' ') || (error as Error).message
    return { ok: false, error: reason, ms: NaN, maxRssMB: NaN }
  }
}
