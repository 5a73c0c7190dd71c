/**
 * The tool companion (`dsh-session-tree/tool`) in the real, pinned `dsh`
 * 0.1.0-rc.8, installed from this package's tarball with `dsh plugin add`,
 * against a recording fake LLM that is scripted to call the tools.
 *
 * - headless (`dsh --profile headless`): the tools are registered with strict
 *   schemas and the system-prompt section. In one run the model reads a file,
 *   lists the tree and jumps back to the task: the jump switches the history
 *   within its step, so the NEXT request of that same run holds the path to
 *   the task, the jump call and its result (the read is gone). A move made
 *   together with another call cannot do that and is answered "not applied"
 *   (a one-shot run ends with its turn). `/tree` answers without a model call.
 * - web (`dsh web`, driven over HTTP): the deferred path. The model finds
 *   its first answer and jumps there in a message with another call, so the
 *   move waits for the end of the turn; then the history is switched, and the
 *   NEXT request holds exactly the selected path plus the new prompt. `/tree`
 *   works through the web app's command remote (`commands/execute`).
 *
 * Evidence of every run: test/e2e/artifacts/tool/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { dumpConfig, pluginAdd, runHeadless, writePatch, type RunResult } from './support/dsh.ts'
import { type ChatMessage, type ChatRequestBody, messageText, history, type ScriptStep } from './support/fake-llm.ts'
import { ACTIONS, SYSTEM_PROMPT } from '../../src/tool/prompt.ts'
import { TREE_TOOL } from '../../src/service/chat-switches.ts'
import { ADDED_BYTES_BUDGET } from '../support/wire-cost.ts'
import { saveArtifact } from './support/artifacts.ts'
import { describeWeb } from './support/web-suite.ts'

const lastMessage = (body: ChatRequestBody): ChatMessage => body.messages.at(-1)!

/** The "about N kB" of constant tool text the README and docs/tools.md state (each must state it once). */
function documentedToolTextKb(): string[] {
  const root = path.join(import.meta.dirname, '..', '..')
  return ['README.md', path.join('docs', 'tools.md')].map((file) => {
    const found = [
      ...fs.readFileSync(path.join(root, file), 'utf8').matchAll(/[Aa]bout (\d+\.\d) kB of constant text/g),
    ]
    if (found.length !== 1) throw new Error(`${file} states the tools' constant text ${found.length} times, not once`)
    return found[0]![1]!
  })
}

/** What the web phase's model finds: its first answer's node. */
let found = ''
const webScript: ScriptStep[] = [
  { text: 'ANSWER to: first question' },
  { toolCalls: [{ name: 'tree', arguments: { action: 'find', text: 'ANSWER to: first question' } }] },
  (body) => {
    found =
      /^.*match.*:\n(e\d+) assistant: ANSWER to: first question/.exec(messageText(lastMessage(body)))?.[1] ?? 'missing'
    // The jump shares its message with another call, so it cannot switch within the step: it waits for the turn's end.
    return {
      toolCalls: [
        { name: 'tree', arguments: { action: 'jump', node: found } },
        { name: 'tree', arguments: { action: 'list', depth: 0 } },
      ],
    }
  },
  { text: 'Going back to my first answer once this turn ends.' },
  { text: 'ANSWER to: third question' },
  { text: 'ANSWER to: fourth question' },
]

// The plugin is added to each profile, and dsh web booted, by the phase that uses it.
const options = { name: 'tool', llm: { script: webScript }, profiles: [], start: false }

describeWeb('tool companion in the real dsh', options, (dsh) => {
  const { time } = dsh
  const keepRun = (name: string, run: RunResult) =>
    dsh.evidence(`${name}.txt`, `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`)

  describe('headless', () => {
    let noTitle: string

    beforeAll(async () => {
      await time('pluginAddHeadless', () => pluginAdd(dsh.home, 'headless', dsh.plugin.tgz))
      noTitle = writePatch(dsh.home, 'no-title.yml', '- id: session-title-llm\n  disabled: true\n')
    }, 600_000)

    it('`dsh plugin --profile headless add` composes both rows: the service and the tool', async () => {
      const dump = await dumpConfig(dsh.home, 'headless')
      saveArtifact(dsh.artifacts, 'headless-dump-config.yml', dump)
      const layer = dump.slice(dump.indexOf('# == dsh-session-tree\n')).split(/\n# == /)[0] ?? ''
      expect(layer).toContain('- id: session-tree\n  name: dsh-session-tree\n')
      expect(layer).toContain('- id: session-tree-tool\n  name: dsh-session-tree/tool\n')
    }, 600_000)

    it('one run: the model reads a file, lists the tree and jumps back to the task; the NEXT request holds exactly that path, the jump call and its result', async () => {
      const notes = path.join(dsh.work, 'notes.txt')
      fs.writeFileSync(notes, 'NOTES-FILE-CONTENT: the read exchange must not survive the jump\n')
      const task = 'Please read notes.txt, show me the conversation tree, then go back to this message.'
      let taskNode = ''
      const llm = await dsh.fakeLlm({
        script: [
          { toolCalls: [{ name: 'read', arguments: { file_path: notes } }] },
          { toolCalls: [{ name: 'tree', arguments: { action: 'list' } }] },
          (body) => {
            // The node id comes from the tool result the harness really sent.
            const listing = messageText(lastMessage(body))
            taskNode = /(e\d+) user: Please read notes\.txt/.exec(listing)?.[1] ?? 'missing'
            return { toolCalls: [{ name: 'tree', arguments: { action: 'jump', node: taskNode } }] }
          },
          // Two calls in one message: the move cannot switch within the step, and the run ends with this turn.
          () => ({
            toolCalls: [
              { name: 'tree', arguments: { action: 'jump', node: taskNode } },
              { name: 'tree', arguments: { action: 'jump', node: 'e1', session: 'someone-else' } },
            ],
          }),
          { text: 'HEADLESS-DONE' },
        ],
      })
      const run = await time('headlessRun', () =>
        runHeadless({ home: dsh.home, cwd: dsh.work, llmUrl: llm.url, task, patches: [noTitle] }),
      )
      keepRun('headless-tools', run)
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout.trim().split('\n').at(-1)).toBe('HEADLESS-DONE')
      expect(llm.faults).toEqual([])
      const chats = llm.chatRequests()
      expect(chats).toHaveLength(5)
      const [first, second, third, fourth, fifth] = chats.map((r) => r.body) as [
        ChatRequestBody,
        ChatRequestBody,
        ChatRequestBody,
        ChatRequestBody,
        ChatRequestBody,
      ]

      // Registered: one tool, a strict object schema with an action enum; the system prompt has the section.
      const tools = (first.tools ?? []).filter((t) => t.function.name.startsWith('tree'))
      expect(tools.map((t) => t.function.name)).toEqual([TREE_TOOL])
      expect(tools[0]!.function.parameters).toMatchObject({
        type: 'object',
        required: ['action'],
        additionalProperties: false,
        properties: { action: { enum: [...ACTIONS] } },
      })
      expect(messageText(first.messages[0]!)).toContain('## Conversation tree')
      expect(messageText(first.messages[0]!)).toContain(SYSTEM_PROMPT)
      // What the documents say this costs every request: the tool's definition as sent (JSON) plus the prompt section.
      const constantText = Buffer.byteLength(JSON.stringify(tools[0]!.function)) + Buffer.byteLength(SYSTEM_PROMPT)
      expect(documentedToolTextKb()).toEqual([
        (Math.round(constantText / 100) / 10).toFixed(1),
        (Math.round(constantText / 100) / 10).toFixed(1),
      ])

      // The read really ran, and the listing shows the task with its id and the cursor.
      expect(lastMessage(second).role).toBe('tool')
      expect(messageText(lastMessage(second))).toContain('NOTES-FILE-CONTENT')
      const listing = messageText(lastMessage(third))
      expect(listing).toMatch(
        /^Conversation tree: \d+ nodes, 1 branch \(main\)\. The history ends at e\d+ \(← cursor\) on branch "main"\. Surface mode: stock\./,
      )
      expect(taskNode).toMatch(/^e\d+$/)
      expect(listing).toContain(`${taskNode} user: Please read notes.txt`)
      expect(listing).toContain('(calls read)')

      // The NEXT request, in the same run and turn: the path from the start to the task, then the jump call and its
      // result. The jump cut off the runtime-context snapshot that followed the task, so the harness's runtime context
      // states it again at this step (the same text, after the result); nothing of the read or the listing is left.
      const firstHistory = history(first)
      const taskAt = firstHistory.findIndex((m) => m.text === task)
      const pathToTask = firstHistory.slice(0, taskAt + 1)
      const runtimeContext = firstHistory[taskAt + 1]!
      expect(pathToTask.at(-1)).toEqual({ role: 'user', text: task })
      expect(runtimeContext).toEqual({ role: 'user', text: expect.stringMatching(/^Current runtime context\./) })
      const jumpCall = fourth.messages.find((m) => m.role === 'assistant')!.tool_calls![0]!
      const moved = `Moved now: jump to ${taskNode}. Your history is exactly the ${pathToTask.length} message${pathToTask.length === 1 ? '' : 's'} from the start to ${taskNode}, followed by this call and this result; continue from there.`
      expect(history(fourth)).toEqual([
        ...pathToTask,
        {
          role: 'assistant',
          text: '',
          calls: [{ id: jumpCall.id, name: 'tree', arguments: JSON.stringify({ action: 'jump', node: taskNode }) }],
        },
        {
          role: 'tool',
          text: expect.stringMatching(new RegExp(`^${moved.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`)),
          toolCallId: jumpCall.id,
        },
        runtimeContext,
      ])
      // The very call the model made in answer to the third request (the fake LLM names calls by request number).
      expect(jumpCall.id).toBe(`call_fake_${chats[2]!.n}_0`)
      const calls = history(fourth)
        .flatMap((m) => m.calls ?? [])
        .map((c) => c.name)
      expect(calls).toEqual(['tree'])
      expect(JSON.stringify(fourth.messages.filter((m) => m.role !== 'system'))).not.toContain('NOTES-FILE-CONTENT')
      // The system prompt is the same (only the history moved).
      expect(fourth.messages[0]).toEqual(first.messages[0])

      // A move sharing its message with another call is answered honestly: a one-shot run has no later request ...
      const results = fifth.messages
        .filter((m) => m.role === 'tool')
        .slice(-2)
        .map(messageText)
      expect(results[0]).toBe(
        `Not applied: jump to ${taskNode}. It cannot switch your history at once (the call shares its message with other calls), and this one-shot headless run ends with this turn, so there is no later request to change; the tree and your history stay as they are.`,
      )
      // ... and no argument can name another session.
      expect(results[1]).toBe(
        'Error: INVALID_ARGUMENT: unknown argument "session"; action "jump" needs "node"; may have "files", "summary", "text"',
      )
    }, 600_000)

    it(`the plugin adds at most ${ADDED_BYTES_BUDGET} bytes to the first request of a prompt: the same run with the plugin's rows disabled is the baseline`, async () => {
      const sizes: Record<string, { bytes: number; tools: number }> = {}
      for (const [name, patches] of [
        ['with', [noTitle]],
        [
          'without',
          [
            noTitle,
            writePatch(
              dsh.home,
              'no-tree.yml',
              '- id: session-tree\n  disabled: true\n- id: session-tree-tool\n  disabled: true\n- id: session-tree-tui\n  disabled: true\n',
            ),
          ],
        ],
      ] as const) {
        const llm = await dsh.fakeLlm({ script: [{ text: 'DONE' }] })
        const run = await runHeadless({ home: dsh.home, cwd: dsh.work, llmUrl: llm.url, task: 'Hello.', patches })
        keepRun(`headless-bytes-${name}`, run)
        expect(run.code, run.stderr).toBe(0)
        const request = llm.chatRequests()[0]!
        sizes[name] = { bytes: request.bytes, tools: request.body.tools?.length ?? 0 }
      }
      const added = sizes.with!.bytes - sizes.without!.bytes
      dsh.evidence('headless-bytes.json', { ...sizes, added, budget: ADDED_BYTES_BUDGET })
      expect(sizes.with!.tools - sizes.without!.tools).toBe(1)
      expect(added).toBeGreaterThan(0)
      expect(added).toBeLessThanOrEqual(ADDED_BYTES_BUDGET)
    }, 600_000)

    it('`/tree` answers in the headless front end without a model call; malformed input prints the usage', async () => {
      const llm = await dsh.fakeLlm({ script: [] })
      const shown = await time('headlessTree', () =>
        runHeadless({ home: dsh.home, cwd: dsh.work, llmUrl: llm.url, task: '/tree', patches: [noTitle] }),
      )
      keepRun('headless-tree', shown)
      expect(shown.code, shown.stderr).toBe(0)
      expect(shown.stdout).toMatch(
        /^Conversation tree: 0 nodes, 0 branches\. The history is empty\. Surface mode: stock\.\n/,
      )
      expect(shown.stdout).toContain('(empty: no messages yet)')
      const bad = await runHeadless({
        home: dsh.home,
        cwd: dsh.work,
        llmUrl: llm.url,
        task: '/tree jump',
        patches: [noTitle],
      })
      keepRun('headless-tree-usage', bad)
      expect(bad.code, bad.stderr).toBe(0)
      expect(bad.stdout).toMatch(/^Usage:\n {2}\/tree /)
      expect(llm.requests).toHaveLength(0)
    }, 600_000)
  })

  describe('web: the next request holds exactly the selected path', () => {
    let sessionId: string

    const tree = () => dsh.api.tree(sessionId)
    const command = (line: string) =>
      dsh.api.remoteOk<{ commandId: string; result: { kind: string; text?: string } }>('commands/execute', {
        agentId: sessionId,
        line,
        images: [],
      })
    const nodeWith = async (text: string) => (await dsh.api.nodeWith(sessionId, text)).nodeId
    /** Poll until the tree's cursor is `nodeId` (the deferred switch runs right after the turn). */
    const waitCursor = async (nodeId: string) => {
      const deadline = Date.now() + 30_000
      while (Date.now() < deadline) {
        if ((await tree()).cursor === nodeId) return
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      throw new Error(`the cursor never reached ${nodeId}`)
    }

    beforeAll(async () => {
      await time('pluginAddWeb', () => pluginAdd(dsh.home, 'web', dsh.plugin.tgz))
      await time('bootWeb', () => dsh.startWeb())
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
    }, 600_000)

    it('the model finds its first answer and jumps there together with another call: deferred, and after the turn the next request is exactly that path plus the new prompt', async () => {
      await dsh.api.promptAndWait(sessionId, 'first question')
      await dsh.api.promptAndWait(sessionId, 'second question: please go back to your first answer')
      const a1 = await nodeWith('ANSWER to: first question')
      expect(found).toBe(a1)
      const chats = dsh.llm.chatRequests()
      expect(chats).toHaveLength(4)
      const jumpId = chats[3]!.body.messages
        .flatMap((m) => m.tool_calls ?? [])
        .find((c) => c.function.name === 'tree' && JSON.parse(c.function.arguments).action === 'jump')!.id
      const scheduled = messageText(
        chats[3]!.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === jumpId)!,
      )
      expect(scheduled).toContain(`Scheduled: jump to ${a1}.`)
      expect(scheduled).toContain(
        'It cannot switch your history at once: the call shares its message with other calls.',
      )
      expect(scheduled).toContain('It takes effect when this turn ends.')
      // The rest of that turn still saw the whole conversation.
      expect(history(chats[3]!.body).map((m) => m.text)).toContain(
        'second question: please go back to your first answer',
      )
      await time('deferredSwitch', () => waitCursor(a1))
      expect(dsh.llm.chatRequests(), 'the switch itself calls no model').toHaveLength(4)

      await dsh.api.promptAndWait(sessionId, 'third question')
      const second = history(chats[1]!.body)
      const pathToA1 = second.slice(
        0,
        second.findIndex((m) => m.text === 'second question: please go back to your first answer'),
      )
      expect(pathToA1.at(-1)).toEqual({ role: 'assistant', text: 'ANSWER to: first question' })
      const sent = history(dsh.llm.chatRequests().at(-1)!.body)
      expect(sent).toEqual([...pathToA1, { role: 'user', text: 'third question' }])
      // The abandoned line is still in the tree.
      const view = await tree()
      expect(view.nodes.some((n) => n.message?.content === 'Going back to my first answer once this turn ends.')).toBe(
        true,
      )
      expect(view.nodes.find((n) => n.message?.content === 'third question')?.parentId).toBe(a1)
    }, 600_000)

    it('`/tree` works through the web command remote: it lists, and a jump on the idle agent applies at once', async () => {
      const listed = await dsh.api.remoteOk<Array<{ name: string }>>('commands/list', { agentId: sessionId })
      expect(listed.map((c) => c.name)).toContain('tree')
      const shown = await command('/tree')
      expect(shown.result.kind).toBe('success')
      expect(shown.result.text).toContain('Surface mode: stock.')
      expect(shown.result.text).toMatch(/ANSWER to: third question \[head: main(-\d+)?\] ← cursor/)
      expect((await command('/tree nonsense')).result).toEqual({
        kind: 'error',
        text: expect.stringMatching(/^Usage:/),
      })

      const a3 = await nodeWith('ANSWER to: third question')
      const a1 = await nodeWith('ANSWER to: first question')
      await command(`/tree label ${a1} "first answer"`)
      const jumped = await command('/tree jump first answer')
      expect(jumped.result.text).toContain(`Moved: jump to ${a1}.`)
      expect(jumped.result.text).toContain('Surface mode: stock.')
      const before = dsh.llm.chatRequests().length
      await dsh.api.promptAndWait(sessionId, 'fourth question')
      expect(dsh.llm.chatRequests()).toHaveLength(before + 1)
      const sent = history(dsh.llm.chatRequests().at(-1)!.body)
      expect(sent.map((m) => m.text)).not.toContain('third question')
      expect(sent.at(-2)).toEqual({ role: 'assistant', text: 'ANSWER to: first question' })
      expect(sent.at(-1)).toEqual({ role: 'user', text: 'fourth question' })
      expect(a3).not.toBe(a1)
      expect(dsh.llm.faults).toEqual([])
    }, 600_000)
  })
})
