/**
 * Writing an imported session's log through the real JSONL backend: staged
 * aside in batches and renamed into place (the loaded log is exactly what was
 * written, whatever the batch size), and a failure at the last step leaves
 * nothing: no session, no sidecar, no staging folder.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import path, { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SessionId } from '@deepseek-ai/dsh-session'
import { importSession } from '../../../src/interchange/session/import.ts'
import { writeSessionLog } from '../../../src/interchange/session/write-log.ts'
import { TreeSidecar } from '../../../src/sidecar/index.ts'
import { dshHome } from '../../support/interchange.ts'
import { assistant, newPiSession, toolResult, user } from '../../support/pi.ts'

function piFile(turns: number): string {
  const pi = newPiSession()
  for (let i = 0; i < turns; i++) {
    pi.appendMessage(user(`question ${i}`))
    pi.appendMessage(assistant('', { calls: [{ id: `c${i}`, name: 'read', args: { path: `f${i}` } }] }))
    pi.appendMessage(toolResult(`c${i}`, 'read', `contents ${i}`))
    pi.appendMessage(assistant(`answer ${i}`))
  }
  return pi.getSessionFile()!
}

describe('the import log, staged and renamed into place', () => {
  it('batches of any size give the same stored log; the staging root is gone afterwards', async () => {
    const home = await dshHome()
    const events = Array.from({ length: 7 }, (_, seq) => ({
      type: seq === 0 ? 'turn/start' : seq === 6 ? 'turn/end' : 'agent/inbox/spliced',
      seq,
      time: 1,
      data:
        seq === 0
          ? { turn: 1 }
          : seq === 6
            ? { turn: 1, reason: { kind: 'completed' } }
            : { target: 'next-turn', start: 0, inserted: [] },
    }))
    const header = { version: 0, id: 'staged-1', createdAt: 1, cwd: '/w' }
    const written = await writeSessionLog(home.persistence, header, events, { events: 2, chars: 1 << 30 })
    expect(written).toEqual({ how: 'staged', batches: 4 })
    const loaded = await home.persistence.load(SessionId('staged-1'))
    expect(loaded.events).toEqual(events)
    expect(readdirSync(home.home).filter((name) => name.startsWith('.session-tree-import-'))).toEqual([])
  })

  it('a value JSON would drop or change fails the write, and nothing is left (the backend is written past its copying coordinator)', async () => {
    const home = await dshHome()
    const event = (data: Record<string, unknown>) => ({ type: 'turn/start', seq: 0, time: 1, data })
    const shared: Record<string, unknown> = { turn: 1 }
    shared.self = shared
    for (const [data, reason] of [
      [{ turn: 1, gone: undefined }, 'undefined'],
      [{ turn: Number.NaN }, 'NaN'],
      [{ turn: -0 }, '-0'],
      [{ turn: 1, when: new Date(0) }, 'not a plain object'],
      [{ turn: 1, list: [1, , 3] }, 'hole'],
      [shared, 'refers back'],
    ] as const) {
      const header = { version: 0, id: `lossy-${reason}`, createdAt: 1, cwd: '/w' }
      await expect(writeSessionLog(home.persistence, header, [event(data)] as never)).rejects.toThrow(reason)
    }
    expect(readdirSync(home.home).filter((name) => name.startsWith('.session-tree-import-'))).toEqual([])
    expect(existsSync(home.sessionsRoot) ? readdirSync(home.sessionsRoot) : []).toEqual([])
  })

  it('a failure at the last step (the session folder is taken) leaves no session, no sidecar, no staging folder', async () => {
    const home = await dshHome()
    const file = piFile(3)
    const sessionId = '11111111-2222-4333-8444-555555555555'
    const taken = path.dirname(
      (home.persistence as unknown as { locate(meta: unknown): { path: string } }).locate({
        id: sessionId,
        cwd: '/work/project',
      }).path,
    )
    mkdirSync(taken, { recursive: true })
    const failed = importSession(
      { path: file },
      { persistence: home.persistence, sidecarRoot: home.sidecarRoot, sessionId },
    )
    await expect(failed).rejects.toMatchObject({ code: 'WRITE_FAILED' })
    expect(readdirSync(taken)).toEqual([])
    expect(existsSync(new TreeSidecar(home.sidecarRoot).dirFor(sessionId))).toBe(false)
    // Not even the sidecar root the import had to create.
    expect(existsSync(home.sidecarRoot)).toBe(false)
    expect(readdirSync(home.home).filter((name) => name.startsWith('.session-tree-import-'))).toEqual([])
    // The same file with a free id imports, and the stored log holds every entry.
    const outcome = await importSession(
      { path: file },
      { persistence: home.persistence, sidecarRoot: home.sidecarRoot },
    )
    expect(outcome.report.nodes).toBe(12)
    expect((await home.persistence.load(SessionId(outcome.sessionId!))).events.length).toBe(outcome.events)
    expect(readdirSync(join(home.sidecarRoot))).toEqual([
      new TreeSidecar(home.sidecarRoot).dirFor(outcome.sessionId!).split(path.sep).at(-1),
    ])
  })
})
