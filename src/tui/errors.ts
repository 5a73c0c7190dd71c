/** A failed service call as one line for the scene's status: `CODE: message` (the service throws its errors with their code). */
import { TypertLookupFailure } from '@deepseek-ai/dsh-typert-protocol'
import type { TreeError } from '../tree/errors.ts'
import { errorMessage } from '../tree/errors.ts'

export function errorText(error: unknown): string {
  if (error instanceof TypertLookupFailure) {
    const failure = (error as TypertLookupFailure<TreeError>).failure
    return `${failure.code}: ${failure.message}`
  }
  return errorMessage(error)
}
