/**
 * Rebuilding a log that holds many stock switches (an imported tree writes
 * one per branch): each switch's end moves the cursor without building the
 * history view `jump` answers with, which a rebuild never reads and which
 * costs a walk of the whole path, per switch.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SessionTree } from '../../../src/tree/index.ts'
import { importSession } from '../../../src/interchange/session/import.ts'
import { dshHome, loadTree } from '../../support/interchange.ts'
import { assistant, newPiSession, user } from '../../support/pi.ts'

afterEach(() => {
  vi.restoreAllMocks()
})

/** A Pi session with `branches` branches, each leaving the previous one at its first answer. */
function branchingPiFile(branches: number): string {
  const pi = newPiSession()
  pi.appendMessage(user('start'))
  const fork = pi.appendMessage(assistant('first answer'))
  for (let b = 0; b < branches; b++) {
    pi.branch(fork)
    pi.appendMessage(user(`branch ${b}`))
    pi.appendMessage(assistant(`answer ${b}`))
  }
  return pi.getSessionFile()!
}

describe('a rebuild of a log with many switches', () => {
  it('settles every switch without building a history view, and still lands where the import left the cursor', async () => {
    const home = await dshHome()
    const result = await importSession(
      { path: branchingPiFile(6) },
      { persistence: home.persistence as never, sidecarRoot: home.sidecarRoot },
    )
    expect(result.report.notes.join('\n')).toMatch(/branch change\(s\) written as history switches/)
    const messages = vi.spyOn(SessionTree.prototype, 'messages')
    const { tree, warnings } = await loadTree(home, result.sessionId!)
    expect(messages).not.toHaveBeenCalled()
    expect(warnings).toEqual([])
    expect(tree.cursor).toBe(result.cursor)
    expect(tree.messages().map((m) => m.content)).toEqual(['start', 'first answer', 'branch 5', 'answer 5'])
  })
})
