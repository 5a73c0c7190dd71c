/**
 * Concurrency, hostile input and the README's HTTP example, over HTTP in a
 * real `dsh web`: the pinned, unpatched `dsh` 0.1.0-rc.8, this package
 * installed from its `npm pack` tarball, a recording fake LLM on loopback.
 *
 * - The README's `curl` example, extracted from README.md and run as written
 *   (bash + curl), answers the documented envelopes (the refusal byte for byte).
 * - 50 concurrent jumps and forks: every acknowledged move's result is its
 *   own, every refusal had no effect, nothing is refused for being concurrent,
 *   and the next request holds exactly the path to the final cursor.
 * - A small random interleaving of moves, labels, forks and prompts, checked
 *   after every batch (the larger one runs in process:
 *   test/property/service-concurrency.property.test.ts).
 * - A fuzz of every method through the real typert gateway with hostile
 *   arguments (types, sizes up to 10 MB, unicode, path-like ids, prototype
 *   keys): a typed envelope every time, no change on failure, a bounded answer.
 * - A restart: the same tree, no sidecar warning.
 *
 * Evidence of every run: test/e2e/artifacts/concurrency/.
 */
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { beforeAll, expect, it } from 'vitest'
import type { ForkResult, MoveResult } from '../../src/service/wire.ts'
import type { SessionTreeView, TreeNode } from '../../src/tree/types.ts'
import { REPO_ROOT } from '../../dev/harness.ts'
import { SERVICE_CODES, type RpcResult } from './support/api.ts'
import { history } from './support/fake-llm.ts'
import { snapshotSidecars } from './support/sidecar-files.ts'
import { spoken } from './support/tree-path.ts'
import { notesWorkspace, readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

/** The seed's methods, each with the parameters it takes. */
const PARAMETERS = {
  list: ['agentId'],
  outline: ['agentId'],
  session: ['agentId'],
  export: ['agentId'],
  jump: ['agentId', 'nodeId'],
  fork: ['agentId', 'nodeId', 'branch'],
  back: ['agentId'],
  forward: ['agentId'],
  label: ['agentId', 'nodeId', 'label'],
  summarize: ['agentId', 'branch'],
} satisfies Record<string, readonly string[]>
type Method = keyof typeof PARAMETERS
const METHODS = Object.keys(PARAMETERS) as Method[]
/** The gateway's own code for arguments it refuses (see remote.test.ts). */
const GATEWAY_CODE = 'internal'
/** Largest answer any hostile call may get (the largest honest one here, a `list`, is a few KB). */
const MAX_ANSWER_BYTES = 64 * 1024

/** The fenced block right after `<!-- readme-example: <name> ... -->` in README.md. */
function readmeExample(name: string): string {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8')
  const marker = readme.indexOf(`<!-- readme-example: ${name} `)
  const markerEnd = marker === -1 ? -1 : readme.indexOf('-->', marker)
  const fence = readme.slice(markerEnd).match(/^-->\s*\n```\w*\n([\s\S]*?)\n```/)
  if (marker === -1 || !fence) throw new Error(`README.md has no example "${name}"`)
  return fence[1]!
}

function runBash(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr })
      },
    )
  })
}

/** How DSH's own runtime-context message starts (`dsh-system-prompt`). */
const RUNTIME_CONTEXT = 'Current runtime context'

const options = {
  name: 'concurrency',
  workspace: notesWorkspace,
  llm: { script: readOrAnswerScript(200) },
}

describeWeb(
  'concurrency, hostile input and the README example over HTTP in a real dsh web (stock harness)',
  options,
  (dsh) => {
    const evidence: Record<string, unknown> = {}
    dsh.evidence('evidence.json', evidence)
    let sessionId: string
    let probes = 0

    const list = () => dsh.api.tree(sessionId)
    const status = () => dsh.api.status(sessionId)
    /** Message nodes a move lands on exactly (no tool exchange around them). */
    const targets = (view: SessionTreeView): TreeNode[] =>
      view.nodes.filter(
        (n) =>
          (n.message?.role === 'user' || n.message?.role === 'assistant') &&
          n.message.content !== '' &&
          !n.content?.some((p) => p.type === 'tool_call'),
      )
    /** Send a prompt and check the request holds exactly the path to the cursor, then that prompt. */
    const expectNextRequestFollows = async () => {
      const view = await list()
      const probe = `probe ${++probes}`
      await dsh.api.promptAndWait(sessionId, probe)
      // Harness-injected context aside: DSH adds a fresh runtime-context snapshot to a prompt whose
      // history holds none (a fuzzed move may have gone back to the empty history), which no tree path shows yet.
      const said = (text: string) => !text.startsWith(RUNTIME_CONTEXT)
      const sent = history(dsh.llm.chatRequests().at(-1)!.body).filter(
        (m) => (m.role === 'user' || m.role === 'assistant') && m.text !== '' && said(m.text),
      )
      expect(sent.map((m) => `${m.role}: ${m.text}`)).toEqual([
        ...spoken(view, view.cursor).filter((line) => said(line.replace(/^user: /, ''))),
        `user: ${probe}`,
      ])
    }
    const sidecarFiles = (): string => JSON.stringify(snapshotSidecars(dsh.home))

    beforeAll(async () => {
      ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
      await dsh.api.converse(sessionId)
      await dsh.api.promptAndWait(sessionId, 'fourth question')
    }, 600_000)

    it("the README's HTTP example, run as written, answers the documented envelopes", async () => {
      const script = readmeExample('http-jump')
      const a1 = targets(await list()).find((n) => n.message?.content === 'ANSWER to: first question')!.nodeId
      const okRun = await runBash(script, { DSH: dsh.url, SESSION: sessionId, NODE: a1 })
      expect(okRun.code, okRun.stderr).toBe(0)
      const answer = JSON.parse(okRun.stdout) as { type: string; rpcId: string; result: RpcResult<MoveResult> }
      expect(answer).toMatchObject({ type: 'server-response', rpcId: 'r1', result: { ok: true } })
      const value = (answer.result as { value: MoveResult }).value
      expect(Object.keys(value)).toEqual(expect.arrayContaining(['cursor', 'messages', 'branch', 'mode', 'switch']))
      expect(value).toMatchObject({ cursor: a1, branch: 'main', mode: 'stock', switch: { noop: false } })
      const refused = await runBash(script, { DSH: dsh.url, SESSION: sessionId, NODE: 'e999' })
      expect(refused.stdout.trim()).toBe(readmeExample('http-jump-refused').trim())
      evidence.readme = { ok: answer, refused: refused.stdout }
      await expectNextRequestFollows()
    }, 600_000)

    it('50 concurrent jumps and forks: each acknowledged result is its own, each refusal had no effect', async () => {
      const before = await list()
      const nodes = targets(before)
      expect(nodes.length).toBeGreaterThanOrEqual(6)
      type Call =
        | { kind: 'jump'; nodeId: string; expect: 'ok' | 'NODE_NOT_FOUND' }
        | { kind: 'fork'; nodeId: string; branch: string; twin?: number }
      const calls: Call[] = Array.from({ length: 50 }, (_, i): Call => {
        const nodeId = nodes[(i * 5) % nodes.length]!.nodeId
        if (i % 10 === 9) return { kind: 'jump', nodeId: `e${90_000 + i}`, expect: 'NODE_NOT_FOUND' }
        if (i % 5 === 3) return { kind: 'fork', nodeId, branch: `burst-${i}` }
        // The same name again: exactly one of the two may be applied.
        if (i % 5 === 4)
          return { kind: 'fork', nodeId: nodes[(i * 3) % nodes.length]!.nodeId, branch: `burst-${i - 1}`, twin: i - 1 }
        return { kind: 'jump', nodeId, expect: 'ok' }
      })
      const results = await Promise.all(
        calls.map((call) =>
          call.kind === 'jump'
            ? dsh.api.remote<MoveResult>('sessionTree/jump', { agentId: sessionId, nodeId: call.nodeId })
            : dsh.api.remote<ForkResult>('sessionTree/fork', {
                agentId: sessionId,
                nodeId: call.nodeId,
                branch: call.branch,
              }),
        ),
      )
      evidence.burst = calls.map((call, i) => ({
        call,
        result: results[i]!.ok ? { cursor: (results[i] as { value: MoveResult }).value.cursor } : results[i],
      }))
      const after = await list()
      const acked: string[] = []
      const forked = new Map<string, string>()
      results.forEach((result, i) => {
        const call = calls[i]!
        if (!result.ok) {
          expect(SERVICE_CODES.has(result.error.code), `call ${i}: ${result.error.code}: ${result.error.message}`).toBe(
            true,
          )
          expect(result.error.code, `call ${i} is not refused for being concurrent`).not.toBe('AGENT_BUSY')
          if (call.kind === 'jump') expect(result.error.code).toBe(call.expect)
          else expect(result.error.code, `call ${i}`).toBe('BRANCH_EXISTS')
          return
        }
        expect(call.kind === 'jump' ? call.expect : 'ok', `call ${i}`).toBe('ok')
        expect(result.value.cursor, `call ${i} reports its own cursor`).toBe(call.nodeId)
        acked.push(call.nodeId)
        if (call.kind === 'fork') {
          expect(result.value.branch).toBe(call.branch)
          expect(forked.has(call.branch), `${call.branch} applied twice`).toBe(false)
          forked.set(call.branch, call.nodeId)
        }
      })
      // Every fork pair: exactly one applied, and the branch sits where that one put it.
      for (const call of calls) {
        if (call.kind !== 'fork' || call.twin !== undefined) continue
        expect(forked.has(call.branch), `one of the two forks named ${call.branch}`).toBe(true)
      }
      expect(new Map(after.branches.filter((b) => b.name.startsWith('burst-')).map((b) => [b.name, b.headId]))).toEqual(
        forked,
      )
      expect(after.branches.map((b) => b.name).sort()).toEqual(
        [...before.branches.map((b) => b.name), ...forked.keys()].sort(),
      )
      expect(acked).toContain(after.cursor)
      expect(acked.length).toBe(50 - 5 - 5)
      expect((await status()).sidecarWarnings).toEqual([])
      await expectNextRequestFollows()
    }, 600_000)

    it('a small random interleaving of moves, labels and forks, checked after every batch', async () => {
      const kinds = fc.constantFrom('jump', 'fork', 'label', 'back', 'forward')
      const schedule = fc.sample(
        fc.array(
          fc.array(fc.record({ kind: kinds, pick: fc.nat(50), name: fc.constantFrom('r1', 'r2', 'r3') }), {
            minLength: 2,
            maxLength: 5,
          }),
          { minLength: 3, maxLength: 3 },
        ),
        { numRuns: 1, seed: Number(process.env.CONCURRENCY_SEED ?? 20_251_111) },
      )[0]!
      evidence.schedule = schedule
      for (const [b, batch] of schedule.entries()) {
        const before = await list()
        const nodes = targets(before)
        const at = (pick: number) => nodes[pick % nodes.length]!.nodeId
        const results = await Promise.all(
          batch.map((a) => {
            switch (a.kind) {
              case 'jump':
                return dsh.api.remote<MoveResult>('sessionTree/jump', { agentId: sessionId, nodeId: at(a.pick) })
              case 'fork':
                return dsh.api.remote<MoveResult>('sessionTree/fork', {
                  agentId: sessionId,
                  nodeId: at(a.pick),
                  branch: `${a.name}-${b}`,
                })
              case 'label':
                return dsh.api.remote<TreeNode>('sessionTree/label', {
                  agentId: sessionId,
                  nodeId: at(a.pick),
                  label: a.name,
                })
              default:
                return dsh.api.remote<MoveResult>(`sessionTree/${a.kind}`, { agentId: sessionId })
            }
          }),
        )
        const after = await list()
        const cursors: (string | null)[] = []
        results.forEach((result, i) => {
          const a = batch[i]!
          if (!result.ok) {
            expect(
              ['BRANCH_EXISTS', 'HISTORY_EMPTY', 'LABEL_EXISTS'],
              `${JSON.stringify(a)}: ${result.error.message}`,
            ).toContain(result.error.code)
            const name = `${a.name}-${b}`
            if (
              a.kind === 'fork' &&
              !batch.some((o, k) => k !== i && o.kind === 'fork' && o.name === a.name && results[k]!.ok)
            ) {
              expect(after.branches.map((x) => x.name)).not.toContain(name)
            }
            return
          }
          if (a.kind === 'label') {
            const clash = batch.some(
              (o, k) => k !== i && o.kind === 'label' && (o.name === a.name || at(o.pick) === at(a.pick)),
            )
            if (!clash) expect(after.nodes.find((n) => n.nodeId === at(a.pick))?.label).toBe(a.name)
            return
          }
          const moved = result.value as MoveResult
          if (a.kind === 'jump' || a.kind === 'fork') expect(moved.cursor).toBe(at(a.pick))
          cursors.push(moved.cursor)
        })
        expect(
          cursors.length === 0 ? after.cursor === before.cursor : cursors.includes(after.cursor),
          `cursor after batch ${b}`,
        ).toBe(true)
        expect((await status()).sidecarWarnings).toEqual([])
        await expectNextRequestFollows()
      }
    }, 600_000)

    it('fuzz: every method with hostile arguments gets a typed envelope, changes nothing when refused, answers bounded', async () => {
      const view = await list()
      const real = { agentId: sessionId, nodeId: targets(view)[1]!.nodeId }
      const hostileString = fc.oneof(
        fc.constantFrom(
          '',
          ' ',
          '\t',
          '../../etc/passwd',
          '/etc/passwd',
          '..\\..\\boot.ini',
          '%2e%2e%2f',
          'C:\\x',
          'a\u0000b',
          '\ud800',
          '\u202e',
          '😀'.repeat(300),
          '__proto__',
          'constructor',
          'prototype',
          'toString',
          'hasOwnProperty',
          'e0',
          'e-1',
          'main',
          'x'.repeat(201),
          'y'.repeat(100_000),
        ),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.constant(real.agentId),
        fc.constant(real.nodeId),
      )
      const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
        { weight: 12, arbitrary: hostileString },
        {
          weight: 2,
          arbitrary: fc.constantFrom<unknown>(null, true, 0, -1, 1.5, 1e308, [], {}, [real.agentId], { toString: 'x' }),
        },
        { weight: 1, arbitrary: fc.constant(undefined) },
      )
      const protoKeys = fc.constantFrom('__proto__', 'constructor', 'prototype', 'extra')
      // The session id half the time, so that most calls reach the service and not only the gateway.
      const agentId = fc.oneof(fc.constant<unknown>(real.agentId), hostileValue)
      const call = fc.record({
        method: fc.constantFrom(...METHODS),
        values: fc.tuple(agentId, hostileValue, hostileValue),
        extra: fc.oneof(
          { weight: 5, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.tuple(protoKeys, hostileValue) },
        ),
        shape: fc.oneof(
          { weight: 12, arbitrary: fc.constant('args') },
          { weight: 1, arbitrary: fc.constantFrom('no-args', 'args-array', 'args-string') },
        ),
      })
      let checked = 0
      const seen = new Map<string, number>()
      const gatewayMessages = new Set<string>()
      const send = async (method: Method, body: string) => {
        const response = await fetch(`${dsh.url}/api/sessionTree/${method}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(60_000),
        })
        return { status: response.status, text: await response.text() }
      }
      const attempt = async (method: Method, body: string, rpcId: string, what: string) => {
        const beforeRevision = (await status()).revision
        const beforeFiles = sidecarFiles()
        const answer = await send(method, body)
        expect(answer.status, `${what}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`).toBe(200)
        expect(answer.text.length, `${what}: ${answer.text.length} bytes`).toBeLessThan(MAX_ANSWER_BYTES)
        const envelope = JSON.parse(answer.text) as { type: string; rpcId: string; result: RpcResult<unknown> }
        expect(envelope, what).toMatchObject({ type: 'server-response', rpcId })
        const result = envelope.result
        if (result.ok) {
          seen.set('ok', (seen.get('ok') ?? 0) + 1)
        } else {
          expect(typeof result.error.message === 'string' && result.error.message.length > 0, what).toBe(true)
          expect(
            SERVICE_CODES.has(result.error.code) || result.error.code === GATEWAY_CODE,
            `${what}: ${result.error.code}`,
          ).toBe(true)
          expect(result.error.code, `${what}: ${result.error.message}`).not.toBe('INTERNAL')
          seen.set(result.error.code, (seen.get(result.error.code) ?? 0) + 1)
          if (result.error.code === GATEWAY_CODE)
            gatewayMessages.add(result.error.message.replace(/"[^"]*"/g, '"…"').slice(0, 120))
          // A refusal changed nothing: not the tree, not the sidecar.
          expect((await status()).revision, `${what} changed the tree`).toBe(beforeRevision)
          expect(sidecarFiles() === beforeFiles, `${what} wrote the sidecar`).toBe(true)
        }
        checked++
      }
      await fc.assert(
        fc.asyncProperty(call, async ({ method, values, extra, shape }) => {
          const args: Record<string, unknown> = {}
          PARAMETERS[method].forEach((name, i) => {
            if (values[i] !== undefined) args[name] = values[i]
          })
          // An own `__proto__` key, as JSON can carry one.
          if (extra)
            Object.defineProperty(args, extra[0], {
              value: extra[1] ?? null,
              enumerable: true,
              configurable: true,
              writable: true,
            })
          const payload =
            shape === 'args'
              ? { args }
              : shape === 'no-args'
                ? {}
                : shape === 'args-array'
                  ? { args: Object.values(args) }
                  : { args: JSON.stringify(args) }
          const rpcId = randomUUID()
          await attempt(
            method,
            JSON.stringify({ type: 'client-request', rpcId, method: `sessionTree/${method}`, payload }),
            rpcId,
            `${method} ${JSON.stringify(payload).slice(0, 200)}`,
          )
        }),
        { numRuns: 150, endOnFailure: true },
      )
      // 10 MB ids in every field of every method, and a broken envelope.
      const huge = 'z'.repeat(10 * 1024 * 1024)
      for (const method of METHODS) {
        for (const field of PARAMETERS[method]) {
          const args: Record<string, unknown> = { agentId: sessionId, nodeId: real.nodeId, branch: 'b', label: 'l' }
          for (const key of Object.keys(args)) if (!PARAMETERS[method].includes(key)) delete args[key]
          args[field] = huge
          const rpcId = randomUUID()
          await attempt(
            method,
            JSON.stringify({ type: 'client-request', rpcId, method: `sessionTree/${method}`, payload: { args } }),
            rpcId,
            `${method} with a 10 MB ${field}`,
          )
        }
      }
      evidence.fuzz = { checked, outcomes: Object.fromEntries(seen), gatewayMessages: [...gatewayMessages] }
      expect(checked).toBe(150 + Object.values(PARAMETERS).reduce((sum, p) => sum + p.length, 0))
      expect(seen.get(GATEWAY_CODE) ?? 0, 'the gateway refused some').toBeGreaterThan(0)
      expect(
        [...seen.keys()].filter((code) => SERVICE_CODES.has(code)).length,
        'the service refused some, with several codes',
      ).toBeGreaterThan(2)
      await expectNextRequestFollows()
    }, 600_000)

    it('after a restart: the same tree and no sidecar warning', async () => {
      const before = await list()
      await dsh.stopWeb('SIGTERM')
      await dsh.startWeb()
      // A stored session loads when it is used: a move resumes it (a read would not).
      await dsh.api.promptAndWait(sessionId, 'after the restart')
      const after = await list()
      expect(after.nodes.slice(0, before.nodes.length)).toEqual(
        before.nodes.map((n) => (n.nodeId === before.cursor ? after.nodes.find((m) => m.nodeId === n.nodeId)! : n)),
      )
      expect(after.branches.map((b) => b.name)).toEqual(before.branches.map((b) => b.name))
      expect((await status()).sidecarWarnings).toEqual([])
      const sent = history(dsh.llm.chatRequests().at(-1)!.body).filter(
        (m) => (m.role === 'user' || m.role === 'assistant') && m.text !== '',
      )
      expect(sent.map((m) => `${m.role}: ${m.text}`)).toEqual([
        ...spoken(before, before.cursor),
        'user: after the restart',
      ])
    }, 600_000)
  },
)
