/**
 * Empty `lib/` before a build, keeping the committed typert artifacts:
 * tsc never deletes outputs of removed sources, and those would ship.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const lib = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib')
for (const name of fs.existsSync(lib) ? fs.readdirSync(lib) : []) {
  if (name.startsWith('typert.')) continue
  fs.rmSync(path.join(lib, name), { recursive: true, force: true })
}
