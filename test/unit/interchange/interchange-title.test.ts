/**
 * An imported session is named from the start: its log ends with the
 * `session/title` event DSH's title service folds into the sidebar's title
 * (`src/interchange/session/title.ts`), and its working directory is the one
 * asked for, else the source's when it is a directory here, else the
 * fallback. (That `dsh web` lists it so, in its workspace, right after the
 * import: test/e2e/interchange-panel.test.ts.)
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { TITLE_LIMITS } from '../../../src/interchange/session/title.ts'
import { assistant, newPiSession, user } from '../../support/pi.ts'
import { codexAnswer, codexLine, codexPrompt, importFresh, loadTree } from '../../support/interchange.ts'

type Logged = {
  type: string
  seq: number
  data: {
    title?: string
    messageSeqs?: number[]
    source?: { kind: string }
    content?: { type: string; text?: string }[]
  }
}

async function imported(file: string, target: { cwd?: string; fallbackCwd?: string } = {}) {
  const { home, outcome } = await importFresh(file, target)
  const { events, warnings } = await loadTree(home, outcome.sessionId!)
  expect(warnings).toEqual([])
  const logged = events as Logged[]
  return { outcome, logged, titles: logged.filter((e) => e.type === 'session/title') }
}

describe("the imported session's title", () => {
  it('a name the source keeps (Pi session_info) is the title, as a user title citing no message; the last name wins', async () => {
    const pi = newPiSession()
    pi.appendSessionInfo('first name')
    pi.appendMessage(user('plan the release'))
    pi.appendMessage(assistant('Which version?'))
    pi.appendSessionInfo('  Release\tplanning  ')
    const { titles, logged, outcome } = await imported(pi.getSessionFile()!)
    expect(titles.map((e) => e.data)).toEqual([
      { title: 'Release planning', messageSeqs: [], source: { kind: 'user' } },
    ])
    // The last event of the log: standalone, after the last turn.
    expect(logged.at(-1)!.type).toBe('session/title')
    expect(outcome.title).toBe('Release planning')
  })

  it("without a name, the first prompt typed gives it, as DSH's own fallback does (first words), citing that prompt", async () => {
    const pi = newPiSession()
    const long = 'please plan the whole release of version two with the changelog and the notes'
    pi.appendMessage(user(long))
    const a1 = pi.appendMessage(assistant('Which version?'))
    pi.appendMessage(user('version 2'))
    pi.branch(a1)
    pi.appendMessage(user('version 3'))
    const { titles, logged } = await imported(pi.getSessionFile()!)
    expect(titles).toHaveLength(1)
    const { title, messageSeqs, source } = titles[0]!.data
    expect(title).toBe(long.split(' ').slice(0, TITLE_LIMITS.fallbackMaxWords).join(' '))
    expect(source).toEqual({ kind: 'fallback' })
    const cited = logged.find((e) => e.seq === messageSeqs![0])!
    expect(cited.type).toBe('user/message')
    expect(cited.data.content![0]!.text).toBe(long)
  })

  it('a Codex thread name (event_msg thread_name_updated) is the title; a later one replaces it', async () => {
    const file = join(
      mkdtempSync(join(tmpdir(), 'codex-named-')),
      'rollout-2026-01-11T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0009.jsonl',
    )
    writeFileSync(
      file,
      [
        codexLine('session_meta', {
          id: '0199aaaa-bbbb-7ccc-8ddd-eeeeffff0009',
          cwd: '/home/dev/shop',
          cli_version: '0.171.0',
          model_provider: 'openai',
        }),
        ...codexPrompt('why does the cart test fail?'),
        codexLine('event_msg', {
          type: 'thread_name_updated',
          thread_id: '0199aaaa-bbbb-7ccc-8ddd-eeeeffff0009',
          thread_name: 'Cart bug',
        }),
        codexAnswer('An off-by-one in removeItem.'),
        codexLine('event_msg', {
          type: 'thread_name_updated',
          thread_id: '0199aaaa-bbbb-7ccc-8ddd-eeeeffff0009',
          thread_name: 'Cart off-by-one',
        }),
      ].join('\n') + '\n',
    )
    const { titles } = await imported(file)
    expect(titles.map((e) => e.data)).toEqual([{ title: 'Cart off-by-one', messageSeqs: [], source: { kind: 'user' } }])
  })
})

describe("the imported session's working directory", () => {
  it("the one asked for; else the source's when it is a directory here; else the fallback", async () => {
    const here = mkdtempSync(join(tmpdir(), 'ix-cwd-'))
    const elsewhere = mkdtempSync(join(tmpdir(), 'ix-host-'))
    const onThisMachine = newPiSession(undefined, here)
    onThisMachine.appendMessage(user('hello'))
    onThisMachine.appendMessage(assistant('hi'))
    const fromAnother = newPiSession(undefined, '/nonexistent/laptop/project')
    fromAnother.appendMessage(user('hello'))
    fromAnother.appendMessage(assistant('hi'))
    expect((await imported(onThisMachine.getSessionFile()!, { fallbackCwd: elsewhere })).outcome.cwd).toBe(here)
    expect((await imported(fromAnother.getSessionFile()!, { fallbackCwd: elsewhere })).outcome.cwd).toBe(elsewhere)
    expect((await imported(fromAnother.getSessionFile()!, { cwd: here, fallbackCwd: elsewhere })).outcome.cwd).toBe(
      here,
    )
    // Without a fallback (the CLI), the source's is kept as it is.
    expect((await imported(fromAnother.getSessionFile()!)).outcome.cwd).toBe('/nonexistent/laptop/project')
  })
})
