/**
 * The error vocabulary of import and export. Callers route by `code`; the
 * message is for people. The service carries the code in `details.code` of
 * its own `INVALID_ARGUMENT` / `INTERNAL` errors.
 */

export const INTERCHANGE_ERRORS = {
  NOT_A_SESSION: 'The file is not a session of a supported tool (Pi, Claude Code, Codex).',
  UNSUPPORTED_VERSION: 'The session was written by a version of the tool this package does not read.',
  FORMAT_MISMATCH: 'The file is not in the format that was asked for.',
  EMPTY_SESSION: 'The session holds no conversation to import.',
  TOO_LARGE: 'The file or one of its lines is larger than the configured limit.',
  INVALID_PATH: 'The path is not a regular file that may be read (or written).',
  READ_FAILED: 'The file could not be read.',
  WRITE_FAILED: 'The session could not be written; nothing was created.',
  TREE_CORRUPT: 'The session tree is cyclic or its active leaf is missing.',
} as const

export type InterchangeErrorCode = keyof typeof INTERCHANGE_ERRORS

export class InterchangeError extends Error {
  readonly code: InterchangeErrorCode
  readonly details: Readonly<Record<string, string | number>>

  constructor(code: InterchangeErrorCode, message: string, details: Record<string, string | number> = {}) {
    super(`${code}: ${message}`)
    this.name = 'InterchangeError'
    this.code = code
    this.details = details
  }
}

export function isInterchangeError(error: unknown): error is InterchangeError {
  return error instanceof InterchangeError
}
