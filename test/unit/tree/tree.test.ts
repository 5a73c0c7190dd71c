import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  SessionTree,
  SessionTreeError,
  SessionTreeStore,
  type BranchSummarizer,
  type ErrorCode,
  type TreeResult,
} from '../../../src/tree/index.ts'
import { ERROR_CODES } from '../../../src/service/errors.ts'
import { TREE_ERROR_CODES } from '../../../src/tree/errors.ts'
import { SIDECAR_ERROR_CODES } from '../../../src/sidecar/errors.ts'
import { SURFACE_ERROR_CODES } from '../../../src/surface/errors.ts'
import { WORKSPACE_ERROR_CODES } from '../../../src/workspace/errors.ts'
import { INTERCHANGE_ERROR_CODES } from '../../../src/interchange/errors.ts'
import { user, assistant, value } from '../../support/messages.ts'

/** Assert a failure with `code` that left the tree byte-identical. */
function expectFailure<T>(tree: SessionTree, op: () => TreeResult<T>, code: ErrorCode): void {
  const before = JSON.stringify(tree.snapshot())
  const result = op()
  expect(result.ok).toBe(false)
  if (!result.ok) {
    expect(result.error.code).toBe(code)
    expect(result.error.message).toMatch(/\S/)
  }
  expect(JSON.stringify(tree.snapshot())).toBe(before)
}

/** u1 → a1 → u2 → a2 on main; returns their ids. */
function conversation(tree = new SessionTree('s')) {
  const u1 = value(tree.append(user('first question'))).nodeId
  const a1 = value(tree.append(assistant('first answer'))).nodeId
  const u2 = value(tree.append(user('second question'))).nodeId
  const a2 = value(tree.append(assistant('second answer'))).nodeId
  return { tree, u1, a1, u2, a2 }
}

const contents = (tree: SessionTree, from?: string | null) => tree.messages(from).map((m) => m.content)

describe('append', () => {
  it('chains nodes under the cursor and advances the active branch', () => {
    const { tree, u1, a2 } = conversation()
    expect(tree.cursor).toBe(a2)
    expect(tree.activeBranch).toBe('main')
    expect(tree.info().branchHeads).toEqual({ main: a2 })
    expect(tree.get(u1)?.parentId).toBeNull()
    expect(contents(tree)).toEqual(['first question', 'first answer', 'second question', 'second answer'])
    expect(tree.info()).toMatchObject({ nodeCount: 4, messageCount: 4, branchCount: 1, currentPathLength: 4 })
  })

  it('derives a one-line summary and keeps every given field', () => {
    const tree = new SessionTree('s', undefined, { now: () => new Date('2026-01-02T03:04:05.000Z') })
    const node = value(
      tree.append(assistant('line one\n\n  line   two'), {
        model: 'deepseek-chat',
        provider: 'deepseek',
        usage: { inputTokens: 10, outputTokens: 5 },
        cost: 0.25,
        metadata: { k: [1, { x: null }] },
        content: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'text', text: 'line one' },
        ],
      }),
    )
    expect(node).toMatchObject({
      summary: 'line one line two',
      createdAt: '2026-01-02T03:04:05.000Z',
      type: 'message',
      model: 'deepseek-chat',
      provider: 'deepseek',
      branch: 'main',
      forkCount: 0,
    })
    expect(tree.info()).toMatchObject({ usage: { inputTokens: 10, outputTokens: 5 }, tokenCount: 15, cost: 0.25 })
  })

  it('copies caller objects: later mutation of the input changes nothing', () => {
    const tree = new SessionTree('s')
    const metadata = { list: [1, 2] }
    const message = { role: 'user' as const, content: 'x' }
    const node = value(tree.append(message, { metadata }))
    metadata.list.push(3)
    ;(message as { content: string }).content = 'changed'
    expect(tree.get(node.nodeId)?.metadata).toEqual({ list: [1, 2] })
    expect(tree.messages()[0]?.content).toBe('x')
    expect(Object.isFrozen(tree.get(node.nodeId)?.metadata)).toBe(true)
  })

  it('rejects malformed input with INVALID_ARGUMENT and changes nothing', () => {
    const { tree } = conversation()
    expectFailure(tree, () => tree.append({ role: 'robot', content: 'x' } as never), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.append({ role: 'user', content: 42 } as never), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.append(user('x'), { nodeId: '' }), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.append(user('x'), { metadata: { f: () => 1 } as never }), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.append(user('x'), { usage: { n: Number.NaN } }), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.append(user('x'), { content: [{ type: 'image' } as never] }), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.append(user('x'), { type: 'nonsense' as never }), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.append(user('x'), { createdAt: 'yesterday' }), 'INVALID_ARGUMENT')
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expectFailure(tree, () => tree.append(user('x'), { metadata: cyclic as never }), 'INVALID_ARGUMENT')
  })

  it('refuses a duplicate node id and an unknown parent', () => {
    const { tree, u1 } = conversation()
    expectFailure(tree, () => tree.append(user('x'), { nodeId: u1 }), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.append(user('x'), { parentId: 'nope' }), 'NODE_NOT_FOUND')
  })

  it('appends under an explicit parent, starting a new auto-named branch when it diverges', () => {
    const { tree, a1, a2 } = conversation()
    const n = value(tree.append(user('other'), { parentId: a1 }))
    expect(n.parentId).toBe(a1)
    expect(tree.activeBranch).toBe('main-2')
    expect(tree.info().branchHeads).toEqual({ main: a2, 'main-2': n.nodeId })
  })

  it('accepts message-less entries (model change, custom) that add no message', () => {
    const { tree } = conversation()
    value(tree.append(null, { type: 'model_change', model: 'deepseek-reasoner', summary: 'model → deepseek-reasoner' }))
    expect(tree.messages()).toHaveLength(4)
    expect(tree.info().nodeCount).toBe(5)
    expect(tree.info().messageCount).toBe(4)
  })
})

describe('jump', () => {
  it('moves the cursor; the next append forks and the old branch stays intact', () => {
    const { tree, u1, a1, u2, a2 } = conversation()
    const view = value(tree.jump(a1))
    expect(view.cursor).toBe(a1)
    expect(view.messages.map((m) => m.content)).toEqual(['first question', 'first answer'])
    const n = value(tree.append(user('alternative')))
    expect(n.parentId).toBe(a1)
    expect(contents(tree)).toEqual(['first question', 'first answer', 'alternative'])
    expect(contents(tree, a2)).toEqual(['first question', 'first answer', 'second question', 'second answer'])
    expect(tree.children(a1)).toEqual([u2, n.nodeId])
    expect(tree.get(a1)?.forkCount).toBe(2)
    // Lanes are the branch a node was created on (the oldest branch holding it).
    expect(tree.get(u1)?.branch).toBe('main')
    expect(tree.get(u2)?.branch).toBe('main')
    expect(tree.get(n.nodeId)?.branch).toBe('main-2')
    const restored = new SessionTree('s', JSON.parse(JSON.stringify(tree.snapshot())))
    expect(restored.list().map((x) => x.branch)).toEqual(tree.list().map((x) => x.branch))
  })

  it('jump to an unknown node fails with NODE_NOT_FOUND and changes nothing', () => {
    const { tree } = conversation()
    expectFailure(tree, () => tree.jump('missing'), 'NODE_NOT_FOUND')
    expectFailure(tree, () => tree.jump({ label: 'missing' }), 'NODE_NOT_FOUND')
    expectFailure(tree, () => tree.jump({ branch: 'missing' }), 'BRANCH_NOT_FOUND')
    expectFailure(tree, () => tree.jump(42 as never), 'INVALID_ARGUMENT')
  })

  it('a missing node or branch is worded once: its name quoted, clipped past 80 characters with its length', () => {
    const { tree } = conversation()
    // Longer than a name or id may be is malformed, not missing: within the limits, long enough to be clipped.
    const long = 'x'.repeat(95)
    for (const [answer, code, key] of [
      [tree.jump({ branch: long }), 'BRANCH_NOT_FOUND', 'branch'],
      [tree.fork(long, 'alt'), 'NODE_NOT_FOUND', 'nodeId'],
      [tree.setBranchSummary(long, 'a summary'), 'BRANCH_NOT_FOUND', 'branch'],
    ] as const) {
      expect(answer.ok).toBe(false)
      if (answer.ok) continue
      expect(answer.error.code).toBe(code)
      expect(answer.error.message).toMatch(/^no (node|branch) "x{80}"… \(95 characters\)$/)
      expect(answer.error.details?.[key]).toBe(long)
    }
    // A label is looked up, not checked: one of any length is quoted and clipped all the same.
    const huge = tree.jump({ label: 'y'.repeat(100_000) })
    expect(!huge.ok && huge.error.message).toMatch(/^no node labeled "y{80}"… \(100000 characters\)$/)
    expect(!huge.ok && String(huge.error.details?.label).length).toBeLessThan(300)
    const short = tree.jump({ branch: 'nope' })
    expect(!short.ok && short.error).toEqual({
      code: 'BRANCH_NOT_FOUND',
      message: 'no branch "nope"',
      details: { branch: 'nope' },
    })
  })

  it('jump to null then append makes a new root', () => {
    const { tree, u1 } = conversation()
    const view = value(tree.jump(null))
    expect(view).toMatchObject({ cursor: null, messages: [] })
    const root = value(tree.append(user('fresh start')))
    expect(root.parentId).toBeNull()
    expect(tree.children(null)).toEqual([u1, root.nodeId])
    expect(contents(tree)).toEqual(['fresh start'])
  })

  it('landing on a branch head activates that branch', () => {
    const { tree, a1, a2 } = conversation()
    value(tree.fork(a1, 'alt'))
    value(tree.append(user('alt question')))
    value(tree.jump(a2))
    expect(tree.activeBranch).toBe('main')
    const n = value(tree.append(user('continue main')))
    expect(tree.info().branchHeads?.main).toBe(n.nodeId)
  })

  it('jumps by label and by branch', () => {
    const { tree, a1, a2 } = conversation()
    value(tree.label(a1, 'checkpoint'))
    expect(value(tree.jump({ label: 'checkpoint' })).cursor).toBe(a1)
    expect(value(tree.jump({ branch: 'main' })).cursor).toBe(a2)
  })
})

describe('fork and branch', () => {
  it('fork at a node then append: messages are root..node + the new one; the old branch is intact', () => {
    const { tree, u1, a1, u2, a2 } = conversation()
    const fork = value(tree.fork(a1, 'experiment'))
    expect(fork).toEqual({ cursor: a1, branch: 'experiment', forkCount: 1 })
    const n = value(tree.append(user('what if')))
    expect(tree.messages()).toEqual([user('first question'), assistant('first answer'), user('what if')])
    expect(tree.info().branchHeads).toEqual({ main: a2, experiment: n.nodeId })
    const main = tree.branches().find((b) => b.name === 'main')!
    expect(main.nodeIds).toEqual([u1, a1, u2, a2])
    expect(tree.branches()[0]?.name).toBe('experiment')
  })

  it('rejects empty, whitespace, control-character and duplicate branch names', () => {
    const { tree, a1 } = conversation()
    expectFailure(tree, () => tree.fork(a1, ''), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.fork(a1, '   '), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.fork(a1, 'a\nb'), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.fork(a1, 'a\u0085b'), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.label(a1, 'a\u009bb'), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.fork(a1, 'x'.repeat(101)), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.fork(a1, 'main'), 'BRANCH_EXISTS')
    expectFailure(tree, () => tree.fork('missing', 'new'), 'NODE_NOT_FOUND')
    expectFailure(tree, () => tree.branch(a1, undefined as never), 'INVALID_ARGUMENT')
  })

  it('trims names and auto-names an unnamed fork', () => {
    const { tree, a1 } = conversation()
    expect(value(tree.fork(a1, '  spaced  ')).branch).toBe('spaced')
    expect(value(tree.fork(a1)).branch).toBe('spaced-2')
    expect(value(tree.branch(a1, 'named'))).toEqual({ cursor: a1, branch: 'named' })
  })

  it('append with a branch option creates that branch, or refuses an existing one', () => {
    const { tree, a1 } = conversation()
    value(tree.jump(a1))
    const n = value(tree.append(user('side'), { branch: 'side' }))
    expect(tree.activeBranch).toBe('side')
    expect(tree.info().branchHeads?.side).toBe(n.nodeId)
    expectFailure(tree, () => tree.append(user('x'), { branch: 'main' }), 'BRANCH_EXISTS')
  })

  it('jump({ branch }) moves to the head and activates it; an unknown branch fails', () => {
    const { tree, a1, a2 } = conversation()
    value(tree.fork(a1, 'alt'))
    expect(value(tree.jump({ branch: 'main' })).cursor).toBe(a2)
    expect(tree.activeBranch).toBe('main')
    expectFailure(tree, () => tree.jump({ branch: 'nope' }), 'BRANCH_NOT_FOUND')
  })
})

describe('branchWithSummary', () => {
  it('adds a summary node under the target that never enters messages()', () => {
    const { tree, a1, a2 } = conversation()
    const node = value(tree.branchWithSummary(a1, 'Tried the second question; it went nowhere.'))
    expect(node).toMatchObject({ type: 'branch_summary', parentId: a1, metadata: { fromId: a2 } })
    expect(node.message).toBeUndefined()
    expect(tree.cursor).toBe(node.nodeId)
    expect(contents(tree)).toEqual(['first question', 'first answer'])
    value(tree.append(user('next')))
    expect(contents(tree)).toEqual(['first question', 'first answer', 'next'])
    expect(tree.info().messageCount).toBe(5)
  })

  it('fails cleanly for an empty summary, unknown node or taken branch', () => {
    const { tree, a1 } = conversation()
    expectFailure(tree, () => tree.branchWithSummary(a1, ' '), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.branchWithSummary('nope', 'x'), 'NODE_NOT_FOUND')
    expectFailure(tree, () => tree.branchWithSummary(a1, 'x', 'main'), 'BRANCH_EXISTS')
  })
})

describe('labels', () => {
  it('sets, finds, moves and clears labels; labels are unique', () => {
    const { tree, u1, a1 } = conversation()
    expect(value(tree.label(a1, ' good answer ')).label).toBe('good answer')
    expect(tree.labeled().map((n) => n.nodeId)).toEqual([a1])
    expect(tree.labeled('good answer').map((n) => n.nodeId)).toEqual([a1])
    expect(tree.labeled('other')).toEqual([])
    expectFailure(tree, () => tree.label(u1, 'good answer'), 'LABEL_EXISTS')
    value(tree.label(a1, 'good answer')) // idempotent
    value(tree.label(a1, null))
    expect(tree.get(a1)?.label).toBeUndefined()
    expect(tree.labeled()).toEqual([])
    value(tree.label(u1, 'good answer'))
    expect(tree.labeled('good answer')[0]?.nodeId).toBe(u1)
  })

  it('rejects bad labels and unknown nodes', () => {
    const { tree, a1 } = conversation()
    expectFailure(tree, () => tree.label('nope', 'x'), 'NODE_NOT_FOUND')
    expectFailure(tree, () => tree.label(a1, ''), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.label(a1, 'x'.repeat(201)), 'INVALID_ARGUMENT')
    expectFailure(tree, () => tree.label(a1, 7 as never), 'INVALID_ARGUMENT')
  })

  it('labels survive a snapshot round trip', () => {
    const { tree, a1 } = conversation()
    value(tree.label(a1, 'keep me'))
    const restored = new SessionTree('s', JSON.parse(JSON.stringify(tree.snapshot())))
    expect(restored.labeled('keep me')[0]?.nodeId).toBe(a1)
    expect(value(restored.jump({ label: 'keep me' })).cursor).toBe(a1)
  })
})

describe('select', () => {
  it('binds a node without moving the cursor', () => {
    const { tree, a1, a2 } = conversation()
    value(tree.select(a1))
    expect(tree.selectedNode).toBe(a1)
    expect(tree.cursor).toBe(a2)
    value(tree.select(null))
    expect(tree.selectedNode).toBeNull()
    expectFailure(tree, () => tree.select('nope'), 'NODE_NOT_FOUND')
  })
})

describe('navigation history', () => {
  it('back and forward undo and redo cursor moves, browser-style', () => {
    const { tree, u1, a1, a2 } = conversation()
    value(tree.jump(a1))
    value(tree.jump(u1))
    expect(value(tree.back()).cursor).toBe(a1)
    expect(value(tree.back()).cursor).toBe(a2)
    expectFailure(tree, () => tree.back(), 'HISTORY_EMPTY')
    expect(value(tree.forward()).cursor).toBe(a1)
    expect(value(tree.forward()).cursor).toBe(u1)
    expectFailure(tree, () => tree.forward(), 'HISTORY_EMPTY')
  })

  it('restores the branch with the cursor, survives appends and snapshots', () => {
    const { tree, a1, a2 } = conversation()
    value(tree.fork(a1, 'alt'))
    const n = value(tree.append(user('alt')))
    expect(value(tree.back())).toMatchObject({ cursor: a2, branch: 'main' })
    const restored = new SessionTree('s', JSON.parse(JSON.stringify(tree.snapshot())))
    // Forward returns to where `back` was pressed: the appended node on alt.
    expect(value(restored.forward())).toMatchObject({ cursor: n.nodeId, branch: 'alt' })
    expect(restored.info().branchHeads?.alt).toBe(n.nodeId)
  })

  it('a new move clears the forward history; quiet moves are not recorded', () => {
    const { tree, u1, a1 } = conversation()
    value(tree.jump(a1))
    value(tree.back())
    value(tree.jump(u1))
    expect(tree.info().canGoForward).toBe(false)
    value(tree.jump(a1, { record: false }))
    expect(value(tree.back()).cursor).not.toBe(u1)
  })
})

describe('tool calls', () => {
  function withToolCall() {
    const tree = new SessionTree('s')
    const u = value(tree.append(user('list files'))).nodeId
    const a = value(
      tree.append(assistant(''), {
        content: [{ type: 'tool_call', id: 'c1', name: 'bash', arguments: { cmd: 'ls' } }],
      }),
    ).nodeId
    const call = value(
      tree.append(null, {
        type: 'tool_call',
        content: [{ type: 'tool_call', id: 'c1', name: 'bash', arguments: { cmd: 'ls' } }],
      }),
    ).nodeId
    return { tree, u, a, call }
  }

  it('finds the tool-call node, never the assistant message echoing the call', () => {
    const { tree, call } = withToolCall()
    expect(tree.findToolCallNode('c1')?.nodeId).toBe(call)
    expect(tree.findToolCallNode('c2')).toBeUndefined()
  })

  it('folds the result into the call node, idempotently', () => {
    const { tree, call } = withToolCall()
    const merged = value(tree.attachToolResult('c1', { content: 'a.txt\nb.txt' }))
    expect(merged.nodeId).toBe(call)
    expect(merged.message).toEqual({ role: 'tool', content: 'a.txt\nb.txt', toolCallId: 'c1', name: 'bash' })
    expect(merged.summary).toBe('bash({"cmd":"ls"}) → a.txt b.txt')
    const seq = tree.logSeq
    value(tree.attachToolResult('c1', { content: 'a.txt\nb.txt' }))
    expect(tree.logSeq).toBe(seq)
    expect(tree.info().nodeCount).toBe(3)
    expect(tree.messages().map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
  })

  it('records errors and refuses unknown calls', () => {
    const { tree } = withToolCall()
    expect(value(tree.attachToolResult('c1', { content: 'boom', isError: true })).error).toBe('boom')
    expectFailure(tree, () => tree.attachToolResult('zz', { content: 'x' }), 'NODE_NOT_FOUND')
    expectFailure(tree, () => tree.attachToolResult('c1', { content: 3 } as never), 'INVALID_ARGUMENT')
  })

  it('knows where a history may end: never between a call and its result', () => {
    const { tree, u, a, call } = withToolCall()
    // The exchange has no result yet: the history can only end before the call was made.
    expect(value(tree.completeCutPoint(a))).toBe(u)
    expect(value(tree.completeCutPoint(call))).toBe(u)
    value(tree.attachToolResult('c1', { content: 'ok' }))
    expect(value(tree.completeCutPoint(a))).toBe(call)
    expect(value(tree.completeCutPoint(u))).toBe(u)
    expect(value(tree.completeCutPoint(null))).toBeNull()
  })

  it('a cut point before any complete point is the empty history', () => {
    const tree = new SessionTree('s')
    const a = value(
      tree.append(assistant(''), { content: [{ type: 'tool_call', id: 'c9', name: 'bash', arguments: null }] }),
    ).nodeId
    expect(value(tree.completeCutPoint(a))).toBeNull()
  })
})

const fixed = (text: string, model = 'summarizer-1'): BranchSummarizer => ({ model, summarize: async () => text })

describe('branch summaries', () => {
  it('records the summarizer text and model', async () => {
    const { tree, a1, a2 } = conversation()
    value(tree.fork(a1, 'alt'))
    const seen: string[] = []
    const summary = value(
      await tree.summarizeBranch('main', {
        model: 'tiny',
        summarize: async (request) => {
          seen.push(request.text)
          return 'Asked two questions.'
        },
      }),
    )
    expect(summary).toMatchObject({ branch: 'main', nodeId: a2, summary: 'Asked two questions.', model: 'tiny' })
    expect(seen[0]).toBe(
      'user: first question\nassistant: first answer\nuser: second question\nassistant: second answer\n',
    )
    expect(tree.branches().find((b) => b.name === 'main')?.summary?.summary).toBe('Asked two questions.')
  })

  it('never fails the caller: a throwing summarizer yields the deterministic fallback', async () => {
    const { tree } = conversation()
    const summary = value(
      await tree.summarizeBranch('main', {
        model: 'x',
        summarize: async () => {
          throw new Error('down')
        },
      }),
    )
    expect(summary).toMatchObject({ summary: '[4 messages, unsummarized]', fallback: true })
    expect(summary.model).toBeUndefined()
  })

  it('a hanging summarizer times out into the fallback', async () => {
    const { tree } = conversation()
    let aborted = false
    const summary = value(
      await tree.summarizeBranch(
        'main',
        {
          model: 'slow',
          summarize: (request) =>
            new Promise((resolve) =>
              request.signal.addEventListener('abort', () => {
                aborted = true
                resolve('late')
              }),
            ),
        },
        { timeoutMs: 20 },
      ),
    )
    expect(summary.fallback).toBe(true)
    expect(aborted).toBe(true)
  })

  it('unknown branch is BRANCH_NOT_FOUND; caller-written summaries have no model', async () => {
    const { tree } = conversation()
    const missing = await tree.summarizeBranch('nope', fixed('x'))
    expect(!missing.ok && missing.error.code).toBe('BRANCH_NOT_FOUND')
    expect(value(tree.setBranchSummary('main', 'by hand')).model).toBeUndefined()
    expectFailure(tree, () => tree.setBranchSummary('main', ''), 'INVALID_ARGUMENT')
  })
})

describe('linear export', () => {
  it('exports the active path plus a digest of every off-path branch', async () => {
    const { tree, a1 } = conversation()
    value(tree.fork(a1, 'alt'))
    value(tree.append(user('alt question')))
    value(tree.fork(a1, 'third'))
    value(tree.append(user('third question')))
    value(tree.append(assistant('third answer')))
    value(await tree.summarizeBranch('alt', fixed('Alt asked one more thing.')))
    const exported = value(tree.linearExport())
    expect(exported.messages.map((m) => m.content)).toEqual([
      'first question',
      'first answer',
      'third question',
      'third answer',
    ])
    const byBranch = Object.fromEntries(exported.branches.map((b) => [b.branch, b.summary]))
    expect(byBranch).toEqual({ main: '[4 messages, unsummarized]', alt: 'Alt asked one more thing.' })
    expect(tree.info().nodeCount).toBe(7)
  })
})

describe('fail-closed projection', () => {
  /** A node's internal record (links and entry): how these tests corrupt a tree on purpose. */
  const recOf = (tree: SessionTree, id: string) =>
    (tree as unknown as { state: { nodes: { get(id: string): { parent: unknown; entry: unknown } } } }).state.nodes.get(
      id,
    )

  it('a dangling parent errors instead of yielding an empty history', () => {
    const { tree, a2 } = conversation()
    recOf(tree, a2).parent = undefined
    const path = tree.path()
    expect(!path.ok && path.error.code).toBe('TREE_CORRUPT')
    expect(() => tree.messages()).toThrow(SessionTreeError)
    const exported = tree.linearExport()
    expect(!exported.ok && exported.error.code).toBe('TREE_CORRUPT')
  })

  it('a cycle errors instead of looping', () => {
    const { tree, u1, a2 } = conversation()
    const root = recOf(tree, u1)
    root.parent = recOf(tree, a2)
    root.entry = { ...(root.entry as object), parentId: a2 }
    expect(() => tree.messages()).toThrow(/TREE_CORRUPT/)
  })
})

describe('checkpoint and rollback', () => {
  it('undoes appends, labels, attaches and moves without copying the tree', () => {
    const { tree, a1 } = conversation()
    const before = JSON.stringify(tree.snapshot())
    const mark = tree.checkpoint()
    value(tree.fork(a1, 'alt'))
    value(tree.append(user('x')))
    value(tree.label(a1, 'l'))
    value(
      tree.append(null, { type: 'tool_call', content: [{ type: 'tool_call', id: 'k', name: 't', arguments: null }] }),
    )
    value(tree.attachToolResult('k', { content: 'r' }))
    value(tree.back())
    value(tree.rollback(mark))
    expect(JSON.stringify(tree.snapshot())).toBe(before)
    expect(tree.findToolCallNode('k')).toBeUndefined()
    expect(tree.labeled()).toEqual([])
  })

  it('refuses a foreign or trimmed-away checkpoint', () => {
    const { tree } = conversation()
    const other = new SessionTree('other')
    expect(tree.rollback(other.checkpoint()).ok).toBe(false)
    const mark = tree.checkpoint()
    value(tree.append(user('x')))
    tree.trimLog(tree.logSeq)
    const result = tree.rollback(mark)
    expect(!result.ok && result.error.code).toBe('INVALID_ARGUMENT')
  })
})

describe('log and replay', () => {
  it('replaying a log onto the snapshot it started from reproduces the tree', async () => {
    const { tree, a1 } = conversation()
    const base = JSON.parse(JSON.stringify(tree.snapshot()))
    const from = tree.logSeq
    value(tree.fork(a1, 'alt'))
    value(tree.append(user('x')))
    value(tree.label(a1, 'here'))
    value(tree.back())
    value(tree.select(a1))
    value(await tree.summarizeBranch('main', { model: 'm', summarize: async () => 'digest' }))
    const records = JSON.parse(JSON.stringify(tree.log(from)))
    const copy = new SessionTree('s', base)
    expect(value(copy.replay(records))).toEqual({ applied: records.length })
    expect(JSON.stringify(copy.snapshot())).toBe(JSON.stringify(tree.snapshot()))
  })

  it('is all or nothing: a bad record rolls back the whole batch', () => {
    const { tree, a1 } = conversation()
    const base = JSON.parse(JSON.stringify(tree.snapshot()))
    const from = tree.logSeq
    value(tree.fork(a1, 'alt'))
    value(tree.append(user('x')))
    const records = JSON.parse(JSON.stringify(tree.log(from)))
    const copy = new SessionTree('s', base)
    const before = JSON.stringify(copy.snapshot())
    const gap = copy.replay([records[1]])
    expect(!gap.ok && gap.error.code).toBe('INVALID_ARGUMENT')
    const bad = copy.replay([records[0], { ...records[1], node: { ...records[1].node, parentId: 'ghost' } }])
    expect(!bad.ok && bad.error.code).toBe('NODE_NOT_FOUND')
    expect(!bad.ok && bad.error.details?.index).toBe(1)
    const unknown = copy.replay([{ ...records[0], op: 'teleport' }])
    expect(!unknown.ok && unknown.error.code).toBe('INVALID_ARGUMENT')
    expect(JSON.stringify(copy.snapshot())).toBe(before)
  })
})

describe('snapshots', () => {
  function richTree() {
    const { tree, a1 } = conversation()
    value(tree.fork(a1, 'alt'))
    value(tree.append(user('x')))
    value(tree.label(a1, 'l'))
    value(tree.select(a1))
    value(
      tree.append(null, {
        type: 'tool_call',
        content: [{ type: 'tool_call', id: 'c1', name: 'ls', arguments: { path: '.' } }],
      }),
    )
    value(tree.attachToolResult('c1', { content: 'a\nb' }))
    value(
      tree.append(user('long '.repeat(40)), {
        content: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'text', text: 'long '.repeat(40) },
        ],
        usage: { inputTokens: 3 },
      }),
    )
    value(tree.append(null, { type: 'model_change', summary: 'model: a → b', model: 'b' }))
    return tree
  }
  const valid = () => JSON.parse(JSON.stringify(richTree().snapshot()))

  it('round-trips byte-identically, and the restored tree reads the same', () => {
    const tree = richTree()
    const snapshot = JSON.parse(JSON.stringify(tree.snapshot()))
    const restored = new SessionTree('s', snapshot)
    expect(JSON.stringify(restored.snapshot())).toBe(JSON.stringify(snapshot))
    expect(restored.view()).toEqual(tree.view())
    expect(restored.info()).toEqual(tree.info())
  })

  it('writes a message text once: no summary the content implies, no part that repeats it', () => {
    const tree = richTree()
    const json = JSON.stringify(tree.snapshot())
    for (const node of tree.list()) {
      const text = node.message?.content
      if (text === undefined || text.length < 20) continue
      expect(json.split(JSON.stringify(text)).length - 1, node.nodeId).toBe(1)
    }
    // A summary its producer wrote (different from the implied one) is kept.
    expect(json).toContain('"summary":"model: a → b"')
  })

  it('keeps every creation time exactly: canonical ones as deltas, any other as its text (also next to an equal one)', () => {
    const tree = new SessionTree('s')
    const times = [
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:01.5Z',
      '2026-01-01T00:00:01.500Z',
      '2025-12-31T23:59:59.999Z',
      '2026-01-01T00:00:00.0001Z',
      '2026-01-01T00:00:00.000Z',
      '1970-01-01T00:00:00.000Z',
      '0001-01-01T00:00:00.000Z',
    ]
    for (const createdAt of times) value(tree.append(user('t'), { createdAt }))
    const restored = new SessionTree('s', JSON.parse(JSON.stringify(tree.snapshot())))
    expect(restored.list().map((n) => n.createdAt)).toEqual(times)
  })

  const both: [string, (s: any) => unknown][] = [
    ['non-object', () => 'snapshot'],
    ['null', () => null],
    ['wrong version', (s) => ({ ...s, version: 3 })],
    ['version 1 (never released)', (s) => ({ ...s, version: 1 })],
    ['foreign session id', (s) => ({ ...s, sessionId: 'other' })],
    ['cursor on a missing node', (s) => ({ ...s, cursor: 'ghost' })],
    [
      'branch head on a missing node',
      (s) => ({ ...s, branches: s.branches.map(([n, h]: [string, string]) => [n, n === 'main' ? 'ghost' : h]) }),
    ],
    ['branch listed twice', (s) => ({ ...s, branches: [...s.branches, s.branches[0]] })],
    ['branches not an array', (s) => ({ ...s, branches: { main: s.branches[0][1] } })],
    ['selection on a missing node', (s) => ({ ...s, selectedNodeId: 'ghost' })],
    [
      'history on a missing node',
      (s) => ({ ...s, history: { back: [{ cursor: 'ghost', branch: 'main' }], forward: [] } }),
    ],
    ['nodes not an array', (s) => ({ ...s, nodes: {} })],
    ['bad logSeq', (s) => ({ ...s, logSeq: -1 })],
  ]
  /** A corruption that edits the valid snapshot in place. */
  const edit =
    (change: (s: any) => void) =>
    (s: any): unknown => {
      change(s)
      return s
    }
  /** A corruption that sets field `field` of node row `row` to `to`. */
  const cell = (row: number, field: number, to: unknown) =>
    edit((s) => {
      s.nodes[row][field] = to
    })
  const v2: [string, (s: any) => unknown][] = [
    [
      'a row that is not an array',
      edit((s) => {
        s.nodes[1] = { nodeId: 'x' }
      }),
    ],
    [
      'a row too short',
      edit((s) => {
        s.nodes[1] = s.nodes[1].slice(0, 3)
      }),
    ],
    ['a parent beyond the first row', cell(1, 1, 2)],
    ['a negative parent', cell(1, 1, -1)],
    ['a fractional parent', cell(1, 1, 0.5)],
    [
      'a duplicate id',
      edit((s) => {
        s.nodes[2][0] = s.nodes[1][0]
      }),
    ],
    ['a malformed id', cell(2, 0, ' x')],
    ['an unknown node type', cell(0, 2, 'poem')],
    ['a fractional time', cell(0, 3, 1.5)],
    ['a time past year 9999', cell(0, 3, 1e15)],
    ['a time that is not ISO', cell(0, 3, 'yesterday')],
    ['an unknown role', cell(0, 4, 'robot')],
    ['a role without a text', cell(0, 5, null)],
    ['a text that is not a string', cell(0, 5, 7)],
    ['an unknown row field', cell(0, 6, { secret: 1 })],
    ['an unknown content part', cell(0, 6, { content: [{ type: 'hologram' }] })],
    [
      'a part that leaves out a text the row has not',
      edit((s) => {
        s.nodes[0] = [...s.nodes[0].slice(0, 4), null, null, { content: [{ type: 'text' }] }]
      }),
    ],
    ['a duplicate label', cell(0, 6, { label: 'l' })],
    ['an untrimmed label', cell(0, 6, { label: ' l2' })],
    [
      'a compaction replacing a node off its path',
      edit((s) => {
        s.nodes[0] = [s.nodes[0][0], 0, 'compaction', s.nodes[0][3], 'user', 'sum', { replaces: ['ghost'] }]
      }),
    ],
  ]
  const cases: [string, () => unknown][] = [...both, ...v2].map(([name, f]) => [name, () => f(valid())])

  it.each(cases)('rejects %s with INVALID_SNAPSHOT, loading nothing', (name, corrupt) => {
    const bad = corrupt()
    let error: unknown
    try {
      new SessionTree('s', bad)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(SessionTreeError)
    expect((error as SessionTreeError).code).toBe('INVALID_SNAPSHOT')
    expect((error as SessionTreeError).error.message).toMatch(/\S/)
    // The store takes the id from the snapshot itself, so "foreign" cannot apply there.
    if (name === 'foreign session id') return
    const store = new SessionTreeStore()
    const result = store.load(bad)
    expect(!result.ok && result.error.code).toBe('INVALID_SNAPSHOT')
    expect(store.list()).toEqual([])
  })

  it('says why: the reason names the problem', () => {
    const r = valid()
    r.nodes[1][1] = 5
    expect(() => new SessionTree('s', r)).toThrow(/snapshot\.nodes\[1\] parent/)
  })
})

describe('SessionTreeStore', () => {
  it('creates, never silently resets, requires and lists', () => {
    const store = new SessionTreeStore()
    // Seed 001's create returns the tree (code written against it calls create(id).append(...)).
    const tree = store.create('a')
    value(tree.append(user('hi')))
    expect(() => store.create('a')).toThrow(expect.objectContaining({ code: 'SESSION_ALREADY_EXISTS' }))
    const again = store.add('a')
    expect(!again.ok && again.error.code).toBe('SESSION_ALREADY_EXISTS')
    expect(store.get('a')?.nodeCount).toBe(1)
    expect(value(store.require('a'))).toBe(tree)
    const missing = store.require('b')
    expect(!missing.ok && missing.error.code).toBe('SESSION_NOT_FOUND')
    value(store.ensure('b'))
    expect(store.list()).toEqual(['a', 'b'])
    expect(store.drop('b')).toBe(true)
    expect(store.list()).toEqual(['a'])
    const bad = store.add('')
    expect(!bad.ok && bad.error.code).toBe('INVALID_ARGUMENT')
    expect(() => store.create('')).toThrow(SessionTreeError)
  })

  it('clones the active path with fresh ids and provenance; the source is untouched', () => {
    const store = new SessionTreeStore()
    const { tree, a1 } = conversation(store.create('src'))
    value(tree.label(a1, 'answer'))
    value(tree.fork(a1, 'alt'))
    value(tree.append(user('alt q')))
    const before = JSON.stringify(tree.snapshot())
    expect(value(store.clone('src', 'dst'))).toEqual({ sessionId: 'dst', nodeCount: 3 })
    const copy = store.get('dst')!
    expect(copy.messages()).toEqual(tree.messages())
    // Ids are minted by the new tree, not carried over (the source path is n1, n2, n5).
    expect(tree.currentPath().map((n) => n.nodeId)).toEqual(['n1', 'n2', 'n5'])
    expect(copy.list().map((n) => n.nodeId)).toEqual(['n1', 'n2', 'n3'])
    expect(copy.list().map((n) => n.origin)).toEqual(
      tree.currentPath().map((n) => ({ source: 'clone', sessionId: 'src', ref: n.nodeId })),
    )
    expect(copy.info().clonedFrom).toEqual({ sessionId: 'src', nodeId: tree.cursor })
    expect(copy.labeled('answer')).toHaveLength(1)
    expect(copy.activeBranch).toBe('alt')
    expect(JSON.stringify(tree.snapshot())).toBe(before)
    const clash = store.clone('src', 'dst')
    expect(!clash.ok && clash.error.code).toBe('SESSION_ALREADY_EXISTS')
    const none = store.clone('nope', 'x')
    expect(!none.ok && none.error.code).toBe('SESSION_NOT_FOUND')
    // The clone survives its own snapshot round trip, provenance included.
    expect(new SessionTree('dst', JSON.parse(JSON.stringify(copy.snapshot()))).info().clonedFrom).toEqual({
      sessionId: 'src',
      nodeId: tree.cursor,
    })
  })

  it('replace and load install trees under their own id only', () => {
    const store = new SessionTreeStore()
    const tree = new SessionTree('x')
    const wrong = store.replace('y', tree)
    expect(!wrong.ok && wrong.error.code).toBe('INVALID_ARGUMENT')
    value(store.replace('x', tree))
    expect(store.get('x')).toBe(tree)
    const { tree: other } = conversation(new SessionTree('z'))
    value(store.load(JSON.parse(JSON.stringify(other.snapshot()))))
    expect(store.get('z')?.nodeCount).toBe(4)
  })
})

describe('error vocabulary', () => {
  /** The `| `CODE` | meaning |` rows of the "Error codes" table, wherever it lives: README.md or docs/*.md (docs/tree-api.md today). */
  function documentedCodes(): Record<string, string> {
    const root = join(import.meta.dirname, '..', '..', '..')
    const docs = existsSync(join(root, 'docs'))
      ? readdirSync(join(root, 'docs'))
          .filter((f) => f.endsWith('.md'))
          .map((f) => join(root, 'docs', f))
      : []
    const rows: Record<string, string> = {}
    for (const file of [join(root, 'README.md'), ...docs]) {
      const text = readFileSync(file, 'utf8')
      const start = text.search(/^#+ Error codes$/m)
      if (start === -1) continue
      for (const line of text.slice(start).split('\n').slice(1)) {
        if (line.startsWith('#')) break
        const row = /^\| `([A-Z_]+)` \| (.+) \|$/.exec(line)
        if (row) rows[row[1]!] = row[2]!
      }
    }
    return rows
  }

  it('the documented table is exactly ERROR_CODES: every code, with its meaning', () => {
    expect(documentedCodes()).toEqual({ ...ERROR_CODES })
  })

  it("each code has one owning layer: the service vocabulary is the disjoint union of the layers' tables", () => {
    const tables = [
      TREE_ERROR_CODES,
      SURFACE_ERROR_CODES,
      SIDECAR_ERROR_CODES,
      WORKSPACE_ERROR_CODES,
      INTERCHANGE_ERROR_CODES,
    ]
    const owned = tables.flatMap((table) => Object.keys(table))
    expect(new Set(owned).size).toBe(owned.length)
    expect(owned.sort()).toEqual(Object.keys(ERROR_CODES).sort())
  })
})
