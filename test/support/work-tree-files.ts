/** Every file of a work tree (the user's .git left out): its bytes (base64) and whether it is executable. */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

export type Files = Record<string, { bytes: string; exec: boolean }>

export function filesOf(dir: string): Files {
  const out: Files = {}
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name
      if (child === '.git') continue
      const abs = path.join(dir, child)
      if (entry.isDirectory()) walk(child)
      else out[child] = { bytes: readFileSync(abs).toString('base64'), exec: (statSync(abs).mode & 0o111) !== 0 }
    }
  }
  walk('')
  return out
}
