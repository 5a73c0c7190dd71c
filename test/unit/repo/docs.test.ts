/**
 * The README and docs/ as a reader follows them: every relative link and
 * image resolves (a file, and a heading for a `#fragment`), the Chinese README
 * carries the very same commands and examples as the English one, and the
 * bilingual pair is as last confirmed (README.i18n.yaml, as DSH packages keep it).
 * The commands themselves are run where they are documented: the HTTP example
 * by test/e2e/concurrency.test.ts, the import/export block by
 * test/unit/cli/interchange-cli.test.ts, the tools' size at the fake LLM by
 * test/e2e/tool.test.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { current, recorded, REPO_ROOT } from '../../../dev/readme-pairing.ts'

const DOCS = join(REPO_ROOT, 'docs')
const FILES = [
  'README.md',
  'README.zh.md',
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
]

/** The text outside fenced code blocks. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '')
}

/** Fenced code blocks, in order. */
function fences(text: string): string[] {
  return [...text.matchAll(/^```\w*\n[\s\S]*?^```/gm)].map((m) => m[0])
}

/** GitHub's heading anchors of a Markdown file. */
function anchors(text: string): Set<string> {
  const out = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of prose(text).split('\n')) {
    const heading = /^#{1,6} (.+)$/.exec(line)
    if (!heading) continue
    const slug = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-')
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    out.add(n === 0 ? slug : `${slug}-${n}`)
  }
  return out
}

/** A path as documents write it: plain, with `*` globs, `{a,b}` alternatives or `<placeholders>`. */
// What the tests write and git ignores (`/test/e2e/artifacts/`) exists only after a run: a fresh clone has none.
const GENERATED = readFileSync(join(REPO_ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('/test/') && line.endsWith('/'))
  .map((line) => line.slice(1))

function pathExists(named: string): boolean {
  if (GENERATED.some((dir) => named.startsWith(dir))) return true
  const alternatives = /\{([^}]*)\}/.exec(named)
  if (alternatives)
    return alternatives[1]!.split(',').every((choice) => pathExists(named.replace(alternatives[0], choice)))
  let candidates = [REPO_ROOT]
  for (const part of named.replace(/\/$/, '').split('/')) {
    const pattern = new RegExp(
      `^${part
        .replace(/[.+?^$()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/<[^>]+>/g, '[^/]+')}$`,
    )
    candidates = candidates.flatMap((dir) =>
      existsSync(dir) && statSync(dir).isDirectory()
        ? readdirSync(dir)
            .filter((name) => pattern.test(name))
            .map((name) => join(dir, name))
        : [],
    )
  }
  return candidates.length > 0
}

describe('README and docs/', () => {
  it('every relative link and image points at a file that exists, and every #fragment at one of its headings', () => {
    const broken: string[] = []
    let checked = 0
    for (const file of FILES) {
      const text = readFileSync(join(REPO_ROOT, file), 'utf8')
      for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue
        checked++
        const [where, fragment] = target!.split('#') as [string, string | undefined]
        const path = where === '' ? join(REPO_ROOT, file) : resolve(dirname(join(REPO_ROOT, file)), where)
        if (!existsSync(path) || (where.endsWith('/') && !statSync(path).isDirectory()))
          broken.push(`${file}: ${target} (no ${relative(REPO_ROOT, path)})`)
        else if (fragment !== undefined && !anchors(readFileSync(path, 'utf8')).has(fragment))
          broken.push(`${file}: ${target} (no heading #${fragment})`)
      }
    }
    expect(broken).toEqual([])
    expect(checked).toBeGreaterThan(40)
  })

  it('every document in docs/ is linked from the README (both languages)', () => {
    for (const readme of ['README.md', 'README.zh.md']) {
      const text = readFileSync(join(REPO_ROOT, readme), 'utf8')
      const linked = new Set([...text.matchAll(/\]\(docs\/([\w-]+\.md)[)#]/g)].map((m) => m[1]))
      expect([...linked].sort(), readme).toEqual(
        readdirSync(DOCS)
          .filter((f) => f.endsWith('.md'))
          .sort(),
      )
    }
  })

  it('the Chinese README has the same code blocks, tables and section structure as the English one', () => {
    const en = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
    const zh = readFileSync(join(REPO_ROOT, 'README.zh.md'), 'utf8')
    expect(fences(zh)).toEqual(fences(en))
    const shape = (text: string): string[] =>
      prose(text)
        .split('\n')
        .filter((l) => /^#{1,6} /.test(l))
        .map((l) => l.replace(/ .*/, ''))
    expect(shape(zh)).toEqual(shape(en))
    const tableRows = (text: string): number =>
      prose(text)
        .split('\n')
        .filter((l) => l.startsWith('|')).length
    expect(tableRows(zh)).toBe(tableRows(en))
    expect(en).toContain('English | [中文](README.zh.md)')
    expect(zh).toContain('[English](README.md) | 中文')
  })

  it('the bilingual pair is as last confirmed in README.i18n.yaml (after editing one side: bring the other along, then npx node dev/readme-pairing.ts --write)', () => {
    expect(current()).toEqual(recorded())
  })

  it('every repository path a document names in a code span exists (globs and <placeholders> match at least one file)', () => {
    const missing: string[] = []
    let checked = 0
    for (const file of FILES) {
      const text = readFileSync(join(REPO_ROOT, file), 'utf8')
      for (const [, named] of text.matchAll(/`((?:src|test|dev|bench|docs|\.ci)(?:\/[^`\s]*)?)`/g)) {
        checked++
        if (!pathExists(named!)) missing.push(`${file}: ${named}`)
      }
    }
    expect(missing).toEqual([])
    expect(checked).toBeGreaterThan(30)
  })

  it('no document speaks of "this machine"', () => {
    for (const file of FILES)
      expect(readFileSync(join(REPO_ROOT, file), 'utf8'), file).not.toMatch(/this (2-core )?machine|本机|这台机器/)
  })
})
