/**
 * Every source, test, bench and dev script is formatted by the pinned
 * Prettier with the repository's `.prettierrc.json` (120 columns). Run
 * `npm run format` to fix what this lists.
 */
import fs from 'node:fs'
import path from 'node:path'
import * as prettier from 'prettier'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..')
const FOLDERS = ['src', 'test', 'bench', 'dev']
const CODE = /\.(ts|tsx)$/

async function codeFiles(): Promise<string[]> {
  const out: string[] = ['vitest.config.ts']
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(rel)
      else if (entry.isFile() && CODE.test(entry.name)) out.push(rel)
    }
  }
  for (const folder of FOLDERS) walk(folder)
  const ignored = await Promise.all(
    out.map(
      async (rel) =>
        (await prettier.getFileInfo(path.join(ROOT, rel), { ignorePath: path.join(ROOT, '.prettierignore') })).ignored,
    ),
  )
  return out.filter((_, i) => !ignored[i]).sort()
}

describe('formatting', () => {
  it('every code file is as Prettier writes it (npm run format fixes it)', async () => {
    const files = await codeFiles()
    expect(files.length).toBeGreaterThan(100)
    const unformatted: string[] = []
    for (const rel of files) {
      const file = path.join(ROOT, rel)
      const options = await prettier.resolveConfig(file, { editorconfig: false })
      expect(options, `${rel}: no Prettier config found`).toMatchObject({ printWidth: 120 })
      if (!(await prettier.check(fs.readFileSync(file, 'utf8'), { ...options, filepath: file }))) unformatted.push(rel)
    }
    expect(unformatted).toEqual([])
  }, 600_000) // a hang guard: Prettier over every file takes minutes on a loaded 2-core machine
})
