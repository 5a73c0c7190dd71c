/**
 * Evidence of an e2e run under `test/e2e/artifacts/<suite>/` (gitignored):
 * recorded model requests, the HTTP wire log, harness output. Written on every
 * run, so a failure in CI can be read without reproducing it.
 */
import fs from 'node:fs'
import path from 'node:path'
import { REPO_ROOT } from '../../../dev/harness.ts'

export const ARTIFACTS = path.join(REPO_ROOT, 'test', 'e2e', 'artifacts')

/** Replace `test/e2e/artifacts/<suite>/` with fresh, empty contents and return its path. */
export function artifactDir(suite: string): string {
  const dir = path.join(ARTIFACTS, suite)
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true })
  return dir
}

/** Write one artifact: strings as they are, anything else as pretty JSON. */
export function saveArtifact(dir: string, name: string, content: unknown): void {
  fs.writeFileSync(path.join(dir, name), typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`)
}
