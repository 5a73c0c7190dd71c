/**
 * The change feed's tests compare two snapshotters of one folder: one narrowed by file events, one walking
 * everything (`watch: 'walk'`). A fed snapshot must always equal the walked one.
 */
import { mkdirSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { beforeEach } from 'vitest'
import { GitSnapshots, type GitWorkTree, type Snapshot } from '../../src/workspace/git.ts'
import { FEED_LIMITS, type FeedLimits } from '../../src/workspace/watch.ts'
import { tempEach } from './temp-each.ts'

// A cookie that never times out in a test: a slow machine makes it slower, never different.
export const PATIENT: FeedLimits = { ...FEED_LIMITS, cookieMs: 120_000 }

export interface FeedPair {
  readonly fed: GitSnapshots
  readonly walked: GitSnapshots
}

/** Both snapshotters of `tree`, their git directories in `tmp` (`tag` tells several pairs apart). */
export function feedPair(tmp: string, tree: GitWorkTree, limits: FeedLimits = PATIENT, tag = ''): FeedPair {
  return {
    fed: new GitSnapshots(path.join(tmp, `fed-git${tag}`), tree, {
      maxFileBytes: 4096,
      watch: 'events',
      feedLimits: limits,
    }),
    walked: new GitSnapshots(path.join(tmp, `walked-git${tag}`), tree, { maxFileBytes: 4096, watch: 'walk' }),
  }
}

/** A snapshot as comparable data: path → mode and blob id (or a large file's size). */
export function plainSnapshot(s: Snapshot): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [rel, e] of [...s.entries].sort(([a], [b]) => (a < b ? -1 : 1))) out[rel] = `${e.mode} ${e.oid}`
  for (const [rel, l] of s.large) out[rel] = `large ${l.size}`
  return out
}

/** A resolved temp folder per test, with the folder under test (`root`, empty) inside it. */
export function workFolderEach(prefix: string): () => { readonly tmp: string; readonly root: string } {
  const temp = tempEach(prefix)
  let current: { tmp: string; root: string } | undefined
  beforeEach(() => {
    const tmp = realpathSync(temp())
    current = { tmp, root: path.join(tmp, 'work') }
    mkdirSync(current.root)
  })
  return () => {
    if (current === undefined) throw new Error('the work folder exists only while a test runs')
    return current
  }
}
