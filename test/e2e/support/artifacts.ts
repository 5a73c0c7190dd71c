/**
 * Evidence of an e2e run under `test/e2e/artifacts/<suite>/` (gitignored):
 * recorded model requests, the HTTP wire log, harness output. Written on every
 * run, so a failure in CI can be read without reproducing it.
 */
import fs from 'node:fs'
import path from 'node:path'
import { REPO_ROOT } from '../../../dev/harness.ts'
import { removeDir, type WebProcess } from './dsh.ts'
import { type FakeLlm, summarizeMessages } from './fake-llm.ts'

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
  fs.writeFileSync(
    path.join(dir, name),
    typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`,
  )
}

/** A stopwatch for setup steps: `time(label, fn)` adds fn's duration to `timings[label]`. */
export function stopwatch(timings: Record<string, number>) {
  return async <T>(label: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = Date.now()
    try {
      return await fn()
    } finally {
      timings[label] = (timings[label] ?? 0) + Date.now() - t0
    }
  }
}

/** What a fake LLM was asked, one summarized request per block. */
export function requestsText(llm: FakeLlm, width?: number): string {
  return llm
    .chatRequests()
    .map((r) => [`#${r.n}`, ...summarizeMessages(r.body, width)].join('\n'))
    .join('\n\n')
}

/** Each harness process's output and HTTP wire log, as `web-<i>.*`. */
export function saveWebEvidence(dir: string, webs: readonly WebProcess[]): void {
  webs.forEach((web, i) => {
    saveArtifact(dir, `web-${i + 1}.stdout.log`, web.logs().stdout)
    saveArtifact(dir, `web-${i + 1}.stderr.log`, web.logs().stderr)
    saveArtifact(dir, `web-${i + 1}.wire.json`, web.api.log)
  })
}

/** After a suite: keep its DSH home and workspace when it failed (and say where), else remove them. */
export function keepOrRemove(
  suite: string,
  failed: boolean,
  dirs: { home?: string; work?: string },
  artifacts?: string,
): void {
  if (failed)
    console.error(
      `${suite} e2e failed; DSH_HOME kept at ${dirs.home}, workspace at ${dirs.work}, evidence in ${artifacts}`,
    )
  else {
    removeDir(dirs.home)
    removeDir(dirs.work)
  }
}
