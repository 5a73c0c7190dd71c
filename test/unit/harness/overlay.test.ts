/**
 * A tree's marks have one shape (`TreeMarks`): `SessionTree.marks()` reads them, `withMarks` lays them, and the
 * sidecar's folded overlay (`harness/overlay.ts`) is those marks plus its tree-only nodes, under the same names.
 */
import { describe, expect, it } from 'vitest'
import { checkOverlay, foldOverlay, OVERLAY_VERSION } from '../../../src/harness/overlay.ts'
import { SessionTree } from '../../../src/tree/session-tree.ts'
import { smallTree } from '../../support/client-fixtures.ts'
import { assistant, user, value } from '../../support/messages.ts'

/** smallTree with a side branch, a label, a branch summary, a selection and history in both directions. */
function markedTree(): SessionTree {
  const { tree, ids } = smallTree()
  value(tree.fork(ids.a1, 'side'))
  value(tree.append(user('side question')))
  value(tree.append(assistant('side answer')))
  value(tree.label(ids.a1, 'first answer'))
  value(tree.setBranchSummary('side', 'The side question, answered.', 'fake-model'))
  value(tree.jump(ids.a2))
  value(tree.back())
  value(tree.forward())
  value(tree.select(ids.q1))
  return tree
}

describe('one shape for the marks of a tree', () => {
  it('withMarks(marks()) gives the same tree, and the marks are all there', () => {
    const tree = markedTree()
    const marks = tree.marks()
    expect(marks.branches.map(([name]) => name)).toEqual(['main', 'side'])
    expect(Object.values(marks.labels)).toEqual(['first answer'])
    expect(marks.summaries.map((s) => s.branch)).toEqual(['side'])
    expect(marks.history.back.length).toBeGreaterThan(0)
    expect(marks.selectedNodeId).not.toBeNull()
    expect(value(tree.withMarks(marks)).snapshot()).toEqual(tree.snapshot())
  })

  it('withMarks lays other marks over the same nodes and takes nothing else from its argument', () => {
    const tree = markedTree()
    const other = markedTree()
    value(other.jump(other.list()[0]!.nodeId))
    value(other.label(other.list()[0]!.nodeId, 'root'))
    // A value with more than marks (the overlay has `version`, a snapshot `nodes`) lends only its marks.
    const laid = value(tree.withMarks({ ...other.marks(), version: 99, nodes: [], extra: 'not a mark' } as never))
    expect(laid.marks()).toEqual(other.marks())
    expect(laid.snapshot()).not.toHaveProperty('extra')
    expect(laid.list().map((n) => n.nodeId)).toEqual(tree.list().map((n) => n.nodeId))
  })

  it("the folded overlay is the tree's marks plus its tree-only nodes, and reads back as written", () => {
    const tree = markedTree()
    const overlay = foldOverlay(tree, new Map())
    const { version, treeOnly, adoptions, ...marks } = overlay
    expect(version).toBe(OVERLAY_VERSION)
    expect(treeOnly).toEqual([])
    expect(adoptions).toEqual([])
    expect(marks).toEqual(tree.marks())
    expect(value(checkOverlay(JSON.parse(JSON.stringify(overlay))))).toEqual(overlay)
    expect(value(tree.withMarks(overlay)).snapshot()).toEqual(tree.snapshot())
  })

  it('an overlay under the old names (version 1) is refused with its reason, as any other', () => {
    const tree = markedTree()
    const { branches, activeBranch, selectedNodeId, ...rest } = foldOverlay(tree, new Map())
    const old = { ...rest, version: 1, heads: branches, active: activeBranch, selected: selectedNodeId }
    const refused = checkOverlay(JSON.parse(JSON.stringify(old)))
    expect(refused.ok).toBe(false)
    if (!refused.ok) expect(refused.error).toMatchObject({ code: 'INVALID_ARGUMENT', message: /version 1 is not 2/ })
    const renamedOnly = checkOverlay({ ...JSON.parse(JSON.stringify(old)), version: OVERLAY_VERSION })
    expect(renamedOnly.ok).toBe(false)
    if (!renamedOnly.ok) expect(renamedOnly.error.message).toMatch(/overlay\.branches must be an array/)
  })
})
