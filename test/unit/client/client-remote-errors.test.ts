/**
 * The browser's one decoder of remote answers (`src/client/remote-errors.ts`)
 * and the adapter that sends every method through `attempt`
 * (`withTreeErrors` in `src/client/remote.ts`), with the generated schemas.
 * The real browser path: test/e2e/remote-errors-panel.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ATTEMPT_FORMAT, decodeAttempt } from '../../../src/client/remote-errors.ts'
import { withTreeErrors, type GeneratedSessionTree } from '../../../src/client/remote.ts'
import { ATTEMPT_FORMAT as SERVICE_FORMAT } from '../../../src/service/attempt.ts'

const schema = z.object({ n: z.number() })
const attempt = (value: unknown) => ({ ok: true, value })

describe('decodeAttempt', () => {
  it('reads the same format the service writes', () => {
    expect(ATTEMPT_FORMAT).toBe(SERVICE_FORMAT)
  })

  it('gives our failure back exactly: code, message, details', () => {
    const error = { code: 'AGENT_BUSY', message: 'the agent is running', details: { status: 'running' } }
    expect(decodeAttempt(attempt({ format: ATTEMPT_FORMAT, ok: false, error }), schema)).toEqual({ ok: false, error })
    expect(
      decodeAttempt(
        attempt({ format: ATTEMPT_FORMAT, ok: false, error: { code: 'BRANCH_EXISTS', message: 'taken' } }),
        schema,
      ),
    ).toEqual({ ok: false, error: { code: 'BRANCH_EXISTS', message: 'taken' } })
  })

  it('gives a value back checked by the method schema; a value it refuses is INTERNAL', () => {
    expect(
      decodeAttempt(attempt({ format: ATTEMPT_FORMAT, ok: true, json: JSON.stringify({ n: 1 }) }), schema),
    ).toEqual({ ok: true, value: { n: 1 } })
    const refused = decodeAttempt(
      attempt({ format: ATTEMPT_FORMAT, ok: true, json: JSON.stringify({ n: 'one' }) }),
      schema,
    )
    expect(refused.ok ? null : refused.error.code).toBe('INTERNAL')
  })

  it('a carrier failure (the host refused or dropped the call) is INTERNAL with the host text', () => {
    const text = 'client api: sessionTree/attempt failed: [ { "code": "invalid_union" } ]'
    expect(decodeAttempt({ ok: false, error: { code: 'internal', message: text, details: {} } }, schema)).toEqual({
      ok: false,
      error: { code: 'INTERNAL', message: text },
    })
  })

  it('a malformed or foreign payload falls back to INTERNAL with the original text, and never throws', () => {
    const circular: Record<string, unknown> = {}
    circular.self = circular
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error('hostile getter')
        },
      },
    )
    const cases: Array<[unknown, string]> = [
      [null, 'null'],
      ['just text', 'just text'],
      [{ ok: 'yes' }, '"ok":"yes"'],
      [attempt({ format: 'dsh-session-tree/attempt@9', ok: false, error: { code: 'X', message: 'm' } }), 'attempt@9'],
      [attempt({ format: 'dsh-session-tree/attempt@1', ok: true, value: { n: 1 } }), 'attempt@1'],
      [attempt({ format: ATTEMPT_FORMAT, ok: true, json: '{"n": 1' }), '{"n": 1'],
      [attempt({ format: ATTEMPT_FORMAT, ok: true, json: { n: 1 } }), '"json":{"n":1}'],
      [attempt({ ok: false, error: { code: 'BRANCH_EXISTS', message: 'no format' } }), 'no format'],
      [attempt({ format: ATTEMPT_FORMAT, ok: false, error: { code: 5, message: 'numeric code' } }), 'numeric code'],
      [
        attempt({ format: ATTEMPT_FORMAT, ok: false, error: { code: 'X', message: 'bad details', details: [1] } }),
        'bad details',
      ],
      [attempt({ format: ATTEMPT_FORMAT, ok: false, error: 'a string error' }), 'a string error'],
      [{ ok: false, error: 'no object' }, 'no object'],
      [attempt(circular), '[object Object]'],
      [hostile, 'hostile getter'],
    ]
    for (const [payload, kept] of cases) {
      let decoded: ReturnType<typeof decodeAttempt> | undefined
      expect(() => {
        decoded = decodeAttempt(payload, schema)
      }).not.toThrow()
      expect(decoded!.ok).toBe(false)
      if (decoded!.ok) continue
      expect(decoded!.error.code).toBe('INTERNAL')
      expect(decoded!.error.message).toContain(kept)
    }
  })

  it('bounds the text it keeps', () => {
    const decoded = decodeAttempt('x'.repeat(100_000), schema)
    expect(decoded.ok ? 0 : decoded.error.message.length).toBeLessThan(2_200)
  })
})

describe('withTreeErrors', () => {
  const calls: Array<[string, unknown]> = []
  const generated = (answer: (method: string) => unknown) =>
    ({
      attempt: async (method: string, args: unknown) => {
        calls.push([method, args])
        return answer(method)
      },
    }) as unknown as GeneratedSessionTree

  it('sends a method as attempt with its named wire args, and gives our code back', async () => {
    calls.length = 0
    const remote = withTreeErrors(
      generated(() =>
        attempt({
          format: ATTEMPT_FORMAT,
          ok: false,
          error: { code: 'BRANCH_EXISTS', message: 'branch "main" exists' },
        }),
      ),
    )
    expect(await remote.fork('s', 'e2', 'main')).toEqual({
      ok: false,
      error: { code: 'BRANCH_EXISTS', message: 'branch "main" exists' },
    })
    expect(calls).toEqual([['fork', { agentId: 's', nodeId: 'e2', branch: 'main' }]])
    expect('attempt' in remote).toBe(false)
  })

  it('refuses an argument the generated schema refuses, without a call', async () => {
    calls.length = 0
    const remote = withTreeErrors(
      generated(() => {
        throw new Error('not called')
      }),
    )
    const result = await remote.fork('s', 42 as never, 'main')
    expect(result.ok ? null : result.error.code).toBe('INVALID_ARGUMENT')
    expect(calls).toEqual([])
  })

  it('a generated client that throws is INTERNAL with its text', async () => {
    const remote = withTreeErrors(
      generated(() => {
        throw new Error('offline')
      }),
    )
    expect(await remote.outline('s')).toEqual({ ok: false, error: { code: 'INTERNAL', message: 'offline' } })
  })
})
