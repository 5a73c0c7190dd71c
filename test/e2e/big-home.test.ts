/**
 * A home of many sessions (issue 25.2) in the real `dsh web` with the packed
 * plugin: one session driven for real, copied under fresh ids with its
 * sidecar. Booting and listing the sessions read no sidecar (access times set
 * back before the boot move on a read: `ageSidecars`); opening one session
 * reads that session's sidecar only, and its tree has the label the sidecar holds.
 */
import path from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import {
  ageSidecars,
  cloneSessions,
  driveSeed,
  sessionDir,
  sidecarFilesRead,
  type AgedFile,
  type SeedSession,
} from './support/big-home.ts'
import { describeWeb } from './support/web-suite.ts'

const COPIES = 30

describeWeb(
  'a home of many sessions with sidecars',
  {
    name: 'big-home',
    llm: { script: [{ text: 'ANSWER-1: first.' }, { text: 'ANSWER-2: second.' }] },
    start: false,
  },
  (dsh) => {
    let seed: SeedSession
    let copies: string[]
    let aged: AgedFile[]

    // One session driven for real, `dsh web` stopped, the home filled with its copies, then a fresh boot.
    beforeAll(async () => {
      seed = { home: dsh.home, work: dsh.work, ...(await driveSeed(await dsh.startWeb(), dsh.work)) }
      await dsh.stopWeb()
      copies = cloneSessions(seed.home, seed.sessionId, seed.home, COPIES)
      aged = ageSidecars(seed.home)
      await dsh.startWeb()
    }, 480_000)

    it('boots and lists every session without reading a sidecar', async () => {
      expect(aged.length).toBeGreaterThanOrEqual(COPIES + 1)
      const listed = (await dsh.api.listSessions()).map((s) => s.sessionId)
      expect(listed).toEqual(expect.arrayContaining([seed.sessionId, ...copies]))
      // A dry-run gc waits for the plugin's start-up scan, so the scan is over when it answers.
      await dsh.api.remoteOk('sessionTree/gc', { dryRun: true })
      expect(sidecarFilesRead(aged)).toEqual([])
    })

    it("opening a session reads that session's sidecar only, and its tree holds the sidecar's label", async () => {
      const opened = copies[7]!
      // A stored session loads in the harness when it gets a message (as when a person opens and writes in it).
      await dsh.api.promptAndWait(opened, 'back to this session')
      const tree = await dsh.api.tree(opened)
      expect(tree.nodes.filter((n) => n.label === seed.label)).toHaveLength(1)
      const read = sidecarFilesRead(aged)
      expect(read.length).toBeGreaterThan(0)
      const dir = sessionDir(seed.home, opened) + path.sep
      expect(read.filter((file) => !file.startsWith(dir))).toEqual([])
    })
  },
)
