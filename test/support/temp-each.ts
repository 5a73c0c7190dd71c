/** Fresh temp folders for the tests of the calling file, removed after each test. */
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

/** A new temp folder on every call (a test may ask for several); all of them removed after the test. */
export function tempDirs(prefix: string): () => string {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  return () => {
    const dir = mkdtempSync(path.join(tmpdir(), prefix))
    dirs.push(dir)
    return dir
  }
}
