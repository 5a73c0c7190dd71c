/** The sidecar's error code (see `tree/errors.ts` for how codes are owned per layer). */
export const SIDECAR_ERROR_CODES = {
  SIDECAR_IO: 'Reading or writing the sidecar failed; the harness log still holds the history.',
} as const

type SidecarCodes = { readonly [K in keyof typeof SIDECAR_ERROR_CODES]: string }

declare module '../tree/errors.ts' {
  interface ErrorCodeRegistry extends SidecarCodes {}
}
