/**
 * Carry work across branches (issue 24.4): the real service in the published
 * agent loop (`tool-rig.ts`), real files in a temp git work tree and in a
 * plain folder. Two branches change files with the file tools (and, in git,
 * the shell); at main's tip the other branch's changes are carried: a file
 * only it changed is taken, separate edits to one file merge, overlapping
 * ones (the user's own edit against the branch's) ask, and an undecided
 * conflict changes nothing. Back with the files brings back every byte the
 * carry replaced; forward the carry again.
 */
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import type { CarryPreview, CarryResult, RestoreRequest, RestoreResult } from '../../../src/types.ts'
import { filesOf } from '../../support/work-tree-files.ts'
import { type ScriptEntry } from '../../support/tool-rig.ts'
import { call, filesLoop, workTrees } from '../../support/work-loop.ts'
import { gitInit } from '../../e2e/support/workspace-files.ts'
import { remoteFailure } from '../../support/remote-failure.ts'
import { runTreeCommand } from '../../../src/tool/command.ts'
import { CARRIED_WORK_PREFIX } from '../../../src/harness/carried-summary.ts'

const trees = workTrees()

const lines = (...l: string[]) => l.map((x) => `${x}\n`).join('')
const BASE_A = lines('1', '2', '3', '4', '5', '6', '7', '8')

/** The git state the user owns: index, HEAD, refs (a carry never touches them). */
function gitState(work: string): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: work, encoding: 'utf8' })
  return [
    readFileSync(path.join(work, '.git', 'index')).toString('base64'),
    git('rev-parse', 'HEAD'),
    git('for-each-ref'),
    git('stash', 'list'),
  ].join('\n')
}

/**
 * "base": a.txt (8 lines), c.txt. Main ("main"): line 1 of a.txt, a new m.txt.
 * Branch "other" forked at base ("other"): line 8 of a.txt, a new o.txt, c.txt,
 * in git a shell-made executable tool.sh and a binary on both branches. Then
 * the files go back to main's tip, where the user edits c.txt by hand.
 */
async function scene(kind: 'git' | 'plain', more: ScriptEntry[] = []) {
  const work = trees.folder(`carry-${kind}-`)
  writeFileSync(path.join(work, 'README'), 'untouched\n')
  if (kind === 'git') gitInit(work)
  const shell = (command: string): ScriptEntry[] => (kind === 'git' ? [call('bash', { command })] : [])
  const rig = trees.rig(
    await filesLoop(
      work,
      [
        call('write', { file_path: 'a.txt', content: BASE_A }),
        call('write', { file_path: 'c.txt', content: 'c0\n' }),
        { text: 'base' },
        call('read', { file_path: 'a.txt' }),
        call('write', { file_path: 'a.txt', content: BASE_A.replace('1\n', 'ONE\n') }),
        call('write', { file_path: 'm.txt', content: 'main only\n' }),
        ...shell(`printf 'main\\0bin' > bin.dat`),
        { text: 'main' },
        call('read', { file_path: 'a.txt' }),
        call('write', { file_path: 'a.txt', content: BASE_A.replace('8\n', 'EIGHT\n') }),
        call('write', { file_path: 'o.txt', content: 'other only\r\nCRLF\r\n' }),
        call('read', { file_path: 'c.txt' }),
        call('write', { file_path: 'c.txt', content: 'c-other\n' }),
        ...shell(`printf '#!/bin/sh\\necho hi\\n' > tool.sh && chmod +x tool.sh && printf 'other\\0bin' > bin.dat`),
        { text: 'other' },
        ...more,
      ],
      { shell: true },
    ),
  )
  const id = rig.sessionId
  const restore = (request: RestoreRequest) => rig.service.restore(id, request) as Promise<RestoreResult>
  await rig.say('base')
  const nodeOf = async (content: string) =>
    (await rig.service.list(id)).nodes.find((n) => n.message?.role === 'assistant' && n.message.content === content)!
      .nodeId
  const base = await nodeOf('base')
  await rig.say('main')
  const main = await nodeOf('main')
  await restore({ move: { kind: 'fork', nodeId: base, branch: 'other' }, restore: 'both' })
  await rig.say('other')
  const other = await nodeOf('other')
  await restore({ move: { kind: 'jump', nodeId: main }, restore: 'both' })
  writeFileSync(path.join(work, 'c.txt'), 'c-mine\n')
  const files = () => filesOf(work)
  return { rig, id, work, base, main, other, restore, files }
}

const b64 = (t: string) => Buffer.from(t).toString('base64')

for (const kind of ['git', 'plain'] as const) {
  describe(`carry another branch's file changes (${kind})`, () => {
    it('previews take / merge / conflict / kept, refuses an undecided conflict, merges, and Back undoes it byte for byte', async () => {
      const s = await scene(kind)
      const git = kind === 'git' ? gitState(s.work) : ''
      const mine = s.files()
      expect(mine['a.txt']!.bytes).toBe(b64(BASE_A.replace('1\n', 'ONE\n')))
      const preview = (await s.rig.service.carryPreview(s.id, { from: 'other' })) as CarryPreview
      expect(preview).toMatchObject({ from: s.other, branch: 'other', at: s.main, common: s.base })
      const actions = Object.fromEntries(preview.entries.map((e) => [e.path, [e.action, e.reason ?? null]]))
      expect(actions).toEqual({
        'a.txt': ['merge', null],
        'c.txt': ['conflict', 'text'],
        'm.txt': ['kept', null],
        'o.txt': ['take', null],
        ...(kind === 'git' ? { 'bin.dat': ['conflict', 'binary'], 'tool.sh': ['take', null] } : {}),
      })
      // Per-file diffs on demand: what they changed, and what the carry writes.
      const diff = await s.rig.service.carryDiff(s.id, { from: 'other' }, 'a.txt')
      expect(diff.theirs).toContain('-8\n+EIGHT\n')
      expect(diff.result).toContain('-8\n+EIGHT\n')
      expect(diff.result).not.toContain('ONE')
      // Undecided: refused, nothing changed.
      const refused = await remoteFailure(s.rig.service.carry(s.id, { from: 'other' }))
      expect(refused.code).toBe('WORKSPACE_CONFLICT')
      expect((refused.details as { conflicts: { path: string }[] }).conflicts.map((c) => c.path)).toEqual(
        kind === 'git' ? ['bin.dat', 'c.txt'] : ['c.txt'],
      )
      expect(s.files()).toEqual(mine)
      // Markers only where there is a text merge.
      if (kind === 'git') {
        const wrong = await remoteFailure(
          s.rig.service.carry(s.id, { from: 'other', conflicts: [{ path: 'bin.dat', decision: 'markers' }] }),
        )
        expect(wrong.code).toBe('INVALID_ARGUMENT')
        expect(s.files()).toEqual(mine)
      }
      const carried = (await s.rig.service.carry(s.id, {
        from: 'other',
        conflicts: [
          { path: '*', decision: 'markers' },
          { path: 'bin.dat', decision: 'theirs' },
        ],
      })) as CarryResult
      expect(carried).toMatchObject({
        merged: ['a.txt'],
        marked: ['c.txt'],
        taken: kind === 'git' ? ['bin.dat', 'o.txt', 'tool.sh'] : ['o.txt'],
      })
      const after = s.files()
      expect(after['a.txt']!.bytes).toBe(b64(lines('ONE', '2', '3', '4', '5', '6', '7', 'EIGHT')))
      expect(after['o.txt']!.bytes).toBe(b64('other only\r\nCRLF\r\n'))
      expect(after['m.txt']).toEqual(mine['m.txt'])
      expect(after['c.txt']!.bytes).toBe(b64(`<<<<<<< mine\nc-mine\n=======\nc-other\n>>>>>>> theirs (${s.other})\n`))
      if (kind === 'git') {
        expect(after['tool.sh']).toEqual({ bytes: b64('#!/bin/sh\necho hi\n'), exec: true })
        expect(Buffer.from(after['bin.dat']!.bytes, 'base64')).toEqual(Buffer.from('other\0bin'))
      }
      // The conversation did not move.
      expect((await s.rig.service.list(s.id)).cursor).toBe(s.main)
      // Back with the files: exactly the files before the carry (the user's c.txt edit included); forward: the carry.
      await s.restore({ move: { kind: 'back' }, restore: 'files' })
      expect(s.files()).toEqual(mine)
      await s.restore({ move: { kind: 'forward' }, restore: 'files' })
      expect(s.files()).toEqual(after)
      await s.restore({ move: { kind: 'back' }, restore: 'files' })
      expect(s.files()).toEqual(mine)
      if (kind === 'git') expect(gitState(s.work)).toBe(git)
      else expect(readdirSync(s.work)).not.toContain('.git')
      expect(s.rig.invariantFailures).toEqual([])
    })

    it('keep mine / take theirs per file; the model is told once what changed', async () => {
      const s = await scene(kind, [{ text: 'seen' }, { text: 'seen again' }])
      const mine = s.files()
      const carried = (await s.rig.service.carry(s.id, {
        from: s.other,
        conflicts: [
          { path: 'c.txt', decision: 'mine' },
          { path: '*', decision: 'theirs' },
        ],
      })) as CarryResult
      expect(carried.mine).toEqual(['c.txt'])
      expect(carried.files.kept).toEqual(['c.txt'])
      expect(s.files()['c.txt']).toEqual(mine['c.txt'])
      const overview = await s.rig.service.files(s.id)
      expect(overview.restores.at(-1)).toMatchObject({ complete: true })
      expect(overview.restores.at(-1)?.paths).toContain('a.txt')
      // The next request carries one note naming the carried files; the one after it does not repeat it.
      const notes = (request: { messages: readonly unknown[] }) =>
        request.messages.filter((m) => JSON.stringify(m).includes('were carried into the workspace'))
      await s.rig.say('what changed?')
      const first = notes(s.rig.model.requests.at(-1)!)
      expect(first).toHaveLength(1)
      expect(JSON.stringify(first[0])).toContain(`The file changes of the branch at ${s.other} were carried`)
      expect(JSON.stringify(first[0])).toContain('a.txt')
      await s.rig.say('and now?')
      expect(notes(s.rig.model.requests.at(-1)!)).toHaveLength(1)
    })

    it('nothing to carry from an ancestor; an unknown node is NODE_NOT_FOUND; a chmod race leaves the file alone', async () => {
      const s = await scene(kind)
      const mine = s.files()
      const none = (await s.rig.service.carry(s.id, { from: s.base })) as CarryResult
      expect(none).toMatchObject({ common: s.base, taken: [], merged: [], marked: [] })
      expect(s.files()).toEqual(mine)
      expect((await remoteFailure(s.rig.service.carryPreview(s.id, { from: 'nope' }))).code).toBe('NODE_NOT_FOUND')
      expect((await remoteFailure(s.rig.service.carryPreview(s.id, { from: '' } as never))).code).toBe(
        'INVALID_ARGUMENT',
      )
      // Made executable by hand after the preview: still carried (content and bit are checked right before the write).
      chmodSync(path.join(s.work, 'm.txt'), 0o755)
      const again = (await s.rig.service.carry(s.id, {
        from: 'other',
        conflicts: [{ path: '*', decision: 'mine' }],
      })) as CarryResult
      expect(again.merged).toEqual(['a.txt'])
      expect(statSync(path.join(s.work, 'm.txt')).mode & 0o111).not.toBe(0)
    })

    it("the model's tree carry (alone in its message) keeps the conflicts, says what it did, and /tree carry answers them", async () => {
      const s = await scene(kind, [call('tree', { action: 'carry', node: 'other' }), { text: 'carried' }])
      const mine = s.files()
      await s.rig.say('bring the other branch over')
      const result = s.rig.model.requests.at(-1)!.messages.at(-1) as { content: unknown }
      expect(JSON.stringify(result.content)).toContain('merged a.txt')
      expect(JSON.stringify(result.content)).toMatch(
        /Left as they are \(changed on both branches\): (bin\.dat, )?c\.txt\./,
      )
      const after = s.files()
      expect(after['c.txt']).toEqual(mine['c.txt'])
      expect(after['a.txt']!.bytes).toBe(b64(lines('ONE', '2', '3', '4', '5', '6', '7', 'EIGHT')))
      await s.restore({ move: { kind: 'back' }, restore: 'files' })
      expect(s.files()).toEqual(mine)
      // A person, with /tree: a dry run lists every file, then --take theirs answers the conflicts.
      const dry = await runTreeCommand(s.rig.tool.actions, s.rig.agent, 'carry other --dry-run')
      expect(dry.text).toContain('merge (clean): a.txt')
      expect(dry.text).toContain('conflict: c.txt — 1 overlapping region(s)')
      expect(s.files()).toEqual(mine)
      const refused = await runTreeCommand(s.rig.tool.actions, s.rig.agent, 'carry other')
      expect(refused).toMatchObject({ kind: 'error' })
      expect(refused.text).toMatch(/^WORKSPACE_CONFLICT: /)
      const taken = await runTreeCommand(s.rig.tool.actions, s.rig.agent, 'carry other --take theirs')
      expect(taken).toMatchObject({ kind: 'success' })
      expect(s.files()['c.txt']!.bytes).toBe(b64('c-other\n'))
    })

    it('the model\'s tree carry with summary "carry": its files, then the branch\'s summary as the last message of its history', async () => {
      const s = await scene(kind, [
        call('tree', { action: 'carry', node: 'other', summary: 'carry' }),
        { text: 'carried' },
        { text: 'seen' },
      ])
      await s.rig.say('bring the other branch over, with its summary')
      const result = s.rig.model.requests.at(-1)!.messages.at(-1) as { content: unknown }
      expect(JSON.stringify(result.content)).toContain('merged a.txt')
      expect(JSON.stringify(result.content)).toMatch(/The summary of other is in the conversation/)
      await s.rig.say('what now?')
      const carried = s.rig.model.requests
        .at(-1)!
        .messages.filter((m) => JSON.stringify(m).includes(CARRIED_WORK_PREFIX))
      expect(carried).toHaveLength(1)
      expect(s.rig.invariantFailures).toEqual([])
    })

    it("/tree carry --summary: the files, then that branch's summary in the conversation once; Back with the files undoes the files", async () => {
      const s = await scene(kind, [{ text: 'seen' }])
      const mine = s.files()
      const done = await runTreeCommand(s.rig.tool.actions, s.rig.agent, 'carry other --take theirs --summary')
      expect(done).toMatchObject({ kind: 'success' })
      expect(done.text).toMatch(/The summary of other is in the conversation \(e\d+\)\./)
      expect(s.files()['c.txt']!.bytes).toBe(b64('c-other\n'))
      await s.rig.say('what now?')
      const carried = s.rig.model.requests
        .at(-1)!
        .messages.filter((m) => JSON.stringify(m).includes(CARRIED_WORK_PREFIX))
      expect(carried).toHaveLength(1)
      // The summary covers the other branch since the paths parted: its prompt, not main's.
      expect(JSON.stringify(carried[0])).toContain('other')
      await s.restore({ move: { kind: 'back' }, restore: 'files' })
      expect(s.files()).toEqual(mine)
      expect(
        (await remoteFailure(s.rig.service.carryPreview(s.id, { from: 'other', summary: { kind: 'nope' } } as never)))
          .code,
      ).toBe('INVALID_ARGUMENT')
    })
  })
}
