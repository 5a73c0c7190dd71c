/**
 * The conversation most web suites start from: notes.txt holds "banana" in the workspace and the fake LLM answers
 * with `readOrAnswer`, so the second of the three turns is a `read` of notes.txt (two chat requests).
 */
import fs from 'node:fs'
import path from 'node:path'
import { history, readOrAnswer, type FakeLlm, type ScriptStep } from './fake-llm.ts'

export const DEMO_TURNS: readonly string[] = ['first question', 'please READ notes.txt', 'third question']

/** The workspace the demo turns read. */
export function notesWorkspace(work: string): void {
  fs.writeFileSync(path.join(work, 'notes.txt'), 'banana\n')
}

/** A fake LLM script of `length` `readOrAnswer` steps. */
export function readOrAnswerScript(length: number): ScriptStep[] {
  return Array.from({ length }, () => readOrAnswer)
}

/** The path to the first answer as the model saw it: the second chat request, cut before the second prompt. */
export function pathToFirstAnswer(llm: FakeLlm): ReturnType<typeof history> {
  const second = history(llm.chatRequests()[1]!.body)
  return second.slice(
    0,
    second.findIndex((m) => m.text === DEMO_TURNS[1]),
  )
}
