/**
 * The one skip rule of the suite: a test whose prerequisite is missing here is skipped with a
 * warning that names it, except under `CI`, where it fails naming it (never a silent skip in CI).
 */
import fs from 'node:fs'
import { describe, it } from 'vitest'

export interface Prerequisite {
  /** What is needed, as a warning or a failure names it. */
  readonly name: string
  /** Undefined when it is there; else what is wrong and how to get it. */
  readonly missing: string | undefined
}

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Debian's Chromium, driven by playwright-core (`.ci/run` installs it). */
export const chromium: Prerequisite = {
  name: `Chromium at ${CHROMIUM_PATH}`,
  missing: fs.existsSync(CHROMIUM_PATH)
    ? undefined
    : 'not installed (apt-get install -y chromium, as .ci/run does; or set CHROMIUM_PATH)',
}

function unmet(prerequisites: readonly Prerequisite[]): string | undefined {
  const missing = prerequisites.filter((p) => p.missing !== undefined)
  return missing.length === 0 ? undefined : missing.map((p) => `${p.name}: ${p.missing}`).join('; ')
}

/** `describe(title, body)` when every prerequisite is there; else skipped with a warning, or failing under CI. */
export function describeNeeding(prerequisites: readonly Prerequisite[], title: string, body: () => void): void {
  const why = unmet(prerequisites)
  if (why === undefined) describe(title, body)
  else if (process.env.CI)
    describe(title, () => {
      it('has its prerequisites', () => {
        throw new Error(`missing prerequisite (under CI a missing prerequisite fails): ${why}`)
      })
    })
  else {
    console.warn(`skipped "${title}": missing prerequisite: ${why}`)
    describe.skip(title, body)
  }
}

/** `it(title, body, timeout)` under the same rule as `describeNeeding`. */
export function itNeeding(
  prerequisites: readonly Prerequisite[],
  title: string,
  body: () => Promise<void> | void,
  timeout?: number,
): void {
  const why = unmet(prerequisites)
  if (why === undefined) it(title, body, timeout)
  else if (process.env.CI)
    it(title, () => {
      throw new Error(`missing prerequisite (under CI a missing prerequisite fails): ${why}`)
    })
  else {
    console.warn(`skipped "${title}": missing prerequisite: ${why}`)
    it.skip(title, body)
  }
}
