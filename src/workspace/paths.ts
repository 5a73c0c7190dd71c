/**
 * Workspace-relative paths. Everything the workspace layer stores or is asked
 * about is a relative, `/`-separated path without `.`/`..`/empty segments,
 * NUL or backslash, so a stored path can never name anything outside the
 * workspace root, and one file has one spelling.
 */
import path from 'node:path'

/** The directory git keeps its repository in: never checkpointed, never written. */
const GIT_DIR = '.git'
/** Longest accepted relative path (bytes of UTF-16 units; Linux PATH_MAX is 4096). */
const MAX_PATH = 4096

/** Why `rel` is not a valid workspace path, or undefined when it is. */
export function pathProblem(rel: unknown): string | undefined {
  if (typeof rel !== 'string' || rel === '') return 'path must be a non-empty string'
  if (rel.length > MAX_PATH) return `path is longer than ${MAX_PATH} characters`
  if (rel.includes('\0')) return 'path contains a NUL character'
  if (rel.includes('\\')) return 'path contains a backslash'
  if (rel.startsWith('/')) return 'path must be relative to the workspace'
  const parts = rel.split('/')
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..')
      return `path has an empty, "." or ".." segment: ${JSON.stringify(rel)}`
  }
  if (parts[0] === GIT_DIR) return 'paths inside .git are never checkpointed'
  return undefined
}

/**
 * The workspace-relative form of an absolute path, or undefined when it lies
 * outside `root` (or is `root` itself, or inside `.git`). `root` must be
 * absolute and resolved.
 */
export function relativeTo(root: string, absolute: string): string | undefined {
  if (!path.isAbsolute(absolute)) return undefined
  const rel = path.relative(root, path.resolve(absolute))
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined
  const posix = rel.split(path.sep).join('/')
  return pathProblem(posix) === undefined ? posix : undefined
}

/** The segments of a valid relative path. */
export function segments(rel: string): string[] {
  return rel.split('/')
}
