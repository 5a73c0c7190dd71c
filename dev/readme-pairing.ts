/**
 * The README's bilingual pair, as DSH packages keep it: `README.i18n.yaml`
 * records the git blob hash of `README.md` and `README.zh.md` as of the last
 * state someone confirmed the two say the same. Both languages carry equal
 * authority; after editing either side, bring the other along and re-record:
 *
 *   npx node dev/readme-pairing.ts          check (exit 1 when a side changed since)
 *   npx node dev/readme-pairing.ts --write  re-record both hashes
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const PAIR = ['README.md', 'README.zh.md'] as const
const RECORD = 'README.i18n.yaml'

const HEADER = `# Bilingual-pair consistency record (as in the DSH packages): the git blob hash of each
# side as of the last confirmed-consistent state. Both languages carry equal authority;
# after editing either side, bring the other along and re-record with:
#   npx node dev/readme-pairing.ts --write
`

/** What `git hash-object` prints for these bytes. */
export function blobHash(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
}

/** The hashes recorded in README.i18n.yaml, by file name. */
export function recorded(root = REPO_ROOT): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of fs.readFileSync(path.join(root, RECORD), 'utf8').split('\n')) {
    const row = /^([\w.]+): ([0-9a-f]{40})$/.exec(line)
    if (row) out[row[1]!] = row[2]!
  }
  return out
}

/** The hashes of the files as they are now. */
export function current(root = REPO_ROOT): Record<string, string> {
  return Object.fromEntries(PAIR.map((name) => [name, blobHash(fs.readFileSync(path.join(root, name)))]))
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const now = current()
  if (process.argv.includes('--write')) {
    fs.writeFileSync(path.join(REPO_ROOT, RECORD), HEADER + PAIR.map((name) => `${name}: ${now[name]}\n`).join(''))
    console.log(`readme-pairing: recorded ${PAIR.join(', ')}`)
  } else {
    const then = recorded()
    const changed = PAIR.filter((name) => then[name] !== now[name])
    if (changed.length > 0) {
      console.error(
        `readme-pairing: ${changed.join(', ')} changed since the pair was last confirmed; bring the other side along, then run npx node dev/readme-pairing.ts --write`,
      )
      process.exit(1)
    }
    console.log('readme-pairing: the pair is as last confirmed')
  }
}
