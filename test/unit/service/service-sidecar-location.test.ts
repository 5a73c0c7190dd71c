/**
 * The service's sidecar location through DSH's own persistence API, in a real
 * cordis Context (the harness `SessionStore`, the published JSONL persistence
 * in a temp DSH_HOME, the plugin): a session's tree is written into the
 * directory `sessionPersistence.locate(header)` names, DSH lists and loads the
 * session with that directory in it, and a tree left in the old layout moves
 * in when the session is resumed in a new process, intact.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { describe, expect, it, vi } from 'vitest'
import SessionTreeService from '../../../src/index.ts'
import { encodeSessionId } from '../../../src/sidecar/index.ts'
import { LogBuilder } from '../../support/log-builder.ts'

type Stored = { id: string; cwd?: string }
type Ctx = {
  sessionTree: SessionTreeService
  sessionPersistence: {
    list(): Promise<Stored[]>
    load(id: unknown): Promise<{ events: unknown[]; meta: Stored }>
    locate(header: Stored): { path: string }
  }
  sessions: {
    create(id: unknown, options: unknown): { id: string; header: Stored }
    flush(session: unknown): Promise<void>
  }
}

async function boot(home: string, orphanScanDelayMs?: number) {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(JsonlSessionPersistence, { root: join(home, 'sessions') })
  const plugin = ctx.plugin(SessionTreeService, {
    sidecarRoot: join(home, 'session-tree'),
    surfaceMode: 'projection',
    ...(orphanScanDelayMs === undefined ? {} : { orphanScanDelayMs }),
  })
  await plugin
  await new Promise((r) => setTimeout(r, 10))
  return { plugin, c: ctx as unknown as Ctx }
}

describe("the sidecar in the session's DSH directory", () => {
  it('is written where sessionPersistence.locate says; DSH still lists and loads the session; an old-layout tree moves in on resume', async () => {
    const home = mkdtempSync(join(tmpdir(), 'dsh-home-'))
    const first = await boot(home)
    const session = first.c.sessions.create(SessionId('s-1'), { meta: { cwd: '/work/project' } })
    new LogBuilder(session as never).userTurn('q1', 'a1').userTurn('q2', 'a2')
    await first.c.sessions.flush(session)
    const a1 = (await first.c.sessionTree.list('s-1')).nodes.find((n) => n.message?.content === 'a1')!
    await first.c.sessionTree.label('s-1', a1.nodeId, 'first answer')
    const before = await first.c.sessionTree.list('s-1')
    const home1 = dirname(first.c.sessionPersistence.locate(session.header).path)
    expect(readdirSync(home1).sort()).toEqual(['session-tree', 'session.jsonl.zstd'])
    expect(readdirSync(join(home1, 'session-tree'))).toContain('journal.jsonl')
    expect(existsSync(join(home, 'session-tree', encodeSessionId('s-1'))), 'nothing at the fallback').toBe(false)
    // DSH lists and loads the session with the extra directory in it.
    expect((await first.c.sessionPersistence.list()).map((h) => h.id)).toEqual(['s-1'])
    const stored = await first.c.sessionPersistence.load(SessionId('s-1'))
    expect(stored.events.length).toBeGreaterThan(0)
    // The plugin leaves; the next one loads the tree from disk.
    await first.plugin.dispose()

    // The old layout, then a new process resumes the session.
    mkdirSync(join(home, 'session-tree'), { recursive: true })
    renameSync(join(home1, 'session-tree'), join(home, 'session-tree', encodeSessionId('s-1')))
    const second = await boot(home)
    const again = await second.c.sessionPersistence.load(SessionId('s-1'))
    second.c.sessions.create(SessionId('s-1'), { seed: again.events, meta: again.meta })
    expect(await second.c.sessionTree.list('s-1')).toEqual(before)
    expect(readdirSync(join(home1, 'session-tree'))).toContain('journal.jsonl')
    expect(existsSync(join(home, 'session-tree', encodeSessionId('s-1'))), 'moved, not copied').toBe(false)
    expect((await second.c.sessionTree.session('s-1')).sidecarWarnings).toEqual([])
  })
})

describe('the orphan scan at start', () => {
  // It lists every stored session: it waits, so the first listing of a big home does not share the disk with it.
  it('waits for its delay (none has run before it), then reports in `session`', async () => {
    const open = (c: Ctx, id: string) => {
      const session = c.sessions.create(SessionId(id), { meta: { cwd: '/work/project' } })
      new LogBuilder(session as never).userTurn('q', 'a')
    }
    const waiting = await boot(mkdtempSync(join(tmpdir(), 'dsh-home-')), 3_600_000)
    open(waiting.c, 's-wait')
    await new Promise((r) => setTimeout(r, 50))
    expect((await waiting.c.sessionTree.session('s-wait')).orphanSidecars, 'no scan before its delay').toBeUndefined()
    waiting.plugin.dispose()
    const prompt = await boot(mkdtempSync(join(tmpdir(), 'dsh-home-')), 0)
    open(prompt.c, 's-now')
    const scanned = await vi.waitFor(
      async () => {
        const found = (await prompt.c.sessionTree.session('s-now')).orphanSidecars
        expect(found).toBeDefined()
        return found!
      },
      { timeout: 30_000 },
    )
    expect(scanned.orphans).toEqual([])
    prompt.plugin.dispose()
  })
})
