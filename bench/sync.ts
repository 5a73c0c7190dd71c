/**
 * Bench section: harness events into the tree, and the sidecar.
 *
 * - cold sync: a session log of N events (prompts, injected context, answers
 *   with usage, tool calls with results, request headers; the shapes the
 *   harness logs) projected into a fresh tree through `TreeSync.attach`;
 * - incremental sync: one more event on a tree of 10k nodes (what every
 *   harness append costs the plugin);
 * - a user operation on a 10k-node tree, journaled to a real sidecar on disk
 *   (fsync included), and the bytes it writes — compared with the same
 *   operation on a 1k-node tree: bytes per operation must not grow with the tree.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { SessionTreeStore } from '../src/tree/index.ts'
import { TreeSync } from '../src/harness/sync.ts'
import { TreeSidecar } from '../src/sidecar/index.ts'
import { fmt, median, type Check } from './report.ts'

type Event = { type: string; seq: number; time: number; data: unknown; surfaceOp?: unknown; sourceEventSeqs?: number[] }

const WORDS =
  'the tree keeps every branch so a jump never loses work and the model reads the selected path only while tools run and results fold into their calls'.split(
    ' ',
  )
const text = (i: number, words: number) =>
  Array.from({ length: words }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ')

/** A synthetic harness log of about `n` events. */
export function harnessLog(n: number): Event[] {
  const events: Event[] = []
  let turn = 0
  const push = (type: string, data: unknown, surfaceOp?: unknown, sourceEventSeqs?: number[]) => {
    const seq = events.length
    events.push({
      type,
      seq,
      time: 1_790_000_000_000 + seq,
      data,
      ...(surfaceOp ? { surfaceOp } : {}),
      ...(sourceEventSeqs ? { sourceEventSeqs } : {}),
    })
    return seq
  }
  while (events.length < n) {
    turn++
    push('turn/start', { turn })
    push('step/start', { turn, step: 1 })
    push(
      'user/message',
      { id: `u${turn}`, role: 'user', content: [{ type: 'text', text: text(turn, 25) }], source: { kind: 'user' } },
      'append',
    )
    if (turn % 10 === 1)
      push(
        'user/message',
        {
          id: `c${turn}`,
          role: 'user',
          content: [{ type: 'text', text: `Current runtime context ${text(turn, 12)}` }],
          source: { kind: 'plugin', plugin: '@deepseek-ai/dsh-system-prompt' },
        },
        'append',
      )
    push('request/header', {
      header: { config: { provider: 'deepseek-official', model: 'deepseek-v4-flash' } },
      reason: turn === 1 ? 'initial' : 'change',
    })
    if (turn % 4 === 0) {
      const callId = `call_${turn}`
      push(
        'assistant/message',
        {
          turn,
          step: 1,
          message: {
            id: `t${turn}`,
            role: 'assistant',
            content: [{ type: 'tool-call', id: callId, name: 'read', arguments: `{"file_path":"src/${turn}.ts"}` }],
            source: { kind: 'model', provider: 'deepseek-official', model: 'deepseek-v4-flash' },
          },
          usage: { inputTokens: 900, outputTokens: 20 },
        },
        'append',
      )
      const call = push('tool/call', {
        turn,
        step: 1,
        callId,
        name: 'read',
        arguments: `{"file_path":"src/${turn}.ts"}`,
      })
      push(
        'tool/result',
        {
          turn,
          step: 1,
          message: {
            id: `r${turn}`,
            role: 'user',
            content: [
              {
                type: 'tool-result',
                toolCallId: callId,
                content: [{ type: 'text', text: text(turn, 60) }],
                isError: false,
              },
            ],
            source: { kind: 'tool', callId },
          },
        },
        'append',
        [call],
      )
      push('step/end', { turn, step: 1 })
      push('step/start', { turn, step: 2 })
    }
    push(
      'assistant/message',
      {
        turn,
        step: 1,
        message: {
          id: `a${turn}`,
          role: 'assistant',
          content: [
            { type: 'reasoning', text: text(turn + 1, 15) },
            { type: 'text', text: text(turn + 2, 40) },
          ],
          source: { kind: 'model', provider: 'deepseek-official', model: 'deepseek-v4-flash' },
        },
        usage: { inputTokens: 1000, outputTokens: 80 },
      },
      'append',
    )
    push('step/end', { turn, step: 1 })
    push('turn/end', { turn, reason: { kind: 'completed' } })
  }
  return events
}

/** Events needed for a tree of about `nodes` nodes (about 0.42 nodes per event in this log). */
function logForNodes(nodes: number): Event[] {
  let n = Math.ceil(nodes / 0.42)
  for (;;) {
    const events = harnessLog(n)
    const sync = new TreeSync(new SessionTreeStore())
    const count = sync.attach({ id: 'probe', events }).projector.tree.nodeCount
    if (count >= nodes) return events
    n = Math.ceil(n * (nodes / count) * 1.02)
  }
}

export const syncSection = {
  name: 'harness sync and sidecar',
  async run(config: { readonly runs: number }) {
    const rows: Record<string, string | number>[] = []
    const checks: Check[] = []
    const notes: string[] = []
    for (const n of [1_000, 20_000, 100_000]) {
      const events = harnessLog(n)
      const times: number[] = []
      let nodes = 0
      for (let r = 0; r < config.runs; r++) {
        const sync = new TreeSync(new SessionTreeStore())
        const t0 = performance.now()
        const state = sync.attach({ id: `cold-${r}`, events })
        times.push(performance.now() - t0)
        nodes = state.projector.tree.nodeCount
        if (state.projector.quarantine.length > 0) throw new Error('bench: the synthetic log was quarantined')
      }
      const ms = median(times)
      rows.push({
        events: n.toLocaleString('en-US'),
        'tree nodes': nodes.toLocaleString('en-US'),
        'cold sync ms': fmt(ms),
        'events/s': Math.round(n / (ms / 1000)).toLocaleString('en-US'),
      })
    }

    // Incremental: one event at a time on a 10k-node tree.
    const base = logForNodes(10_000)
    const extra = harnessLog(base.length + 6_000).slice(base.length)
    const perEvent: number[] = []
    let treeNodes = 0
    for (let r = 0; r < config.runs; r++) {
      const sync = new TreeSync(new SessionTreeStore())
      const state = sync.attach({ id: 'inc', events: base })
      treeNodes = state.projector.tree.nodeCount
      const t0 = performance.now()
      for (const event of extra) sync.project('inc', event)
      perEvent.push(((performance.now() - t0) * 1000) / extra.length)
    }
    const incremental = median(perEvent)
    notes.push(
      `incremental sync on a ${treeNodes.toLocaleString('en-US')}-node tree: ${fmt(incremental, 2)} µs per event (median of ${config.runs} runs of ${extra.length.toLocaleString('en-US')} events)`,
    )

    // A user operation with its sidecar write, on trees of 1k and 10k nodes.
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tree-bench-sidecar-'))
    const opCost = (nodes: number) => {
      const events = nodes === 10_000 ? base : logForNodes(nodes)
      const sync = new TreeSync(new SessionTreeStore(), new TreeSidecar(root))
      const id = `ops-${nodes}`
      const state = sync.attach({ id, events })
      const ids = state.projector.tree.list().map((node) => node.nodeId)
      const journal = path.join(new TreeSidecar(root).dirFor(id), 'journal.jsonl')
      const sizes: number[] = []
      const micros: number[] = []
      for (let i = 0; i < 150; i++) {
        const before = fs.existsSync(journal) ? fs.statSync(journal).size : 0
        const t0 = performance.now()
        const done = sync.mutate(
          id,
          { kind: 'label', nodeId: ids[(i * 7919) % ids.length]!, label: `label ${i}` },
          {
            kind: 'user',
            via: 'panel',
          },
        )
        micros.push((performance.now() - t0) * 1000)
        if (!done.ok) throw new Error(`bench: label failed: ${done.error.message}`)
        // Skip the first write (it creates the journal with its header).
        if (i > 0) sizes.push(fs.statSync(journal).size - before)
      }
      return { bytes: median(sizes), micros: median(micros), nodes: state.projector.tree.nodeCount }
    }
    const small = opCost(1_000)
    const large = opCost(10_000)
    fs.rmSync(root, { recursive: true, force: true })
    notes.push(
      `a label with its journal write (fsync included): ${fmt(small.micros, 0)} µs on ${small.nodes.toLocaleString('en-US')} nodes, ${fmt(large.micros, 0)} µs on ${large.nodes.toLocaleString('en-US')} nodes; journal bytes per operation ${small.bytes} vs ${large.bytes}`,
    )
    notes.push('harness events never write the sidecar (the log already holds them); only user operations do')

    checks.push({
      name: "one event's sync + persistence on a 10k-node tree < 1 ms",
      pass: incremental < 1000,
      detail: `${fmt(incremental, 2)} µs per event (harness events need no sidecar write)`,
    })
    checks.push({
      name: 'sidecar bytes per operation independent of tree size',
      pass: Math.abs(large.bytes - small.bytes) <= 16,
      detail: `${small.bytes} B at ${small.nodes.toLocaleString('en-US')} nodes vs ${large.bytes} B at ${large.nodes.toLocaleString('en-US')} nodes`,
    })
    return {
      title: 'harness sync and sidecar (src/harness, src/sidecar)',
      columns: ['events', 'tree nodes', 'cold sync ms', 'events/s'],
      rows,
      notes,
      checks,
    }
  },
}
