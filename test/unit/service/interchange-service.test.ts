/**
 * `importSession` / `exportAs` on the real service in a real cordis Context:
 * the harness `SessionStore`, the published JSONL persistence in a temp
 * DSH_HOME, and the plugin itself. A stored import is then created live from
 * its log (as a resume does) and exported back, judged by Pi's SessionManager.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { TypertLookupFailure } from '@deepseek-ai/dsh-typert-protocol'
import { describe, expect, it } from 'vitest'
import SessionTreeService from '../../../src/index.ts'
import { branchedPiSession, piContext, SessionManager } from '../../support/pi.ts'
import { treeModelView } from '../../support/interchange.ts'

async function boot() {
  const home = mkdtempSync(join(tmpdir(), 'dsh-home-'))
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(JsonlSessionPersistence, { root: join(home, 'sessions') })
  await ctx.plugin(SessionTreeService, { sidecarRoot: join(home, 'session-tree'), surfaceMode: 'projection' })
  await new Promise((r) => setTimeout(r, 10))
  const c = ctx as unknown as {
    sessionTree: SessionTreeService
    sessionPersistence: { load(id: unknown): Promise<{ events: unknown[]; meta: Record<string, unknown> }> }
    sessions: { create(id: unknown, options: unknown): { id: string } }
  }
  return { home, service: c.sessionTree, persistence: c.sessionPersistence, sessions: c.sessions }
}

async function failureOf(promise: Promise<unknown>) {
  const error = await promise.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(TypertLookupFailure)
  return (error as TypertLookupFailure<{ code: string; message: string }>).failure
}

describe('importSession / exportAs', () => {
  it('a dry run previews and writes nothing; the import creates the session; its export opens in Pi on the same path', async () => {
    const { home, service, persistence, sessions } = await boot()
    const pi = branchedPiSession()
    const preview = await service.importSession({
      path: pi.getSessionFile()!,
      content: null,
      format: 'auto',
      dryRun: true,
      cwd: null,
    })
    expect(preview).toMatchObject({ sessionId: null, dryRun: true, report: { format: 'pi', nodes: 8, branches: 2 } })
    // One line per branch, the one the import continues on first: Pi's leaf is the last entry.
    const entries = pi.getEntries()
    const a1 = entries[1]!.id
    expect(preview.preview).toEqual({
      branches: 2,
      shown: [
        {
          leaf: entries.at(-1)!.id,
          forkAt: a1,
          entries: 2,
          depth: 4,
          firstPrompt: 'another direction',
          last: 'second answer',
          active: true,
        },
        {
          leaf: entries[5]!.id,
          forkAt: a1,
          entries: 4,
          depth: 6,
          firstPrompt: 'use a tool',
          last: 'done with the tool',
          active: false,
        },
      ],
    })
    expect(existsSync(join(home, 'sessions'))).toBe(false)

    const result = await service.importSession({
      path: pi.getSessionFile()!,
      content: null,
      format: 'pi',
      dryRun: false,
      cwd: '/work/elsewhere',
    })
    expect(result).toMatchObject({
      dryRun: false,
      cwd: '/work/elsewhere',
      sidecar: true,
      report: { format: 'pi', nodes: 8, branches: 2, skipped: [] },
    })
    const stored = await persistence.load(SessionId(result.sessionId!))
    expect(stored.meta).toMatchObject({ id: result.sessionId, cwd: '/work/elsewhere' })
    // Named at once: no live session here (no host resumed it), so the title is the stored log's next event.
    expect(result.title).toBe('first question')
    expect(stored.events.at(-1)).toMatchObject({
      type: 'session/title',
      seq: stored.events.length - 1,
      data: { title: 'first question', source: { kind: 'fallback' } },
    })

    // Live from its log, as a resume makes it: the plugin attaches it (log + sidecar).
    sessions.create(SessionId(result.sessionId!), { seed: stored.events, meta: { cwd: '/work/elsewhere' } })
    const status = await service.session(result.sessionId!)
    expect(status).toMatchObject({
      nodeCount: 8,
      branchCount: 2,
      cursor: result.cursor,
      sidecarWarnings: [],
      quarantine: [],
    })

    const out = join(mkdtempSync(join(tmpdir(), 'export-')), 'session.jsonl')
    const exported = await service.exportAs({ agentId: result.sessionId!, format: 'pi', path: out, inline: false })
    expect(exported).toMatchObject({ format: 'pi', path: out, fromImport: true, content: null })
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(pi.getSessionFile()!, 'utf8'))
    expect(piContext(SessionManager.open(out))).toEqual(piContext(pi))

    const markdown = await service.exportAs({
      agentId: result.sessionId!,
      format: 'markdown',
      path: null,
      inline: true,
    })
    expect(markdown.content).toContain('## Active path')
    expect(markdown.content).toContain('second answer')
    expect(markdown.content).toMatch(/## Other branches \(1\)[\s\S]*first prompt “use a tool”/)
    // Exports never overwrite.
    const again = await failureOf(
      service.exportAs({ agentId: result.sessionId!, format: 'pi', path: out, inline: false }),
    )
    expect(again).toMatchObject({ code: 'INVALID_PATH' })
  })

  it('uploaded text imports the same way; what is not a session is refused by code and creates nothing', async () => {
    const { home, service } = await boot()
    const pi = branchedPiSession()
    const result = await service.importSession({
      path: null,
      content: readFileSync(pi.getSessionFile()!, 'utf8'),
      format: 'auto',
      dryRun: false,
      cwd: null,
    })
    expect(result.report).toMatchObject({ format: 'pi', nodes: 8 })
    const before = readdirSync(join(home, 'sessions'), { recursive: true }).length
    const refused = await failureOf(
      service.importSession({ path: null, content: '{"not":"a session"}\n', format: 'auto', dryRun: false, cwd: null }),
    )
    expect(refused).toMatchObject({ code: 'NOT_A_SESSION' })
    const mismatch = await failureOf(
      service.importSession({
        path: null,
        content: readFileSync(pi.getSessionFile()!, 'utf8'),
        format: 'codex',
        dryRun: false,
        cwd: null,
      }),
    )
    expect(mismatch).toMatchObject({ code: 'FORMAT_MISMATCH' })
    const relative = await failureOf(
      service.importSession({ path: 'relative/file.jsonl', content: null, format: 'auto', dryRun: false, cwd: null }),
    )
    expect(relative).toMatchObject({ code: 'INVALID_PATH' })
    expect(readdirSync(join(home, 'sessions'), { recursive: true }).length).toBe(before)
  })

  it('a DSH-made session exports to Pi with every branch, and Pi continues on its cursor', async () => {
    const { service, sessions } = await boot()
    const { LogBuilder } = await import('../../support/log-builder.ts')
    const session = sessions.create(SessionId('native-1'), {}) as never
    const log = new LogBuilder(session)
      .userTurn('q1', 'a1')
      .userTurn('q2', 'a2', { tools: [{ name: 'read', args: { f: 'x' }, result: 'x!' }] })
    expect(log.modelTexts().length).toBeGreaterThan(0)
    const out = join(mkdtempSync(join(tmpdir(), 'export-')), 'native.jsonl')
    const exported = await service.exportAs({ agentId: 'native-1', format: 'pi', path: out, inline: false })
    expect(exported.fromImport).toBe(false)
    const reopened = SessionManager.open(out)
    const tree = service.sync.get('native-1')!.projector.tree
    expect(piContext(reopened)).toEqual(treeModelView(tree, tree.cursor))
  })
})
