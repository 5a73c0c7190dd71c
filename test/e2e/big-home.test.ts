/**
 * A home of many sessions (issue 25.2) in the real `dsh web` with the packed
 * plugin: one session driven for real, copied under fresh ids with its
 * sidecar. Booting and listing the sessions read no sidecar (access times set
 * back before the boot move on a read: `ageSidecars`); opening one session
 * reads that session's sidecar only, and its tree has the label the sidecar holds.
 */
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ageSidecars,
  cloneSessions,
  seedSession,
  sessionDir,
  sidecarFilesRead,
  type AgedFile,
  type SeedSession,
} from './support/big-home.ts'
import { ensureDsh, removeDir, startWeb, type WebProcess } from './support/dsh.ts'
import { startFakeLlm, type FakeLlm } from './support/fake-llm.ts'
import { packPlugin } from './support/pack.ts'

const COPIES = 30

describe('a home of many sessions with sidecars', () => {
  let llm: FakeLlm
  let seed: SeedSession
  let copies: string[]
  let aged: AgedFile[]
  let web: WebProcess

  beforeAll(async () => {
    await ensureDsh()
    llm = await startFakeLlm({ script: [{ text: 'ANSWER-1: first.' }, { text: 'ANSWER-2: second.' }] })
    seed = await seedSession((await packPlugin()).tgz, llm.url, 'big-home')
    copies = cloneSessions(seed.home, seed.sessionId, seed.home, COPIES)
    aged = ageSidecars(seed.home)
    web = await startWeb({ home: seed.home, cwd: seed.work, llmUrl: llm.url })
  }, 480_000)

  afterAll(async () => {
    await web?.stop()
    await llm?.close()
    removeDir(seed?.home)
    removeDir(seed?.work)
  })

  it('boots and lists every session without reading a sidecar', async () => {
    expect(aged.length).toBeGreaterThanOrEqual(COPIES + 1)
    const listed = (await web.api.listSessions()).map((s) => s.sessionId)
    expect(listed).toEqual(expect.arrayContaining([seed.sessionId, ...copies]))
    // A dry-run gc waits for the plugin's start-up scan, so the scan is over when it answers.
    await web.api.remoteOk('sessionTree/gc', { dryRun: true })
    expect(sidecarFilesRead(aged)).toEqual([])
  })

  it("opening a session reads that session's sidecar only, and its tree holds the sidecar's label", async () => {
    const opened = copies[7]!
    // A stored session loads in the harness when it gets a message (as when a person opens and writes in it).
    await web.api.promptAndWait(opened, 'back to this session')
    const tree = await web.api.tree(opened)
    expect(tree.nodes.filter((n) => n.label === seed.label)).toHaveLength(1)
    const read = sidecarFilesRead(aged)
    expect(read.length).toBeGreaterThan(0)
    const dir = sessionDir(seed.home, opened) + path.sep
    expect(read.filter((file) => !file.startsWith(dir))).toEqual([])
  })
})
