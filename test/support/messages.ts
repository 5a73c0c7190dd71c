/** Small builders the unit tests share: messages, and the value of a result that must be ok. */
import type { LlmMessage, TreeResult } from '../../src/tree/index.ts'

export const user = (content: string): LlmMessage => ({ role: 'user', content })
export const assistant = (content: string): LlmMessage => ({ role: 'assistant', content })

/** The value of an ok result; a failure throws with its code and message. */
export function value<T>(result: TreeResult<T>): T {
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`)
  return result.value
}
