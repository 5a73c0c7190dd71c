/**
 * The error codes of import and export (see `tree/errors.ts` for how codes are
 * owned per layer): the service fails with them as they are. Callers route by
 * `code`; the message is for people.
 */

export const INTERCHANGE_ERROR_CODES = {
  NOT_A_SESSION: 'The file is not a session of a supported tool (Pi, Claude Code, Codex).',
  UNSUPPORTED_VERSION: 'The session was written by a version of the tool this package does not read.',
  FORMAT_MISMATCH: 'The file is not in the format that was asked for.',
  EMPTY_SESSION: 'The session holds no conversation to import.',
  TOO_LARGE: 'The file or one of its lines is larger than the configured limit.',
  INVALID_PATH: 'The path is not a regular file that may be read (or written).',
  READ_FAILED: 'The file could not be read.',
  WRITE_FAILED: 'The session could not be written; nothing was created.',
} as const

type InterchangeCodes = { readonly [K in keyof typeof INTERCHANGE_ERROR_CODES]: string }

declare module '../tree/errors.ts' {
  interface ErrorCodeRegistry extends InterchangeCodes {}
}

/** What an import or export fails with: its own codes, or the tree's when the source's tree is cyclic or has no leaf. */
export type InterchangeErrorCode = keyof typeof INTERCHANGE_ERROR_CODES | 'TREE_CORRUPT'

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
