/** `/tree import` and `/tree export`: what the command line parses to (the service does the work; see interchange-service). */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseTreeCommand, USAGE } from '../../../src/tool/command.ts'

describe('/tree import and /tree export', () => {
  it('parse a file (quoted when it has spaces), a format and --dry-run in any order', () => {
    expect(parseTreeCommand('import session.jsonl')).toEqual({
      kind: 'import',
      path: 'session.jsonl',
      format: 'auto',
      dryRun: false,
    })
    expect(parseTreeCommand('import --dry-run "my sessions/a b.jsonl" --format claude-code')).toEqual({
      kind: 'import',
      path: 'my sessions/a b.jsonl',
      format: 'claude-code',
      dryRun: true,
    })
    expect(parseTreeCommand('export pi')).toEqual({ kind: 'export', format: 'pi' })
    expect(parseTreeCommand('export markdown "out dir/tree.md"')).toEqual({
      kind: 'export',
      format: 'markdown',
      path: 'out dir/tree.md',
    })
    // Like every /tree argument that ends the line, the rest is one path.
    expect(parseTreeCommand('export pi my file.jsonl')).toEqual({ kind: 'export', format: 'pi', path: 'my file.jsonl' })
  })

  it('refuse what they cannot mean (the usage is shown instead)', () => {
    for (const line of [
      'import',
      'import a.jsonl b.jsonl',
      'import a.jsonl --format gemini',
      'import a.jsonl --format',
      'export',
      'export html',
    ]) {
      expect(parseTreeCommand(line), line).toBeUndefined()
    }
    expect(USAGE).toContain('/tree import <file>')
    expect(USAGE).toContain('/tree export <pi|claude-code|markdown> [file]')
  })
})

describe("the README's command block (Install and configure → Use it)", () => {
  // Every `/tree …` line of the block must parse to the command it names, and the CLI line must
  // be the bin's own usage: a README example that drifts from the parser fails here.
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')
  const start = readme.indexOf('### Use it')
  const fence = readme.indexOf('```text\n', start)
  const block = readme.slice(fence + 8, readme.indexOf('```', fence + 8))
  const lines = block.split('\n').filter((l) => l.trim() !== '')

  it('is found, and every /tree example in it parses to its verb', () => {
    expect(start).toBeGreaterThan(0)
    const examples = lines
      .filter((l) => l.startsWith('/tree'))
      .flatMap((l) => l.split(/\s{2,}/))
      .filter((part) => part.startsWith('/tree'))
    expect(examples.length).toBeGreaterThanOrEqual(7)
    for (const example of examples) {
      const command = parseTreeCommand(example.slice('/tree'.length).replace(/<file>/, 'session.jsonl'))
      expect(command, example).toBeDefined()
      const verb = example.split(/\s+/)[1]
      if (verb !== undefined) expect(command?.kind, example).toBe(verb)
    }
  })

  it('names the bin with the options its usage prints', () => {
    const cli = lines.find((l) => l.startsWith('npx dsh-session-tree '))
    expect(cli).toBeDefined()
    const usage = readFileSync(new URL('../../../src/cli/main.ts', import.meta.url), 'utf8')
    for (const option of cli!.match(/--[a-z-]+/g) ?? []) expect(usage, option).toContain(`[${option}`)
    expect(usage).toContain(cli!.slice('npx '.length).split(' [')[0]!)
  })
})
