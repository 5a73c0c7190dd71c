/**
 * The tree's error codes, and the result shape every layer uses.
 *
 * One vocabulary, owned per layer: the tree declares its own codes here; a
 * layer that produces others owns them in its own `errors.ts` (sidecar,
 * workspace, surface) and adds them to {@link ErrorCodeRegistry}, and the
 * service's vocabulary (`service/errors.ts`, what clients route on) is the
 * union. A failure's reason, when a caller routes on it, goes in `details`.
 */

/** The codes the tree itself fails with, with what they mean. */
export const TREE_ERROR_CODES = {
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
  INTERNAL: 'An unexpected failure; the operation changed nothing.',
} as const

/** One of {@link TREE_ERROR_CODES}. */
export type TreeErrorCode = keyof typeof TREE_ERROR_CODES

type CodeTable<T> = { readonly [K in keyof T]: string }

/**
 * Every error code of the program, keyed by code. Layers above the tree add
 * theirs with `declare module '../tree/errors.ts' { interface ErrorCodeRegistry … }`
 * beside their table, so results carry the whole vocabulary while the tree
 * imports nothing upward.
 */
export interface ErrorCodeRegistry extends CodeTable<typeof TREE_ERROR_CODES> {}

/** A code of any layer (see {@link ErrorCodeRegistry}). */
export type ErrorCode = keyof ErrorCodeRegistry

/** A failure as it crosses every API edge. */
export interface TreeError {
  readonly code: ErrorCode
  readonly message: string
  readonly details?: { readonly [key: string]: unknown }
}

/** Results, not exceptions: the return type of every operation at an API edge. */
export type TreeResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: TreeError }

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

/** Characters of a caller's string an error message quotes. */
export const QUOTED = 80
/** Longest string kept in error details. */
const MAX_DETAIL = 200

/** `"abc"`, or `"abcd…" (10485760 characters)` for a long string; non-strings by their type. */
export function quoted(value: unknown): string {
  if (typeof value !== 'string')
    return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`
  if (value.length <= QUOTED) return JSON.stringify(value)
  return `${JSON.stringify(value.slice(0, QUOTED))}… (${value.length} characters)`
}

/** A string clipped for error details: short strings as they are, long ones shortened and counted. */
export function clipped(value: string, max = MAX_DETAIL): string {
  return value.length <= max ? value : `${value.slice(0, max)}… (${value.length} characters)`
}

/** `NODE_NOT_FOUND` for an id the tree does not hold: the one wording, quoted and clipped whatever its length. */
export function noNode(nodeId: string): TreeResult<never> {
  return fail('NODE_NOT_FOUND', `no node ${quoted(nodeId)}`, { nodeId: clipped(nodeId) })
}

/** `BRANCH_NOT_FOUND` for a branch name the tree does not hold, worded once like `noNode`. */
export function noBranch(branch: string): TreeResult<never> {
  return fail('BRANCH_NOT_FOUND', `no branch ${quoted(branch)}`, { branch: clipped(branch) })
}

/** What a caught value says: an Error's message, anything else as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
