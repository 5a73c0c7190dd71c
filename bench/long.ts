/**
 * Bench section: a 100,000-event session (issue 25.2), in process. The
 * harness log of `sync.ts` (a DSH conversation with tool calls) projected by
 * `TreeSync.attach`, then the two reads the web panel makes of it: `chatPath`
 * (what the Chat shows of the raw log, `service/chat-path.ts`) and `outline`
 * (what the Tree tab draws), each with its JSON encoding (what the wire carries).
 * Baseline from the same run: one pass over the events making a plain object
 * per event and its JSON (the floor of any read that looks at every event).
 * Figures are the best of the runs (on a shared machine the least disturbed), median beside.
 */
import { SessionTreeStore } from '../src/tree/index.ts'
import { TreeSync } from '../src/harness/sync.ts'
import { buildChatPath } from '../src/service/chat-path.ts'
import { fmt, median, type BenchSection, type Check, type Row, type SectionResult } from './report.ts'
import { harnessLog } from './sync.ts'

const EVENTS = 100_000
export const CHAT_PATH_BUDGET_MS = 300
export const OUTLINE_BUDGET_MS = 150

function timed(runs: number, fn: () => void): { best: number; median: number } {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    fn()
    times.push(performance.now() - t0)
  }
  return { best: Math.min(...times), median: median(times) }
}

export const longSection: BenchSection = {
  name: 'long',
  run({ runs }): SectionResult {
    const events = harnessLog(EVENTS)
    const sync = new TreeSync(new SessionTreeStore())
    const attach = timed(1, () => void sync.attach({ id: 'long', events }))
    const state = sync.get('long')!
    const tree = state.projector.tree
    const n = Math.max(5, runs)
    let chatBytes = 0
    let outlineBytes = 0
    const floor = timed(n, () => {
      const rows = events.map((e) => ({ seq: e.seq, type: e.type }))
      JSON.stringify(rows)
    })
    const chat = timed(n, () => {
      const path = buildChatPath({
        sessionId: 'long',
        revision: 'r',
        mode: 'native',
        events,
        projector: state.projector,
      })
      chatBytes = JSON.stringify(path).length
    })
    const outline = timed(n, () => {
      outlineBytes = JSON.stringify(tree.outline()).length
    })
    const row = (figure: string, t: { best: number; median: number }, bytes: number, budget: number | ''): Row => ({
      figure,
      'best ms': fmt(t.best, 1),
      'median ms': fmt(t.median, 1),
      'JSON MB': bytes ? fmt(bytes / 1e6, 2) : '',
      'budget ms': budget === '' ? '' : String(budget),
    })
    const check = (name: string, t: { best: number }, budget: number): Check => ({
      name: `${name} of a ${EVENTS.toLocaleString('en-US')}-event session < ${budget} ms (best of ${n})`,
      pass: t.best < budget,
      detail: `${fmt(t.best, 1)} ms; baseline of this run (one object per event + JSON) ${fmt(floor.best, 1)} ms (${fmt(t.best / floor.best, 1)}x)`,
    })
    return {
      title: `a ${EVENTS.toLocaleString('en-US')}-event session: chatPath and outline (${fmt(tree.nodeCount, 0)} nodes)`,
      columns: ['figure', 'best ms', 'median ms', 'JSON MB', 'budget ms'],
      rows: [
        row('baseline: one object per event + JSON', floor, 0, ''),
        row('cold attach (TreeSync.attach, once)', attach, 0, ''),
        row('chatPath + JSON', chat, chatBytes, CHAT_PATH_BUDGET_MS),
        row('outline + JSON', outline, outlineBytes, OUTLINE_BUDGET_MS),
      ],
      notes: ["The Tree tab's first paint of a 100,000-deep chain in Chromium is in the panel section."],
      checks: [
        check('chatPath + JSON', chat, CHAT_PATH_BUDGET_MS),
        check('outline + JSON', outline, OUTLINE_BUDGET_MS),
      ],
    }
  },
}
