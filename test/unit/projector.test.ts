import { describe, expect, it } from 'vitest'
import { SessionTree } from '../../src/tree/index.ts'
import { SessionProjector } from '../../src/harness/projector.ts'
import { LogBuilder } from '../support/log-builder.ts'

describe('projector smoke', () => {
  it('projects a real log', () => {
    const log = new LogBuilder().userTurn('q1', 'a1', { context: 'ctx' }).userTurn('q2', 'a2', { tools: [{ name: 'read', args: { file_path: 'x' }, result: 'file text' }] })
    const projector = new SessionProjector(new SessionTree('test-session'))
    for (const e of log.events) projector.project(e)
    expect(projector.quarantine).toEqual([])
    const tree = projector.tree
    expect(tree.messages().map((m) => m.content)).toEqual(['q1', 'ctx', 'a1', 'q2', '', 'file text', 'a2'])
    console.log(tree.list().map((n) => `${n.nodeId} ${n.type} ${n.parentId} ${n.summary}`).join('\n'))
  })
})
