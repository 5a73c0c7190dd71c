/**
 * What the tests need from the machine, in one list, and the one rule for a missing piece: the
 * test fails naming the Debian package that brings it (never a skip, silent or not). `.ci/run`
 * installs every package listed here (`test/unit/repo/system.test.ts` keeps the two equal).
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { describe, it } from 'vitest'

export interface Prerequisite {
  /** What a test needs, as the failure names it. */
  readonly name: string
  /** The Debian package `.ci/run` installs for it. */
  readonly debian: string
  /** Whether this machine has it. */
  present(): boolean
}

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

function runs(command: string, args: readonly string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  } catch {
    return undefined
  }
}

/** Debian's Chromium, driven by playwright-core (the Tree tab, the Chat, the Trajectory). */
export const chromium: Prerequisite = {
  name: `Chromium at ${CHROMIUM_PATH}`,
  debian: 'chromium',
  present: () => fs.existsSync(CHROMIUM_PATH),
}

/** A font with Han glyphs, so the Chinese UI is drawn in glyphs, not tofu. */
export const cjkFont: Prerequisite = {
  name: 'a CJK font (`fc-list :lang=zh` lists one)',
  debian: 'fonts-noto-cjk',
  present: () => (runs('fc-list', [':lang=zh', 'family']) ?? '').trim() !== '',
}

/** tmux, which drives dsh-TUI in the terminal tests. */
export const tmux: Prerequisite = { name: 'tmux', debian: 'tmux', present: () => runs('tmux', ['-V']) !== undefined }

/** git (checkpoints in git work trees, the fixtures' repositories). */
export const git: Prerequisite = { name: 'git', debian: 'git', present: () => runs('git', ['--version']) !== undefined }

export const PREREQUISITES: readonly Prerequisite[] = [chromium, cjkFont, tmux, git]

function unmet(prerequisites: readonly Prerequisite[]): string | undefined {
  const missing = prerequisites.filter((p) => !p.present())
  return missing.length === 0
    ? undefined
    : missing
        .map(
          (p) =>
            `${p.name} is missing: install the Debian package \`${p.debian}\` (apt-get install -y ${p.debian}; .ci/run installs it)`,
        )
        .join('; ')
}

/** Throws, naming the Debian package, when this machine lacks what the calling test needs. */
export function requirePrerequisites(...prerequisites: Prerequisite[]): void {
  const why = unmet(prerequisites)
  if (why !== undefined) throw new Error(`this test needs ${why}`)
}

/** `describe(title, body)`; where a prerequisite is missing, one failing test names it instead. */
export function describeNeeding(prerequisites: readonly Prerequisite[], title: string, body: () => void): void {
  const why = unmet(prerequisites)
  if (why === undefined) describe(title, body)
  else
    describe(title, () => {
      it('has its prerequisites', () => {
        throw new Error(`this suite needs ${why}`)
      })
    })
}

/** `it(title, body, timeout)` under the same rule as `describeNeeding`. */
export function itNeeding(
  prerequisites: readonly Prerequisite[],
  title: string,
  body: () => Promise<void> | void,
  timeout?: number,
): void {
  it(
    title,
    async () => {
      requirePrerequisites(...prerequisites)
      await body()
    },
    timeout,
  )
}
