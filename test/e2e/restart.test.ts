/**
 * Clean restarts report no warning, in the real `dsh web`, stock (the
 * unpatched harness) and native (the harness with
 * dev/session-branch-surface.patch), with this package from its tarball:
 * forks, jumps, labels, back and forward between four restarts. After every
 * restart `session.sidecarWarnings` is empty, the tree (nodes, labels,
 * branches, cursor) is exactly what it was, back/forward still step through
 * the same positions, and the next request holds exactly the path to the
 * cursor. (Before the fix, every restart re-applied the journal's forks onto
 * the branches the log's switch events had already rebuilt: BRANCH_EXISTS.)
 *
 * Evidence of every run: test/e2e/artifacts/restart-<mode>/.
 */
import { expect, it } from 'vitest'
import type { MoveResult } from '../../src/service/wire.ts'
import { history } from './support/fake-llm.ts'
import { spoken } from './support/tree-path.ts'
import { notesWorkspace, readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

const RESTARTS = 3

for (const mode of ['stock', 'native'] as const) {
  const options = {
    name: `restart-${mode}`,
    variant: mode,
    workspace: notesWorkspace,
    llm: { script: readOrAnswerScript(80) },
  }
  describeWeb(`restarts report no warning and lose nothing (${mode})`, options, (dsh) => {
    const rounds: unknown[] = []
    dsh.evidence('rounds.json', rounds)
    let sessionId: string

    const list = () => dsh.api.tree(sessionId)
    const status = () => dsh.api.status(sessionId)
    const move = <T = MoveResult>(method: string, args: Record<string, unknown> = {}) =>
      dsh.api.remoteOk<T>(`sessionTree/${method}`, { agentId: sessionId, ...args })
    const node = async (text: string) => (await dsh.api.nodeWith(sessionId, text)).nodeId

    it(`${mode}: forks, jumps, labels, back and forward across ${RESTARTS} restarts`, async () => {
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
      await dsh.api.converse(sessionId)
      expect((await status()).surfaceMode).toBe(mode)
      const a1 = await node('ANSWER to: first question')
      await move('fork', { nodeId: a1, branch: 'alt' })
      await dsh.api.promptAndWait(sessionId, 'on alt')
      await move('label', { nodeId: a1, label: 'first answer' })
      await move('jump', { nodeId: await node('ANSWER to: third question') })
      await move('back')
      await move('forward')

      for (let restart = 1; restart <= RESTARTS; restart++) {
        const before = await list()
        // Where back and then forward lead now, to compare after the restart.
        const back = await dsh.api.remote<MoveResult>('sessionTree/back', { agentId: sessionId })
        const forward = back.ok ? await move('forward') : undefined
        expect(forward === undefined || forward.cursor === before.cursor).toBe(true)
        await dsh.stopWeb('SIGTERM')
        await dsh.startWeb()
        // A stored session loads when a move names it; a refused move (unknown node) loads it and changes nothing.
        const refused = await dsh.api.remote('sessionTree/jump', { agentId: sessionId, nodeId: 'e999999' })
        expect(refused.ok ? 'ok' : refused.error.code).toBe('NODE_NOT_FOUND')
        const after = await list()
        const warnings = (await status()).sidecarWarnings
        rounds.push({ restart, warnings, cursor: after.cursor, branches: after.branches.map((b) => b.name) })
        expect(warnings, `restart ${restart}`).toEqual([])
        expect(after, `restart ${restart}`).toEqual(before)
        // The navigation history came back too.
        const backAgain = await dsh.api.remote<MoveResult>('sessionTree/back', { agentId: sessionId })
        expect(backAgain.ok && backAgain.value.cursor, `back after restart ${restart}`).toBe(
          back.ok && back.value.cursor,
        )
        if (backAgain.ok) expect((await move('forward')).cursor).toBe(before.cursor)

        // More of everything before the next restart.
        await move('fork', { nodeId: a1, branch: `fork-${restart}` })
        await dsh.api.promptAndWait(sessionId, `on fork ${restart}`)
        await move('label', { nodeId: await node(`ANSWER to: on fork ${restart}`), label: `label ${restart}` })
        await move('jump', { nodeId: await node('ANSWER to: on alt') })
        await move('back')
        if (restart % 2 === 0) await move('forward')
      }
      const view = await list()
      await dsh.api.promptAndWait(sessionId, 'after all restarts')
      const sent = history(dsh.llm.chatRequests().at(-1)!.body).filter(
        (m) => (m.role === 'user' || m.role === 'assistant') && m.text !== '',
      )
      expect(sent.map((m) => `${m.role}: ${m.text}`)).toEqual([
        ...spoken(view, view.cursor),
        'user: after all restarts',
      ])
      expect(dsh.llm.faults).toEqual([])
    }, 600_000)
  })
}
