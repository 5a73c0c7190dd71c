/**
 * Each defect the tree properties found, reduced to a few lines. Every test
 * asserts the correct behaviour, so it fails until src/tree is fixed.
 */
import { describe, expect, it } from 'vitest'
import { SessionTree, SessionTreeError, type JsonValue } from '../../src/tree/index.ts'

describe('regressions found by the property tests', () => {
  const roundTrip = (tree: SessionTree) => {
    const json = JSON.stringify(tree.snapshot())
    return JSON.stringify(new SessionTree(tree.sessionId, JSON.parse(json)).snapshot()) === json
  }

  it('attachToolResult keeps snapshot → restore → snapshot byte-identical (key order of the merged entry)', () => {
    const tree = new SessionTree('s')
    tree.append(null, { type: 'tool_call', content: [{ type: 'tool_call', id: 'c1', name: 'ls', arguments: {} }] })
    expect(tree.attachToolResult('c1', { content: 'ok' }).ok).toBe(true)
    expect(roundTrip(tree)).toBe(true)
  })

  it('label on a node with an origin keeps the snapshot round trip byte-identical', () => {
    const tree = new SessionTree('s')
    tree.append({ role: 'user', content: 'x' }, { nodeId: 'a', origin: { source: 'session', seq: 1 } })
    expect(tree.label('a', 'L').ok).toBe(true)
    expect(roundTrip(tree)).toBe(true)
  })

  it('snapshot + replay of the log equals the tree after attachToolResult', () => {
    const tree = new SessionTree('s')
    const base = JSON.stringify(tree.snapshot())
    tree.append(null, { type: 'tool_call', content: [{ type: 'tool_call', id: 'c1', name: 'ls', arguments: {} }] })
    tree.attachToolResult('c1', { content: 'ok', isError: true })
    const replica = new SessionTree('s', JSON.parse(base))
    expect(replica.replay(JSON.parse(JSON.stringify(tree.log()))).ok).toBe(true)
    expect(JSON.stringify(replica.snapshot())).toBe(JSON.stringify(tree.snapshot()))
  })

  it('a branch named __proto__ survives branchHeads, info() and a snapshot round trip', () => {
    const tree = new SessionTree('s')
    tree.append({ role: 'user', content: 'x' }, { nodeId: 'a' })
    expect(tree.fork('a', '__proto__').ok).toBe(true)
    expect(tree.setBranchSummary('__proto__', 'sum').ok).toBe(true)
    expect(Object.keys(tree.info().branchHeads ?? {}).sort()).toEqual(['__proto__', 'main'])
    expect(
      tree
        .snapshot()
        .branches.map(([name]) => name)
        .sort(),
    ).toEqual(['__proto__', 'main'])
    expect(roundTrip(tree)).toBe(true)
  })

  it('integer-like branch names keep their order through a restore (branches(), lanes and jump agree)', () => {
    const tree = new SessionTree('s')
    tree.append({ role: 'user', content: 'a' }, { nodeId: 'a' })
    tree.append({ role: 'user', content: 'b' }, { nodeId: 'b' })
    tree.fork('a', 'x')
    tree.fork('a', '10')
    tree.jump('b')
    const base = JSON.parse(JSON.stringify(tree.snapshot()))
    const restored = new SessionTree('s', base)
    expect(restored.branches().map((b) => b.name)).toEqual(tree.branches().map((b) => b.name))
    tree.jump('a')
    restored.jump('a')
    expect(restored.activeBranch).toBe(tree.activeBranch)
  })

  const callNode = (id: string, nodeId: string) => ({
    nodeId,
    type: 'tool_call' as const,
    content: [{ type: 'tool_call' as const, id, name: 'ls', arguments: null }],
  })

  it('rolling back a newer node that reused a call id gives the call id back to the older node', () => {
    const tree = new SessionTree('s')
    tree.append(null, callNode('c', 'A'))
    const mark = tree.checkpoint()
    tree.append(null, callNode('c', 'B'))
    expect(tree.findToolCallNode('c')?.nodeId).toBe('B')
    tree.rollback(mark)
    const restored = new SessionTree('s', JSON.parse(JSON.stringify(tree.snapshot())))
    expect(restored.findToolCallNode('c')?.nodeId).toBe('A')
    expect(tree.findToolCallNode('c')?.nodeId).toBe('A')
  })

  it('labelling an older node that issued a reused call id does not steal the call id from the newer one', () => {
    const tree = new SessionTree('s')
    tree.append(null, callNode('c', 'A'))
    tree.append(null, callNode('c', 'B'))
    expect(tree.label('A', 'first try').ok).toBe(true)
    const restored = new SessionTree('s', JSON.parse(JSON.stringify(tree.snapshot())))
    expect(restored.findToolCallNode('c')?.nodeId).toBe('B')
    expect(tree.findToolCallNode('c')?.nodeId).toBe('B')
    // So a result without an explicit node goes to the newest call, as after a restore.
    expect(tree.attachToolResult('c', { content: 'out' }).ok && tree.get('B')?.message?.content).toBe('out')
  })

  it('rollback refuses a checkpoint made stale by an earlier rollback', () => {
    const tree = new SessionTree('s')
    const c1 = tree.checkpoint()
    tree.append({ role: 'user', content: 'a' }, { nodeId: 'a' })
    const c2 = tree.checkpoint()
    tree.rollback(c1)
    tree.append({ role: 'user', content: 'b' }, { nodeId: 'b' })
    const before = JSON.stringify(tree.snapshot())
    const result = tree.rollback(c2)
    expect(result.ok).toBe(false)
    expect(JSON.stringify(tree.snapshot())).toBe(before)
    expect(tree.cursor === null || tree.has(tree.cursor)).toBe(true)
  })

  it('rollback refuses a checkpoint made by another tree of the same session', () => {
    const a = new SessionTree('s')
    a.append({ role: 'user', content: 'a' }, { nodeId: 'a' })
    const b = new SessionTree('s', JSON.parse(JSON.stringify(a.snapshot())))
    const foreign = b.checkpoint()
    a.append({ role: 'user', content: 'a2' }, { nodeId: 'a2' })
    expect(a.rollback(foreign).ok).toBe(false)
  })

  it('info() after a rollback equals info() of the same state restored from its snapshot', () => {
    const tree = new SessionTree('s')
    const mark = tree.checkpoint()
    tree.append({ role: 'assistant', content: 'a' }, { usage: { inputTokens: 5 }, cost: 0.25 })
    tree.rollback(mark)
    const fresh = new SessionTree('s', JSON.parse(JSON.stringify(tree.snapshot())))
    expect(tree.info()).toEqual(fresh.info())
  })

  it('labelling a node keeps info().usage identical to that of the restored tree (key order too)', () => {
    const tree = new SessionTree('s')
    tree.append({ role: 'user', content: 'a' }, { nodeId: 'a', usage: { inputTokens: 5 } })
    tree.append({ role: 'user', content: 'b' }, { nodeId: 'b', usage: { cacheReadTokens: 7 } })
    tree.label('a', 'x')
    const restored = new SessionTree('s', JSON.parse(JSON.stringify(tree.snapshot())))
    expect(JSON.stringify(tree.info())).toBe(JSON.stringify(restored.info()))
  })

  it('attachToolResult refuses a non-string error instead of storing an unrestorable node', () => {
    const tree = new SessionTree('s')
    tree.append(null, { type: 'tool_call', content: [{ type: 'tool_call', id: 'c1', name: 'ls', arguments: {} }] })
    const result = tree.attachToolResult('c1', { content: 'x', error: 5 as unknown as string })
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.code).toBe('INVALID_ARGUMENT')
    expect(roundTrip(tree)).toBe(true)
  })

  it('setBranchSummary refuses a non-string model instead of storing an unrestorable summary', () => {
    const tree = new SessionTree('s')
    tree.append({ role: 'user', content: 'x' })
    const result = tree.setBranchSummary('main', 'x', 5 as unknown as string)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.code).toBe('INVALID_ARGUMENT')
    expect(roundTrip(tree)).toBe(true)
  })

  it('metadata with a "__proto__" key is kept or refused, never silently turned into a prototype', () => {
    const tree = new SessionTree('s')
    const metadata = JSON.parse('{"__proto__": {"polluted": 1}, "b": 2}') as Record<string, JsonValue>
    const result = tree.append({ role: 'user', content: 'x' }, { metadata })
    if (!result.ok) {
      expect(result.error.code).toBe('INVALID_ARGUMENT')
      return
    }
    expect(JSON.stringify(result.value.metadata)).toBe(JSON.stringify(metadata))
    const restored = new SessionTree('s', JSON.parse(JSON.stringify(tree.snapshot())))
    for (const t of [tree, restored]) {
      const kept = t.entry(result.value.nodeId)!.metadata as Record<string, unknown>
      expect(kept.polluted).toBeUndefined()
      expect(JSON.stringify(kept)).toBe(JSON.stringify(metadata))
    }
  })

  it('a snapshot is immutable: writing into its history does not move the tree', () => {
    const tree = new SessionTree('s')
    tree.append({ role: 'user', content: 'x' }, { nodeId: 'x' })
    tree.jump(null)
    const before = JSON.stringify(tree.snapshot())
    const snapshot = tree.snapshot() as unknown as { history: { back: { cursor: string }[] } }
    try {
      snapshot.history.back[0]!.cursor = 'bogus'
    } catch {
      // frozen: fine
    }
    expect(JSON.stringify(tree.snapshot())).toBe(before)
  })

  it('a snapshot whose compaction replaces a node off its path is refused, as append refuses it', () => {
    const tree = new SessionTree('s')
    tree.append({ role: 'user', content: 'a' }, { nodeId: 'a' })
    tree.append({ role: 'user', content: 'sum' }, { nodeId: 'c', type: 'compaction', replaces: ['a'] })
    expect(tree.append({ role: 'user', content: 'x' }, { type: 'compaction', replaces: ['ghost'] }).ok).toBe(false)
    const snapshot = JSON.parse(JSON.stringify(tree.snapshot())) as { nodes: [string, ...unknown[]][] }
    ;(snapshot.nodes.find((row) => row[0] === 'c')![6] as { replaces: string[] }).replaces = ['ghost']
    expect(() => new SessionTree('s', snapshot)).toThrow(SessionTreeError)
  })

  it('jump({ branch }, { record: false }) does not record navigation history', () => {
    const tree = new SessionTree('s')
    tree.append({ role: 'user', content: 'x' }, { nodeId: 'x' })
    expect(tree.jump({ branch: 'main' }, { record: false }).ok).toBe(true)
    expect(tree.info().canGoBack).toBe(false)
  })
})
