/**
 * Session id → directory name. Session ids come from outside (harness ids,
 * remote calls), so any string must land on one harmless path component:
 * never `.`/`..`, no separator, no NUL, a bounded length, and distinct ids on
 * distinct names (also on case-insensitive file systems).
 */
import { createHash } from 'node:crypto'
import path from 'node:path'

// Kept literally: lowercase only, so two produced names never differ only in
// case. Everything else, '.' and uppercase included, is escaped.
const LITERAL = /^[a-z0-9_-]$/
// Past this length the name keeps a readable prefix plus a hash (file names stop at 255 bytes).
const MAX_NAME = 150
const READABLE_PREFIX = 80

/**
 * Escape every UTF-16 code unit outside [a-z0-9_-]: `%XX` below 0x100,
 * `%uXXXX` above (uppercase hex; `u` is no hex digit, so decoding is
 * unambiguous). Code units, not UTF-8 bytes: a lone surrogate has no UTF-8
 * form and would collide with U+FFFD.
 */
function escapeId(sessionId: string): string[] {
  const tokens: string[] = []
  for (let i = 0; i < sessionId.length; i++) {
    const ch = sessionId[i] as string
    const unit = sessionId.charCodeAt(i)
    if (LITERAL.test(ch)) tokens.push(ch)
    else if (unit < 0x100) tokens.push('%' + unit.toString(16).toUpperCase().padStart(2, '0'))
    else tokens.push('%u' + unit.toString(16).toUpperCase().padStart(4, '0'))
  }
  return tokens
}

/**
 * The directory name of a session: `s` + escaped id, or for long ids a
 * readable prefix of whole escapes + `~` + sha256 of the full escaped id.
 * The `s` makes even the empty id a name; `~` never appears in a short name.
 */
export function encodeSessionId(sessionId: string): string {
  const tokens = escapeId(sessionId)
  const encoded = tokens.join('')
  if (1 + encoded.length <= MAX_NAME) return 's' + encoded
  let prefix = ''
  for (const token of tokens) {
    if (prefix.length + token.length > READABLE_PREFIX) break
    prefix += token
  }
  return 's' + prefix + '~' + createHash('sha256').update(encoded).digest('hex')
}

/** Absolute session directory, checked to sit directly inside `root`. */
export function sessionDir(root: string, sessionId: string): string {
  const base = path.resolve(root)
  const dir = path.resolve(base, encodeSessionId(sessionId))
  // Holds by construction; checked anyway because a slip here writes outside root.
  const inside = base.endsWith(path.sep) ? base : base + path.sep
  if (path.dirname(dir) !== base || !dir.startsWith(inside)) {
    throw new Error(`session directory escapes the sidecar root: ${JSON.stringify(sessionId)}`)
  }
  return dir
}
