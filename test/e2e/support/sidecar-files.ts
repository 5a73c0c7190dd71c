/**
 * The plugin's files under a DSH_HOME, wherever they live: each session's
 * sidecar inside its own directory (`sessions/--<cwd>--/<id>/session-tree/`)
 * and the fallback / old-layout root (`session-tree/`). Tests walk both, so a
 * check like "no sidecar was written" cannot pass by looking in the wrong place.
 */
import fs from 'node:fs'
import path from 'node:path'

/** The directories that may hold sidecar files: the root, then every session's `session-tree/`. */
export function sidecarPlaces(home: string): string[] {
  const places = [path.join(home, 'session-tree')]
  const sessions = path.join(home, 'sessions')
  if (fs.existsSync(sessions)) {
    for (const group of fs.readdirSync(sessions).sort()) {
      const groupDir = path.join(sessions, group)
      if (!fs.statSync(groupDir).isDirectory()) continue
      for (const id of fs.readdirSync(groupDir).sort()) places.push(path.join(groupDir, id, 'session-tree'))
    }
  }
  return places.filter((place) => fs.existsSync(place))
}

/** Every file and directory in every sidecar place, keyed by its path below `home`, with its content (base64). */
export function snapshotSidecars(home: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name)
      const name = path.relative(home, full)
      if (entry.isDirectory()) {
        out[`${name}/`] = 'dir'
        walk(full)
      } else out[name] = fs.readFileSync(full).toString('base64')
    }
  }
  for (const place of sidecarPlaces(home)) walk(place)
  return out
}

/** Delete every sidecar (a home as if the plugin had never written one). */
export function removeSidecars(home: string): void {
  for (const place of sidecarPlaces(home)) fs.rmSync(place, { recursive: true, force: true })
}
