/**
 * Codex rollouts (fixture: test/fixtures/codex/synthetic-rollout.jsonl, a
 * SYNTHETIC file shaped after codex-rs's RolloutItem schema — see SOURCES.md).
 * Imported through the published persistence; the DSH model's view is checked
 * against what Codex would replay: response items only, injected context kept
 * as context, a rollback forking, the compaction's replacement history.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { importSession } from '../../../src/interchange/session/import.ts'
import {
  codexAnswer,
  codexLine,
  codexPrompt,
  dshHome,
  dshModelView,
  importFresh,
  loadTree,
  rolloutFiles,
  treeModelView,
} from '../../support/interchange.ts'
import { pathUnits, type Unit } from '../../support/claude-units.ts'

/** `path` imported fresh, and its report: a Codex rollout of `version`, one compaction, two branches, nothing skipped. */
async function importTwoBranches(path: string, version: string) {
  const imported = await importFresh(path)
  expect(imported.outcome.report).toMatchObject({ format: 'codex', version, compactions: 1, branches: 2, skipped: [] })
  return imported
}

const FIXTURE = join(import.meta.dirname, '..', '..', 'fixtures', 'codex', 'synthetic-rollout.jsonl')

describe('Codex rollouts', () => {
  it('one stream (response_item), typed prompts vs injected context, a rollback forks, the compaction replaces the history', async () => {
    const { home, outcome } = await importTwoBranches(FIXTURE, '0.77.0')
    expect(outcome.report.ignored).toMatchObject({
      'event_msg:agent_message': 3,
      'event_msg:user_message': 4,
      'response_item:ghost_snapshot': 1,
    })
    expect(outcome.cwd).toBe('/home/dev/shop')
    const { tree, events, warnings } = await loadTree(home, outcome.sessionId!)
    expect(warnings).toEqual([])
    // What the DSH model receives next: the compaction's history (its items one message each, as Codex replays them), then the turn after it.
    expect(dshModelView(outcome.sessionId!, events)).toEqual([
      { role: 'user', text: 'explain the fix first, no patch yet' },
      {
        role: 'user',
        text: 'Summary: the cart test fails because removeItem splices two items; the user wants an explanation before any patch.',
      },
      { role: 'user', text: 'ok, now patch it' },
      { role: 'assistant', text: 'Done.' },
    ])
    // The branch the rollback left: the patch turn, with its freeform tool call, still in the tree.
    const patched = tree.list().find((n) => n.message?.content === 'Patched cart.js.')!
    expect(treeModelView(tree, patched.nodeId)).toEqual([
      {
        role: 'user',
        text: '# AGENTS.md instructions for /home/dev/shop\n\n<INSTRUCTIONS>\nRun the tests before you finish.\n</INSTRUCTIONS>',
      },
      {
        role: 'user',
        text: '<environment_context>\n  <cwd>/home/dev/shop</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>',
      },
      { role: 'user', text: 'why does the cart test fail?' },
      { role: 'assistant', text: 'call:shell' },
      { role: 'tool', text: '{"output":"FAIL cart.test.js: expected 3 items, got 2","metadata":{"exit_code":1}}' },
      { role: 'assistant', text: 'The cart drops the last item: an off-by-one in removeItem.' },
      { role: 'user', text: 'fix it with a patch' },
      { role: 'assistant', text: 'call:apply_patch' },
      { role: 'tool', text: 'Success. Updated the following files:\nM cart.js' },
      { role: 'assistant', text: 'Patched cart.js.' },
    ])
    // Context files are injected, not typed; prompts are the ones Codex mirrored as user_message.
    const injected = tree
      .list()
      .filter((n) => n.origin?.injected && n.type === 'message')
      .map((n) => n.message!.content.slice(0, 20))
    expect(injected).toEqual(expect.arrayContaining(['# AGENTS.md instruct', '<environment_context']))
    // The rollback's fork point: the two answers after "why does the cart test fail?" share one parent.
    const fixIt = tree.list().find((n) => n.message?.content === 'fix it with a patch')!
    const explain = tree.list().find((n) => n.message?.content === 'explain the fix first, no patch yet')!
    expect(explain.parentId).toBe(fixIt.parentId)
    // The model change (turn_context gpt-5-codex → gpt-5.1-codex) is a node; reasoning is never sent.
    expect(
      tree
        .list()
        .filter((n) => n.type === 'model_change')
        .map((n) => n.model),
    ).toEqual(['gpt-5.1-codex'])
    expect(JSON.stringify(events)).not.toContain('Looking at the test')
  })
})

// ---------------------------------------------------------------------------
// Rollouts written by the real Codex 0.171.0 (generated/NOTES.md; regenerate with dev/fixtures/codex.ts)

const GENERATED = join(import.meta.dirname, '..', '..', 'fixtures', 'codex', 'generated')
type Item = {
  type: string
  role?: string
  content?: { type: string; text?: string }[] | string
  name?: string
  output?: unknown
}
const firstLine = (file: string) =>
  JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as { payload: { id: string; forked_from_id?: string } }

const itemText = (content: Item['content']) =>
  typeof content === 'string' ? content : (content ?? []).map((c) => c.text ?? '').join('')
/** Texts of every message item the rollouts hold (off the raw files). */
const rolloutTexts = () =>
  new Set(
    rolloutFiles(GENERATED).flatMap((file) =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; payload: Item & { replacement_history?: Item[] } })
        .flatMap((r) =>
          r.type === 'response_item' && r.payload.type === 'message'
            ? [itemText(r.payload.content)]
            : r.type === 'compacted'
              ? (r.payload.replacement_history ?? []).map((i) => itemText(i.content))
              : [],
        ),
    ),
  )

/** A Responses request's input as units (developer messages the CLI makes up per request and never records — its base instructions — left out; reasoning too). */
function inputUnits(input: readonly Item[], recorded: ReadonlySet<string>): Unit[] {
  const text = itemText
  const units: Unit[] = []
  for (const item of input) {
    if (item.type === 'message') {
      const t = text(item.content)
      if (item.role === 'developer' && !recorded.has(t)) continue
      const parts = typeof item.content === 'string' ? [item.content] : (item.content ?? []).map((c) => c.text ?? '')
      for (const part of parts)
        if (part.trim() !== '') units.push([item.role === 'assistant' ? 'assistant' : 'user', part.trimEnd()])
    } else if (item.type === 'function_call') units.push(['call', item.name!])
    else if (item.type === 'function_call_output')
      units.push([
        'result',
        (typeof item.output === 'string' ? item.output : text(item.output as Item['content'])).trimEnd(),
      ])
  }
  return units
}

describe('Codex rollouts written by the real codex 0.171.0 (against a local fake of the Responses API)', () => {
  const [thread, fork] = rolloutFiles(GENERATED)
  const requests = () =>
    readFileSync(join(GENERATED, 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { n: number; input: Item[] })

  it('the fork (forked_from_id, found beside it) joins the thread as a branch at its fork point; every request the CLI sent is a path of the tree', async () => {
    // Facts off the raw files: the second rollout names the first; nothing of the first is copied into it.
    expect(firstLine(fork!).payload.forked_from_id).toBe(firstLine(thread!).payload.id)
    const recorded = rolloutTexts()
    for (const [main, cursorPrompt] of [
      [thread!, 'Thanks, that is all.'],
      [fork!, 'Instead, just count the files.'],
    ] as const) {
      const { home, outcome } = await importTwoBranches(main, '0.171.0')
      expect(outcome.report.notes.join('\n')).toContain(`(thread ${firstLine(fork!).payload.id}) joined as a branch`)
      const { tree, events, warnings } = await loadTree(home, outcome.sessionId!)
      expect(warnings).toEqual([])
      // The fork point: the thread's answer before the fork has two children, the fork's prompt and the thread's next prompt.
      const forkPrompt = tree.list().find((n) => n.message?.content === 'Instead, just count the files.')!
      const threadPrompt = tree.list().find((n) => n.message?.content === 'Thanks, that is all.')!
      expect(forkPrompt.parentId).toBe(threadPrompt.parentId)
      // The file named continues: its last prompt is the next request's last one.
      const view = dshModelView(outcome.sessionId!, events)
      expect(view.filter((m) => m.role === 'user').at(-1)!.text).toBe(cursorPrompt)
      let compared = 0
      for (const request of requests()) {
        const units = inputUnits(request.input, recorded)
        const [kind, text] = units.at(-1)!
        const matches = tree
          .list()
          .filter((n) =>
            kind === 'user'
              ? n.type === 'message' && n.message?.role === 'user' && n.message.content.trimEnd() === text
              : kind === 'result' && n.content?.some((p) => p.type === 'tool_result' && p.content.trimEnd() === text),
          )
        if (matches.length === 0) continue
        // A prompt the compaction retained exists twice (before it, and re-stated after it): one of them is the request's path.
        const same = matches.find((n) => JSON.stringify(pathUnits(tree, n.nodeId)) === JSON.stringify(units))
        expect(pathUnits(tree, (same ?? matches[0]!).nodeId), `request ${request.n}`).toEqual(units)
        compared++
      }
      // All but the compaction's own request (its prompt is the CLI's, never in the rollout): before and after the compaction, both sides of the fork.
      expect(compared).toBe(requests().length - 1)
    }
  })

  it('both files given on the command line import the same tree; a fork whose thread is missing says what is missing', async () => {
    const alone = mkdtempSync(join(tmpdir(), 'codex-fork-'))
    copyFileSync(fork!, join(alone, basename(fork!)))
    copyFileSync(thread!, join(tmpdir(), `elsewhere-${basename(thread!)}`))
    const home = await dshHome()
    const together = await importSession(
      { path: join(alone, basename(fork!)), related: [join(tmpdir(), `elsewhere-${basename(thread!)}`)] },
      { persistence: home.persistence, sidecarRoot: home.sidecarRoot },
    )
    expect(together.report).toMatchObject({ branches: 2, compactions: 1 })
    const single = await importSession(
      { path: join(alone, basename(fork!)) },
      { persistence: home.persistence, sidecarRoot: home.sidecarRoot, dryRun: true },
    )
    expect(single.report.nodes).toBeLessThan(together.report.nodes)
    expect(single.report.notes.join('\n')).toContain(
      `this rollout is a fork of thread ${firstLine(thread!).payload.id}, whose rollout was not found beside it: the history before the fork point lives there and is missing`,
    )
    const notFamily = importSession(
      { path: join(alone, basename(fork!)), related: [FIXTURE] },
      { persistence: home.persistence, sidecarRoot: home.sidecarRoot },
    )
    await expect(notFamily).rejects.toMatchObject({ code: 'FORMAT_MISMATCH' })
  })
})

describe('Codex forks that copied their parent (older versions)', () => {
  it('the copies are the shared prefix: they are not repeated, and the fork branches where it stops sharing', async () => {
    const parent = readFileSync(FIXTURE, 'utf8').trim().split('\n')
    const parentId = (JSON.parse(parent[0]!) as { payload: { id: string } }).payload.id
    const dir = mkdtempSync(join(tmpdir(), 'codex-copied-'))
    const fork = [
      codexLine('session_meta', {
        id: '0199aaaa-bbbb-7ccc-8ddd-eeeeffff0002',
        forked_from_id: parentId,
        cwd: '/home/dev/shop',
        cli_version: '0.77.0',
        model_provider: 'openai',
      }),
      ...parent.slice(0, 12),
      ...codexPrompt('skip the patch, write a test instead'),
      codexAnswer('Added cart.removeItem.test.js.'),
    ]
    copyFileSync(FIXTURE, join(dir, 'rollout-2026-01-10T09-00-00-parent.jsonl'))
    writeFileSync(join(dir, 'rollout-2026-01-11T10-00-00-fork.jsonl'), fork.join('\n') + '\n')
    const { home, outcome } = await importFresh(join(dir, 'rollout-2026-01-11T10-00-00-fork.jsonl'))
    expect(outcome.report.notes.join('\n')).toMatch(
      /joined as a branch at node L\d+ \(5 copied item\(s\) shared with the thread\)/,
    )
    const { tree, events } = await loadTree(home, outcome.sessionId!)
    // The copied prompt exists once; the fork's prompt and the thread's answer both follow the shared tool result.
    expect(tree.list().filter((n) => n.message?.content === 'why does the cart test fail?')).toHaveLength(1)
    const forkPrompt = tree.list().find((n) => n.message?.content === 'skip the patch, write a test instead')!
    const threadAnswer = tree
      .list()
      .find((n) => n.message?.content === 'The cart drops the last item: an off-by-one in removeItem.')!
    expect(forkPrompt.parentId).toBe(threadAnswer.parentId)
    expect(tree.get(forkPrompt.parentId!)!.type).toBe('tool_call')
    // It continues on the fork (the file named): the shared prefix, then the fork's own turn.
    expect(dshModelView(outcome.sessionId!, events).slice(-2)).toEqual([
      { role: 'user', text: 'skip the patch, write a test instead' },
      { role: 'assistant', text: 'Added cart.removeItem.test.js.' },
    ])
  })
})
