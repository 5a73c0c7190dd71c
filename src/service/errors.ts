/**
 * The service's error vocabulary: every code a `sessionTree` method can fail
 * with, which clients (the panel, the remote client, the model tools) route
 * on. It extends the tree's codes with those of the layers below the service;
 * each code keeps its home in the layer that produces it.
 */
import { TREE_ERROR_CODES, type ErrorCode } from '../tree/errors.ts'
import { SIDECAR_ERROR_CODES } from '../sidecar/errors.ts'
import { WORKSPACE_ERROR_CODES } from '../workspace/errors.ts'
import { SURFACE_ERROR_CODES } from '../surface/errors.ts'
import { INTERCHANGE_ERROR_CODES } from '../interchange/errors.ts'

// Re-exported so that a declaration consumer loads each layer's registry entries with the vocabulary.
export { TREE_ERROR_CODES, SIDECAR_ERROR_CODES, WORKSPACE_ERROR_CODES, SURFACE_ERROR_CODES, INTERCHANGE_ERROR_CODES }
export type { ErrorCode, TreeError, TreeResult } from '../tree/errors.ts'

/** Every error code, with what it means (the README's table). */
export const ERROR_CODES: { readonly [K in ErrorCode]: string } = {
  ...TREE_ERROR_CODES,
  ...SURFACE_ERROR_CODES,
  ...SIDECAR_ERROR_CODES,
  ...WORKSPACE_ERROR_CODES,
  ...INTERCHANGE_ERROR_CODES,
}
