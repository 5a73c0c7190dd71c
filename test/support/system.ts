/**
 * The system (Debian) packages the tests need, in one list: `.ci/run` installs
 * every one of them (`test/unit/system.test.ts` reads it), and a test that
 * needs one calls `requireSystem`, which fails naming the package instead of
 * failing later on a symptom (tofu glyphs, a missing binary).
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'

export interface SystemPackage {
  /** The Debian package `.ci/run` installs. */
  readonly debian: string
  /** What a test needs of it, for the failure message. */
  readonly what: string
  /** Whether this machine has it. */
  readonly present: () => boolean
}

function runs(command: string, args: readonly string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  } catch {
    return undefined
  }
}

export const SYSTEM_PACKAGES = {
  chromium: {
    debian: 'chromium',
    what: 'a browser at /usr/bin/chromium (the Tree tab, the Chat and the Trajectory in real Chromium)',
    present: () => fs.existsSync('/usr/bin/chromium'),
  },
  cjkFont: {
    debian: 'fonts-noto-cjk',
    what: 'a font with Han glyphs (`fc-list :lang=zh` lists one), so the Chinese UI is not drawn as tofu',
    present: () => (runs('fc-list', [':lang=zh', 'family']) ?? '').trim() !== '',
  },
  tmux: {
    debian: 'tmux',
    what: 'tmux, which drives dsh-TUI in the terminal tests',
    present: () => runs('tmux', ['-V']) !== undefined,
  },
  git: {
    debian: 'git',
    what: 'git (workspace checkpoints in git work trees)',
    present: () => runs('git', ['--version']) !== undefined,
  },
} as const satisfies Record<string, SystemPackage>

export type SystemPackageName = keyof typeof SYSTEM_PACKAGES

/** Throws, naming the Debian package, when this machine lacks what a test needs. */
export function requireSystem(name: SystemPackageName): void {
  const pkg: SystemPackage = SYSTEM_PACKAGES[name]
  if (!pkg.present())
    throw new Error(
      `this test needs ${pkg.what}: install the Debian package \`${pkg.debian}\` (apt-get install -y ${pkg.debian}; .ci/run installs it)`,
    )
}
