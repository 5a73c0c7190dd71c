/** Fresh temp folders for the tests of the calling file, removed after each test. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
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

/** What `tempHome` lays out in the test's folder: each name a path inside it. */
export interface HomeLayout<K extends string> {
  /** Folders made before each test (with their parents). */
  readonly folders?: { readonly [P in K]?: string }
  /** Files written before each test, as `[path, text]` (their folders made). */
  readonly files?: { readonly [P in K]?: readonly [path: string, text: string] }
  /** Places named but not made: what the code under test, or the test, makes. */
  readonly paths?: { readonly [P in K]?: string }
}

/**
 * `tempEach` with named places: before each test (and before the file's own `beforeEach`) the layout's folders and
 * files are made in a fresh folder. The answer reads the running test's places: `tmp`, the folder, and each name's
 * full path.
 */
export function tempHome<K extends string>(
  prefix: string,
  layout: HomeLayout<K>,
): { readonly tmp: string } & Record<K, string> {
  const temp = tempEach(prefix)
  const folders = Object.values<string>((layout.folders ?? {}) as Record<string, string>)
  const files = Object.entries((layout.files ?? {}) as Record<string, readonly [string, string]>)
  const places: Record<string, string> = { ...layout.paths, ...layout.folders }
  for (const [name, [file]] of files) places[name] = file
  beforeEach(() => {
    const tmp = temp()
    for (const folder of folders) mkdirSync(path.join(tmp, folder), { recursive: true })
    for (const [, [file, text]] of files) {
      mkdirSync(path.dirname(path.join(tmp, file)), { recursive: true })
      writeFileSync(path.join(tmp, file), text)
    }
  })
  const home = {}
  Object.defineProperty(home, 'tmp', { get: temp, enumerable: true })
  for (const [name, at] of Object.entries(places))
    Object.defineProperty(home, name, { get: () => path.join(temp(), at), enumerable: true })
  return home as { readonly tmp: string } & Record<K, string>
}
