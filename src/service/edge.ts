/** The service's two edges: a remote call's result settled for the wire, and a harness listener that must never throw. */
import { TypertLookupFailure } from '@deepseek-ai/dsh-typert-protocol'
import { fail, type TreeError, type TreeResult, errorMessage } from '../tree/errors.ts'
import { bounded } from './clip.ts'

/** Settle a result at the remote edge: a value, or an error that keeps its code. */
export async function settle<T>(operation: () => TreeResult<T> | Promise<TreeResult<T>>): Promise<T> {
  let result: TreeResult<T>
  try {
    result = await operation()
  } catch (error) {
    result = fail('INTERNAL', errorMessage(error))
  }
  if (result.ok) return result.value
  // The gateway forwards a lookup failure's payload verbatim; anything else becomes `internal`.
  throw new TypertLookupFailure<TreeError>(bounded(result.error))
}

/** Run a harness listener's work; a failure is logged and costs the tree, never the session. */
export function guarded(warn: (error: unknown) => void, operation: () => unknown): void {
  try {
    operation()
  } catch (error) {
    warn(error)
  }
}
