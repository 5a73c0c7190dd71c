import { describe, expect, it } from 'vitest'
import { SessionTree } from '../../../src/tree/index.ts'
import type { SessionTreeOutline } from '../../../src/tree/types.ts'
import { applyOutlineChanges, indexTree, type TreeIndex } from '../../../src/outline/index.ts'
import { assistant, user, value } from '../../support/messages.ts'

/** One exchange whose request is tool-only: the panel draws the request as its call's row. */
function toolExchange(tree: SessionTree, callId: string, answered = true): { request: string; call: string } {
  const call = { type: 'tool_call' as const, id: callId, name: 'read', arguments: { file_path: `${callId}.txt` } }
  const request = value(tree.append(assistant(''), { content: [call] })).nodeId
  const node = value(tree.append(null, { type: 'tool_call', content: [call] })).nodeId
  if (answered) value(tree.attachToolResult(callId, { content: `contents of ${callId}` }))
  return { request, call: node }
}

/** The outline as the Tree tab holds it: merged from `outlineChanges`, unchanged nodes keeping their objects. */
class HeldOutline {
  outline: SessionTreeOutline | undefined
  private version: string | undefined
  private readonly tree: SessionTree
  constructor(tree: SessionTree) {
    this.tree = tree
  }
  read(): SessionTreeOutline {
    const changes = this.tree.outlineChanges(this.version ?? null)
    const merged = applyOutlineChanges(this.outline, this.version, changes)
    if (!merged) throw new Error('the changes did not apply')
    this.outline = merged
    this.version = changes.version
    return merged
  }
}

describe('the outline index (outline/tree-index.ts)', () => {
  it('an index built from the previous one equals a full build, after every jump, label, fork and append', () => {
    const tree = new SessionTree('s')
    const q1 = value(tree.append(user('first question'))).nodeId
    const first = toolExchange(tree, 'c1')
    const a1 = value(tree.append(assistant('first answer'))).nodeId
    value(tree.append(user('second question')))
    const second = toolExchange(tree, 'c2')
    const a2 = value(tree.append(assistant('second answer'))).nodeId
    value(tree.append(user('third question')))
    const third = toolExchange(tree, 'c3', false)
    value(tree.jump(a2))
    const held = new HeldOutline(tree)
    let index = indexTree(held.read())
    expect(index.absorbed).toEqual(new Set([first.request, second.request, third.request]))
    let reused = 0
    const steps: [string, () => unknown][] = [
      // The cursor on a request: it is drawn as its own row again.
      ['jump to a request', () => value(tree.jump(first.request))],
      ['jump to its call', () => value(tree.jump(first.call))],
      ['label a request', () => value(tree.label(second.request, 'look here'))],
      ['unlabel it', () => value(tree.label(second.request, null))],
      ['label an answer', () => value(tree.label(a1, 'answer one'))],
      ['jump back to the tip', () => value(tree.jump(a2))],
      ['a late result', () => value(tree.attachToolResult('c3', { content: 'late' }))],
      ['fork at the first answer', () => value(tree.fork(a1, 'side'))],
      ['append on the fork', () => value(tree.append(user('side question')))],
      ['jump to the root question', () => value(tree.jump(q1))],
      ['back', () => value(tree.back())],
      ['forward', () => value(tree.forward())],
      ['jump before the first node', () => value(tree.jump(null))],
    ]
    for (const [what, step] of steps) {
      step()
      const view = held.read()
      const next = indexTree(view, index)
      expect(next, what).toEqual(indexTree(view))
      if (next.children === index.children) reused++
      index = next
    }
    // Only the append changed the tree's shape (a fork names a branch at an existing node); every other step reused it.
    expect(reused).toBe(steps.length - 1)
  })

  it('a view of other nodes (another tree, a node re-parented) is built whole', () => {
    const tree = new SessionTree('s')
    value(tree.append(user('q')))
    const a = value(tree.append(assistant('a'))).nodeId
    const previous: TreeIndex = indexTree(tree.outline())
    const view = tree.outline()
    const moved = { ...view, nodes: view.nodes.map((node) => (node.nodeId === a ? { ...node, parentId: null } : node)) }
    const next = indexTree(moved, previous)
    expect(next).toEqual(indexTree(moved))
    expect(next.children).not.toBe(previous.children)
    expect(next.children.get(null)).toHaveLength(2)
  })
})
