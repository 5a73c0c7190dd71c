/** A fresh temp folder for each test of the calling file, removed after the test. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach } from 'vitest'

/** Registers the folder's hooks (before the file's own `beforeEach`); returns the running test's folder. */
export function tempEach(prefix: string): () => string {
  let dir: string | undefined
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), prefix))
  })
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
    dir = undefined
  })
  return () => {
    if (dir === undefined) throw new Error('the temp folder exists only while a test runs')
    return dir
  }
}
