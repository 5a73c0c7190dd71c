/**
 * Each session's surface is chosen once (`src/surface/choice.ts`) and chosen
 * again only when an object it was chosen for changes: the session object,
 * its live agent, or the tree projector. The harness objects here are plain
 * stand-ins (the choice reads only whether an agent exists and whether the
 * session has the native API); the service half runs on the real harness
 * `SessionStore` in a real cordis Context.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@deepseek-ai/dsh-session'
import { afterEach, describe, expect, it } from 'vitest'
import SessionTreeService from '../../../src/index.ts'
import { SessionTree } from '../../../src/tree/session-tree.ts'
import { SessionProjector } from '../../../src/harness/projector.ts'
import type { LiveAgent, LiveSession } from '../../../src/harness/live.ts'
import { SurfaceChoices } from '../../../src/surface/choice.ts'
import { StockSwitcher } from '../../../src/surface/stock.ts'
import type { SurfaceModeSetting } from '../../../src/surface/mode.ts'
import { LogBuilder } from '../../support/log-builder.ts'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

function choices(setting: SurfaceModeSetting = 'auto'): SurfaceChoices {
  const switcher = new StockSwitcher({
    trees: { get: () => undefined },
    flush: async () => {},
    timeoutMs: 1_000,
    estimator: () => undefined,
  })
  return new SurfaceChoices({ setting, switcher, flush: async () => {} })
}

const session = (id: string): LiveSession => ({ id, seq: 0 }) as unknown as LiveSession
const agentOf = (of: LiveSession): LiveAgent => ({ id: of.id, status: 'idle', session: of }) as unknown as LiveAgent
const projector = (id: string): SessionProjector => new SessionProjector(new SessionTree(id))
/** The two methods `dev/session-branch-surface.patch` adds to `Session`. */
function withNativeApi<T extends object>(target: T): T {
  return Object.assign(target, { selectMessageSurface: () => {}, messageSurfaceNodes: () => [] })
}

/** A live session s1 (its agent and projector) and its first surface, stock (the session has no native API). */
function liveStock() {
  const chooser = choices()
  const s = session('s1')
  const agent = agentOf(s)
  const p = projector('s1')
  const first = chooser.of(s, agent, p)
  expect(first.mode).toBe('stock')
  return { chooser, s, agent, p, first }
}

describe('SurfaceChoices', () => {
  it('keeps one surface per session while its session, agent and projector stay the same objects', () => {
    const { chooser, s, agent, p, first } = liveStock()
    expect(chooser.of(s, agent, p)).toBe(first)
    // Another session is chosen for separately.
    const other = session('s2')
    expect(chooser.of(other, undefined, projector('s2')).mode).toBe('projection')
    expect(chooser.of(s, agent, p)).toBe(first)
  })

  it('chooses again when the live agent appears or goes (a stored session resumed, then unloaded)', () => {
    const chooser = choices()
    const s = session('s1')
    const p = projector('s1')
    const stored = chooser.of(s, undefined, p)
    expect(stored.mode).toBe('projection')
    const agent = agentOf(s)
    const live = chooser.of(s, agent, p)
    expect(live.mode).toBe('stock')
    expect(chooser.of(s, agent, p)).toBe(live)
    const gone = chooser.of(s, undefined, p)
    expect(gone.mode).toBe('projection')
    expect(gone).not.toBe(stored)
  })

  it('chooses again for a new session object or a new projector, and reads the native API only then', () => {
    const { chooser, s, agent, p, first: stock } = liveStock()
    // The native API is part of the session's class: one appearing on this object later is not looked at again.
    withNativeApi(s)
    expect(chooser.of(s, agent, p)).toBe(stock)
    // A re-attached session (a new projector) is chosen for anew, and now has the API.
    expect(chooser.of(s, agent, projector('s1')).mode).toBe('native')
    // A session loaded again is a new object: chosen for anew too.
    const reloaded = withNativeApi(session('s1'))
    expect(chooser.of(reloaded, agentOf(reloaded), p).mode).toBe('native')
  })

  it('follows the configured setting', () => {
    const native = withNativeApi(session('n'))
    expect(choices('projection').of(native, agentOf(native), projector('n')).mode).toBe('projection')
    expect(choices('stock').of(native, agentOf(native), projector('n')).mode).toBe('stock')
    expect(choices('native').of(session('plain'), undefined, projector('plain')).mode).toBe('projection')
    expect(choices('auto').of(native, undefined, projector('n')).mode).toBe('native')
  })
})

describe('the service chooses a session surface once', () => {
  it('keeps the mode it chose for a session when the session object later shows the native API', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tree-surface-choice-'))
    roots.push(root)
    const ctx = new Context()
    ctx.plugin(SessionStore)
    await ctx.plugin(SessionTreeService, { sidecarRoot: root, surfaceMode: 'auto' })
    await new Promise((r) => setTimeout(r, 0))
    const service = (ctx as unknown as { sessionTree: SessionTreeService }).sessionTree
    const live = ctx.sessions.create()
    new LogBuilder(live).userTurn('q1', 'a1')
    expect((await service.session(live.id)).surfaceMode).toBe('projection')
    withNativeApi(live)
    // Reads and moves use the surface chosen first (no agent, stored-style session: projection).
    expect((await service.session(live.id)).surfaceMode).toBe('projection')
    const first = (await service.list(live.id)).nodes[0]!.nodeId
    expect((await service.jump(live.id, first)).mode).toBe('projection')
    // A session created on the patched class is native from its first resolution.
    const patched = withNativeApi(ctx.sessions.create())
    expect((await service.session(patched.id)).surfaceMode).toBe('native')
  })
})
