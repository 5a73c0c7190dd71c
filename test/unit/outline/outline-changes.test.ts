/**
 * The Tree tab reads the outline as what changed since its last answer
 * (`SessionTree.outlineChanges`, applied with `applyOutlineChanges`): what it
 * holds after every answer must be the whole outline, node for node, and a
 * move must re-send no node (the point of it: at 100,000 events the whole
 * outline is ~26 MB of JSON).
 */
import { describe, expect, it } from 'vitest'
import { SessionTree, type SessionTreeOutline, type SessionTreeOutlineChanges } from '../../../src/tree/index.ts'
import { applyOutlineChanges, OutlineReader, type OutlineChangesAnswer } from '../../../src/outline/index.ts'
import { OutlineTracker } from '../../../src/tree/outline-changes.ts'
import { Nodes } from '../../../src/tree/nodes.ts'
import type { StoredEntry } from '../../../src/tree/entry.ts'
import { assistant, user, value } from '../../support/messages.ts'

/** A reader as the Tree tab is one: the outline and version it holds, kept current from each answer. */
function reader(start: SessionTree) {
  let tree = start
  let held: SessionTreeOutline | undefined
  let version: string | undefined
  return {
    /** Read once; returns the nodes the answer carried. */
    read(): number {
      const answer = tree.outlineChanges(version ?? null)
      const next = applyOutlineChanges(held, version, answer)
      if (!next) throw new Error('the answer does not apply')
      held = next
      version = answer.version
      // Plain data, as off the wire.
      expect(JSON.parse(JSON.stringify(held))).toEqual(JSON.parse(JSON.stringify(tree.outline())))
      return answer.nodes.length
    },
    get version() {
      return version
    },
    /** Read another tree from now on (a restarted host serves a restored one). */
    set tree(next: SessionTree) {
      tree = next
    },
  }
}

/** Plain data, as off the wire. */
const plain = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T

function conversation(turns: number) {
  const tree = new SessionTree('s')
  const ids: string[] = []
  for (let i = 0; i < turns; i++) {
    ids.push(value(tree.append(user(`question ${i}`))).nodeId)
    ids.push(value(tree.append(assistant(`answer ${i}`))).nodeId)
  }
  return { tree, ids }
}

/** A conversation of `turns` turns and a reader that has read it once. */
function readFrom(turns: number) {
  const { tree, ids } = conversation(turns)
  const r = reader(tree)
  r.read()
  return { tree, ids, r }
}

/** A whole first answer held, then the answer after a label on the `at`th node. */
function heldThenLabeled(at: number) {
  const { tree, ids } = conversation(3)
  const first = tree.outlineChanges(null)
  const held = applyOutlineChanges(undefined, undefined, first)!
  value(tree.label(ids[at]!, 'x'))
  return { tree, ids, first, held, second: tree.outlineChanges(first.version) }
}

describe('outlineChanges', () => {
  it('a first read carries every node; a read after nothing changed carries none', () => {
    const { tree } = conversation(5)
    const r = reader(tree)
    expect(r.read()).toBe(10)
    expect(r.read()).toBe(0)
  })

  it('a jump, back and forward re-send no node; the position still moves', () => {
    const { tree, ids, r } = readFrom(50)
    value(tree.jump(ids[10]!))
    expect(r.read()).toBe(0)
    value(tree.back())
    expect(r.read()).toBe(0)
    value(tree.forward())
    expect(r.read()).toBe(0)
    value(tree.jump(null))
    expect(r.read()).toBe(0)
  })

  it('a label re-sends its node; an append the new node and its parent (whose fork count moved)', () => {
    const { tree, ids, r } = readFrom(20)
    value(tree.label(ids[3]!, 'here'))
    expect(r.read()).toBe(1)
    value(tree.label(ids[3]!, null))
    expect(r.read()).toBe(1)
    value(tree.jump(ids[5]!))
    r.read()
    value(tree.append(assistant('another answer')))
    expect(r.read()).toBe(2)
  })

  it('a fork and a branch summary keep the held outline whole', () => {
    const { tree, ids, r } = readFrom(10)
    value(tree.fork(ids[4]!, 'alt'))
    r.read()
    value(tree.append(user('on alt')))
    r.read()
    value(tree.setBranchSummary('alt', 'what alt did'))
    r.read()
    value(tree.jump({ branch: 'main' }))
    r.read()
  })

  it('a rollback that takes nodes and appends others in their place is read right', () => {
    const { tree, r } = readFrom(5)
    const checkpoint = tree.checkpoint()
    value(tree.append(user('taken back')))
    value(tree.append(assistant('taken back too')))
    r.read()
    value(tree.rollback(checkpoint))
    expect(r.read()).toBe(1) // the old tail's parent: its fork count fell back
    value(tree.append(user('instead')))
    r.read()
  })

  it("another tree's or a made-up version gets every node", () => {
    const { tree } = conversation(3)
    const other = conversation(3).tree
    const theirs = other.outlineChanges(null).version
    for (const since of [theirs, 'nonsense', `${theirs.split(':')[0]}:999`]) {
      const answer = tree.outlineChanges(since)
      expect(answer.base).toBeNull()
      expect(answer.nodes).toHaveLength(6)
    }
  })

  it('an answer for another base than the one held does not apply', () => {
    const { tree, ids, first, held, second } = heldThenLabeled(0)
    value(tree.label(ids[1]!, 'y'))
    const third = tree.outlineChanges(second.version)
    expect(applyOutlineChanges(held, first.version, third)).toBeUndefined()
    expect(applyOutlineChanges(held, first.version, second)).toBeDefined()
  })

  it('a tool result folded into its call re-sends the call node', () => {
    const tree = new SessionTree('s')
    value(tree.append(user('list files')))
    const call = { type: 'tool_call' as const, id: 'c1', name: 'bash', arguments: { cmd: 'ls' } }
    value(tree.append(assistant(''), { content: [call] }))
    const node = value(tree.append(null, { type: 'tool_call', content: [call] })).nodeId
    const r = reader(tree)
    r.read()
    value(tree.attachToolResult('c1', { content: 'a.txt' }))
    const answer = tree.outlineChanges(r.version!)
    expect(answer.nodes.map((n) => n.nodeId)).toEqual([node])
    expect(r.read()).toBe(1)
  })

  it('a fork from an inner node re-sends that node with its new fork count, and only it and the new node', () => {
    const { tree, ids, r } = readFrom(10)
    value(tree.jump(ids[4]!))
    r.read()
    const child = value(tree.append(user('a second child of ids[4]'))).nodeId
    const answer = tree.outlineChanges(r.version!)
    expect(answer.changedAt).toEqual([4, 20])
    expect(answer.nodes.map((n) => [n.nodeId, n.forkCount])).toEqual([
      [ids[4], 2],
      [child, 0],
    ])
    r.read()
  })

  it('a rollback at the end takes back nodes and a label: the count shrinks, the old entry is re-sent', () => {
    const { tree, ids, r } = readFrom(5)
    const checkpoint = tree.checkpoint()
    value(tree.label(ids[2]!, 'kept?'))
    value(tree.append(user('taken back')))
    r.read()
    value(tree.rollback(checkpoint))
    const answer = tree.outlineChanges(r.version!)
    expect(answer.nodeCount).toBe(10)
    // The label's node (its entry is the old one again) and the old tail (its fork count fell back).
    expect(answer.changedAt).toEqual([2, 9])
    expect(answer.nodes[0]!.label).toBeUndefined()
    r.read()
  })

  it('a rollback to fewer nodes than held, then as many new ones, re-sends every new one', () => {
    const { tree } = conversation(3)
    const r = reader(tree)
    const checkpoint = tree.checkpoint()
    value(tree.append(user('old a')))
    value(tree.append(assistant('old b')))
    r.read()
    value(tree.rollback(checkpoint))
    value(tree.append(user('new a')))
    value(tree.append(assistant('new b')))
    const answer = tree.outlineChanges(r.version!)
    expect(answer.changedAt).toEqual([6, 7])
    expect(answer.nodes.map((n) => n.summary)).toEqual(['new a', 'new b'])
    r.read()
  })

  it('a restarted host (a tree restored from its snapshot) answers a version of the old one with every node', () => {
    const { tree, ids, r } = readFrom(4)
    const restored = new SessionTree('s', tree.snapshot())
    value(restored.label(ids[1]!, 'after the restart'))
    const answer = restored.outlineChanges(r.version!)
    expect(answer.base).toBeNull()
    expect(answer.nodes).toHaveLength(8)
    r.tree = restored
    expect(r.read()).toBe(8)
    expect(r.read()).toBe(0)
  })

  it('two readers at different versions of one tree each get what they lack', () => {
    const { tree, ids } = conversation(5)
    const a = reader(tree)
    const b = reader(tree)
    a.read()
    b.read()
    value(tree.label(ids[0]!, 'one'))
    expect(a.read()).toBe(1)
    value(tree.label(ids[1]!, 'two'))
    expect(a.read()).toBe(1)
    expect(b.read()).toBe(2)
  })

  it('unchanged nodes keep their objects; changed ones are the answer’s', () => {
    const { first, held, second } = heldThenLabeled(1)
    const next = applyOutlineChanges(held, first.version, second)!
    expect(next.nodes[0]).toBe(held.nodes[0])
    expect(next.nodes[1]).toBe(second.nodes[0])
    expect(next.nodes[1]).not.toBe(held.nodes[1])
  })
})

describe('OutlineTracker', () => {
  const entry = (nodeId: string): StoredEntry =>
    ({ nodeId, type: 'message', message: { role: 'user', content: nodeId } }) as unknown as StoredEntry

  it('a lane change alone marks the node changed', () => {
    const nodes = new Nodes()
    const root = nodes.link(entry('a'), undefined, '')
    nodes.link(entry('b'), root, '')
    const tracker = new OutlineTracker()
    const first = tracker.changes(nodes, null)
    expect(first.base).toBeNull()
    expect(first.recs).toHaveLength(2)
    nodes.setLane(root, 'main')
    const second = tracker.changes(nodes, first.version)
    expect(second.changedAt).toEqual([0])
    expect(second.version).not.toBe(first.version)
    // Nothing changed since: no position, and the same version.
    const third = tracker.changes(nodes, second.version)
    expect(third.changedAt).toEqual([])
    expect(third.version).toBe(second.version)
  })

  it('lists the live records: a node taken back and linked again with the same entry is the new record', () => {
    const nodes = new Nodes()
    const root = nodes.link(entry('a'), undefined, '')
    const b = nodes.link(entry('b'), root, '')
    const tracker = new OutlineTracker()
    const first = tracker.changes(nodes, null)
    nodes.unlink(b)
    const again = nodes.link(b.entry, root, '')
    tracker.changes(nodes, first.version)
    expect(tracker.changes(nodes, null).recs).toEqual([root, again])
    expect(tracker.changes(nodes, null).recs[1]).toBe(again)
  })

  it('a version it has not given yet, or of another tracker, gets every node', () => {
    const nodes = new Nodes()
    nodes.link(entry('a'), undefined, '')
    const tracker = new OutlineTracker()
    const { version } = tracker.changes(nodes, null)
    const epoch = version.slice(0, version.lastIndexOf(':'))
    for (const since of [
      `${epoch}:99`,
      `${epoch}:-1`,
      `${epoch}:1.5`,
      `${epoch}:`,
      new OutlineTracker().changes(nodes, null).version,
    ])
      expect(tracker.changes(nodes, since).base, since).toBeNull()
    expect(tracker.changes(nodes, version).base).toBe(version)
  })
})

describe('applyOutlineChanges refuses what does not fit', () => {
  const { tree, ids } = conversation(3)
  const first = tree.outlineChanges(null)
  const held = applyOutlineChanges(undefined, undefined, first)!
  value(tree.label(ids[1]!, 'x'))
  value(tree.append(user('q3')))
  const delta = tree.outlineChanges(first.version)

  it('the delta as the tree gave it applies', () => {
    expect(delta.changedAt).toEqual([1, 5, 6])
    expect(plain(applyOutlineChanges(held, first.version, delta))).toEqual(plain(tree.outline()))
  })

  const cases: Array<[string, Partial<SessionTreeOutlineChanges>]> = [
    ['positions out of order', { changedAt: [5, 1, 6] }],
    ['a position twice', { changedAt: [1, 1, 6] }],
    ['a position past the count', { changedAt: [1, 5, 7] }],
    ['a hole past what is held', { changedAt: [1, 5, 7], nodeCount: 8 }],
    ['a negative position', { changedAt: [-1, 5, 6] }],
    ['a fractional position', { changedAt: [1, 5.5, 6] }],
    ['fewer nodes than positions', { nodes: delta.nodes.slice(1) }],
    ['a count the positions do not reach', { nodeCount: 8 }],
    ['a fractional count', { nodeCount: 6.5 }],
    ['another base', { base: 'someone-else:1' }],
  ]
  for (const [name, change] of cases)
    it(name, () => {
      expect(applyOutlineChanges(held, first.version, { ...delta, ...change })).toBeUndefined()
    })

  it('a delta with nothing held', () => {
    expect(applyOutlineChanges(undefined, undefined, delta)).toBeUndefined()
  })

  it('a whole answer of another length than its count', () => {
    const whole = tree.outlineChanges(null)
    expect(applyOutlineChanges(held, first.version, whole)).toBeDefined()
    expect(applyOutlineChanges(undefined, undefined, { ...whole, nodeCount: whole.nodeCount + 1 })).toBeUndefined()
    expect(applyOutlineChanges(undefined, undefined, { ...whole, changedAt: [0] })).toBeUndefined()
  })
})

describe('OutlineReader', () => {
  type Failure = { readonly code: string; readonly message: string }
  /** An `ask` over `tree` whose answers `spoil` may change; it records each `since` asked. */
  function askOver(tree: SessionTree, spoil: (a: SessionTreeOutlineChanges) => SessionTreeOutlineChanges = (a) => a) {
    const remote = {
      asked: [] as Array<string | null>,
      spoil,
      async ask(since: string | null): Promise<OutlineChangesAnswer<Failure>> {
        remote.asked.push(since)
        return { ok: true, value: plain(remote.spoil(tree.outlineChanges(since))) }
      },
    }
    return remote
  }

  it('reads whole first, then only what changed, and holds the whole outline', async () => {
    const { tree, ids } = conversation(4)
    const remote = askOver(tree)
    const outlines = new OutlineReader()
    const first = await outlines.read(remote.ask)
    expect(first?.ok && plain(first.value)).toEqual(plain(tree.outline()))
    value(tree.label(ids[2]!, 'here'))
    const second = await outlines.read(remote.ask)
    expect(second?.ok && plain(second.value)).toEqual(plain(tree.outline()))
    expect(remote.asked).toEqual([null, expect.any(String)])
  })

  it('takes answers in process too (dsh-TUI asks the service synchronously)', async () => {
    const { tree, ids } = conversation(3)
    const asked: Array<string | null> = []
    const ask = (since: string | null): OutlineChangesAnswer<Failure> => {
      asked.push(since)
      return { ok: true, value: tree.outlineChanges(since) }
    }
    const outlines = new OutlineReader()
    await outlines.read(ask)
    value(tree.jump(ids[0]!))
    const after = await outlines.read(ask)
    expect(after?.ok && plain(after.value)).toEqual(plain(tree.outline()))
    expect(asked).toEqual([null, expect.any(String)])
  })

  it('a delta that does not fit is read again whole; a whole answer that does not fit is undefined, never a tree', async () => {
    const { tree, ids } = conversation(4)
    const remote = askOver(tree)
    const outlines = new OutlineReader()
    await outlines.read(remote.ask)
    value(tree.label(ids[2]!, 'here'))
    remote.spoil = (a) => (a.base === null ? a : { ...a, changedAt: a.changedAt.map((at) => at + 100) })
    const again = await outlines.read(remote.ask)
    expect(again?.ok && plain(again.value)).toEqual(plain(tree.outline()))
    expect(remote.asked.slice(1)).toEqual([expect.any(String), null])

    remote.spoil = (a) => ({ ...a, base: null, changedAt: [], nodes: a.nodes.slice(1), nodeCount: tree.nodeCount })
    value(tree.label(ids[3]!, 'there'))
    expect(await outlines.read(remote.ask)).toBeUndefined()
    // What it held is dropped with the bad answer: the next read starts over whole.
    remote.spoil = (a) => a
    remote.asked.length = 0
    const healed = await outlines.read(remote.ask)
    expect(healed?.ok && plain(healed.value)).toEqual(plain(tree.outline()))
    expect(remote.asked).toEqual([null])
  })

  it('a failed call is passed through and keeps what it held', async () => {
    const { tree, ids } = conversation(2)
    const remote = askOver(tree)
    const outlines = new OutlineReader()
    await outlines.read(remote.ask)
    const failing = async (): Promise<OutlineChangesAnswer<Failure>> => ({
      ok: false,
      error: { code: 'SESSION_NOT_FOUND', message: 'gone' },
    })
    expect(await outlines.read(failing)).toMatchObject({ ok: false, error: { code: 'SESSION_NOT_FOUND' } })
    value(tree.label(ids[0]!, 'x'))
    remote.asked.length = 0
    const after = await outlines.read(remote.ask)
    expect(after?.ok && plain(after.value)).toEqual(plain(tree.outline()))
    expect(remote.asked).toEqual([expect.any(String)])
  })
})
