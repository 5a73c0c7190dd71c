/**
 * Sizes are limited, with a clear error, and a refused import writes nothing:
 * a file over the byte limit, a line over the line limit (with its number),
 * an upload over the limit; related files (subagent transcripts) over what is
 * left of the budget are left out and reported, not read.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { importSession } from '../../../src/interchange/session/import.ts'
import { dshHome } from '../../support/interchange.ts'
import { assistant, newPiSession, user } from '../../support/pi.ts'

function piFile(): string {
  const pi = newPiSession()
  pi.appendMessage(user('a question'))
  pi.appendMessage(assistant('an answer'))
  return pi.getSessionFile()!
}

describe('import size limits', () => {
  it('a file over the limit is refused before it is read: TOO_LARGE with its size and the limit; nothing is written', async () => {
    const file = piFile()
    const bytes = statSync(file).size
    const home = await dshHome()
    const refused = importSession(
      { path: file, maxBytes: bytes - 1 },
      { persistence: home.persistence, sidecarRoot: home.sidecarRoot },
    )
    await expect(refused).rejects.toMatchObject({
      code: 'TOO_LARGE',
      details: { bytes, limit: bytes - 1 },
      message: expect.stringContaining(`is ${bytes} bytes; the limit is ${bytes - 1}`),
    })
    expect(existsSync(home.home) ? readdirSync(home.home) : []).toEqual([])
    // At the limit it imports.
    await expect(
      importSession({ path: file, maxBytes: bytes }, { persistence: home.persistence, sidecarRoot: home.sidecarRoot }),
    ).resolves.toMatchObject({ report: { nodes: 2 } })
  })

  it('a line over the line limit: TOO_LARGE naming the line; an upload over the limit: TOO_LARGE; nothing is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'limits-'))
    const file = join(dir, 'long.jsonl')
    const header = JSON.stringify({
      type: 'session',
      version: 3,
      id: 'x',
      timestamp: '2026-01-01T00:00:00.000Z',
      cwd: '/w',
    })
    const entry = (id: string, text: string) =>
      JSON.stringify({
        type: 'message',
        id,
        parentId: null,
        timestamp: '2026-01-01T00:00:01.000Z',
        message: { role: 'user', content: text, timestamp: 1 },
      })
    writeFileSync(file, [header, entry('a', 'short'), entry('b', 'x'.repeat(5000))].join('\n') + '\n')
    const home = await dshHome()
    await expect(
      importSession(
        { path: file, maxLineBytes: 4096 },
        { persistence: home.persistence, sidecarRoot: home.sidecarRoot },
      ),
    ).rejects.toMatchObject({
      code: 'TOO_LARGE',
      details: { line: 3, limit: 4096 },
      message: expect.stringContaining('line 3 is longer than 4096 characters'),
    })
    await expect(
      importSession(
        { content: `${header}\n${entry('a', 'y'.repeat(200))}\n`, maxBytes: 100 },
        { persistence: home.persistence, sidecarRoot: home.sidecarRoot },
      ),
    ).rejects.toMatchObject({ code: 'TOO_LARGE', details: { limit: 100 } })
    expect(readdirSync(home.home)).toEqual([])
  })

  it('subagent transcripts beyond what is left of the budget are left out, and the report says which and why', async () => {
    const fixtures = join(import.meta.dirname, '..', '..', 'fixtures', 'claude-code', 'subagents')
    const dir = mkdtempSync(join(tmpdir(), 'limits-claude-'))
    const main = 'd6a37ffc-384d-4d2a-832a-78cdd493af69.jsonl'
    for (const name of readdirSync(fixtures)) copyFileSync(join(fixtures, name), join(dir, name))
    const home = await dshHome()
    const outcome = await importSession(
      { path: join(dir, main), maxBytes: statSync(join(dir, main)).size },
      { persistence: home.persistence, sidecarRoot: home.sidecarRoot, dryRun: true },
    )
    const agents = readdirSync(dir)
      .filter((name) => name.startsWith('agent-'))
      .sort()
    expect(
      outcome.report.notes.filter((n) => n.startsWith('subagent transcript agent-') && n.includes('left out: ')),
    ).toEqual(agents.map((name) => expect.stringContaining(`subagent transcript ${name} left out: TOO_LARGE`)))
  })
})
