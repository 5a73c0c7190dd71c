/**
 * The checks an import runs on what it staged (`src/interchange/session/verify.ts`): the
 * read-back finds any sidecar that would not open as written, the rebuild also finds a build
 * the replay disagrees with; the suite runs every import with the rebuild (vitest.config.ts).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readSession } from '../../../src/interchange/read.ts'
import { buildSession } from '../../../src/interchange/session/build.ts'
import { type BuiltSession } from '../../../src/interchange/session/built.ts'
import { checkReadBack, checkRebuild, defaultImportCheck } from '../../../src/interchange/session/verify.ts'
import { stringChunks } from '../../../src/interchange/source.ts'
import { TreeSidecar } from '../../../src/sidecar/index.ts'
import type { JsonObject } from '../../../src/tree/types.ts'
import { branchedPiSession } from '../../support/pi.ts'

/** A Pi session with a label, a branch summary (a tree-only node) and a call answered on one branch only. */
async function built(): Promise<BuiltSession> {
  const pi = branchedPiSession({ label: 'tool done', summary: 'We read a.txt.' })
  const { tree } = await readSession(stringChunks(readFileSync(pi.getSessionFile()!, 'utf8')), { sink: () => {} })
  return buildSession(tree, { sessionId: 'verify-1', now: 1 })
}

/** Stage an overlay the way `publish.ts` does. */
function stage(session: BuiltSession, state: unknown = session.overlay): string {
  const root = mkdtempSync(join(tmpdir(), 'verify-'))
  const folded = new TreeSidecar(root).compact(session.sessionId, {
    n: 0,
    w: Math.max(0, session.watermark),
    state: state as JsonObject,
  })
  expect(folded.ok).toBe(true)
  return root
}

describe('what an import checks before it publishes', () => {
  it('the staged sidecar of a faithful build passes both checks', async () => {
    const session = await built()
    expect(session.overlay.treeOnly.length).toBeGreaterThan(0)
    expect(Object.values(session.overlay.labels)).toEqual(['tool done'])
    const root = stage(session)
    expect(checkReadBack(session, root)).toBeUndefined()
    expect(checkRebuild(session, root)).toBeUndefined()
  })

  it('an overlay that reads back different, or not at all, fails both', async () => {
    const session = await built()
    const moved = stage(session, { ...session.overlay, cursor: session.tree.list()[0]!.nodeId })
    expect(checkReadBack(session, moved)).toBe('the overlay read back differs from the one written')
    expect(checkRebuild(session, moved)).toMatch(/^cursor .* instead of /)
    const damaged = stage(session)
    writeFileSync(join(new TreeSidecar(damaged).dirFor(session.sessionId), 'overlay.json'), '{"torn')
    expect(checkReadBack(session, damaged)).toMatch(/overlay\.json/)
    expect(checkRebuild(session, damaged)).toBeDefined()
  })

  it('a built tree the replay does not give is found by the rebuild alone', async () => {
    const session = await built()
    const root = stage(session)
    const index = session.tree.list().findIndex((node) => node.label === undefined)
    const target = session.tree.list()[index]!
    expect(session.tree.label(target.nodeId, 'only in the built tree').ok).toBe(true)
    expect(checkReadBack(session, root)).toBeUndefined()
    expect(checkRebuild(session, root)).toBe(`node ${target.nodeId} (the ${index + 1}th) differs from the one built`)
  })

  it('imports read back unless the environment asks for the rebuild (the suite does)', () => {
    expect(defaultImportCheck({})).toBe('read-back')
    expect(defaultImportCheck({ DSH_SESSION_TREE_IMPORT_CHECK: 'rebuild' })).toBe('rebuild')
    expect(defaultImportCheck()).toBe('rebuild')
  })
})
