/**
 * The panel's data controller (src/client/controller.ts) against a fake of
 * the generated `sessionTree` namespace backed by a real SessionTree: it polls
 * `session`, fetches `list` only when `revision` moved, keeps error codes,
 * keeps the last tree on a failed refresh, and runs actions one at a time.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SessionTree, type TreeResult } from '../../../src/tree/index.ts'
import { compare } from '../../../src/tree/compare.ts'
import { boundedComparison } from '../../../src/service/compare-wire.ts'
import { TreeController, type Result, type TreeRemote } from '../../../src/client/controller.ts'
import { ChangeFeed } from '../../../src/client/changes.ts'
import type { MoveResult, WatchAnswer } from '../../../src/types.ts'
import { user, assistant } from '../../support/messages.ts'
import { stockStatus, wrap } from '../../support/client-fixtures.ts'

/** A fake remote over a real tree, counting calls. */
function fakeRemote(tree: SessionTree) {
  const calls: string[] = []
  let failNext: { code: string; message: string } | undefined
  const move = (r: TreeResult<{ cursor: string | null; branch?: string }>): Result<MoveResult> =>
    r.ok
      ? {
          ok: true,
          value: {
            cursor: r.value.cursor,
            messages: tree.messages(),
            branch: tree.activeBranch,
            mode: 'stock',
            switch: { appendedEvents: 7, copies: 1, shadowed: 1, noop: false },
          },
        }
      : wrap(r as TreeResult<never>)
  const remote: TreeRemote = {
    async session() {
      calls.push('session')
      if (failNext) {
        const error = failNext
        failNext = undefined
        return { ok: false, error }
      }
      return { ok: true, value: stockStatus(tree, 'note') }
    },
    async outlineChanges(_a, since) {
      calls.push('outlineChanges')
      return { ok: true, value: tree.outlineChanges(since) }
    },
    async export() {
      calls.push('export')
      return wrap(tree.linearExport())
    },
    // Every move is one `moveBrief`; the call is recorded as the move it is (as the seed methods were named).
    async moveBrief(_a, m) {
      if (m.kind === 'back' || m.kind === 'forward') {
        calls.push(m.kind)
        return move(m.kind === 'back' ? tree.back() : tree.forward())
      }
      const nodeId = m.nodeId ?? null
      const summary = m.summary === undefined || m.summary.kind === 'none' ? '' : `With`
      calls.push(
        m.kind === 'jump'
          ? `jump${summary}:${nodeId}${summary ? `:${m.summary!.kind}` : ''}`
          : `fork${summary}:${nodeId}:${m.branch}${summary ? `:${m.summary!.kind}` : ''}`,
      )
      if (m.kind === 'jump') return move(tree.jump(nodeId))
      const forked = tree.fork(nodeId!, m.branch!)
      if (!forked.ok) return wrap(forked)
      return { ok: true, value: { ...forked.value, mode: 'stock' } }
    },
    async compare(_a, a, b) {
      calls.push(`compare:${a}:${b}`)
      const compared = compare(tree, a, b)
      return compared.ok ? { ok: true, value: boundedComparison(compared.value) } : wrap(compared)
    },
    async label(_a, nodeId, label) {
      calls.push(`label:${nodeId}:${label}`)
      return wrap(tree.label(nodeId, label))
    },
    async summarize(_a, branch) {
      calls.push(`summarize:${branch}`)
      return { ok: true, value: { branch, nodeId: 'x', summary: 's', createdAt: '' } }
    },
  }
  return { remote, calls, failOnce: (error: { code: string; message: string }) => (failNext = error) }
}

function conversation() {
  const tree = new SessionTree('s')
  const ids: string[] = []
  for (const m of [user('q1'), assistant('a1'), user('q2'), assistant('a2')]) {
    const r = tree.append(m)
    if (!r.ok) throw new Error(r.error.message)
    ids.push(r.value.nodeId)
  }
  return { tree, ids }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('TreeController', () => {
  it('loads session and list, and later fetches list only when the revision moved', async () => {
    vi.useFakeTimers()
    const { tree, ids } = conversation()
    const fake = fakeRemote(tree)
    const controller = new TreeController(async () => fake.remote, 's', { intervalMs: 1000, marks: false })
    const seen: string[] = []
    controller.subscribe(() => seen.push(controller.getSnapshot().phase))
    expect(controller.getSnapshot().phase).toBe('loading')
    const stop = controller.start()
    await vi.advanceTimersByTimeAsync(0)
    expect(controller.getSnapshot()).toMatchObject({ phase: 'ready', generation: 1 })
    expect(controller.getSnapshot().view?.nodes).toHaveLength(4)
    // The first load asks for both at once; later polls ask for `session` only.
    expect([...fake.calls].sort()).toEqual(['outlineChanges', 'session'])
    await vi.advanceTimersByTimeAsync(3000)
    expect(fake.calls.slice(2)).toEqual(['session', 'session', 'session'])
    const before = controller.getSnapshot()
    tree.append(user('q3'))
    await vi.advanceTimersByTimeAsync(1000)
    expect(fake.calls.slice(-2)).toEqual(['session', 'outlineChanges'])
    expect(controller.getSnapshot().view?.nodes).toHaveLength(5)
    expect(controller.getSnapshot().generation).toBe(before.generation + 1)
    expect(controller.getSnapshot().view?.cursor).not.toBe(ids[3])
    stop()
    const count = fake.calls.length
    await vi.advanceTimersByTimeAsync(5000)
    expect(fake.calls.length).toBe(count)
    expect(seen[0]).toBe('ready')
  })

  it('shows a load error with its code, and keeps the last tree (with a warning) when a refresh fails', async () => {
    vi.useFakeTimers()
    const { tree } = conversation()
    const fake = fakeRemote(tree)
    fake.failOnce({ code: 'SESSION_NOT_FOUND', message: 'session "s" is not loaded' })
    const controller = new TreeController(async () => fake.remote, 's', { intervalMs: 500, marks: false })
    controller.start()
    await vi.advanceTimersByTimeAsync(0)
    expect(controller.getSnapshot()).toMatchObject({
      phase: 'error',
      error: { code: 'SESSION_NOT_FOUND', message: 'session "s" is not loaded' },
    })
    await vi.advanceTimersByTimeAsync(500)
    expect(controller.getSnapshot().phase).toBe('ready')
    expect(controller.getSnapshot().error).toBeUndefined()
    fake.failOnce({ code: 'INTERNAL', message: 'boom' })
    await vi.advanceTimersByTimeAsync(500)
    expect(controller.getSnapshot()).toMatchObject({ phase: 'ready', error: { code: 'INTERNAL' } })
    expect(controller.getSnapshot().view).toBeDefined()
    await vi.advanceTimersByTimeAsync(500)
    expect(controller.getSnapshot().error).toBeUndefined()
    controller.dispose()
  })

  it('reports a remote that cannot be mounted or rejects as CLIENT_ERROR / its code', async () => {
    const { tree } = conversation()
    const fake = fakeRemote(tree)
    const cases: [mount: () => Promise<TreeRemote>, error: { code: string; message: string }][] = [
      [
        async () => {
          throw { code: 'REMOTE_MOUNT_FAILED', message: 'no gateway' }
        },
        { code: 'REMOTE_MOUNT_FAILED', message: 'no gateway' },
      ],
      [
        async () => ({ ...fake.remote, session: () => Promise.reject(new Error('expected 1 argument(s), got 0')) }),
        { code: 'CLIENT_ERROR', message: 'expected 1 argument(s), got 0' },
      ],
      // Even a whole outline that does not fit its own count is an error, never a tree.
      [
        async () => ({
          ...fake.remote,
          outlineChanges: async () => {
            const whole = tree.outlineChanges(null)
            return { ok: true, value: { ...whole, nodes: whole.nodes.slice(1) } }
          },
        }),
        { code: 'CLIENT_ERROR', message: 'outlineChanges: an answer that does not fit' },
      ],
    ]
    for (const [mount, error] of cases) {
      const controller = new TreeController(mount, 's', { marks: false })
      await controller.refresh()
      expect(controller.getSnapshot()).toMatchObject({ phase: 'error', error })
      controller.dispose()
    }
  })

  it('runs actions, refreshes the tree before announcing them, and keeps failures with their code', async () => {
    const { tree, ids } = conversation()
    const fake = fakeRemote(tree)
    const controller = new TreeController(async () => fake.remote, 's', { marks: false })
    await controller.refresh()
    expect(await controller.move({ kind: 'jump', nodeId: ids[1]! })).toBe(true)
    expect(controller.getSnapshot().view?.cursor).toBe(ids[1])
    expect(controller.getSnapshot().notice).toEqual({ kind: 'jump', mode: 'stock', appendedEvents: 7 })
    expect(controller.getSnapshot().busy).toBeUndefined()
    expect(await controller.move({ kind: 'fork', nodeId: ids[1]!, branch: 'alt' })).toBe(true)
    expect(controller.getSnapshot().notice).toMatchObject({ kind: 'fork', branch: 'alt' })
    expect(controller.getSnapshot().view?.branches.map((b) => b.name)).toContain('alt')
    expect(await controller.move({ kind: 'fork', nodeId: ids[1]!, branch: 'alt' })).toBe(false)
    expect(controller.getSnapshot().actionError).toMatchObject({ code: 'BRANCH_EXISTS', action: 'fork' })
    controller.dismissError()
    expect(controller.getSnapshot().actionError).toBeUndefined()
    expect(await controller.label(ids[0]!, 'start')).toBe(true)
    expect(controller.getSnapshot().view?.nodes.find((n) => n.nodeId === ids[0])?.label).toBe('start')
    expect(await controller.move({ kind: 'back' })).toBe(true)
    expect(await controller.move({ kind: 'forward' })).toBe(true)
    expect(await controller.summarize('alt')).toBe(true)
    const exported = await controller.exportLinear()
    expect(exported?.sessionId).toBe('s')
    expect(fake.calls.filter((c) => !['session', 'outlineChanges'].includes(c))).toEqual([
      `jump:${ids[1]}`,
      `fork:${ids[1]}:alt`,
      `fork:${ids[1]}:alt`,
      `label:${ids[0]}:start`,
      'back',
      'forward',
      'summarize:alt',
      'export',
    ])
    controller.dispose()
  })

  it('refuses a second action while one is in flight', async () => {
    const { tree, ids } = conversation()
    const fake = fakeRemote(tree)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const slow: TreeRemote = { ...fake.remote, moveBrief: async (a, m) => (await gate, fake.remote.moveBrief(a, m)) }
    const controller = new TreeController(async () => slow, 's', { marks: false })
    await controller.refresh()
    const first = controller.move({ kind: 'jump', nodeId: ids[0]! })
    await Promise.resolve()
    await Promise.resolve()
    expect(controller.getSnapshot().busy).toBe('jump')
    expect(await controller.move({ kind: 'jump', nodeId: ids[2]! })).toBe(false)
    release()
    expect(await first).toBe(true)
    expect(controller.getSnapshot().view?.cursor).toBe(ids[0])
    controller.dispose()
  })
})

describe('TreeController notices', () => {
  it('keeps the notice of its own action, and retires it when the conversation moves on', async () => {
    vi.useFakeTimers()
    const tree = new SessionTree('s')
    const first = tree.append(user('q1'))
    tree.append(assistant('a1'))
    const fake = fakeRemote(tree)
    const controller = new TreeController(async () => fake.remote, 's', { intervalMs: 1000, marks: false })
    controller.start()
    await vi.advanceTimersByTimeAsync(0)
    if (!first.ok) throw new Error('append failed')
    await controller.label(first.value.nodeId, 'start')
    expect(controller.getSnapshot().notice).toEqual({ kind: 'label', cleared: false })
    await vi.advanceTimersByTimeAsync(2000)
    expect(controller.getSnapshot().notice).toBeDefined()
    tree.append(user('q2'))
    await vi.advanceTimersByTimeAsync(1000)
    expect(controller.getSnapshot().notice).toBeUndefined()
    controller.dispose()
  })

  it('retires a success notice after noticeMs, but not the notice of a later action (issue 14 §5)', async () => {
    vi.useFakeTimers()
    const { tree, ids } = conversation()
    const fake = fakeRemote(tree)
    const controller = new TreeController(async () => fake.remote, 's', {
      intervalMs: 1000,
      noticeMs: 5000,
      marks: false,
    })
    controller.start()
    await vi.advanceTimersByTimeAsync(0)
    await controller.label(ids[0]!, 'one')
    expect(controller.getSnapshot().notice).toEqual({ kind: 'label', cleared: false })
    await vi.advanceTimersByTimeAsync(4000)
    expect(controller.getSnapshot().notice).toBeDefined()
    // A second action 4 s in: its notice gets its own 5 s, the first one's timer does not cut it short.
    await controller.label(ids[0]!, null)
    await vi.advanceTimersByTimeAsync(1500)
    expect(controller.getSnapshot().notice).toEqual({ kind: 'label', cleared: true })
    await vi.advanceTimersByTimeAsync(4000)
    expect(controller.getSnapshot().notice).toBeUndefined()
    await controller.label(ids[1]!, 'two')
    controller.dismissNotice()
    expect(controller.getSnapshot().notice).toBeUndefined()
    controller.dispose()
  })
})

describe('TreeController with the push channel', () => {
  /** A feed whose `watch` answers when the test says the session moved. */
  function pushed() {
    const held: Array<(revision: string) => void> = []
    const feed = new ChangeFeed(async () => ({
      watch: (_request, signal) =>
        new Promise<Result<WatchAnswer>>((resolve) => {
          signal?.addEventListener('abort', () => resolve({ ok: true, value: { changed: [] } }))
          held.push((revision) => resolve({ ok: true, value: { changed: [{ agentId: 's', revision }] } }))
        }),
    }))
    return { feed, push: (revision: string) => held.shift()?.(revision), waiting: () => held.length }
  }
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0))
  }

  it('a change pushed while its own action runs shows with the action, not before it', async () => {
    const { tree, ids } = conversation()
    const fake = fakeRemote(tree)
    let release: () => void = () => {}
    const label = fake.remote.label
    fake.remote.label = (...args) =>
      new Promise((resolve) => {
        // The service wrote the label (the push goes out) but its answer is still on the way.
        const written = label(...args)
        release = () => void written.then(resolve)
      })
    const channel = pushed()
    const controller = new TreeController(async () => fake.remote, 's', { changes: channel.feed, marks: false })
    const stop = controller.start()
    await settle()
    channel.push('') // an answer to the first watch
    await settle()
    expect(controller.pushed).toBe(true)
    const acting = controller.label(ids[1]!, 'mine')
    await settle()
    const reads = fake.calls.filter((c) => c === 'session').length
    channel.push(`1:${tree.logSeq}`)
    await settle()
    expect(
      fake.calls.filter((c) => c === 'session'),
      'nothing read while the action runs',
    ).toHaveLength(reads)
    expect(controller.getSnapshot().view?.nodes.find((n) => n.nodeId === ids[1])?.label).toBeUndefined()
    release()
    expect(await acting).toBe(true)
    const shown = controller.getSnapshot()
    expect(shown.busy).toBeUndefined()
    expect(shown.notice).toMatchObject({ kind: 'label' })
    expect(shown.view?.nodes.find((n) => n.nodeId === ids[1])?.label).toBe('mine')
    stop()
    channel.feed.dispose()
  })

  it('a change pushed while an action fails is read after it', async () => {
    const { tree, ids } = conversation()
    const fake = fakeRemote(tree)
    let release: () => void = () => {}
    fake.remote.label = () =>
      new Promise((resolve) => {
        release = () => resolve({ ok: false, error: { code: 'LABEL_EXISTS', message: 'taken' } })
      })
    const channel = pushed()
    const controller = new TreeController(async () => fake.remote, 's', { changes: channel.feed, marks: false })
    const stop = controller.start()
    await settle()
    channel.push('')
    await settle()
    const acting = controller.label(ids[1]!, 'taken')
    await settle()
    tree.label(ids[3]!, 'elsewhere')
    channel.push(`1:${tree.logSeq}`)
    await settle()
    release()
    expect(await acting).toBe(false)
    await settle()
    const shown = controller.getSnapshot()
    expect(shown.actionError?.code).toBe('LABEL_EXISTS')
    expect(shown.view?.nodes.find((n) => n.nodeId === ids[3])?.label).toBe('elsewhere')
    stop()
    channel.feed.dispose()
  })

  /** A controller following the push channel over a fake remote, its first read done. */
  async function following() {
    const { tree } = conversation()
    const fake = fakeRemote(tree)
    const channel = pushed()
    const controller = new TreeController(async () => fake.remote, 's', { changes: channel.feed, marks: false })
    const stop = controller.start()
    await settle()
    channel.push(`1:${tree.logSeq}`)
    await settle()
    expect(controller.pushed).toBe(true)
    const end = () => {
      stop()
      channel.feed.dispose()
    }
    return { tree, fake, channel, controller, end }
  }

  /** Hold `session`'s answers from now on until `release` (`restore`: later calls answer at once again). */
  function holdSession(fake: ReturnType<typeof fakeRemote>) {
    const session = fake.remote.session
    let release: () => void = () => {}
    fake.remote.session = (...args) =>
      session(...args).then((answer) => new Promise((resolve) => (release = () => resolve(answer))))
    return { release: () => release(), restore: () => (fake.remote.session = session) }
  }

  it('a pushed change asks for the session and the outline together: one round trip', async () => {
    const { tree, fake, channel, controller, end } = await following()
    // The session's answer is held: the outline must be asked for before it arrives.
    const held = holdSession(fake)
    expect(tree.append(user('q3')).ok).toBe(true)
    const before = fake.calls.length
    channel.push(`1:${tree.logSeq}`)
    await settle()
    expect(fake.calls.slice(before).sort()).toEqual(['outlineChanges', 'session'])
    held.release()
    await settle()
    expect(controller.getSnapshot().view?.nodes.some((n) => n.message?.content === 'q3')).toBe(true)
    end()
  })

  it('a change pushed while a read is in flight is read after it (that read may predate it)', async () => {
    const { tree, fake, channel, controller, end } = await following()
    // A read starts; the tree moves while it runs (its status is already taken) and the push arrives.
    const held = holdSession(fake)
    channel.push('1:x')
    await settle()
    expect(tree.append(user('q3')).ok).toBe(true)
    held.restore()
    channel.push(`1:${tree.logSeq}`)
    await settle()
    held.release()
    await settle()
    expect(controller.getSnapshot().view?.nodes.some((n) => n.message?.content === 'q3')).toBe(true)
    end()
  })
})
