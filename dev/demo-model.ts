/**
 * The scripted fake model of `npm run demo` (and of the browser test, so the
 * README screenshot shows what the demo shows): canned answers for a short
 * trip-planning conversation with one tool call (`read notes.txt`); any other
 * prompt gets an answer that quotes how many prompts the model was sent on
 * this path and the last one, so a jump or a fork is visible in the reply.
 */
import type { ChatRequestBody, StaticStep } from '../test/e2e/support/fake-llm.ts'
import { messageText, userPrompts } from '../test/e2e/support/fake-llm.ts'

/** The session title the fake model gives the conversation. */
export const DEMO_TITLE = 'Weekend trip (session-tree demo)'

/** The workspace file the tool call reads. */
export const DEMO_NOTES = 'Trip notes\n- budget: 300 EUR for two nights\n- no early flights\n'

/** The seeded prompts, in order; the second one makes the model call `read`. */
export const DEMO_PROMPTS = [
  'Plan a weekend in Lisbon',
  'Check notes.txt for my budget',
  'Make it a food tour',
] as const

/** The prompt the demo (and the browser test) sends on the forked branch. */
export const DEMO_FORK_PROMPT = 'Actually, plan Porto instead'

export function demoModel(body: ChatRequestBody): StaticStep {
  const last = body.messages.at(-1)
  if (last?.role === 'tool') {
    const budget = /budget[^\n]*?(\d+)/i.exec(messageText(last))?.[1]
    return {
      text: `Your notes say the budget is ${budget ?? 'not written down'} EUR for two nights. That covers a guesthouse in Alfama, trams, and two good dinners.`,
    }
  }
  const prompts = userPrompts(body)
  const text = prompts.length > 0 ? messageText(prompts.at(-1)!) : ''
  if (/notes\.txt/i.test(text))
    return { toolCalls: [{ id: `call_notes_${prompts.length}`, name: 'read', arguments: { file_path: 'notes.txt' } }] }
  if (/^plan a weekend in lisbon/i.test(text))
    return {
      text: 'Day 1: Alfama and the castle, sunset at Miradouro da Senhora do Monte. Day 2: Belém in the morning, LX Factory in the afternoon.',
    }
  if (/food/i.test(text))
    return {
      text: 'Food tour: pastéis de nata in Belém, bifana at O Trevo, grilled sardines in Alfama, ginjinha by Rossio.',
    }
  if (/porto/i.test(text))
    return {
      text: 'Porto instead: Ribeira and the Dom Luís I bridge on day 1, port cellars in Gaia and Livraria Lello on day 2.',
    }
  return { text: `(fake model) I was sent ${prompts.length} prompt(s) on this path; the last one: “${text}”.` }
}
