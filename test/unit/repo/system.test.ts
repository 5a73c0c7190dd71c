/**
 * `.ci/run` installs every system package a test can need (`test/support/prerequisites.ts`), so a
 * fresh CI machine has them all; and a missing one fails the test naming its package.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { cjkFont, PREREQUISITES, requirePrerequisites, type Prerequisite } from '../../support/prerequisites.ts'

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..')

describe('system packages', () => {
  it('.ci/run installs exactly the Debian packages test/support/prerequisites.ts lists', () => {
    const run = fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')
    const line = /^SYSTEM_PACKAGES=\(([^)]*)\)$/m.exec(run)
    expect(line, '.ci/run has no SYSTEM_PACKAGES=(…) line').not.toBeNull()
    expect(line![1]!.trim().split(/\s+/).sort()).toEqual(PREREQUISITES.map((p) => p.debian).sort())
  })

  it('a missing prerequisite fails naming its Debian package; a present one passes', () => {
    const absent: Prerequisite = { ...cjkFont, present: () => false }
    expect(() => requirePrerequisites(absent)).toThrow(/install the Debian package `fonts-noto-cjk`/)
    expect(() => requirePrerequisites({ ...cjkFont, present: () => true })).not.toThrow()
  })
})
