/**
 * The surface's error codes: whether a move can reach the model history now
 * (see `tree/errors.ts` for how codes are owned per layer).
 */
export const SURFACE_ERROR_CODES = {
  AGENT_BUSY: 'The agent is running; the model history can only be switched while it is idle.',
  SURFACE_UNAVAILABLE: 'This harness cannot switch the model history (projection mode).',
} as const

type SurfaceCodes = { readonly [K in keyof typeof SURFACE_ERROR_CODES]: string }

declare module '../tree/errors.ts' {
  interface ErrorCodeRegistry extends SurfaceCodes {}
}

/**
 * Why a move cannot switch the history inside the running step (`details.reason` of such an
 * `AGENT_BUSY`): the call is not the last thing the model said, or it shares its message with
 * other calls. Either way the move waits for the end of the turn.
 */
export type WithinStepRefusal = 'not-last' | 'shared-message'

/** Each {@link WithinStepRefusal} in plain words (the start of the failure's message, and what the tools say). */
export const WITHIN_STEP_REFUSALS: Readonly<Record<WithinStepRefusal, string>> = {
  'not-last': 'the call is not the last thing the model said',
  'shared-message': 'the call shares its message with other calls',
}
