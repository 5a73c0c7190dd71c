/** The compare view's pure model (src/client/compare/model.ts), fed by the real tree compare and the service's bounds. */
import { describe, expect, it } from 'vitest'
import { compare, SessionTree } from '../../../src/tree/index.ts'
import { boundedComparison } from '../../../src/service/compare-wire.ts'
import {
  compareKey,
  compareTargets,
  defaultPair,
  displayRows,
  moveFocus,
  targetKey,
} from '../../../src/client/compare/model.ts'
import { pickRow } from '../../../src/client/compare/CompareWith.tsx'

function comparison() {
  const t = new SessionTree('client-compare')
  t.append({ role: 'user', content: 'q' }, { nodeId: 'q' })
  t.append({ role: 'assistant', content: 'same start' }, { nodeId: 'x', parentId: 'q' })
  t.append({ role: 'user', content: 'go on' }, { nodeId: 'a1', parentId: 'x' })
  t.append({ role: 'assistant', content: 'the sea is calm' }, { nodeId: 'a2', parentId: 'a1' })
  t.append({ role: 'user', content: 'go on' }, { nodeId: 'b1', parentId: 'x' })
  t.append({ role: 'assistant', content: 'the sea is stormy' }, { nodeId: 'b2', parentId: 'b1' })
  t.append({ role: 'user', content: 'more' }, { nodeId: 'b3', parentId: 'b2' })
  const c = compare(t, 'a2', 'b3')
  if (!c.ok) throw new Error(c.error.message)
  return boundedComparison(c.value)
}

describe('compare view model', () => {
  it('offers the selected node, the cursor and each branch head, and pairs A with another node', () => {
    const targets = compareTargets(
      {
        cursor: 'e5',
        branches: [
          { name: 'main', headId: 'e5' },
          { name: 'alt', headId: 'e9' },
        ],
      },
      'e2',
    )
    expect(targets.map(targetKey)).toEqual(['selected:e2', 'cursor:e5', 'branch:main', 'branch:alt'])
    expect(defaultPair(targets)!.map(targetKey)).toEqual(['selected:e2', 'cursor:e5'])
    const noSelection = compareTargets(
      {
        cursor: 'e5',
        branches: [
          { name: 'main', headId: 'e5' },
          { name: 'alt', headId: 'e9' },
        ],
      },
      null,
    )
    expect(defaultPair(noSelection)!.map(targetKey)).toEqual(['cursor:e5', 'branch:alt'])
    expect(
      defaultPair(compareTargets({ cursor: 'e1', branches: [{ name: 'main', headId: 'e1' }] }, null)),
    ).toBeUndefined()
  })

  it('"Compare with…": the picked node is B by default; a pick takes another row, once', () => {
    const targets = compareTargets({ cursor: 'e5', branches: [{ name: 'main', headId: 'e5' }] }, 'e2', 'e9')
    expect(targets.map(targetKey)).toEqual(['selected:e2', 'picked:e9', 'cursor:e5', 'branch:main'])
    expect(defaultPair(targets)!.map(targetKey)).toEqual(['selected:e2', 'picked:e9'])
    expect(pickRow({ from: 'e2' }, 'e9')).toEqual({ from: 'e2', to: 'e9' })
    expect(pickRow({ from: 'e2' }, 'e2')).toBeUndefined()
    expect(pickRow({ from: 'e2', to: 'e9' }, 'e7')).toBeUndefined()
    expect(pickRow(undefined, 'e7')).toBeUndefined()
  })

  it('left cells hold common and removed words, right ones common and added; the divergence is the first changed row', () => {
    const display = displayRows(comparison())
    expect(display.rows.map((row) => row.kind)).toEqual(['same', 'changed', 'only_b'])
    expect(display.divergence).toBe(1)
    expect(display.changes).toEqual([1, 2])
    const changed = display.rows[1]!
    expect(changed.left!.lines).toEqual([
      [
        { text: 'the sea is ', mark: 'same' },
        { text: 'calm', mark: 'removed' },
      ],
    ])
    expect(changed.right!.lines).toEqual([
      [
        { text: 'the sea is ', mark: 'same' },
        { text: 'stormy', mark: 'added' },
      ],
    ])
    expect(display.rows[2]!.left).toBeUndefined()
    expect(display.rows[2]!.right!.lines).toEqual([[{ text: 'more', mark: 'added' }]])
  })

  it('moves the focus by keys: rows, pages, changes, ends', () => {
    const display = displayRows(comparison())
    expect(compareKey('ArrowDown')).toBe('down')
    expect(compareKey('n')).toBe('nextChange')
    expect(compareKey('n', { ctrl: true })).toBeUndefined()
    expect(compareKey('Escape')).toBe('close')
    expect(moveFocus(display, 0, 'down', 5)).toBe(1)
    expect(moveFocus(display, 2, 'down', 5)).toBe(2)
    expect(moveFocus(display, 0, 'nextChange', 5)).toBe(1)
    expect(moveFocus(display, 1, 'nextChange', 5)).toBe(2)
    expect(moveFocus(display, 2, 'nextChange', 5)).toBe(2)
    expect(moveFocus(display, 2, 'previousChange', 5)).toBe(1)
    expect(moveFocus(display, 0, 'last', 5)).toBe(2)
    expect(moveFocus(display, 2, 'pageUp', 5)).toBe(0)
  })
})
