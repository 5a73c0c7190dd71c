/**
 * The workspace files of the checkpoint tests: a content hash of every file, a git repository to
 * start from, and the model steps that change files with the harness's own tools.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { StaticStep } from './fake-llm.ts'

/** Path → SHA-256 of its bytes. */
export type Files = Record<string, string>

/** SHA-256 of some bytes, in hex. */
export const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex')

/** Every file of the workspace (the user's .git left out) → SHA-256 of its bytes. */
export function hashes(dir: string): Files {
  const out: Files = {}
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name
      if (child === '.git') continue
      if (entry.isDirectory()) walk(child)
      else out[child] = sha(fs.readFileSync(path.join(dir, child)))
    }
  }
  walk('')
  return out
}

/** `git init` the directory and commit everything in it. */
export function gitInit(dir: string): void {
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      stdio: 'ignore',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    })
  git('init', '-q')
  git('add', '-A')
  git('commit', '-qm', 'start')
}

/** A model step calling one harness tool. */
export const call = (name: string, args: Record<string, unknown>): StaticStep => ({
  toolCalls: [{ name, arguments: args }],
})
/** A model step changing files with the shell. */
export const bash = (command: string): StaticStep =>
  call('bash', { command, description: 'Change files with the shell' })
