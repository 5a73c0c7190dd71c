/**
 * A fake model that uses its own tree tool when the prompt says so: `model: label eN TEXT` and
 * `model: jump eN` are answered with that one `tree` call, its result with `MODEL <action> done`;
 * any other prompt as `readOrAnswer` answers it. `onCall` hears when the call is handed out (the
 * bench times the move from there).
 */
import { messageText, readOrAnswer, userPrompts, type ChatRequestBody, type StaticStep } from './fake-llm.ts'

const ORDER = /^model: (label|jump) (e\d+)(?: (.+))?$/

export function modelMoves(onCall?: (action: 'label' | 'jump', node: string) => void) {
  return (body: ChatRequestBody): StaticStep => {
    const last = body.messages.at(-1)
    // The result of its own call (after a jump the last prompt is the one the path ends at).
    const call = body.messages.findLast((m) => m.role === 'assistant')?.tool_calls?.[0]
    if (last?.role === 'tool' && call?.function?.name === 'tree') {
      const { action } = JSON.parse(call.function.arguments ?? '{}') as { action?: string }
      return { text: `MODEL ${action} done` }
    }
    const prompt = userPrompts(body).at(-1)
    const order = prompt ? ORDER.exec(messageText(prompt)) : null
    if (!order) return readOrAnswer(body)
    const action = order[1] as 'label' | 'jump'
    onCall?.(action, order[2]!)
    return {
      toolCalls: [
        {
          name: 'tree',
          arguments: action === 'label' ? { action, node: order[2], text: order[3] ?? '' } : { action, node: order[2] },
        },
      ],
    }
  }
}
