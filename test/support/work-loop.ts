/**
 * The in-process agent loop over a real work tree: the real `dsh-fs-observation-policy` on the
 * `fs/*` gate and the stand-in file (and shell) tools rooted there (`file-tools.ts` says why they
 * stand in), plus the clean-up the suites that use it share.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import * as FsPolicy from '@deepseek-ai/dsh-fs-observation-policy'
import { afterEach } from 'vitest'
import { fileTools, shellTool } from './file-tools.ts'
import { loopRig, type LoopRig, type ScriptEntry } from './tool-rig.ts'

/** A model step that makes one tool call. */
export const call = (name: string, args: Record<string, unknown>): ScriptEntry => ({ calls: [{ name, args }] })

/** The loop on `work` with the policy and the file tools; `shell`: the `bash` tool too. */
export function filesLoop(work: string, script: ScriptEntry[], options: { shell?: boolean } = {}): Promise<LoopRig> {
  return loopRig(script, {
    cwd: work,
    setup: async (ctx) => {
      await (ctx as any).plugin(FsPolicy)
      await fileTools(ctx, work)
      if (options.shell) shellTool(ctx, work)
    },
  })
}

export interface WorkTrees {
  /** A fresh temp folder (its real path) named after `prefix`. */
  folder(prefix: string): string
  /** Dispose `rig` after the test too; returns it. */
  rig(rig: LoopRig): LoopRig
  /** Remove `file` (a file or a folder) after the test too. */
  removeAfter(file: string): void
}

/** Folders and rigs of the calling file's tests, disposed and removed after each test. */
export function workTrees(): WorkTrees {
  const rigs: LoopRig[] = []
  const dirs: string[] = []
  afterEach(async () => {
    for (const rig of rigs.splice(0)) await rig.dispose()
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  return {
    folder(prefix) {
      const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)))
      dirs.push(dir)
      return dir
    },
    rig(rig) {
      rigs.push(rig)
      return rig
    },
    removeAfter: (file) => void dirs.push(file),
  }
}
