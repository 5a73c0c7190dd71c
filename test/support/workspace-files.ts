/**
 * The folders of a workspace test on real files: a fresh `work` folder (the user's files) and a
 * `sidecar` folder (the checkpoints) in a temp folder for each test, the file helpers on `work`,
 * and a registry opened on them the way a new process opens it.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { beforeEach } from 'vitest'
import { WorkspaceRegistry, type CallPoint, type SessionWorkspace } from '../../src/workspace/index.ts'
import { value } from './messages.ts'
import { tempEach } from './temp-each.ts'

export interface OpenOptions {
  readonly maxFileBytes?: number
  readonly shell?: 'off' | 'auto'
  readonly hook?: (i: number, p: string) => void | Promise<void>
}

/** The point of a file tool's call at event seq `seq`: key 2·seq, node e<seq>, call call-<seq>, journaled at `w`. */
export const callPoint = (seq: number, w = seq + 1): CallPoint => ({
  key: 2 * seq,
  node: `e${seq}`,
  call: `call-${seq}`,
  tool: 'write',
  w,
})

/** Registers the folders' hooks (call at the top of the file); the folders exist only while a test runs. */
export function workspaceFiles(prefix: string) {
  const temp = tempEach(prefix)
  let tmp = ''
  let work = ''
  let sidecar = ''
  beforeEach(() => {
    tmp = temp()
    work = path.join(tmp, 'work')
    sidecar = path.join(tmp, 'sidecar')
    mkdirSync(work)
  })
  const file = (rel: string) => path.join(work, rel)
  return {
    /** The test's temp folder, holding `work` and `sidecar`. */
    tmp: () => tmp,
    work: () => work,
    sidecar: () => sidecar,
    sha: (text: string) => createHash('sha256').update(text).digest('hex'),
    file,
    /** Writes `rel` under `work`, making its folders. */
    write: (rel: string, text: string) => {
      mkdirSync(path.dirname(file(rel)), { recursive: true })
      writeFileSync(file(rel), text)
    },
    /** The text of `rel` under `work`, null when there is none. */
    read: (rel: string) => (existsSync(file(rel)) ? readFileSync(file(rel), 'utf8') : null),
    /** The workspace folder of the (only) session's sidecar. */
    workspaceDir: () => path.join(sidecar, readdirSync(sidecar)[0]!, 'workspace'),
    /** A fresh process: a new registry reads the sidecar from disk (shell snapshots off unless asked). */
    open: async (options: OpenOptions = {}): Promise<SessionWorkspace> => {
      const registry = new WorkspaceRegistry({
        sidecarRoot: sidecar,
        enabled: true,
        maxFileBytes: options.maxFileBytes ?? 1024 * 1024,
        shell: options.shell ?? 'off',
        ...(options.hook ? { hook: options.hook } : {}),
      })
      return value(await registry.get('session-1', work))
    },
  }
}
