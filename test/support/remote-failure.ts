/** The failure a `@Remote` method of the service threw, as its caller reads it (it must throw one). */
import { TypertLookupFailure } from '@deepseek-ai/dsh-typert-protocol'
import { expect } from 'vitest'

export interface RemoteFailure {
  readonly code: string
  readonly message: string
  readonly details?: unknown
}

export async function remoteFailure(promise: Promise<unknown>): Promise<RemoteFailure> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(TypertLookupFailure)
    return (error as TypertLookupFailure<RemoteFailure>).failure
  }
  throw new Error('expected a failure')
}
