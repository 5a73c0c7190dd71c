/**
 * `.ci/run` installs every system package a test can ask for with
 * `requireSystem`, so a fresh CI machine has them all; and `requireSystem`
 * fails naming the package where one is missing.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { requireSystem, SYSTEM_PACKAGES } from '../support/system.ts'

const ROOT = path.resolve(import.meta.dirname, '..', '..')

describe('system packages', () => {
  it('.ci/run installs exactly the Debian packages test/support/system.ts lists', () => {
    const run = fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')
    const line = /^SYSTEM_PACKAGES=\(([^)]*)\)$/m.exec(run)
    expect(line, '.ci/run has no SYSTEM_PACKAGES=(…) line').not.toBeNull()
    const installed = line![1]!.trim().split(/\s+/).sort()
    expect(installed).toEqual(
      Object.values(SYSTEM_PACKAGES)
        .map((p) => p.debian)
        .sort(),
    )
  })

  it('requireSystem names the Debian package of what is missing', () => {
    const cjk = SYSTEM_PACKAGES.cjkFont as { present: () => boolean }
    const present = cjk.present
    try {
      cjk.present = () => false
      expect(() => requireSystem('cjkFont')).toThrow(/install the Debian package `fonts-noto-cjk`/)
      cjk.present = () => true
      expect(() => requireSystem('cjkFont')).not.toThrow()
    } finally {
      cjk.present = present
    }
  })
})
