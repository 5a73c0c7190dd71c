/**
 * Stand-ins for the harness's file and shell tools in the in-process agent
 * loop (`tool-rig.ts`), because the real packages cannot be installed as dev
 * dependencies here (dsh-fs-local needs the native `koffi`, dsh-tool-fs and
 * dsh-tool-shell half the harness): a `ctx.fs` provider with `resolve` and
 * `processPath`, `write` and `read` tools that follow dsh-tool-fs's sequence
 * exactly — resolve, ask the `fs/write-intent` gate, write, emit
 * `fs/observed` — and a `bash` tool that runs its command in the workspace.
 * The end-to-end suites (test/e2e/workspace.test.ts) run the real ones.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Context } from '@deepseek-ai/cordis'

interface Target {
  targetKey: string
  displayPath: string
}

const versionOf = (file: string) => {
  const s = statSync(file, { bigint: true })
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
}

const output = {
  schema: { type: 'object', additionalProperties: true, properties: {} },
  render: (_a: unknown, v: { text: string }) => [{ type: 'text', text: v.text }],
}

/** Register the `fs` provider and the `write` and `read` tools on `ctx`, rooted at `cwd`. */
export async function fileTools(ctx: Context, cwd: string): Promise<void> {
  const fs = {
    async resolve(p: string): Promise<Target> {
      const abs = path.resolve(cwd, p)
      return { targetKey: abs, displayPath: abs }
    },
    processPath: (target: Target) => target.targetKey,
  }
  await (ctx as any).plugin({
    name: 'fs-stand-in',
    apply(c: Context) {
      ;(c as any).provide('fs', fs)
    },
  })
  const c = ctx as any
  c.tools.register({
    name: 'write',
    description: 'write a file',
    parameters: {
      type: 'object',
      properties: { file_path: { type: 'string' }, content: { type: 'string' } },
      required: ['file_path', 'content'],
      additionalProperties: false,
    },
    output,
    async execute(args: { file_path: string; content: string }, exec: object) {
      const target = await fs.resolve(args.file_path)
      const intent = await c.waterfall('fs/write-intent', target, exec, () => undefined)
      // The provider's guarded write (dsh-fs-local's rules).
      const exists = existsSync(target.targetKey)
      if (intent?.kind === 'createIfAbsent' && exists)
        throw Object.assign(new Error(`FS_NOT_OBSERVED: ${args.file_path} exists — read the file, then retry`), {
          code: 'FS_NOT_OBSERVED',
        })
      if (intent?.kind === 'replaceIfVersion' && (!exists || versionOf(target.targetKey) !== intent.version))
        throw Object.assign(new Error(`FS_STALE_VERSION: ${args.file_path} changed — re-read the file, then retry`), {
          code: 'FS_STALE_VERSION',
        })
      writeFileSync(target.targetKey, args.content)
      c.emit('fs/observed', target, { kind: 'present', version: versionOf(target.targetKey) }, exec)
      return { text: `wrote ${args.file_path}` }
    },
  })
  c.tools.register({
    name: 'read',
    description: 'read a file',
    parameters: {
      type: 'object',
      properties: { file_path: { type: 'string' } },
      required: ['file_path'],
      additionalProperties: false,
    },
    output,
    async execute(args: { file_path: string }, exec: object) {
      const target = await fs.resolve(args.file_path)
      const text = readFileSync(target.targetKey, 'utf8')
      c.emit('fs/observed', target, { kind: 'present', version: versionOf(target.targetKey) }, exec)
      return { text }
    },
  })
}

/** Register a `bash` tool that runs its command with `sh -c` in `cwd` (what the shell capture snapshots around). */
export function shellTool(ctx: Context, cwd: string): void {
  ;(ctx as any).tools.register({
    name: 'bash',
    description: 'run a shell command',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string' } },
      required: ['command'],
      additionalProperties: false,
    },
    output,
    async execute(args: { command: string }) {
      const text = execFileSync('sh', ['-c', args.command], { cwd, encoding: 'utf8' })
      return { text: text === '' ? 'ok' : text }
    },
  })
}
