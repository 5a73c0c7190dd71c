/**
 * `sessionTree.compare` in a real cordis Context with the harness's real
 * `SessionStore`: errors keep the tree's codes, long paths and long texts
 * come back bounded and counted.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@deepseek-ai/dsh-session'
import { afterEach, describe, expect, it } from 'vitest'
import SessionTreeService from '../../../src/index.ts'
import { boundedComparison, COMPARE_MAX_ROWS, COMPARE_MAX_TEXT } from '../../../src/service/compare-wire.ts'
import { compare, SessionTree } from '../../../src/tree/index.ts'
import { LogBuilder } from '../../support/log-builder.ts'
import { remoteFailure } from '../../support/remote-failure.ts'

const roots: string[] = []
let ctx: Context | undefined
afterEach(async () => {
  await ctx?.fiber.dispose()
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

async function boot() {
  const root = mkdtempSync(join(tmpdir(), 'tree-compare-'))
  roots.push(root)
  ctx = new Context()
  ctx.plugin(SessionStore)
  await ctx.plugin(SessionTreeService, { sidecarRoot: root, surfaceMode: 'auto' })
  await new Promise((r) => setTimeout(r, 0))
  return { ctx, service: (ctx as unknown as { sessionTree: SessionTreeService }).sessionTree }
}

describe('sessionTree.compare', () => {
  it('keeps the tree error codes', async () => {
    const { ctx, service } = await boot()
    const session = ctx.sessions.create()
    new LogBuilder(session).userTurn('q1', 'a1')
    const [q1] = (await service.list(session.id)).nodes
    expect((await remoteFailure(service.compare('no-such-session', q1!.nodeId, q1!.nodeId))).code).toBe(
      'SESSION_NOT_FOUND',
    )
    expect((await remoteFailure(service.compare(session.id, q1!.nodeId, 'e999'))).code).toBe('NODE_NOT_FOUND')
    expect((await remoteFailure(service.compare(session.id, '', q1!.nodeId))).code).toBe('INVALID_ARGUMENT')
    expect((await remoteFailure(service.compare(session.id, null as never, q1!.nodeId))).code).toBe('INVALID_ARGUMENT')
    // Too long to be an id at all: malformed, as a move's target is, and named by its argument.
    const huge = await remoteFailure(service.compare(session.id, 'x'.repeat(1_000_000), q1!.nodeId))
    expect(huge.code).toBe('INVALID_ARGUMENT')
    expect(huge.message).toMatch(/^a "x+"… \(1000000 characters\) is longer than \d+ characters$/)
    expect(huge.message.length).toBeLessThan(300)
    expect((await remoteFailure(service.compare(session.id, q1!.nodeId, ' e1'))).message).toMatch(/^b must /)
  })

  it('clips long paths and long texts, and counts what it left out', async () => {
    const { ctx, service } = await boot()
    const session = ctx.sessions.create()
    const log = new LogBuilder(session)
    const long = `start ${'word '.repeat(5_000)}end`
    log.userTurn(long, 'ok')
    for (let i = 0; i < COMPARE_MAX_ROWS; i++) log.userTurn(`q${i}`, `a${i}`)
    const nodes = (await service.list(session.id)).nodes
    const result = await service.compare(session.id, nodes[0]!.nodeId, nodes.at(-1)!.nodeId)
    expect(result.ancestor).toBe(nodes[0]!.nodeId)
    expect(result.pathLengths).toEqual({ a: 0, b: nodes.length - 1 })
    expect(result.rows).toHaveLength(COMPARE_MAX_ROWS)
    expect(result.omittedRows).toBe(nodes.length - 1 - COMPARE_MAX_ROWS)
    const fromStart = await service.compare(session.id, nodes[1]!.nodeId, nodes[2]!.nodeId)
    expect(fromStart.ancestor).toBe(nodes[1]!.nodeId)
    const root = await service.compare(session.id, nodes[2]!.nodeId, nodes[0]!.nodeId)
    expect(root.rows).toHaveLength(2)
    const row = root.rows[0]!
    expect(row.kind).toBe('only_a')
    expect(JSON.stringify(await service.compare(session.id, nodes[0]!.nodeId, nodes[0]!.nodeId)).length).toBeLessThan(
      2_000,
    )
  })

  it('bounds a pair of long texts: each text clipped with its length, long common runs elided with a count', () => {
    const tree = new SessionTree('bounded')
    tree.append({ role: 'user', content: 'q' }, { nodeId: 'q' })
    const long = `start ${'word '.repeat(5_000)}`
    tree.append({ role: 'assistant', content: `${long}calm end` }, { nodeId: 'a', parentId: 'q' })
    tree.append({ role: 'assistant', content: `${long}stormy end` }, { nodeId: 'b', parentId: 'q' })
    const compared = compare(tree, 'a', 'b')
    if (!compared.ok) throw new Error(compared.error.message)
    const bounded = boundedComparison(compared.value)
    const row = bounded.rows[0]!
    if (row.kind !== 'pair' || row.diff.text.kind !== 'words') throw new Error('expected a word-diffed pair')
    expect(row.a.text).toMatch(/… \(25014 characters\)$/)
    expect(row.diff.text.parts.map((part) => part.kind)).toEqual(['same', 'removed', 'added', 'same'])
    expect(row.diff.text.parts[0]).toMatchObject({ kind: 'same', elided: long.length - 200 })
    expect(row.diff.text.parts[1]).toEqual({ kind: 'removed', text: 'calm' })
    expect(JSON.stringify(bounded).length).toBeLessThan(2 * COMPARE_MAX_TEXT + 2_000)
  })
})
