/**
 * The one error vocabulary of the package. Every layer (tree, sidecar, sync,
 * service, model tool, panel) reports failures with these codes, so a code
 * means the same thing from the tree to the browser.
 */

/** Every error code, with what it means. */
export const ERROR_CODES = {
  NODE_NOT_FOUND: 'No node with that id (or label) exists in the tree.',
  BRANCH_NOT_FOUND: 'No branch with that name exists.',
  BRANCH_EXISTS: 'A branch with that name already exists.',
  LABEL_EXISTS: 'Another node already carries that label.',
  SESSION_NOT_FOUND: 'No tree (or live harness session) exists for that session id.',
  SESSION_ALREADY_EXISTS: 'A tree already exists for that session id; it is never silently reset.',
  INVALID_ARGUMENT: 'An argument is malformed (empty name, bad type, too long, ...).',
  INVALID_SNAPSHOT: 'A snapshot or sidecar record failed validation; nothing was loaded from it.',
  INVALID_CUT_POINT: 'The model history cannot end at that node (a tool call there has no result).',
  HISTORY_EMPTY: 'There is no navigation step to go back or forward to.',
  TREE_CORRUPT: 'The tree is cyclic or dangling; it refuses to project a history.',
  AGENT_BUSY: 'The agent is running; the model history can only be switched while it is idle.',
  SURFACE_UNAVAILABLE: 'This harness cannot switch the model history (projection mode).',
  SIDECAR_IO: 'Reading or writing the sidecar failed; the harness log still holds the history.',
  WORKSPACE_CONFLICT: 'Files changed outside the agent since their checkpoint; decide per file to keep or overwrite them.',
  WORKSPACE_IO: 'Reading or writing workspace files or their checkpoints failed; the details say what was done (a restore can be repeated).',
  WORKSPACE_UNAVAILABLE: 'This session has no workspace checkpoints (no sidecar root, no workspace directory, or turned off).',
  INTERNAL: 'An unexpected failure; the operation changed nothing.',
} as const

/** One of {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES

/** A failure as it crosses every API edge. */
export interface TreeError {
  readonly code: ErrorCode
  readonly message: string
  readonly details?: { readonly [key: string]: unknown }
}

/** Results, not exceptions: the return type of every operation at an API edge. */
export type TreeResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: TreeError }

/** Wrap a value. */
export function ok<T>(value: T): TreeResult<T> {
  return { ok: true, value }
}

/** Build a failure. */
export function fail<T = never>(
  code: ErrorCode,
  message: string,
  details?: { readonly [key: string]: unknown },
): TreeResult<T> {
  return { ok: false, error: details === undefined ? { code, message } : { code, message, details } }
}

/**
 * Thrown only where the API must throw: a malformed snapshot handed to the
 * `SessionTree` constructor, or a corrupt tree asked for its history.
 */
export class SessionTreeError extends Error {
  /** The result-shaped error this exception carries. */
  readonly error: TreeError

  constructor(error: TreeError) {
    super(`${error.code}: ${error.message}`)
    this.name = 'SessionTreeError'
    this.error = error
  }

  get code(): ErrorCode {
    return this.error.code
  }
}
