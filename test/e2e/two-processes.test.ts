/**
 * Two real `dsh web` processes on one DSH home and one session (stock mode):
 * the first to change the tree writes it; the other is refused with
 * SIDECAR_CLAIMED naming it (pid, host, kind) and changes nothing; a writer
 * killed with SIGKILL is taken over, one that exits lets go; every change
 * answered ok is in the tree after both restart, both restarted processes see
 * the same tree, and no journal line is torn.
 *
 * Evidence: test/e2e/artifacts/two-processes/.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect, it } from 'vitest'
import { CLAIM_FILE, JOURNAL_FILE } from '../../src/sidecar/index.ts'
import { scanJournal } from '../../src/sidecar/journal.ts'
import type { SessionStatus, SessionTreeListing } from '../../src/service/wire.ts'
import type { DshApi, RpcResult } from './support/api.ts'
import type { WebProcess } from './support/dsh.ts'
import { sidecarPlaces } from './support/sidecar-files.ts'
import { readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

/** The process group a pid is in (field 5 of /proc/<pid>/stat): `dsh` may run node under a launcher. */
function groupOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
}

describeWeb(
  'two dsh web processes on one session',
  { name: 'two-processes', llm: { script: readOrAnswerScript(20) } },
  (dsh) => {
    const steps: unknown[] = []
    dsh.evidence('steps.json', steps)
    let sessionId: string

    const call = async <T>(api: DshApi, method: string, args: Record<string, unknown>, who: string) => {
      const result: RpcResult<T> = await api.remote<T>(`sessionTree/${method}`, { agentId: sessionId, ...args })
      steps.push({ who, method, args, result: result.ok ? 'ok' : result.error })
      return result
    }
    const ok = async <T>(api: DshApi, method: string, args: Record<string, unknown>, who: string) => {
      const result = await call<T>(api, method, args, who)
      if (!result.ok) throw new Error(`${who} ${method}: ${result.error.code}: ${result.error.message}`)
      return result.value
    }
    const refusedBy = async (
      api: DshApi,
      method: string,
      args: Record<string, unknown>,
      who: string,
      holder: WebProcess,
    ) => {
      const result = await call(api, method, args, who)
      expect(result.ok ? 'ok' : result.error.code, `${who} ${method}`).toBe('SIDECAR_CLAIMED')
      if (result.ok) return
      const named = (result.error.details as { holder: { pid: number; host: string; kind: string } }).holder
      expect(named).toMatchObject({ kind: 'dsh web', host: os.hostname() })
      expect(groupOf(named.pid), 'the holder is that dsh web').toBe(holder.pid)
      expect(result.error.message).toContain(`dsh web (pid ${named.pid} on ${os.hostname()}`)
    }
    const sidecarDir = (): string => {
      const place = sidecarPlaces(dsh.home).find((p) => fs.existsSync(path.join(p, JOURNAL_FILE)))
      if (!place) throw new Error('no sidecar journal under the DSH home')
      return place
    }
    const claimPid = (): number | undefined => {
      const file = path.join(sidecarDir(), CLAIM_FILE)
      return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number }).pid : undefined
    }
    /** A second `dsh web` on the same home, beside the suite's own. */
    const second = (): Promise<WebProcess> => dsh.otherWeb()
    /** A stored session loads when a move names it; one refused for an unknown node changes nothing. */
    const load = async (api: DshApi, who: string) => {
      const refused = await call(api, 'jump', { nodeId: 'e999999' }, who)
      expect(refused.ok ? 'ok' : refused.error.code).toBe('NODE_NOT_FOUND')
    }

    it('one writes, the other is refused naming it; SIGKILL and exit hand over; nothing acknowledged is lost', async () => {
      const a = dsh.web
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
      await dsh.api.promptAndWait(sessionId, 'first question')
      await dsh.api.promptAndWait(sessionId, 'second question')
      const a1 = (await dsh.api.nodeWith(sessionId, 'ANSWER to: first question')).nodeId
      const a2 = (await dsh.api.nodeWith(sessionId, 'ANSWER to: second question')).nodeId

      // A writes first: it is the session's writer.
      await ok(a.api, 'label', { nodeId: a1, label: 'from A' }, 'A')
      await ok(a.api, 'fork', { nodeId: a1, branch: 'alt-a' }, 'A')
      expect(groupOf(claimPid()!)).toBe(a.pid)

      // B on the same home: refused, naming A; A goes on writing.
      const b = await second()
      await refusedBy(b.api, 'label', { nodeId: a2, label: 'from B' }, 'B', a)
      await refusedBy(b.api, 'jump', { nodeId: a2 }, 'B', a)
      await refusedBy(b.api, 'back', {}, 'B', a)
      await ok(a.api, 'label', { nodeId: a2, label: 'A again' }, 'A')

      // A is killed: its claim stays behind, and B takes it over.
      const holderOfA = claimPid()
      await dsh.stopWeb('SIGKILL')
      expect(claimPid(), 'a killed writer leaves its claim behind').toBe(holderOfA)
      expect(fs.existsSync(`/proc/${holderOfA}`), 'its process is gone').toBe(false)
      // (A move loads a stored session; a label needs it loaded.)
      await ok(b.api, 'fork', { nodeId: a2, branch: 'alt-b' }, 'B')
      await ok(b.api, 'label', { nodeId: a2, label: 'from B' }, 'B')
      await ok(b.api, 'jump', { nodeId: a1 }, 'B')
      expect(groupOf(claimPid()!)).toBe(b.pid)
      const afterB = await b.api.tree(sessionId)
      // What A had acknowledged is there in B: nothing lost across the SIGKILL.
      expect(afterB.nodes.find((n) => n.nodeId === a1)?.label).toBe('from A')
      expect(afterB.nodes.find((n) => n.nodeId === a2)?.label).toBe('from B')
      expect(afterB.branches.map((br) => br.name).sort()).toEqual(['alt-a', 'alt-b', 'main'])

      // A restarted is refused, naming B; B exits gracefully and lets go.
      const a2web = await dsh.startWeb()
      await refusedBy(a2web.api, 'label', { nodeId: a1, label: 'from A2' }, 'A2', b)
      const status: SessionStatus = await b.api.status(sessionId)
      expect(status.readOnly, 'B writes: not read-only there').toBeUndefined()
      await b.stop('SIGTERM')
      expect(claimPid(), 'released on exit').toBeUndefined()
      await ok(a2web.api, 'back', {}, 'A2')
      await ok(a2web.api, 'label', { nodeId: a1, label: 'from A2' }, 'A2')
      const expected: SessionTreeListing = await a2web.api.tree(sessionId)
      expect(expected.nodes.find((n) => n.nodeId === a1)?.label).toBe('from A2')
      await dsh.stopWeb('SIGKILL')

      // Both restarted: the same tree, what every acknowledged change made.
      const c = await dsh.startWeb()
      const d = await second()
      await load(c.api, 'C')
      await load(d.api, 'D')
      const [inC, inD] = await Promise.all([c.api.tree(sessionId), d.api.tree(sessionId)])
      dsh.evidence('final-tree.json', inC)
      expect(inC).toEqual(expected)
      expect(inD).toEqual(expected)
      expect((await c.api.status(sessionId)).sidecarWarnings).toEqual([])
      for (const place of sidecarPlaces(dsh.home))
        for (const name of fs.readdirSync(place, { recursive: true }) as string[])
          if (path.basename(name) === JOURNAL_FILE) {
            const scan = scanJournal(fs.readFileSync(path.join(place, name)))
            expect(scan.bad, `${name}: no torn or bad line`).toBeUndefined()
          }
    }, 300_000)
  },
)
