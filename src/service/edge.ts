/** The service's remote edge: a call's result settled for the wire, an error keeping its code. */
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
