/**
 * DSH web's own views across a real DSH compaction (issue 26), in Debian's Chromium against the
 * real `dsh web` with this package from its tarball, stock and native: a conversation with a
 * tool call, a fork before the compaction, DSH's `/compact` (the fake LLM answers its
 * summarization request), then a jump to a node before it and one back to the compaction. After
 * each step, live and after a reload:
 * - the Chat's visible rows are the selected path: before the compaction its original messages
 *   (the compaction and the turns after it behind one switch row), on the compacted path the
 *   original messages and DSH's own compaction marker where DSH draws it; no load error, no
 *   console or page error;
 * - the context meter's Messages figure is the host's, and the host's is what the next request
 *   held (priced by the real token meter's estimator, the new prompt aside), in both modes and
 *   after a plain fork too (native: the selection states its surface's price, which DSH's
 *   projections take with `dev/token-meter-selection.patch`); the figures go to views.json;
 * - the Trajectory (the log's turns) lists DSH's compaction and ends with the last answer.
 * Screenshots in test/e2e/artifacts/compaction-chat-<mode>/ (`UPDATE_DOCS_SCREENSHOT=1`: docs/ too).
 */
import { beforeAll, expect, it } from 'vitest'
import type { ChatPath, MoveResult, SessionTreeView, TreeNode } from '../../src/types.ts'
import { realTokenMeter, type RealTokenMeter } from '../support/token-meter.ts'
import {
  appliedRevision,
  chatTranscript,
  openSession,
  pathTranscript,
  visibleRows,
  watchChatProblems,
  type Row,
} from './support/chat-page.ts'
import { orchard as long } from './support/compaction-session.ts'
import { messageText, userPrompts } from './support/fake-llm.ts'
import { openTreeTab, treeTab } from './support/tree-tab.ts'
import { until as waitUntil, type Probe } from './support/until.ts'
import { notesWorkspace, readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'
import { displayedRange, readMeter } from './support/context-meter.ts'
import { meteredUsage, requestTokens } from './support/wire-tokens.ts'

const TITLE = 'Compaction in the Chat'
const until = <T>(what: string, probe: Probe<T>, timeoutMs = 30_000, last?: () => Promise<string>): Promise<T> =>
  waitUntil(what, probe, timeoutMs, last)

/** The row DSH's Chat draws for a `/compact` (its flow kind), collapsed: the command and what it did. */
const MARKER: Row = { role: 'manual-compaction', text: 'Compacted ' }

const show = (rows: readonly Row[]) => rows.map((r) => `${r.role}: ${r.text.slice(0, 80)}`).join('\n')

/** The rows the Chat should show for the path to the cursor: its messages, DSH's marker for a compaction. */
function expectedRows(view: SessionTreeView): Row[] {
  const byId = new Map(view.nodes.map((n) => [n.nodeId, n]))
  const path: TreeNode[] = []
  for (let id = view.cursor; id !== null; id = byId.get(id)!.parentId) path.unshift(byId.get(id)!)
  return path.flatMap((node) =>
    node.type === 'compaction' ? [MARKER] : pathTranscript([{ ...node, parentId: null }], node.nodeId),
  )
}

/** Visible rows match: the marker by its title, the rest exactly (a tool card by its name). */
function sameAs(expected: readonly Row[], visible: readonly Row[]): boolean {
  return (
    expected.length === visible.length &&
    expected.every((row, i) => {
      const seen = visible[i]!
      if (row.role !== seen.role) return false
      if (row === MARKER || row.role === 'tool') return seen.text.includes(row.text)
      return row.text === seen.text
    })
  )
}

let meter: RealTokenMeter

for (const mode of ['stock', 'native'] as const) {
  const options = {
    name: `compaction-chat-${mode}`,
    variant: mode,
    workspace: notesWorkspace,
    llm: {
      titleText: TITLE,
      script: readOrAnswerScript(60),
      usage: (...args: Parameters<ReturnType<typeof meteredUsage>>) => meteredUsage(meter)(...args),
    },
    browser: { viewport: { width: 1280, height: 900 } },
  }
  describeWeb(`DSH web's Chat, meter and Trajectory across a DSH compaction (${mode})`, options, (dsh) => {
    let sessionId: string
    let compaction: TreeNode
    const problems: string[] = []
    const evidence: Record<string, unknown> = {}
    dsh.evidence('views.json', evidence)

    const tree = () => dsh.api.tree(sessionId)
    const nodeId = async (text: string) => (await dsh.api.nodeWith(sessionId, text)).nodeId
    const move = (method: string, args: Record<string, unknown> = {}) =>
      dsh.api.remoteOk<MoveResult>(`sessionTree/${method}`, { agentId: sessionId, ...args })
    const command = (line: string) =>
      dsh.api.remoteOk<{ commandId: string; result: { kind: string; text?: string } }>('commands/execute', {
        agentId: sessionId,
        line,
        images: [],
      })

    /** The Chat shows the path to the cursor (live, then after a full reload), with no error. */
    const expectChat = async (step: string) => {
      const view = await tree()
      const expected = expectedRows(view)
      for (const phase of ['live', 'after a reload']) {
        if (phase !== 'live') {
          await dsh.page.reload()
          await openSession(dsh.page, undefined, TITLE)
        }
        const revision = (await dsh.api.status(sessionId)).revision
        await until(
          `the Chat to show the path (${step}, ${phase})`,
          async () =>
            (await appliedRevision(dsh.page)) === revision &&
            sameAs(expected, chatTranscript(await visibleRows(dsh.page))),
          30_000,
          async () =>
            `expected:\n${show(expected)}\nvisible:\n${show(chatTranscript(await visibleRows(dsh.page)))}\nall rows:\n${(
              await visibleRows(dsh.page)
            )
              .map((r) => `${r.kind} ${r.key}: ${r.text.slice(0, 60)}`)
              .join('\n')}\napplied ${await appliedRevision(dsh.page)}, session ${revision}`,
        )
        evidence[`${step}, ${phase}`] = await visibleRows(dsh.page)
        expect(await dsh.page.getByText(/Failed to load history/).count(), `${step}: load error`).toBe(0)
        expect(problems, `${step}: console or page errors`).toEqual([])
      }
      return expected
    }
    /** The meter agrees with the host's figure, and the host's with what the next request holds; then that prompt's turn. */
    const meterThenPrompt = async (step: string, prompt: string) => {
      const projections = (await dsh.api.history(sessionId, { maxMessages: 1 })).projections!.values as {
        contextBreakdown: { messageTokens: number }
      }
      const host = projections.contextBreakdown.messageTokens
      const shown = await until(`${step}: the meter shows the host's figure`, async () => {
        const figure = (await readMeter(dsh.page)).messages
        const [low, high] = displayedRange(figure)
        return host >= low && host <= high ? figure : undefined
      })
      const before = dsh.llm.chatRequests().length
      await dsh.api.promptAndWait(sessionId, prompt)
      const next = dsh.llm.chatRequests()[before]!.body
      expect(userPrompts(next).map(messageText).at(-1), `${step}: the next request's last prompt`).toBe(prompt)
      // Priced up to the prompt (DSH's runtime-context snapshot may follow it).
      const at = next.messages.filter((m) => m.role !== 'system').findLastIndex((m) => messageText(m) === prompt)
      const sent = requestTokens(meter, next)
        .messages.slice(0, at)
        .reduce((a, b) => a + b, 0)
      evidence[`${step}: meter`] = { page: shown, host, nextRequestBeforePrompt: sent }
      const [low, high] = displayedRange(shown)
      expect(
        { page: shown, host, sent, shownHoldsSent: sent >= low && sent <= high },
        `${step}: the Messages figure (page and host) is what the next request held`,
      ).toEqual({ page: shown, host: sent, sent, shownHoldsSent: true })
    }
    /**
     * The Trajectory (the log's turns, a switch's maintenance turn among them) lists DSH's compaction between
     * turns and ends with the last answer; no console or page error.
     */
    const expectTrajectory = async (step: string) => {
      const last = dsh.llm.chatRequests().at(-1)!.reply
      const answer = ('text' in last ? last.text! : '').slice(0, 80)
      await dsh.page.getByRole('tab', { name: 'Trajectory' }).click()
      try {
        const rows = await until(`${step}: the Trajectory rows`, async () => {
          const all = await dsh.page.locator('tr[data-trajectory-row-key]').evaluateAll((els) =>
            els.map((el) => ({
              key: decodeURIComponent(el.getAttribute('data-trajectory-row-key')!).split('\0'),
              text: (el as HTMLElement).innerText.replace(/\s+/g, ' ').trim().slice(0, 200),
            })),
          )
          return all.some((row) => row.key[0] === 'system') && all.some((row) => row.text.includes(answer))
            ? all
            : undefined
        })
        evidence[`${step}: trajectory`] = rows
        const compacted = rows.filter((r) => r.key[0] === 'compacted')
        expect(compacted, `${step}: DSH's compaction row`).toHaveLength(1)
        expect(compacted[0]!.text).toContain('COMPACTED: from')
        expect(problems, `${step}: console or page errors`).toEqual([])
      } finally {
        await dsh.page.getByRole('tab', { name: 'Chat' }).click()
      }
    }

    beforeAll(async () => {
      meter = await realTokenMeter()
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
      for (const prompt of [long(1), 'please READ notes.txt', long(3), long(4)])
        await dsh.api.promptAndWait(sessionId, prompt)
      await move('fork', { nodeId: await nodeId(`ANSWER to: ${long(1)}`), branch: 'alt' })
      await dsh.api.promptAndWait(sessionId, 'on alt')
      await move('jump', { nodeId: await nodeId(`ANSWER to: ${long(4)}`) })
      const done = await command('/compact')
      expect(done.result.kind, done.result.text).toBe('success')
      compaction = (await tree()).nodes.find((n) => n.type === 'compaction')!
      expect(compaction).toBeDefined()
      watchChatProblems(dsh.page, problems)
      await openSession(dsh.page, dsh.url, TITLE)
    }, 600_000)

    it(`${mode}: after DSH's /compact the Chat shows the path and DSH's marker; the meter agrees with the next request`, async () => {
      const rows = await expectChat('after the compaction')
      expect(rows).toContainEqual(MARKER)
      expect(rows.map((r) => r.text)).not.toContain('on alt')
      await dsh.shot('chat-compacted.png')
      await meterThenPrompt('after the compaction', long(5))
      await expectChat('a prompt after the compaction')
      await expectTrajectory('after the compaction')
    }, 600_000)

    it(`${mode}: a jump to a node before it: the original messages, the rest behind one switch row`, async () => {
      await move('jump', { nodeId: await nodeId(`ANSWER to: ${long(3)}`) })
      const rows = await expectChat('a jump before the compaction')
      expect(rows).not.toContainEqual(MARKER)
      const path = await dsh.api.remoteOk<ChatPath>('sessionTree/chatPath', { agentId: sessionId })
      expect(path.switches.filter((s) => s.lead && s.hiddenMessages > 0).length).toBeGreaterThan(0)
      await expect
        .poll(() =>
          dsh.page
            .locator('[data-chat-flow-kind^="session-tree-"]')
            .getByText(/hidden/)
            .count(),
        )
        .toBeGreaterThan(0)
      await dsh.shot('chat-before-compaction.png')
      await meterThenPrompt('a jump before the compaction', 'before the compaction, again')
      await expectChat('a prompt before the compaction')
      await expectTrajectory('a jump before the compaction')
    }, 600_000)

    it(`${mode}: a jump back to the compaction: DSH's marker again; the Tree tab shows the compaction node`, async () => {
      await move('jump', { nodeId: compaction.nodeId })
      const rows = await expectChat('a jump back to the compaction')
      expect(rows).toContainEqual(MARKER)
      // The switch row names the branch moved to (the compaction's), not the one left (the prompt before it made one).
      const path = await dsh.api.remoteOk<ChatPath>('sessionTree/chatPath', { agentId: sessionId })
      expect(path.switches.at(-1)!.branch, 'the last switch names the branch moved to').toBe(compaction.branch)
      await expect
        .poll(() => dsh.page.getByTestId('session-tree-switch').filter({ visible: true }).last().innerText())
        .toMatch(new RegExp(`Switched to ${compaction.branch}\\s*·\\s*\\d+ messages hidden`))
      await meterThenPrompt('a jump back to the compaction', 'from the compaction')
      await expectChat('a prompt after the jump back')
      await expectTrajectory('a jump back to the compaction')
      // The Tree tab: the compaction is a node, its preview the summary.
      await openTreeTab(dsh.page, undefined, TITLE)
      const tab = treeTab(() => dsh.page)
      await tab.select(compaction.nodeId)
      await expect.poll(() => tab.preview().innerText()).toContain('COMPACTED')
      // What it replaced: the earlier nodes of its path.
      const replaces = compaction.replaces ?? []
      expect(replaces.length).toBeGreaterThan(0)
      await expect
        .poll(() => tab.preview().getByTestId('session-tree-preview-replaces').innerText())
        .toBe(`${replaces.length} earlier node(s) of this path, ${replaces[0]} … ${replaces.at(-1)}`)
      await dsh.shot('tree-compaction.png')
      // The Tree tab follows the host theme: the same view, dark.
      await dsh.shotDark('tree-compaction-dark.png')
      if (mode === 'stock') {
        dsh.toDocs('tree-compaction.png', 'compaction-tree.png')
        dsh.toDocs('tree-compaction-dark.png', 'compaction-tree-dark.png')
        dsh.toDocs('chat-compacted.png', 'compaction-chat.png')
      }
    }, 600_000)

    it(`${mode}: a plain fork before the compaction: its path, and the meter agrees with the next request`, async () => {
      // The test before ends on the Tree tab.
      await dsh.page.getByRole('tab', { name: 'Chat' }).click()
      await move('fork', { nodeId: await nodeId(`ANSWER to: ${long(3)}`), branch: 'beta' })
      const rows = await expectChat('a plain fork before the compaction')
      expect(rows).not.toContainEqual(MARKER)
      await meterThenPrompt('a plain fork before the compaction', 'on beta')
      await expectChat('a prompt on the fork')
    }, 600_000)
  })
}
