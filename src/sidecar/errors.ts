/** The sidecar's error code (see `tree/errors.ts` for how codes are owned per layer). */
export const SIDECAR_ERROR_CODES = {
  SIDECAR_IO: 'Reading or writing the sidecar failed; the harness log still holds the history.',
  SIDECAR_CLAIMED:
    "Another process (named in the message and `details.holder`: pid, host, kind) writes this session's tree; it is read-only here until that process closes the session or exits.",
} as const

type SidecarCodes = { readonly [K in keyof typeof SIDECAR_ERROR_CODES]: string }

declare module '../tree/errors.ts' {
  interface ErrorCodeRegistry extends SidecarCodes {}
}
