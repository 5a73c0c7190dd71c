/**
 * The invariant companion with the real `@deepseek-ai/dsh-invariants`
 * registry: the tree and the model-visible history must agree before every
 * committed event, and a disagreement vetoes the append.
 */
import { Context } from '@deepseek-ai/cordis'
import InvariantRegistry, { InvariantError } from '@deepseek-ai/dsh-invariants'
import SessionStore from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import SessionTreeService from '../../../src/index.ts'
import * as invariant from '../../../src/invariant.ts'
import { LogBuilder } from '../../support/log-builder.ts'

async function boot() {
  const ctx = new Context()
  ctx.plugin(InvariantRegistry)
  ctx.plugin(SessionStore)
  ctx.plugin(SessionTreeService, { surfaceMode: 'auto' })
  await ctx.plugin(invariant)
  await new Promise((r) => setTimeout(r, 10))
  return ctx as Context & { sessionTree: SessionTreeService }
}

describe('invariant companion', () => {
  it('passes on a real conversation with tools and injected context', async () => {
    const ctx = await boot()
    const session = ctx.sessions.create()
    expect(() =>
      new LogBuilder(session)
        .userTurn('q1', 'a1', { context: 'ctx' })
        .userTurn('q2', 'a2', {
          tools: [
            { name: 'read', args: {}, result: 'r1' },
            { name: 'read', args: { x: 1 }, result: 'r2' },
          ],
        })
        .userTurn('q3', 'a3'),
    ).not.toThrow()
    expect(ctx.sessionTree.sync.get(session.id)?.projector.tree.nodeCount).toBe(10)
  })

  it('vetoes the next append when the tree falls out of step with the model history', async () => {
    const ctx = await boot()
    const session = ctx.sessions.create()
    const log = new LogBuilder(session).userTurn('q1', 'a1')
    const projector = ctx.sessionTree.sync.get(session.id)!.projector
    ;(projector.surfaceEntries as unknown as unknown[]).pop()
    let error: unknown
    try {
      log.userTurn('q2', 'a2')
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(InvariantError)
    expect(String(error)).toMatch(/surface mirror/)
  })
})
