/**
 * The steps the compaction suites share (issue 26): long prompts to compact, moves recorded as
 * evidence, DSH commands, and `say`, which prompts and returns what the model read before the
 * prompt, judged at the fake LLM's recorded request.
 */
import { expect } from 'vitest'
import type { MoveResult } from '../../../src/types.ts'
import { type ChatRequestBody, history, messageText, userPrompts, withoutCallIds } from './fake-llm.ts'
import type { WebSuite } from './web-suite.ts'

/** What the model read, call ids left out (a stock switch gives copied exchanges fresh ids). */
export type Said = ReturnType<typeof withoutCallIds>

export const said = (body: ChatRequestBody): Said => withoutCallIds(history(body))

/** How DSH's runtime-context snapshot, which may follow the last prompt of a request, begins. */
export const RUNTIME_CONTEXT = 'Current runtime context'

/** A prompt long enough (`times` sentences) that the turns before DSH's kept tail outweigh its framed summary. */
export const orchard = (n: number, times = 4): string =>
  (
    `question ${n}: ` +
    `tell me about the ${n}th orchard row, its trees, soil and the harvest of this year; `.repeat(times)
  ).trim()

/** What a DSH command answers through `commands/execute`. */
export interface CommandAnswer {
  readonly commandId: string
  readonly result: { readonly kind: string; readonly text?: string }
}

/** The moves and prompts of one session of a suite; `session()` names it once it exists. */
export function compactionSession(dsh: WebSuite, session: () => string) {
  const moves: unknown[] = []
  dsh.evidence('moves.json', moves)
  /** Everything the model read with a prompt (its runtime-context snapshot included), by the prompt. */
  const whole = new Map<string, Said>()
  const chats = () => dsh.llm.chatRequests()
  const move = async (method: string, args: Record<string, unknown> = {}) => {
    const result = await dsh.api.remoteOk<MoveResult>(`sessionTree/${method}`, { agentId: session(), ...args })
    moves.push({ method, args, result })
    return result
  }
  const command = (line: string) =>
    dsh.api.remoteOk<CommandAnswer>('commands/execute', { agentId: session(), line, images: [] })
  const nodeId = async (text: string) => (await dsh.api.nodeWith(session(), text)).nodeId
  /**
   * Prompt, wait for the turn, and return what the model read before the prompt (the request
   * whose last prompt it is; after it, only DSH's runtime-context snapshot may follow).
   */
  const say = async (text: string): Promise<Said> => {
    const before = chats().length
    await dsh.api.promptAndWait(session(), text)
    const request = chats()
      .slice(before)
      .find((r) => {
        const last = userPrompts(r.body).at(-1)
        return last !== undefined && messageText(last) === text
      })
    expect(request, `a request whose last prompt is ${JSON.stringify(text)}`).toBeDefined()
    const read = said(request!.body)
    const at = read.findLastIndex((m) => m.role === 'user' && m.text === text)
    expect(read.slice(at + 1).every((m) => m.role === 'user' && m.text.startsWith(RUNTIME_CONTEXT))).toBe(true)
    whole.set(text, read)
    return read.slice(0, at)
  }
  const tree = () => dsh.api.tree(session())
  /** Restart `dsh web`; the stored session loads when a refused move names it, its tree unchanged, no warning. */
  const restartWhole = async () => {
    const before = await tree()
    await dsh.stopWeb('SIGTERM')
    await dsh.startWeb()
    const refused = await dsh.api.remote('sessionTree/jump', { agentId: session(), nodeId: 'e999999' })
    expect(refused.ok ? 'ok' : refused.error.code).toBe('NODE_NOT_FOUND')
    expect(await tree()).toEqual(before)
    expect((await dsh.api.status(session())).sidecarWarnings).toEqual([])
  }
  return { moves, whole, chats, tree, move, command, nodeId, say, restartWhole }
}
