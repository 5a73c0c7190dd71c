/**
 * The two branches the carry tests carry between (workspace-carry.test.ts in the API,
 * workspace-carry-panel.test.ts in the Tree tab): a base turn writes a.txt (lines 1 to 8); main
 * changes line 1 and writes m.txt; "other", forked at the base with its files, changes line 8 and
 * writes o.txt; then the conversation and its files jump back to main's tip. Each test adds its own
 * steps to the three turns.
 */
import type { StaticStep } from './fake-llm.ts'
import type { WebSuite } from './web-suite.ts'
import { call, hashes, type Files } from './workspace-files.ts'

/** Lines, each ended by `\n`. */
export const lines = (...l: string[]): string => l.map((x) => `${x}\n`).join('')

export interface CarryBranches {
  readonly base: string
  readonly main: string
  readonly other: string
  /** The workspace's files at other's tip, and at main's after the jump back. */
  readonly states: { readonly other: Files; readonly mine: Files }
}

/** Make both branches in `sessionId`; `restore` is the test's own `sessionTree/restore` call. */
export async function carryBranches(
  dsh: WebSuite,
  sessionId: string,
  restore: (request: Record<string, unknown>) => Promise<unknown>,
  more: {
    readonly base?: readonly StaticStep[]
    readonly main?: readonly StaticStep[]
    readonly other?: readonly StaticStep[]
  } = {},
): Promise<CarryBranches> {
  const turn = async (prompt: string, answer: string, steps: readonly StaticStep[]): Promise<string> => {
    dsh.llm.push(...steps, { text: answer })
    await dsh.api.promptAndWait(sessionId, prompt)
    return (await dsh.api.nodeWith(sessionId, answer)).nodeId
  }
  const base = await turn('T0: the base', 'BASE', [
    call('write', { file_path: 'a.txt', content: lines('1', '2', '3', '4', '5', '6', '7', '8') }),
    ...(more.base ?? []),
  ])
  const main = await turn('T1: main', 'MAIN', [
    call('read', { file_path: 'a.txt' }),
    call('edit', { file_path: 'a.txt', old_string: '1\n', new_string: 'ONE\n' }),
    call('write', { file_path: 'm.txt', content: 'main only\n' }),
    ...(more.main ?? []),
  ])
  await restore({ move: { kind: 'fork', nodeId: base, branch: 'other' }, restore: 'both' })
  const other = await turn('T2: other', 'OTHER', [
    call('read', { file_path: 'a.txt' }),
    call('edit', { file_path: 'a.txt', old_string: '8\n', new_string: 'EIGHT\n' }),
    call('write', { file_path: 'o.txt', content: 'other only\r\n' }),
    ...(more.other ?? []),
  ])
  const atOther = hashes(dsh.work)
  await restore({ move: { kind: 'jump', nodeId: main }, restore: 'both' })
  return { base, main, other, states: { other: atOther, mine: hashes(dsh.work) } }
}
