/**
 * Codex rollouts (fixture: test/fixtures/codex/synthetic-rollout.jsonl, a
 * SYNTHETIC file shaped after codex-rs's RolloutItem schema — see SOURCES.md).
 * Imported through the published persistence; the DSH model's view is checked
 * against what Codex would replay: response items only, injected context kept
 * as context, a rollback forking, the compaction's replacement history.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { importSession } from '../../src/interchange/session/import.ts'
import { dshHome, dshModelView, loadTree, treeModelView } from '../support/interchange.ts'

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'codex', 'synthetic-rollout.jsonl')

describe('Codex rollouts', () => {
  it('one stream (response_item), typed prompts vs injected context, a rollback forks, the compaction replaces the history', async () => {
    const home = await dshHome()
    const outcome = await importSession({ path: FIXTURE }, { persistence: home.persistence, sidecarRoot: home.sidecarRoot })
    expect(outcome.report).toMatchObject({ format: 'codex', version: '0.77.0', compactions: 1, branches: 2, skipped: [] })
    expect(outcome.report.ignored).toMatchObject({ 'event_msg:agent_message': 3, 'event_msg:user_message': 4, 'response_item:ghost_snapshot': 1 })
    expect(outcome.cwd).toBe('/home/dev/shop')
    const { tree, events, warnings } = await loadTree(home, outcome.sessionId!)
    expect(warnings).toEqual([])
    // What the DSH model receives next: the compaction's history, then the turn after it.
    expect(dshModelView(outcome.sessionId!, events)).toEqual([
      { role: 'user', text: 'explain the fix first, no patch yet\n\nSummary: the cart test fails because removeItem splices two items; the user wants an explanation before any patch.' },
      { role: 'user', text: 'ok, now patch it' },
      { role: 'assistant', text: 'Done.' },
    ])
    // The branch the rollback left: the patch turn, with its freeform tool call, still in the tree.
    const patched = tree.list().find((n) => n.message?.content === 'Patched cart.js.')!
    expect(treeModelView(tree, patched.nodeId)).toEqual([
      { role: 'user', text: '# AGENTS.md instructions for /home/dev/shop\n\n<INSTRUCTIONS>\nRun the tests before you finish.\n</INSTRUCTIONS>' },
      { role: 'user', text: '<environment_context>\n  <cwd>/home/dev/shop</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>' },
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
    const injected = tree.list().filter((n) => n.origin?.injected && n.type === 'message').map((n) => n.message!.content.slice(0, 20))
    expect(injected).toEqual(expect.arrayContaining(['# AGENTS.md instruct', '<environment_context']))
    // The rollback's fork point: the two answers after "why does the cart test fail?" share one parent.
    const fixIt = tree.list().find((n) => n.message?.content === 'fix it with a patch')!
    const explain = tree.list().find((n) => n.message?.content === 'explain the fix first, no patch yet')!
    expect(explain.parentId).toBe(fixIt.parentId)
    // The model change (turn_context gpt-5-codex → gpt-5.1-codex) is a node; reasoning is never sent.
    expect(tree.list().filter((n) => n.type === 'model_change').map((n) => n.model)).toEqual(['gpt-5.1-codex'])
    expect(JSON.stringify(events)).not.toContain('Looking at the test')
  })
})
