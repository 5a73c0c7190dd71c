/**
 * Pi is the judge: sessions are written by the published
 * `@mariozechner/pi-coding-agent` SessionManager, imported into a DSH session
 * through the published JSONL persistence, and compared with what Pi's own
 * `buildSessionContext` + `convertToLlm` send; exports are opened with Pi's
 * `SessionManager.open` and compared the other way.
 */
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Session, SessionId } from '@deepseek-ai/dsh-session'
import { importSession } from '../../../src/interchange/session/import.ts'
import { exportTree, writeNewFile } from '../../../src/interchange/session/export.ts'
import { TreeSidecar } from '../../../src/sidecar/index.ts'
import { TreeSync } from '../../../src/harness/sync.ts'
import { SessionTreeStore } from '../../../src/tree/store.ts'
import { InterchangeError } from '../../../src/interchange/errors.ts'
import {
  assistant,
  buildSessionContext,
  newPiSession,
  piContext,
  piLeaves,
  SessionManager,
  toolResult,
  user,
  userWithImage,
} from '../../support/pi.ts'
import {
  continueImport,
  dshHome,
  dshModelView,
  dshNodes,
  importFresh,
  loadTree,
  treeModelView,
} from '../../support/interchange.ts'
import { contractViolations } from '../../support/provider-contract.ts'
import { logWireBody } from '../../support/dsh-wire.ts'

/** A session with everything Pi's API can write: branches, parallel tools, labels, summaries, compaction, model changes. */
function richPiSession() {
  const pi = newPiSession()
  pi.appendThinkingLevelChange('high')
  pi.appendModelChange('anthropic', 'claude-sonnet-4-5')
  const q1 = pi.appendMessage(user('Plan a trip'))
  const a1 = pi.appendMessage(assistant('Where to?', { thinking: 'the user wants travel help' }))
  pi.appendMessage(user('Rome, and check the weather'))
  pi.appendMessage(
    assistant('Checking.', {
      calls: [
        { id: 'c1', name: 'search', args: { q: 'rome' } },
        { id: 'c2', name: 'weather', args: { city: 'Rome' } },
      ],
    }),
  )
  pi.appendMessage(toolResult('c1', 'search', 'Rome: the eternal city'))
  pi.appendMessage(toolResult('c2', 'weather', 'sunny, 24°C'))
  const romeAnswer = pi.appendMessage(assistant('Rome it is: sunny.'))
  pi.appendLabelChange(romeAnswer, 'rome plan')
  pi.appendCustomEntry('my-extension', { state: 1 })
  // Back to the first answer, with a summary of the abandoned branch (Pi sends it to the model).
  pi.branchWithSummary(a1, 'We looked at Rome; the weather was sunny.')
  pi.appendMessage(user('Actually, Paris'))
  const paris = pi.appendMessage(assistant('Paris then.'))
  pi.appendModelChange('openai', 'gpt-5')
  pi.appendMessage(userWithImage('Here is a photo', 'iVBORw0KGgo='))
  pi.appendMessage(assistant('Nice photo.', { model: 'gpt-5' }))
  pi.appendCompaction('Trip planning: Paris chosen, a photo was shared.', paris, 1234)
  pi.appendMessage(user('Book it'))
  pi.appendMessage(assistant('Booked.', { model: 'gpt-5' }))
  pi.appendLabelChange(q1, 'start')
  pi.appendLabelChange(q1, undefined)
  pi.appendLabelChange(paris, 'paris')
  pi.appendSessionInfo('Trip')
  pi.appendCustomMessageEntry('reminder', 'Remember the budget.', true)
  pi.appendMessage(user('Thanks'))
  pi.appendMessage(assistant('You are welcome.', { model: 'gpt-5' }))
  return pi
}

describe('Pi → DSH', () => {
  it('the next request holds exactly what Pi sends for its leaf; every other leaf is reachable with the same history', async () => {
    const pi = richPiSession()
    const { home, outcome } = await importFresh(pi.getSessionFile()!)
    expect(outcome.report).toMatchObject({ format: 'pi', version: '3', skipped: [], labels: 2, compactions: 1 })
    const { tree, events, warnings } = await loadTree(home, outcome.sessionId!)
    expect(warnings).toEqual([])
    // The harness's own derivation of the stored log: what the DSH model receives next.
    expect(dshModelView(outcome.sessionId!, events)).toEqual(piContext(pi))
    // Same shape: one DSH node per Pi entry, the same children, the same labels.
    expect(tree.nodeCount).toBe(pi.getEntries().length)
    const dshOf = await dshNodes(home, outcome.sessionId!)
    for (const entry of pi.getEntries()) {
      const node = dshOf.get(entry.id)!
      expect(node, entry.id).toBeDefined()
      expect(new Set(tree.children(node)), `children of ${entry.id}`).toEqual(
        new Set(pi.getChildren(entry.id).map((c) => dshOf.get(c.id))),
      )
      expect(tree.get(node)!.label, `label of ${entry.id}`).toBe(pi.getLabel(entry.id))
    }
    expect(tree.cursor).toBe(dshOf.get(pi.getLeafId()!))
    for (const leaf of piLeaves(pi)) {
      expect(treeModelView(tree, dshOf.get(leaf)!), `history of ${leaf}`).toEqual(piContext(pi, leaf))
    }
    // Each of these requests is one a strict API accepts: next, and continued from every node but the
    // compaction (a jump to it never settles: a known fault, test/unit/interchange/interchange-provider.test.ts).
    expect(contractViolations(await logWireBody(events))).toEqual([])
    const nodes = tree.list().filter((n) => n.type !== 'compaction')
    expect(nodes).toHaveLength(tree.nodeCount - 1)
    for (const continued of await continueImport(
      home,
      outcome.sessionId!,
      nodes.map((n) => n.nodeId),
    )) {
      expect(continued.failure, `continued from ${continued.nodeId}`).toBeUndefined()
      expect(continued.violations, `continued from ${continued.nodeId}`).toEqual([])
    }
  })

  it('a branch change restates the message it goes back to, as a live stock rewind does: no empty "tombstone" answer in the log', async () => {
    const pi = richPiSession()
    const { home, outcome } = await importFresh(pi.getSessionFile()!)
    const { events } = await loadTree(home, outcome.sessionId!)
    type Logged = {
      type: string
      seq: number
      surfaceOp?: unknown
      sourceEventSeqs?: number[]
      data: { message?: { content: unknown[] } }
    }
    const logged = events as Logged[]
    // (DSH web's Trajectory lists an empty assistant message as an empty "ASSISTANT —" row.)
    expect(
      logged.filter((e) => e.type === 'assistant/message' && e.data.message!.content.length === 0).map((e) => e.seq),
    ).toEqual([])
    // The rewind to the first answer: one replacement restating it, citing just what it shadows, that answer first.
    const rewinds = logged.filter((e) => typeof e.surfaceOp === 'object' && e.type === 'assistant/message')
    expect(rewinds).toHaveLength(1)
    const first = logged.find((e) => e.seq === rewinds[0]!.sourceEventSeqs![0])!
    expect(first.data.message!.content).toEqual(rewinds[0]!.data.message!.content)
    expect(rewinds[0]!.surfaceOp).toMatchObject({ start: first.seq })
  })

  it('round trip Pi → DSH → Pi keeps every entry byte for byte, and Pi opens it on the same leaf', async () => {
    const pi = richPiSession()
    const source = readFileSync(pi.getSessionFile()!, 'utf8')
    const { home, outcome } = await importFresh(pi.getSessionFile()!)
    const { tree } = await loadTree(home, outcome.sessionId!)
    const exported = await exportTree(tree, {
      format: 'pi',
      sidecarDir: new TreeSidecar(home.sidecarRoot).dirFor(outcome.sessionId!),
    })
    expect(exported.lines.join('\n') + '\n').toBe(source)
    const file = join(mkdtempSync(join(tmpdir(), 'pi-out-')), 'roundtrip.jsonl')
    writeNewFile(file, exported.lines)
    const reopened = SessionManager.open(file)
    expect(piContext(reopened)).toEqual(piContext(pi))
    expect(reopened.getLeafId()).toBe(pi.getLeafId())
  })

  it('a session continued in DSH exports to a Pi file that Pi resumes on the continued path', async () => {
    const pi = richPiSession()
    const { home, outcome } = await importFresh(pi.getSessionFile()!)
    const loaded = await home.persistence.load(SessionId(outcome.sessionId!))
    // Continue with the harness's own Session: one more turn, as the loop writes it.
    const session = Session.create(SessionId(outcome.sessionId!), loaded.events as never)
    const turn =
      Math.max(...session.events.filter((e) => e.type === 'turn/start').map((e) => (e.data as { turn: number }).turn)) +
      1
    session.append('turn/start', { turn })
    session.append('step/start', { turn, step: 1 })
    session.append(
      'user/message',
      {
        id: 'm-new-1',
        role: 'user',
        content: [{ type: 'text', text: 'One more thing' }],
        source: { kind: 'user' },
      } as never,
      { surfaceOp: 'append' },
    )
    session.append(
      'assistant/message',
      {
        turn,
        step: 1,
        message: {
          id: 'm-new-2',
          role: 'assistant',
          content: [{ type: 'text', text: 'Sure.' }],
          source: { kind: 'model', provider: 'deepseek', model: 'deepseek-chat' },
        },
      } as never,
      { surfaceOp: 'append' },
    )
    session.append('step/end', { turn, step: 1 })
    session.append('turn/end', { turn, reason: { kind: 'completed' } })
    const sync = new TreeSync(new SessionTreeStore(), new TreeSidecar(home.sidecarRoot))
    const tree = sync.attach({ id: outcome.sessionId!, events: session.events }).projector.tree
    const exported = await exportTree(tree, {
      format: 'pi',
      sidecarDir: new TreeSidecar(home.sidecarRoot).dirFor(outcome.sessionId!),
    })
    const file = join(mkdtempSync(join(tmpdir(), 'pi-out-')), 'continued.jsonl')
    writeNewFile(file, exported.lines)
    const reopened = SessionManager.open(file)
    expect(piContext(reopened)).toEqual(treeModelView(tree, tree.cursor))
    expect(piContext(reopened).slice(-2)).toEqual([
      { role: 'user', text: 'One more thing' },
      { role: 'assistant', text: 'Sure.' },
    ])
    // Nothing of the original was lost: every source entry is still there, verbatim.
    const original = readFileSync(pi.getSessionFile()!, 'utf8').trim().split('\n').slice(1)
    for (const line of original) expect(exported.lines).toContain(line)
  })
})

describe('Pi files as they are found', () => {
  it('v1 (no ids) migrates as Pi migrates it, with ids that are the same on every import', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-v1-'))
    const file = join(dir, 'v1.jsonl')
    const lines = [
      {
        type: 'session',
        id: 'v1-session',
        timestamp: '2025-12-01T10:00:00.000Z',
        cwd: '/work/old',
        provider: 'anthropic',
        modelId: 'claude-sonnet-4',
        thinkingLevel: 'off',
      },
      {
        type: 'message',
        timestamp: '2025-12-01T10:00:01.000Z',
        message: { role: 'user', content: 'hello', timestamp: 1 },
      },
      { type: 'message', timestamp: '2025-12-01T10:00:02.000Z', message: assistant('hi there') },
      { type: 'message', timestamp: '2025-12-01T10:00:03.000Z', message: user('question two') },
      { type: 'message', timestamp: '2025-12-01T10:00:04.000Z', message: assistant('answer two') },
      {
        type: 'compaction',
        timestamp: '2025-12-01T10:00:05.000Z',
        summary: 'said hello',
        firstKeptEntryIndex: 3,
        tokensBefore: 50,
      },
      {
        type: 'message',
        timestamp: '2025-12-01T10:00:06.000Z',
        message: { role: 'hookMessage', customType: 'note', content: 'hook says hi', display: true, timestamp: 6 },
      },
      { type: 'message', timestamp: '2025-12-01T10:00:07.000Z', message: user('last') },
    ]
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
    const home = await dshHome()
    const first = await importSession({ path: file }, { persistence: home.persistence, dryRun: true })
    const second = await importSession({ path: file }, { persistence: home.persistence, dryRun: true })
    expect(first.report).toMatchObject({ version: '1', nodes: 7 })
    expect(first.report.notes.join('\n')).toMatch(/v1 compaction/)
    expect(first.cursor).toBe(second.cursor)
    const outcome = await importSession(
      { path: file },
      { persistence: home.persistence, sidecarRoot: home.sidecarRoot },
    )
    const { events } = await loadTree(home, outcome.sessionId!)
    // Pi's own loader migrates the file (in place, with random ids) and builds its context.
    const copy = join(dir, 'v1-copy.jsonl')
    writeFileSync(copy, readFileSync(file))
    const migrated = SessionManager.open(copy)
    expect(migrated.getHeader()?.version).toBe(3)
    expect(dshModelView(outcome.sessionId!, events)).toEqual(piContext(migrated))
  })

  it('torn lines: two records on one line and a truncated record followed by the next are recovered and reported by line', async () => {
    const pi = newPiSession()
    pi.appendMessage(user('one'))
    pi.appendMessage(assistant('two'))
    pi.appendMessage(user('three'))
    pi.appendMessage(assistant('four'))
    const good = readFileSync(pi.getSessionFile()!, 'utf8').trim().split('\n')
    // line 3 = records 2 and 3 glued; line 4 = a cut-off copy of record 4, then record 4 itself.
    const torn = [good[0], good[1], good[2]! + good[3]!, good[4]!.slice(0, 40) + good[4]!].join('\n') + '\n'
    const file = join(mkdtempSync(join(tmpdir(), 'pi-torn-')), 'torn.jsonl')
    writeFileSync(file, torn)
    const { home, outcome } = await importFresh(file)
    expect(outcome.report.recovered).toBe(3)
    expect(outcome.report.skipped).toEqual([
      {
        line: 4,
        reason: expect.stringMatching(
          /torn line: 1 record\(s\) recovered, \d+ character\(s\) of a truncated record dropped/,
        ),
      },
    ])
    expect(outcome.report.notes).toContain('line 3: torn line: 2 records written on one line, all recovered')
    const { events } = await loadTree(home, outcome.sessionId!)
    expect(dshModelView(outcome.sessionId!, events)).toEqual(piContext(pi))
  })

  it('a file that is not a session is refused with a typed error and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'not-pi-'))
    const cases: [string, string, string][] = [
      ['notes.jsonl', '{"hello":"world"}\n{"a":1}\n', 'NOT_A_SESSION'],
      ['empty.jsonl', '', 'NOT_A_SESSION'],
      ['text.md', '# A heading\nsome prose\n', 'NOT_A_SESSION'],
      [
        'header-only.jsonl',
        JSON.stringify({ type: 'session', version: 3, id: 'x', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' }) +
          '\n',
        'EMPTY_SESSION',
      ],
      [
        'future.jsonl',
        JSON.stringify({ type: 'session', version: 9, id: 'x', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' }) +
          '\n',
        'UNSUPPORTED_VERSION',
      ],
    ]
    const home = await dshHome()
    for (const [name, text, code] of cases) {
      writeFileSync(join(dir, name), text)
      const error = await importSession(
        { path: join(dir, name) },
        { persistence: home.persistence, sidecarRoot: home.sidecarRoot },
      ).catch((e: unknown) => e)
      expect(error, name).toBeInstanceOf(InterchangeError)
      expect((error as InterchangeError).code, name).toBe(code)
    }
    expect(() => readFileSync(join(home.sessionsRoot))).toThrow()
  })

  it('the Pi context texts this package writes are the ones Pi itself builds', async () => {
    const pi = newPiSession()
    const a = pi.appendMessage(user('q'))
    pi.appendMessage(assistant('a'))
    pi.appendCompaction('compact summary', a, 10)
    pi.branchWithSummary(a, 'branch summary text')
    const texts = piContext(pi).map((m) => m.text)
    const { COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX, BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX } =
      await import('../../../src/interchange/pi/context.ts')
    expect(texts).toContain(BRANCH_SUMMARY_PREFIX + 'branch summary text' + BRANCH_SUMMARY_SUFFIX)
    const compacted = buildSessionContext(pi.getEntries(), pi.getEntries().find((e) => e.type === 'compaction')!.id)
    const { convertToLlm } = await import('@mariozechner/pi-coding-agent')
    expect(JSON.stringify(convertToLlm(compacted.messages)[0])).toContain(
      JSON.stringify(COMPACTION_SUMMARY_PREFIX + 'compact summary' + COMPACTION_SUMMARY_SUFFIX).slice(1, -1),
    )
  })
})
