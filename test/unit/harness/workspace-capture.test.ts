/**
 * Capture and restore in the real published agent loop (`dsh-agent-loop`,
 * `dsh-tools`, the real `dsh-fs-observation-policy` on the `fs/*` gate), with
 * only the model scripted and the file tools stood in (`file-tools.ts` says
 * why). The end-to-end suite (test/e2e/workspace.test.ts) runs the real ones.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { RestoreResult, WorkspaceOverview } from '../../../src/types.ts'
import { fileTools } from '../../support/file-tools.ts'
import { loopRig, transcript, type LoopRig, type ScriptEntry } from '../../support/tool-rig.ts'
import { call, filesLoop } from '../../support/work-loop.ts'

let rig: LoopRig | undefined
let work: string | undefined
afterEach(async () => {
  await rig?.dispose()
  if (work) rmSync(work, { recursive: true, force: true })
  rig = undefined
  work = undefined
})

const sha = (text: string) => createHash('sha256').update(text).digest('hex')

/** The failure a service call answered with (typert's lookup failure carries it). */
async function failureOf(promise: Promise<unknown>) {
  try {
    await promise
  } catch (error) {
    return (error as { failure?: { code: string } }).failure
  }
  throw new Error('expected a failure')
}

/** A loop on a fresh folder with the stand-in file tools; its folder. */
async function fileRig(script: ScriptEntry[], setup?: (cwd: string) => void): Promise<{ rig: LoopRig; cwd: string }> {
  work = realpathSync(mkdtempSync(path.join(tmpdir(), 'capture-work-')))
  const cwd = work
  setup?.(cwd)
  rig = await loopRig(script, { cwd, setup: (ctx) => fileTools(ctx, cwd) })
  return { rig, cwd }
}

describe('capture through the fs/* gate, restore, and the model kept coherent', () => {
  it('checkpoints each write against its tool-call node; a files restore tells the model once and the policy demands a re-read', async () => {
    work = realpathSync(mkdtempSync(path.join(tmpdir(), 'capture-work-')))
    const cwd = work
    writeFileSync(path.join(cwd, 'a.txt'), 'a0\n')
    rig = await filesLoop(cwd, [
      call('read', { file_path: 'a.txt' }),
      call('write', { file_path: 'a.txt', content: 'a1\n' }),
      call('write', { file_path: 'b.txt', content: 'b1\n' }),
      { text: 'done' },
      // After the restore: writing a.txt without reading it first must be refused by the policy.
      call('write', { file_path: 'a.txt', content: 'blind\n' }),
      call('read', { file_path: 'a.txt' }),
      call('write', { file_path: 'a.txt', content: 'a2\n' }),
      { text: 'done again' },
    ])
    const { service, sessionId } = rig
    await rig.say('edit the files')
    expect(readFileSync(path.join(cwd, 'a.txt'), 'utf8')).toBe('a1\n')
    // Markers: the two write calls, each with its file.
    const overview = (await service.files(sessionId)) as WorkspaceOverview
    const view = await service.list(sessionId)
    const writes = view.nodes.filter(
      (n) => n.type === 'tool_call' && n.content?.some((p) => p.type === 'tool_call' && p.name === 'write'),
    )
    expect(overview.nodes).toEqual(writes.map((n, i) => ({ nodeId: n.nodeId, paths: [i === 0 ? 'a.txt' : 'b.txt'] })))
    expect(overview.status).toMatchObject({ available: true, shell: 'folder', tracked: 2 })
    // Jump back to the prompt, files and conversation: everything as it was before the first write.
    const prompt = view.nodes.find((n) => n.message?.content === 'edit the files')!.nodeId
    const preview = await service.restorePreview(sessionId, { move: { kind: 'jump', nodeId: prompt }, restore: 'both' })
    expect(preview.plan.entries.map((e) => [e.path, e.action])).toEqual([
      ['a.txt', 'update'],
      ['b.txt', 'delete'],
    ])
    const agent = rig.agent
    const target = { targetKey: path.join(cwd, 'a.txt'), displayPath: path.join(cwd, 'a.txt') }
    const intentBefore = await (rig.ctx as any).waterfall('fs/write-intent', target, { agent }, () => undefined)
    expect(intentBefore).toEqual({ kind: 'replaceIfVersion', version: expect.stringMatching(/^\d+:/) })
    const result = (await service.restore(sessionId, {
      move: { kind: 'jump', nodeId: prompt },
      restore: 'both',
    })) as RestoreResult
    expect(result.files).toMatchObject({ updated: ['a.txt'], deleted: ['b.txt'], kept: [] })
    expect(result.move?.cursor).toBe(prompt)
    expect(readFileSync(path.join(cwd, 'a.txt'), 'utf8')).toBe('a0\n')
    expect(existsSync(path.join(cwd, 'b.txt'))).toBe(false)
    // The real policy now holds a version no file has: any guarded write or edit is stale until a re-read.
    const intentAfter = await (rig.ctx as any).waterfall('fs/write-intent', target, { agent }, () => undefined)
    expect(intentAfter).toEqual({ kind: 'replaceIfVersion', version: `session-tree:restored:${result.files!.id}` })
    const before = rig.model.requests.length
    await rig.say('continue')
    const next = transcript(rig.model.requests[before]!)
    const notes = next.filter((line) => line.includes('[session-tree] The workspace files were restored'))
    expect(notes).toEqual([
      `user: [session-tree] The workspace files were restored to their state at ${prompt}. Changed since you last saw them: a.txt, b.txt. Read a file again before you edit or overwrite it.`,
    ])
    // The history is the selected path (the prompt), then the note, then the new prompt.
    expect(next).toEqual(['user: edit the files', notes[0], 'user: continue'])
    const blind = transcript(rig.model.requests[before + 1]!).at(-1)!
    expect(blind).toMatch(/FS_STALE_VERSION/)
    expect(readFileSync(path.join(cwd, 'a.txt'), 'utf8')).toBe('a2\n')
    // Once: the request after that holds no second note.
    const later = transcript(rig.model.requests.at(-1)!)
    expect(later.filter((line) => line.includes('The workspace files were restored'))).toHaveLength(1)
    // Back: the files come back as the restore found them (a1, b1), the conversation to the old tip.
    const back = (await service.restore(sessionId, {
      move: { kind: 'back' },
      restore: 'both',
      conflicts: [{ path: '*', decision: 'overwrite' }],
    })) as RestoreResult
    expect(back.files?.kept).toEqual([])
    expect(sha(readFileSync(path.join(cwd, 'a.txt'), 'utf8'))).toBe(sha('a1\n'))
    expect(readFileSync(path.join(cwd, 'b.txt'), 'utf8')).toBe('b1\n')
    expect(rig.invariantFailures).toEqual([])
  })

  it('the model takes the files along with a tree jump: at once when alone (the result lists them), at the end of the turn when not (then one note)', async () => {
    work = realpathSync(mkdtempSync(path.join(tmpdir(), 'capture-work-')))
    const cwd = work
    rig = await filesLoop(cwd, [
      call('write', { file_path: 'a.txt', content: 'a1\n' }),
      { text: 'wrote it' },
      // Alone in its message: applies within the step; the same turn's next request holds its result.
      call('tree', { action: 'jump', node: 'first', files: 'both' }),
      { text: 'jumped' },
      // Together with another call: deferred to the end of the turn.
      {
        calls: [
          { name: 'tree', args: { action: 'list' } },
          { name: 'tree', args: { action: 'jump', node: 'second', files: 'both' } },
        ],
      },
      { text: 'scheduled' },
      { text: 'after' },
    ])
    const { service, sessionId } = rig
    await rig.say('make a.txt')
    const view = await service.list(sessionId)
    const first = view.nodes.find((n) => n.message?.content === 'make a.txt')!.nodeId
    const second = view.nodes.find((n) => n.message?.content === 'wrote it')!.nodeId
    await service.label(sessionId, first, 'first')
    await service.label(sessionId, second, 'second')
    let before = rig.model.requests.length
    await rig.say('go back with the files')
    expect(existsSync(path.join(cwd, 'a.txt'))).toBe(false)
    const inStep = transcript(rig.model.requests[before + 1]!).at(-1)!
    expect(inStep).toMatch(/^tool: Moved now: jump to e\d+, with the files\./)
    const resultText = (rig.model.requests[before + 1]!.messages.at(-1) as any).content
      .map((p: any) => p.content?.map((c: any) => c.text).join('') ?? '')
      .join('')
    expect(resultText).toContain(`Files restored to their state at ${first}: deleted a.txt.`)
    // Told in the result, so no note follows.
    before = rig.model.requests.length
    await rig.say('now the second, with a listing')
    expect(transcript(rig.model.requests.at(-1)!).at(-1)).toMatch(/^tool: Scheduled: jump to e\d+, with the files\./)
    expect(readFileSync(path.join(cwd, 'a.txt'), 'utf8')).toBe('a1\n')
    expect(
      rig.model.requests
        .slice(before)
        .flatMap(transcript)
        .filter((line) => line.includes('The workspace files were restored')),
    ).toEqual([])
    await rig.say('and now?')
    // The next request: the path to the second node, the note, the prompt.
    expect(transcript(rig.model.requests.at(-1)!)).toEqual([
      'user: make a.txt',
      'assistant: call write({"file_path":"a.txt","content":"a1\\n"})',
      'tool: wrote a.txt',
      'assistant: wrote it',
      `user: [session-tree] The workspace files were restored to their state at ${second}. Changed since you last saw them: a.txt. Read a file again before you edit or overwrite it.`,
      'user: and now?',
    ])
    expect(rig.invariantFailures).toEqual([])
  })
})

describe('node ids of the workspace methods', () => {
  it('an empty or malformed node id is INVALID_ARGUMENT (as for jump), an unknown one NODE_NOT_FOUND', async () => {
    work = realpathSync(mkdtempSync(path.join(tmpdir(), 'capture-work-')))
    rig = await loopRig([{ text: 'hello' }], { cwd: work })
    const { service, sessionId } = rig
    await rig.say('hi')
    for (const nodeId of ['', ' padded ']) {
      expect(await failureOf(service.filesAt(sessionId, nodeId))).toMatchObject({ code: 'INVALID_ARGUMENT' })
      expect(await failureOf(service.fileAt(sessionId, nodeId, 'a.txt'))).toMatchObject({ code: 'INVALID_ARGUMENT' })
      for (const kind of ['jump', 'fork'] as const) {
        const request = {
          move: { kind, nodeId, ...(kind === 'fork' ? { branch: 'b' } : {}) },
          restore: 'both' as const,
        }
        expect(await failureOf(service.restorePreview(sessionId, request))).toMatchObject({ code: 'INVALID_ARGUMENT' })
        expect(await failureOf(service.restoreDiff(sessionId, request, 'a.txt'))).toMatchObject({
          code: 'INVALID_ARGUMENT',
        })
        expect(await failureOf(service.restore(sessionId, request))).toMatchObject({ code: 'INVALID_ARGUMENT' })
      }
    }
    expect(await failureOf(service.filesAt(sessionId, 'ghost'))).toMatchObject({ code: 'NODE_NOT_FOUND' })
    expect(
      await failureOf(service.restorePreview(sessionId, { move: { kind: 'jump', nodeId: 'ghost' }, restore: 'files' })),
    ).toMatchObject({ code: 'NODE_NOT_FOUND' })
  })
})

describe('compare the files of two nodes', () => {
  it('lists the files whose checkpointed states differ between two branches, gives one diff on demand, and writes nothing', async () => {
    const { rig, cwd } = await fileRig(
      [
        call('write', { file_path: 'a.txt', content: 'left\n' }),
        call('write', { file_path: 'b.txt', content: 'only left\n' }),
        { text: 'left done' },
        call('write', { file_path: 'a.txt', content: 'right\n' }),
        { text: 'right done' },
      ],
      (cwd) => writeFileSync(path.join(cwd, 'same.txt'), 'same\n'),
    )
    const { service, sessionId } = rig
    await rig.say('the left')
    let view = await service.list(sessionId)
    const prompt = view.nodes.find((n) => n.message?.content === 'the left')!.nodeId
    const left = view.nodes.find((n) => n.message?.content === 'left done')!.nodeId
    await service.restore(sessionId, { move: { kind: 'jump', nodeId: prompt }, restore: 'both' })
    await rig.say('the right')
    view = await service.list(sessionId)
    const right = view.nodes.find((n) => n.message?.content === 'right done')!.nodeId
    const disk = () => [readFileSync(path.join(cwd, 'a.txt'), 'utf8'), existsSync(path.join(cwd, 'b.txt'))]
    const before = disk()
    expect(before).toEqual(['right\n', false])
    const compared = await service.compareFiles(sessionId, left, right)
    expect(compared).toMatchObject({ a: left, b: right, tracked: 2 })
    expect(compared.files).toEqual([
      {
        path: 'a.txt',
        a: expect.objectContaining({ kind: 'file', hash: sha('left\n') }),
        b: expect.objectContaining({ kind: 'file', hash: sha('right\n') }),
      },
      { path: 'b.txt', a: expect.objectContaining({ kind: 'file', hash: sha('only left\n') }), b: { kind: 'absent' } },
    ])
    // The same node on both sides: nothing differs.
    expect((await service.compareFiles(sessionId, left, left)).files).toEqual([])
    const diff = await service.compareFileDiff(sessionId, left, right, 'a.txt')
    expect(diff.diff).toContain('-left')
    expect(diff.diff).toContain('+right')
    const gone = await service.compareFileDiff(sessionId, left, right, 'b.txt')
    expect(gone.diff).toContain('-only left')
    // Before the first node (null): a.txt and b.txt did not exist.
    const fromStart = await service.compareFiles(sessionId, null, left)
    expect(fromStart.files.map((f) => [f.path, f.a?.kind, f.b?.kind])).toEqual([
      ['a.txt', 'absent', 'file'],
      ['b.txt', 'absent', 'file'],
    ])
    expect(disk()).toEqual(before)
    expect(rig.invariantFailures).toEqual([])
  })

  it('a binary side has no text diff; a bad node or path is refused', async () => {
    const { rig } = await fileRig([
      call('write', { file_path: 'a.txt', content: 'text\n' }),
      call('write', { file_path: 'bin.dat', content: 'x\u0000y' }),
      { text: 'one' },
    ])
    const { service, sessionId } = rig
    await rig.say('go')
    const view = await service.list(sessionId)
    const one = view.nodes.find((n) => n.message?.content === 'one')!.nodeId
    const binary = await service.compareFileDiff(sessionId, null, one, 'bin.dat')
    expect(binary).toMatchObject({ a: { kind: 'absent' }, b: { kind: 'file', binary: true, size: 3 }, diff: '' })
    expect((await service.compareFileDiff(sessionId, null, one, 'a.txt')).diff).toContain('+text')
    expect(await failureOf(service.compareFiles(sessionId, one, 'ghost'))).toMatchObject({ code: 'NODE_NOT_FOUND' })
    expect(await failureOf(service.compareFiles(sessionId, '', one))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect(await failureOf(service.compareFileDiff(sessionId, null, one, '../x'))).toMatchObject({
      code: 'INVALID_ARGUMENT',
    })
    expect(await failureOf(service.compareFileDiff(sessionId, null, one, 'never.txt'))).toMatchObject({
      code: 'INVALID_ARGUMENT',
    })
  })
})
