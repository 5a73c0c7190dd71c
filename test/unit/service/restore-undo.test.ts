/**
 * Nothing of the user's is lost by a restore (issue 21.2): after each restore
 * path — jump, fork, files only, the model's own move, conflicts kept,
 * conflicts overwritten, a restore cut short and repeated — Back brings back
 * exactly what that restore replaced and Forward exactly what it wrote, every
 * file byte for byte with its execute bit. The real service in the published
 * agent loop (`tool-rig.ts`), real files in a temp git work tree (file tools
 * and shell commands checkpointed) and in a plain folder (file tools only),
 * the file and shell tools stood in (`file-tools.ts`).
 */
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RestoreRequest, RestoreResult, WorkspaceOverview } from '../../../src/types.ts'
import { filesOf, type Files } from '../../support/work-tree-files.ts'
import { loopRig, type LoopRig, type ScriptEntry } from '../../support/tool-rig.ts'
import { call, filesLoop, workTrees } from '../../support/work-loop.ts'
import { gitInit } from '../../e2e/support/workspace-files.ts'

type Kind = 'git' | 'plain'

const trees = workTrees()

async function failureOf(promise: Promise<unknown>): Promise<{ code: string; details?: unknown }> {
  try {
    await promise
  } catch (error) {
    return (error as { failure: { code: string; details?: unknown } }).failure
  }
  throw new Error('expected a failure')
}

/**
 * Two agent turns that change files ("one": a.txt; "two": a.txt again and a
 * new b.txt; in git also a shell script, executable after "one", not after
 * "two"), with `roundTrip` a look at "one" with the files and back, then the
 * user's own edit: a.txt by hand, made executable.
 */
async function scene(kind: Kind, more: ScriptEntry[] = [], options: { roundTrip?: boolean } = {}) {
  const work = trees.folder(`restore-undo-${kind}-`)
  writeFileSync(path.join(work, 'a.txt'), 'a0\n')
  if (kind === 'git') gitInit(work)
  const shell = (command: string): ScriptEntry[] => (kind === 'git' ? [call('bash', { command })] : [])
  const rig = trees.rig(
    await filesLoop(
      work,
      [
        call('read', { file_path: 'a.txt' }),
        call('write', { file_path: 'a.txt', content: 'a1\n' }),
        ...shell(`printf '#!/bin/sh\\necho one\\n' > run.sh && chmod +x run.sh`),
        { text: 'one' },
        call('read', { file_path: 'a.txt' }),
        call('write', { file_path: 'a.txt', content: 'a2\r\nwith CRLF\r\n' }),
        call('write', { file_path: 'b.txt', content: 'b2\n' }),
        ...shell(`printf '#!/bin/sh\\necho two\\n' > run.sh && chmod -x run.sh`),
        { text: 'two' },
        ...more,
      ],
      { shell: true },
    ),
  )
  await rig.say('first')
  await rig.say('second')
  const nodes = (await rig.service.list(rig.sessionId)).nodes
  const one = nodes.find((n) => n.message?.content === 'one')!.nodeId
  await rig.service.label(rig.sessionId, one, 'one')
  const restore = (request: RestoreRequest) => rig.service.restore(rig.sessionId, request) as Promise<RestoreResult>
  if (options.roundTrip) {
    // A look at "one" with the files and back: those restores recorded the agent's content for the tip.
    await restore({ move: { kind: 'jump', nodeId: one }, restore: 'both' })
    await restore({ move: { kind: 'back' }, restore: 'both' })
  }
  // The user's own edit: new bytes, and the execute bit.
  writeFileSync(path.join(work, 'a.txt'), 'my own edit\n')
  chmodSync(path.join(work, 'a.txt'), 0o755)
  return { rig, work, one, restore, files: () => filesOf(work) }
}

type Scene = Awaited<ReturnType<typeof scene>>

/** Back and then Forward with `choice`: first exactly the files before the restore, then exactly those after it. */
async function backAndForward(s: Scene, before: Files, after: Files, choice: 'files' | 'both'): Promise<void> {
  const back = await s.restore({ move: { kind: 'back' }, restore: choice })
  expect(back.files?.kept).toEqual([])
  expect(s.files()).toEqual(before)
  const forward = await s.restore({ move: { kind: 'forward' }, restore: choice })
  expect(forward.files?.kept).toEqual([])
  expect(s.files()).toEqual(after)
  // And back once more: still exactly the user's files.
  await s.restore({ move: { kind: 'back' }, restore: choice })
  expect(s.files()).toEqual(before)
  expect(s.rig.invariantFailures).toEqual([])
}

const text = (t: string) => Buffer.from(t).toString('base64')

for (const kind of ['git', 'plain'] as const) {
  describe(`Back and Forward after every restore bring back exactly what it replaced (${kind})`, () => {
    it("the lost edit: a jump with both over the user's edit is refused, repeated with overwrite; back brings the edit back", async () => {
      const s = await scene(kind, [], { roundTrip: true })
      const mine = s.files()
      expect(mine['a.txt']).toEqual({ bytes: text('my own edit\n'), exec: true })
      const jump: RestoreRequest = { move: { kind: 'jump', nodeId: s.one }, restore: 'both' }
      expect(await failureOf(s.restore(jump))).toMatchObject({
        code: 'WORKSPACE_CONFLICT',
        details: { conflicts: [{ path: 'a.txt', reason: 'changed-outside' }] },
      })
      expect(s.files()).toEqual(mine)
      const over = await s.restore({ ...jump, conflicts: [{ path: 'a.txt', decision: 'overwrite' }] })
      expect(over.files).toMatchObject({
        updated: kind === 'git' ? ['a.txt', 'run.sh'] : ['a.txt'],
        deleted: ['b.txt'],
        kept: [],
      })
      const restored = s.files()
      expect(restored['a.txt']).toEqual({ bytes: text('a1\n'), exec: false })
      await backAndForward(s, mine, restored, 'both')
    })

    it('a move that finds the files already there is a step of their history too: back undoes it, not the one before', async () => {
      const s = await scene(kind)
      const mine = s.files()
      const jump: RestoreRequest = {
        move: { kind: 'jump', nodeId: s.one },
        restore: 'both',
        conflicts: [{ path: '*', decision: 'overwrite' }],
      }
      await s.restore(jump)
      const restored = s.files()
      const again = await s.restore({ move: { kind: 'fork', nodeId: s.one, branch: 'again' }, restore: 'both' })
      expect(again.files).toMatchObject({ created: [], updated: [], deleted: [] })
      await s.restore({ move: { kind: 'back' }, restore: 'both' })
      expect(s.files()).toEqual(restored)
      await s.restore({ move: { kind: 'back' }, restore: 'both' })
      expect(s.files()).toEqual(mine)
      await s.restore({ move: { kind: 'forward' }, restore: 'both' })
      expect(s.files()).toEqual(restored)
    })

    it('a fork with both, conflicts overwritten', async () => {
      const s = await scene(kind)
      const mine = s.files()
      await s.restore({
        move: { kind: 'fork', nodeId: s.one, branch: 'alt' },
        restore: 'both',
        conflicts: [{ path: '*', decision: 'overwrite' }],
      })
      const restored = s.files()
      expect(restored['b.txt']).toBeUndefined()
      await backAndForward(s, mine, restored, 'both')
    })

    it('files only (the conversation stays), conflicts overwritten', async () => {
      const s = await scene(kind)
      const mine = s.files()
      const cursor = (await s.rig.service.list(s.rig.sessionId)).cursor
      await s.restore({
        move: { kind: 'jump', nodeId: s.one },
        restore: 'files',
        conflicts: [{ path: '*', decision: 'overwrite' }],
      })
      const restored = s.files()
      expect(restored['a.txt']).toEqual({ bytes: text('a1\n'), exec: false })
      // The preview of a files-only back: that restore undone, the conversation where it is.
      const preview = await s.rig.service.restorePreview(s.rig.sessionId, { move: { kind: 'back' }, restore: 'files' })
      expect(preview.target).toBe(cursor)
      expect(preview.plan.conflicts).toEqual([])
      expect(preview.plan.entries.map((e) => [e.path, e.action])).toEqual([
        ['a.txt', 'update'],
        ['b.txt', 'create'],
        ...(kind === 'git' ? [['run.sh', 'update']] : []),
      ])
      await backAndForward(s, mine, restored, 'files')
      expect((await s.rig.service.list(s.rig.sessionId)).cursor).toBe(cursor)
    })

    it('conflicts kept: the user’s file is left alone, the rest comes and goes exactly', async () => {
      const s = await scene(kind)
      const mine = s.files()
      const kept = await s.restore({
        move: { kind: 'jump', nodeId: s.one },
        restore: 'both',
        conflicts: [{ path: 'a.txt', decision: 'keep' }],
      })
      expect(kept.files?.kept).toEqual(['a.txt'])
      const restored = s.files()
      expect(restored['a.txt']).toEqual(mine['a.txt'])
      expect(restored['b.txt']).toBeUndefined()
      await backAndForward(s, mine, restored, 'both')
    })

    it("the model's own move (a tree jump with both, alone in its message; the tool keeps the user's edit)", async () => {
      const s = await scene(kind, [call('tree', { action: 'jump', node: 'one', files: 'both' }), { text: 'jumped' }])
      const mine = s.files()
      await s.rig.say('go back to one with the files')
      const overview = (await s.rig.service.files(s.rig.sessionId)) as WorkspaceOverview
      // The user's edit is a conflict the tool keeps: the restore does not touch it.
      expect(overview.restores.at(-1)).toMatchObject({ complete: true, kept: [] })
      expect(overview.restores.at(-1)?.paths).not.toContain('a.txt')
      const restored = s.files()
      expect(restored['a.txt']).toEqual(mine['a.txt'])
      expect(restored['b.txt']).toBeUndefined()
      await backAndForward(s, mine, restored, 'both')
    })

    it('a restore cut short between two writes, then repeated after a restart: back undoes both halves', async () => {
      const s = await scene(kind)
      const mine = s.files()
      const marker = path.join(s.work, '..', `${path.basename(s.work)}.stopped`)
      trees.removeAfter(marker)
      const request: RestoreRequest = {
        move: { kind: 'jump', nodeId: s.one },
        restore: 'files',
        conflicts: [{ path: '*', decision: 'overwrite' }],
      }
      // A second process with the test hook: its restore stops for good before its second file is renamed into place.
      const stopped = await s.rig.stop()
      process.env.DSH_SESSION_TREE_TEST_RESTORE_STOP = `2:${marker}`
      let crashing: LoopRig
      try {
        crashing = await loopRig([], { cwd: s.work, resume: stopped })
      } finally {
        delete process.env.DSH_SESSION_TREE_TEST_RESTORE_STOP
      }
      void crashing.service.restore(stopped.sessionId, request).catch(() => undefined)
      await expect.poll(() => existsSync(marker), { timeout: 60_000, interval: 20 }).toBe(true)
      const half = s.files()
      expect(half).not.toEqual(mine)
      // "Killed" there: the context goes, the blocked restore with it. A third process repeats the restore.
      await crashing.stop()
      const again = trees.rig(await loopRig([], { cwd: s.work, resume: stopped }))
      const status = (await again.service.files(stopped.sessionId)) as WorkspaceOverview
      expect(status.status.interrupted).toHaveLength(1)
      await again.service.restore(stopped.sessionId, request)
      const restored = filesOf(s.work)
      expect(restored['a.txt']).toEqual({ bytes: text('a1\n'), exec: false })
      expect(restored['b.txt']).toBeUndefined()
      await backAndForward(
        { ...s, rig: again, restore: (r) => again.service.restore(stopped.sessionId, r) as Promise<RestoreResult> },
        mine,
        restored,
        'files',
      )
      rmSync(stopped.sidecarRoot, { recursive: true, force: true })
    })
  })
}
