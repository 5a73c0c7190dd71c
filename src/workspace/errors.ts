/** The workspace checkpoints' error codes (see `tree/errors.ts` for how codes are owned per layer). */
export const WORKSPACE_ERROR_CODES = {
  WORKSPACE_CONFLICT:
    'Files changed outside the agent since their checkpoint; decide per file to keep or overwrite them.',
  WORKSPACE_IO:
    'Reading or writing workspace files or their checkpoints failed; the details say what was done (a restore can be repeated).',
  WORKSPACE_UNAVAILABLE:
    'This session has no workspace checkpoints (no sidecar root, no workspace directory, or turned off).',
} as const

type WorkspaceCodes = { readonly [K in keyof typeof WORKSPACE_ERROR_CODES]: string }

declare module '../tree/errors.ts' {
  interface ErrorCodeRegistry extends WorkspaceCodes {}
}
