import { describe, expect, it } from 'vitest'
import { SessionTree } from '../../../src/tree/session-tree.ts'
import { runCommand } from '../../../src/tree/command.ts'
import { describeBare, landing } from '../../../src/tree/move.ts'
import { assistant, user, value } from '../../support/messages.ts'

/** u → a (asks for tool call c1, no result yet); the cursor is at a. */
function openExchange() {
  const tree = new SessionTree('s')
  const u = value(tree.append(user('list files'))).nodeId
  const a = value(
    tree.append(assistant(''), { content: [{ type: 'tool_call', id: 'c1', name: 'bash', arguments: { cmd: 'ls' } }] }),
  ).nodeId
  return { tree, u, a }
}

describe('a move as a value (tree/move.ts, tree/command.ts)', () => {
  it('a back that lands inside an open tool exchange ends before it when the move snaps, and says where it was', () => {
    const { tree, u, a } = openExchange()
    value(tree.jump(u))
    const snapped = value(runCommand(tree, { kind: 'move', move: { kind: 'back' }, snaps: true }))
    expect(snapped.destination).toBe(u)
    expect(snapped.snappedFrom).toBe(a)
    expect(tree.cursor).toBe(u)
    // The snap is not a move of its own: forward still undoes the back.
    expect(tree.navigation().forward.length).toBe(1)
  })

  it('without snapping, a back lands where it was recorded', () => {
    const { tree, u, a } = openExchange()
    value(tree.jump(u))
    const moved = value(runCommand(tree, { kind: 'move', move: { kind: 'back' } }))
    expect(moved).toMatchObject({ destination: a })
    expect(moved.snappedFrom).toBeUndefined()
  })

  it('a named move runs on its landing: snapped to the end of the exchange, the node asked for kept', () => {
    const { tree, u, a } = openExchange()
    const at = value(landing(tree, { kind: 'jump', nodeId: a }, true))
    expect(at).toEqual({ target: u, snappedFrom: a })
    const moved = value(runCommand(tree, { kind: 'move', move: { kind: 'jump', nodeId: a }, at, snaps: true }))
    expect(moved).toMatchObject({ destination: u, snappedFrom: a })
    expect(moved.view).toMatchObject({ cursor: u })
  })

  it('a fork answers with its view; a fork at a missing node fails with NODE_NOT_FOUND', () => {
    const { tree, u } = openExchange()
    const forked = value(runCommand(tree, { kind: 'move', move: { kind: 'fork', nodeId: u, branch: 'idea' } }))
    expect(forked.view).toMatchObject({ cursor: u, branch: 'idea' })
    expect(tree.activeBranch).toBe('idea')
    const missing = runCommand(tree, { kind: 'move', move: { kind: 'fork', nodeId: 'nope', branch: 'other' } })
    expect(missing.ok ? undefined : missing.error.code).toBe('NODE_NOT_FOUND')
  })

  it('labels and summaries are commands too, each answering with what it recorded', () => {
    const { tree, u } = openExchange()
    expect(value(runCommand(tree, { kind: 'label', nodeId: u, label: 'start' })).label).toBe('start')
    const written = value(runCommand(tree, { kind: 'summary-text', branch: 'main', text: 'the main line' }))
    expect(written).toMatchObject({ branch: 'main', summary: 'the main line' })
    const drafted = value(runCommand(tree, { kind: 'summary', summary: { ...written, summary: 'redrafted' } }))
    expect(drafted.summary).toBe('redrafted')
    expect(tree.summaries().find((s) => s.branch === 'main')?.summary).toBe('redrafted')
  })

  it('reads in words', () => {
    expect(describeBare({ kind: 'jump', nodeId: null })).toBe('jump to the start')
    expect(describeBare({ kind: 'fork', nodeId: 'e3', branch: 'alt' })).toBe('fork branch "alt" at e3')
  })
})
