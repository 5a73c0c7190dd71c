/**
 * What a strict OpenAI-compatible chat-completions API refuses (DeepSeek's included), as a
 * validator of request bodies: the rules of `../shared/notes/provider-contract.md`.
 *
 * - `contractViolations(body)`: every rule the body breaks, in message order (empty: accepted).
 * - `refusalBody(violation)`: the HTTP 400 body a real API answers for the first one,
 *   `{error: {message, type: 'invalid_request_error', param, code}}` (`code` is the rule).
 *
 * The strict fake provider (`test/e2e/support/fake-llm.ts`) refuses with it; unit and
 * property tests check the requests DSH's own serializer builds (`test/support/dsh-wire.ts`).
 */

/** One rule of the contract; the value is the `code` of the refusal. */
export type ContractRule =
  /** `messages` is an array with at least one message. */
  | 'empty_messages'
  /** Every role is `system`, `developer`, `user`, `assistant` or `tool`. */
  | 'invalid_role'
  /** An assistant message has non-empty content, or tool calls, or both. */
  | 'empty_assistant_message'
  /** No tool call id appears twice in one request. */
  | 'duplicate_tool_call_id'
  /** `function.arguments` is a JSON text. */
  | 'invalid_tool_arguments'
  /** Every call of an assistant message is answered by a `tool` message before any other message. */
  | 'tool_call_without_result'
  /** A `tool` message answers a call of the assistant message right before its run of results. */
  | 'tool_message_without_call'

export const CONTRACT_RULES: readonly ContractRule[] = [
  'empty_messages',
  'invalid_role',
  'empty_assistant_message',
  'duplicate_tool_call_id',
  'invalid_tool_arguments',
  'tool_call_without_result',
  'tool_message_without_call',
]

export interface ContractViolation {
  readonly rule: ContractRule
  /** Where, in the API's own notation (`messages[3].tool_calls[0].function.arguments`). */
  readonly param: string
  readonly message: string
}

/** An OpenAI-style error body. */
export interface RefusalBody {
  readonly error: {
    readonly message: string
    readonly type: 'invalid_request_error'
    readonly param: string
    readonly code: ContractRule
  }
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool'])

type Loose = { readonly [key: string]: unknown }

function isRecord(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Content a strict server counts as present: a non-empty string, or parts of which one has non-empty text or is not text. */
function hasContent(content: unknown): boolean {
  if (typeof content === 'string') return content.length > 0
  if (!Array.isArray(content)) return false
  return content.some(
    (part) => !isRecord(part) || part.type !== 'text' || (typeof part.text === 'string' && part.text !== ''),
  )
}

function isJsonText(value: unknown): boolean {
  if (typeof value !== 'string') return false
  try {
    JSON.parse(value)
    return true
  } catch {
    return false
  }
}

/**
 * Every rule `body` breaks. `rules` limits the check to some rules (the unit tests prove each
 * bad body breaks its rule alone by leaving that rule out).
 */
export function contractViolations(
  body: unknown,
  rules: ReadonlySet<ContractRule> = new Set(CONTRACT_RULES),
): ContractViolation[] {
  const out: ContractViolation[] = []
  const report = (rule: ContractRule, param: string, message: string): void => {
    if (rules.has(rule)) out.push({ rule, param, message })
  }
  const messages = isRecord(body) ? body.messages : undefined
  if (!Array.isArray(messages) || messages.length === 0) {
    report('empty_messages', 'messages', "Invalid 'messages': empty array. Expected an array with minimum length 1.")
    return out
  }
  const seenIds = new Map<string, string>()
  /** The calls of the assistant message whose results may follow now, by id: still unanswered. */
  let open = new Map<string, string>()
  /** Where those calls were made. */
  let openAt = -1
  const closeOpen = (at: string): void => {
    for (const [id, param] of open)
      report(
        'tool_call_without_result',
        param,
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. ` +
          `The following tool_call_ids did not have response messages: ${id} (${at})`,
      )
    open = new Map()
    openAt = -1
  }
  messages.forEach((message: unknown, i) => {
    const here = `messages[${i}]`
    const role = isRecord(message) ? message.role : undefined
    if (typeof role !== 'string' || !ROLES.has(role)) {
      report(
        'invalid_role',
        `${here}.role`,
        `Invalid value for '${here}.role': ${JSON.stringify(role ?? null)}. Supported values are: 'system', 'developer', 'user', 'assistant' and 'tool'.`,
      )
      closeOpen(`${here} is not a tool message`)
      return
    }
    const m = message as Loose
    if (role === 'tool') {
      const id = m.tool_call_id
      if (typeof id === 'string' && open.has(id)) open.delete(id)
      else
        report(
          'tool_message_without_call',
          `${here}.tool_call_id`,
          `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' ` +
            `(${here} answers ${JSON.stringify(id ?? null)}, ` +
            `${openAt < 0 ? 'and no call is open' : `not an open call of messages[${openAt}]`}).`,
        )
      return
    }
    closeOpen(`${here} is a ${role} message`)
    if (role !== 'assistant') return
    const calls = Array.isArray(m.tool_calls) ? m.tool_calls : []
    if (!hasContent(m.content) && calls.length === 0)
      report(
        'empty_assistant_message',
        `${here}.content`,
        `Invalid '${here}': an assistant message must have non-empty 'content' or 'tool_calls'.`,
      )
    calls.forEach((call: unknown, c) => {
      const at = `${here}.tool_calls[${c}]`
      const id = isRecord(call) ? call.id : undefined
      if (typeof id === 'string') {
        const first = seenIds.get(id)
        if (first !== undefined)
          report(
            'duplicate_tool_call_id',
            `${at}.id`,
            `Duplicate value for 'tool_call_id' of ${JSON.stringify(id)} in ${at} (first in ${first}).`,
          )
        else seenIds.set(id, at)
        open.set(id, at)
        openAt = i
      }
      const fn = isRecord(call) ? call.function : undefined
      const args = isRecord(fn) ? fn.arguments : undefined
      if (!isJsonText(args))
        report(
          'invalid_tool_arguments',
          `${at}.function.arguments`,
          `Invalid '${at}.function.arguments': expected a JSON text, got ${JSON.stringify(args ?? null).slice(0, 80)}.`,
        )
    })
  })
  closeOpen('the request ends')
  return out
}

/** The 400 body a strict API answers for a violation. */
export function refusalBody(violation: ContractViolation): RefusalBody {
  return {
    error: { message: violation.message, type: 'invalid_request_error', param: violation.param, code: violation.rule },
  }
}
