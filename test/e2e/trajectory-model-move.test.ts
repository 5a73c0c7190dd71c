/**
 * DSH web's own views after a move the MODEL makes with a tree tool inside its
 * running step (stock mode: the switch lands within the step, see docs/tools.md "When
 * a move takes effect"), in Debian's Chromium against the real `dsh web`
 * (pinned stock harness, this package installed from its tarball) and the
 * recording fake LLM (issue 10 item 5).
 *
 * The session: the demo's three turns (the second calls `read notes.txt`), a
 * user jump to the first answer and a prompt there, then a prompt on which the
 * model calls the `tree` tool's jump back to the food-tour answer, across the tool
 * exchange (the switch copies it, with a fresh call id, into the model's step),
 * and answers. Then, live and after a reload:
 * - the Chat shows exactly the model's last request plus its reply, no error;
 * - the Trajectory tab lists what the model did, row by row: the move's step
 *   is the model's answer (the move call) with that call's row under it, the
 *   next step its next answer; none of the plugin's restated path (copied
 *   prompts, answers, the copied read exchange) and nothing above the system
 *   prompt; the user's jump (a rewind) lists its restated answer, no empty
 *   row; no console or page error;
 * - "Branch into a new conversation" on the last answer gives a Chat that loads.
 * Last, after a user's move that copies the read exchange, the model moves
 * again while the Trajectory is open: its turn lists as the first one did,
 * live and after a reload.
 *
 * Evidence of every run: test/e2e/artifacts/trajectory-model-move/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { DEMO_NOTES, DEMO_PROMPTS, DEMO_TITLE, demoModel } from '../../dev/demo-model.ts'
import {
  chatTranscript,
  openSession,
  requestTranscript,
  sameRows,
  visibleRows,
  watchChatProblems,
} from './support/chat-page.ts'
import { type ChatRequestBody, type StaticStep } from './support/fake-llm.ts'
import { until as waitUntil, type Probe } from './support/until.ts'
import { describeWeb } from './support/web-suite.ts'

const AGAIN_TITLE = 'Model move, then a user move'

const MOVE_PROMPT = 'Take us back to the food tour'
const MOVED_REPLY = 'MODEL-MOVED: back on the food tour.'

const until = <T>(what: string, probe: Probe<T>, timeoutMs = 60_000): Promise<T> => waitUntil(what, probe, timeoutMs)

/** A Trajectory row as the page shows it: its key parts (kind, …, call id for a tool row), its turn, whether it opens a step, its first line. */
interface TrajectoryRow {
  readonly key: string[]
  readonly turn: number
  readonly groupStart: boolean
  readonly text: string
}

/** A Trajectory row as the test compares it: its turn, kind, step (an answer) or call id (a tool row), and the start of its text. */
type LayoutRow = [number, string, string | RegExp, string]

/** The Trajectory of the session up to the model's reply, row by row. */
const MOVE_LAYOUT: LayoutRow[] = [
  // The system prompt comes first, above the first turn's label (turn 0 here): nothing before it.
  [0, 'system', '', 'SYSTEM Initial System Prompt'],
  [1, 'user', '', `USER ${DEMO_PROMPTS[0]}`],
  [1, 'assistant', '1:1', 'ASSISTANT Day 1:'],
  [2, 'user', '', `USER ${DEMO_PROMPTS[1]}`],
  [2, 'assistant', '2:1', 'ASSISTANT (tool call only)'],
  [2, 'tool', 'call_notes_2', 'TOOL read{"file_path":"notes.txt"}'],
  [2, 'assistant', '2:2', 'ASSISTANT Your notes say'],
  [3, 'user', '', `USER ${DEMO_PROMPTS[2]}`],
  [3, 'assistant', '3:1', 'ASSISTANT Food tour:'],
  // The user's jump (a maintenance turn of its own, a rewind) restates the answer it keeps.
  [4, 'assistant', '4:1', 'ASSISTANT Day 1:'],
  [5, 'user', '', 'USER after the jump'],
  [5, 'assistant', '5:1', 'ASSISTANT (fake model)'],
  // The model's move: its prompt, its answer (the move call) with that call's row under it, its next answer.
  [6, 'user', '', `USER ${MOVE_PROMPT}`],
  [6, 'assistant', '6:1', 'ASSISTANT (tool call only)'],
  [6, 'tool', 'call_model_jump', 'TOOL tree{"action":"jump","node":'],
  [6, 'assistant', '6:2', `ASSISTANT ${MOVED_REPLY}`],
]

/**
 * The rows shown are `expected`, row by row, and every tool row sits under the answer that issued it (right after
 * it, in its step group), every answer opens a step of its own. Rows the harness adds when its context changes
 * (runtime context, an updated system prompt) are left aside.
 */
function expectLayout(phase: string, shown: readonly TrajectoryRow[], expected: readonly LayoutRow[]): void {
  const rows = shown.filter(
    (row) =>
      row.key[0] !== 'context' && !(row.key[0] === 'system' && row.text.startsWith('SYSTEM System Prompt Updated')),
  )
  const layout = rows.map((row, i) => {
    const where =
      row.key[0] === 'assistant'
        ? `${row.key[1]}:${row.key[2]}`
        : row.key[0] === 'tool'
          ? row.key.slice(2).join(' ')
          : ''
    const want = expected[i]
    return [
      row.turn,
      row.key[0]!,
      want && want[2] instanceof RegExp && want[2].test(where) ? want[2] : where,
      want && row.text.startsWith(want[3]) ? want[3] : row.text,
    ]
  })
  expect(layout, phase).toEqual(expected)
  expect(shown[0]!.key[0], `${phase}: the first row`).toBe('system')
  for (const [i, row] of shown.entries()) {
    if (row.key[0] !== 'tool') continue
    expect(row.groupStart, `${phase}: ${row.key.join(' ')} opens no step of its own`).toBe(false)
    expect(shown[i - 1]!.key[0], `${phase}: the row before ${row.key.join(' ')}`).toBe('assistant')
  }
  for (const row of shown.filter((r) => r.key[0] === 'assistant'))
    expect(row.groupStart, `${phase}: ${row.key.join(' ')} opens its step`).toBe(true)
  const keys = shown.map((row) => row.key.join(' '))
  expect(
    keys.filter((key, i) => keys.indexOf(key) !== i),
    `${phase}: row keys shown twice`,
  ).toEqual([])
}

/** The food-tour answer's node id, the model's jump target (set before the model's turn). */
let target = ''
/** The request the model answered with MOVED_REPLY (what it saw after its own jump). */
let moved: ChatRequestBody | undefined
/** How many times the model has moved. */
let modelMoves = 0

/** The demo model, except that on MOVE_PROMPT it calls a tree jump to `target`, and answers MOVED_REPLY after that call's result. */
const model = (body: ChatRequestBody): StaticStep => {
  const last = body.messages.at(-1)
  const lastCall = [...body.messages].reverse().find((m) => m.role === 'assistant')?.tool_calls?.[0]
  if (
    lastCall?.function.name === 'tree' &&
    body.messages.some((m) => m.role === 'tool' && m.tool_call_id === lastCall.id) &&
    !body.messages
      .slice(body.messages.findLastIndex((m) => m.tool_calls?.includes(lastCall)))
      .some((m) => m.role === 'assistant' && !m.tool_calls)
  ) {
    moved = body
    return { text: MOVED_REPLY }
  }
  if (last?.role === 'user' && JSON.stringify(last.content).includes(MOVE_PROMPT)) {
    // A call id of its own for each move (the first is call_model_jump).
    const id = `call_model_jump${modelMoves++ === 0 ? '' : `_${modelMoves}`}`
    return { toolCalls: [{ id, name: 'tree', arguments: { action: 'jump', node: target } }] }
  }
  return demoModel(body)
}

const options = {
  name: 'trajectory-model-move',
  workspace: (work: string) => fs.writeFileSync(path.join(work, 'notes.txt'), DEMO_NOTES),
  llm: { titleText: DEMO_TITLE, script: Array.from({ length: 40 }, () => model) },
  browser: true,
}

describeWeb(
  "DSH web's Chat, Trajectory and Branch after the model moves with a tree jump inside its step, in Chromium",
  options,
  (dsh) => {
    let sessionId: string
    const problems: string[] = []
    const recorded: Record<string, unknown> = {}
    dsh.evidence('trajectory.json', recorded)

    const nodeWith = async (text: string) =>
      (await dsh.api.nodeWith(sessionId, (content) => content.startsWith(text))).nodeId
    /** Reloads the page and waits until the Chat shows its first prompt again. */
    const reloadToChat = async () => {
      await dsh.page.reload()
      await dsh.page
        .locator('[data-chat-flow] [data-chat-flow-kind="user"]')
        .first()
        .waitFor({ state: 'attached', timeout: 60_000 })
    }
    const shot = (name: string) => dsh.page.screenshot({ path: path.join(dsh.artifacts, name), fullPage: true })
    const noErrors = async (label: string, from: number) => {
      expect(await dsh.page.getByText(/Failed to load history/).count(), `${label}: load error`).toBe(0)
      expect(problems.slice(from), `${label}: console or page errors`).toEqual([])
    }

    /**
     * The Trajectory's rows: each one's key parts (kind, then turn and step for an answer, the call id for a tool
     * row), the turn it is listed in (the label of the turn's first row; 0 before the first label), whether it opens
     * a step group, and its text.
     */
    const trajectoryRows = (): Promise<TrajectoryRow[]> =>
      dsh.page.locator('tr[data-trajectory-row-key]').evaluateAll((els) => {
        let turn = 0
        return els.map((el) => {
          const text = (el as HTMLElement).innerText.replace(/\s+/g, ' ').trim()
          const label = /^Turn (\d+)\b/.exec(text)
          if (el.hasAttribute('data-turn-start') && label) turn = Number(label[1])
          return {
            key: decodeURIComponent(el.getAttribute('data-trajectory-row-key')!).split('\0'),
            turn,
            groupStart: el.hasAttribute('data-group-start'),
            text: text.replace(/^Turn \d+ #\d+ /, '').slice(0, 120),
          }
        })
      })

    beforeAll(async () => {
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
      for (const prompt of DEMO_PROMPTS) await dsh.api.promptAndWait(sessionId, prompt)
      // A user jump to the first answer and a prompt there: the food tour (and the read before it) is off the path.
      await dsh.api.remoteOk('sessionTree/jump', { agentId: sessionId, nodeId: await nodeWith('Day 1:') })
      await dsh.api.promptAndWait(sessionId, 'after the jump')
      // The model's own move: a tree jump back to the food tour, inside its step (the read exchange is copied in).
      target = await nodeWith('Food tour:')
      await dsh.api.promptAndWait(sessionId, MOVE_PROMPT)
      watchChatProblems(dsh.page, problems)
    }, 600_000)

    it('the model moved inside its step, across the tool exchange: its next request is the food-tour path (the read copied with a fresh id), its jump call and result', () => {
      expect(dsh.llm.faults).toEqual([])
      expect(moved, 'the model answered after its jump').toBeDefined()
      const rows = requestTranscript(moved!)
      expect(rows).toEqual([
        { role: 'user', text: DEMO_PROMPTS[0] },
        { role: 'assistant', text: expect.stringMatching(/^Day 1:/) },
        { role: 'user', text: DEMO_PROMPTS[1] },
        { role: 'tool', text: 'read' },
        { role: 'assistant', text: expect.stringMatching(/^Your notes say/) },
        { role: 'user', text: DEMO_PROMPTS[2] },
        { role: 'assistant', text: expect.stringMatching(/^Food tour:/) },
        { role: 'tool', text: 'tree' },
      ])
      const readCall = moved!.messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.function.name === 'read')!
      expect(readCall.id).not.toBe('call_notes_2')
    })

    it('the Chat shows exactly what the model saw plus its reply, live and after a reload, with no error', async () => {
      const from = problems.length
      await openSession(dsh.page, dsh.url, DEMO_TITLE)
      const expected = requestTranscript(moved!, { text: MOVED_REPLY })
      for (const phase of ['live', 'after-a-reload']) {
        if (phase !== 'live') await reloadToChat()
        let seen: ReturnType<typeof chatTranscript> = []
        await until(`${phase}: the Chat's visible rows are the model's last request plus its reply`, async () => {
          seen = chatTranscript(await visibleRows(dsh.page))
          recorded[`chat ${phase}`] = seen
          return sameRows(expected, seen)
        }).catch((error) => {
          throw new Error(`${String(error)}\nexpected ${JSON.stringify(expected)}\nvisible ${JSON.stringify(seen)}`)
        })
        await noErrors(`chat ${phase}`, from)
        await shot(`chat-${phase}.png`)
      }
    }, 600_000)

    it("the Trajectory lists what the model did: its move call with the call's row under it, then its next answer; no copy of the restated path, nothing in the prologue, live and after a reload", async () => {
      const from = problems.length
      for (const phase of ['live', 'after-a-reload']) {
        if (phase !== 'live') await reloadToChat()
        await dsh.page.getByRole('tab', { name: 'Trajectory' }).click()
        // Loaded: from the system prompt to the model's reply.
        const shown = await until(`${phase}: the trajectory rows`, async () => {
          const all = await trajectoryRows()
          return all.some((row) => row.key[0] === 'system') && all.at(-1)?.text.includes(MOVED_REPLY) ? all : undefined
        })
        recorded[`trajectory ${phase}`] = shown
        // Row by row (runtime-context rows aside: the harness injects them when its context changes).
        expectLayout(phase, shown, MOVE_LAYOUT)
        // No copy of the read exchange (its fresh call id), no row of an empty answer.
        const copyId = moved!.messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.function.name === 'read')!.id
        expect(
          shown.filter((row) => row.key.includes(copyId)),
          phase,
        ).toEqual([])
        expect(
          shown.filter((row) => row.key[0] === 'assistant' && /ASSISTANT\s*—\s*$/.test(row.text)),
          `${phase}: empty assistant rows`,
        ).toEqual([])
        await noErrors(`trajectory ${phase}`, from)
        await shot(`trajectory-${phase}.png`)
        if (phase !== 'live') {
          await dsh.page.emulateMedia({ colorScheme: 'dark' })
          await shot('trajectory-dark.png')
          await dsh.page.emulateMedia({ colorScheme: 'light' })
        }
        await dsh.page.getByRole('tab', { name: 'Chat' }).click()
      }
    }, 600_000)

    it('"Branch into a new conversation" on the last answer: the child\'s Chat loads with that answer', async () => {
      await dsh.page.getByRole('tab', { name: 'Chat' }).click()
      const from = problems.length
      const before = new Set((await dsh.api.listSessions()).map((s) => s.sessionId))
      await dsh.page.getByRole('button', { name: 'Branch into a new conversation' }).last().click()
      const child = await until(
        'the child session',
        async () => (await dsh.api.listSessions()).find((s) => !before.has(s.sessionId))?.sessionId,
      )
      recorded.child = child
      // The page opens the child (the same rows as the parent so far): a prompt sent to the child shows up in it.
      const requests = dsh.llm.chatRequests().length
      await dsh.api.promptAndWait(child, 'in the child')
      expect(dsh.llm.chatRequests()).toHaveLength(requests + 1)
      const childRequest = dsh.llm.chatRequests().at(-1)!.body
      // The child's model history is the parent's as the model last saw it, its answer, then the new prompt.
      expect(requestTranscript(childRequest)).toEqual([
        ...requestTranscript(moved!, { text: MOVED_REPLY }),
        { role: 'user', text: 'in the child' },
      ])
      const expected = requestTranscript(childRequest, demoModel(childRequest))
      let seen: ReturnType<typeof chatTranscript> = []
      await until("the child's Chat shows its path and its new answer", async () => {
        seen = chatTranscript(await visibleRows(dsh.page))
        recorded['chat child'] = seen
        return sameRows(expected, seen)
      }).catch((error) => {
        throw new Error(`${String(error)}\nexpected ${JSON.stringify(expected)}\nvisible ${JSON.stringify(seen)}`)
      })
      expect(await dsh.page.locator('body').innerText()).not.toContain('the last one: “after the jump”')
      await noErrors('branch child', from)
      await shot('branch-child.png')
    }, 600_000)

    it("live: the model moves again while the Trajectory is open; its turn lists its prompt, its answer with the call's row under it, its next answer, and nothing it restated, also after a reload", async () => {
      // A user's move that copies the read exchange into a maintenance turn of its own: back to the first answer,
      // then on to the budget answer (prompt, read exchange, answer copied); then a prompt there.
      await dsh.api.remoteOk('sessionTree/jump', { agentId: sessionId, nodeId: await nodeWith('Day 1:') })
      await dsh.api.remoteOk('sessionTree/jump', { agentId: sessionId, nodeId: await nodeWith('Your notes say') })
      await dsh.api.promptAndWait(sessionId, 'after the user move')
      // Back on this session in the page (the last test left it on the child), under a title of its own.
      await dsh.api.callOk('session.rename', { sessionId, title: AGAIN_TITLE })
      const from = problems.length
      await openSession(dsh.page, dsh.url, AGAIN_TITLE)
      await dsh.page.getByRole('tab', { name: 'Trajectory' }).click()
      const before = await until('the trajectory rows', async () => {
        const all = await trajectoryRows()
        return all.some((row) => row.text.includes('after the user move')) ? all : undefined
      })
      // The food tour again: off the current path (the budget answer), so the move restates the prompt and answer.
      await dsh.api.promptAndWait(sessionId, MOVE_PROMPT)
      expect(modelMoves).toBe(2)
      for (const phase of ['live', 'after-a-reload']) {
        if (phase !== 'live') {
          // The page comes back on the Trajectory tab.
          await dsh.page.reload()
          await dsh.page.getByRole('tab', { name: 'Trajectory' }).click()
        }
        const shown = await until(`second move ${phase}: the trajectory rows`, async () => {
          const all = await trajectoryRows()
          return all.length > before.length && all.at(-1)?.text.includes(MOVED_REPLY) ? all : undefined
        })
        recorded[`second move trajectory ${phase}`] = shown
        const turn = shown.at(-1)!.turn
        const rows = shown
          .filter((row) => row.turn === turn && row.key[0] !== 'context')
          .map((row) => [row.key[0], row.key.slice(1).join(' '), row.text.slice(0, 26)])
        expect(rows, phase).toEqual([
          ['user', expect.stringMatching(/^seq \d+$/), `USER ${MOVE_PROMPT}`.slice(0, 26)],
          ['assistant', `${turn} 1`, 'ASSISTANT (tool call only)'],
          ['tool', 'call call_model_jump_2', 'TOOL tree{"action":"jump","node":"e60'.slice(0, 26)],
          ['assistant', `${turn} 2`, `ASSISTANT ${MOVED_REPLY}`.slice(0, 26)],
        ])
        // The turns before it are listed as they were.
        expect(
          shown.slice(0, before.length).map((row) => row.key.join(' ')),
          phase,
        ).toEqual(before.map((row) => row.key.join(' ')))
        const keys = shown.map((row) => row.key.join(' '))
        expect(
          keys.filter((key, i) => keys.indexOf(key) !== i),
          `${phase}: row keys shown twice`,
        ).toEqual([])
        await noErrors(`second move ${phase}`, from)
        await shot(`second-move-trajectory-${phase}.png`)
      }
    }, 600_000)
  },
)
