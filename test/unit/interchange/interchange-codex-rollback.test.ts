/**
 * A real Codex rollback (test/fixtures/codex/generated-rollback/, written by
 * the real codex 0.171.0 through its app-server: `thread/revert`, then a
 * prompt, then `thread/resume` in a new process and one more prompt; see
 * NOTES.md there). Codex 0.171 writes a rollback as a new segment of the same
 * thread (`history_base`); the judge is the request Codex sent after its own
 * resume: what it rebuilt from these files. Our import must give the DSH model
 * exactly that, then Codex's answer, whichever of the two files is named; the
 * rolled-back turns stay in the tree as a branch.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { dshModelView, importFresh, loadTree, rolloutFiles } from '../../support/interchange.ts'

const DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'codex', 'generated-rollback')
type Item = { type: string; role?: string; content?: { type: string; text?: string }[] }
const files = () => rolloutFiles(DIR)
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; payload: Item & Record<string, unknown> })
const text = (item: Item) => (item.content ?? []).map((c) => c.text ?? '').join('')

describe('a rollback written by the real codex 0.171.0 (thread/revert)', () => {
  it('the facts of the files: a second segment of the same thread, its history_base keeping the first turn', () => {
    const [base, segment] = files()
    expect(files()).toHaveLength(2)
    const meta = lines(segment!)[0]!.payload as unknown as {
      id: string
      history_base: { thread_id: string; end_ordinal_exclusive: number }
      forked_from_id?: string
    }
    expect(meta.id).toBe(lines(base!)[0]!.payload.id)
    expect(meta.history_base.thread_id).toBe(meta.id)
    expect(meta.forked_from_id).toBeUndefined()
    expect(lines(base!).some((l) => l.type === 'event_msg' && l.payload.type === 'thread_rolled_back')).toBe(false)
  })

  it('the next request holds what Codex rebuilt on its own resume, then its answer; the rolled-back turns are a branch (either file named)', async () => {
    const requests = readFileSync(join(DIR, 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { input: Item[] })
    const recorded = new Set(
      files().flatMap((file) =>
        lines(file)
          .filter((l) => l.type === 'response_item' && l.payload.type === 'message')
          .map((l) => text(l.payload)),
      ),
    )
    // The resume's request, as role + text (the per-request base instructions Codex never records left out).
    const resumed = requests
      .at(-1)!
      .input.filter((item) => item.type === 'message' && (item.role !== 'developer' || recorded.has(text(item))))
      .map((item) => ({ role: item.role === 'assistant' ? 'assistant' : 'user', text: text(item) }))
    expect(resumed.map((m) => m.text).filter((t) => !t.startsWith('<'))).toEqual([
      'First, list the plan.',
      'Answer to: First, list the plan.',
      'Instead, write the docs first.',
      'Answer to: Instead, write the docs first.',
      'And after that?',
    ])
    for (const main of files()) {
      const { home, outcome } = await importFresh(main)
      expect(outcome.report).toMatchObject({ format: 'codex', version: '0.171.0', branches: 2, skipped: [] })
      const { tree, events, warnings } = await loadTree(home, outcome.sessionId!)
      expect(warnings).toEqual([])
      expect(dshModelView(outcome.sessionId!, events).map((m) => ({ role: m.role, text: m.text }))).toEqual([
        ...resumed,
        { role: 'assistant', text: 'Answer to: And after that?' },
      ])
      // The rolled-back turns: a branch from the first answer, beside the prompt made after the rollback.
      const second = tree.list().find((n) => n.message?.content === 'Second, add tests.')!
      const instead = tree.list().find((n) => n.message?.content === 'Instead, write the docs first.')!
      expect(second.parentId).toBe(instead.parentId)
      expect(tree.list().find((n) => n.nodeId === second.parentId)?.message?.content).toBe(
        'Answer to: First, list the plan.',
      )
    }
  })
})
