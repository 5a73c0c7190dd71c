/** `/tree import` and `/tree export`: what the command line parses to (the service does the work; see interchange-service). */
import { describe, expect, it } from 'vitest'
import { parseTreeCommand, USAGE } from '../../src/tool/command.ts'

describe('/tree import and /tree export', () => {
  it('parse a file (quoted when it has spaces), a format and --dry-run in any order', () => {
    expect(parseTreeCommand('import session.jsonl')).toEqual({ kind: 'import', path: 'session.jsonl', format: 'auto', dryRun: false })
    expect(parseTreeCommand('import --dry-run "my sessions/a b.jsonl" --format claude-code')).toEqual({ kind: 'import', path: 'my sessions/a b.jsonl', format: 'claude-code', dryRun: true })
    expect(parseTreeCommand('export pi')).toEqual({ kind: 'export', format: 'pi' })
    expect(parseTreeCommand('export markdown "out dir/tree.md"')).toEqual({ kind: 'export', format: 'markdown', path: 'out dir/tree.md' })
    // Like every /tree argument that ends the line, the rest is one path.
    expect(parseTreeCommand('export pi my file.jsonl')).toEqual({ kind: 'export', format: 'pi', path: 'my file.jsonl' })
  })

  it('refuse what they cannot mean (the usage is shown instead)', () => {
    for (const line of ['import', 'import a.jsonl b.jsonl', 'import a.jsonl --format gemini', 'import a.jsonl --format', 'export', 'export html']) {
      expect(parseTreeCommand(line), line).toBeUndefined()
    }
    expect(USAGE).toContain('/tree import <file>')
    expect(USAGE).toContain('/tree export <pi|claude-code|markdown> [file]')
  })
})
