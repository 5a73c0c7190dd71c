/**
 * The `sessionTree` remote API over HTTP, in a real `dsh web`: the pinned,
 * unpatched `dsh` 0.1.0-rc.8 (`dev/harness/stock`), this package built and
 * installed from its `npm pack` tarball with `dsh plugin --profile web add`,
 * a recording fake LLM on loopback, and nothing but `POST /api/sessionTree/<method>`
 * with the real wire envelope `{type: 'client-request', rpcId, method, payload: {args}}`.
 *
 * - Every method is called: list, session, export, jump, fork, back, forward,
 *   label, summarize. Every successful value must parse with the GENERATED
 *   result schema of that method's descriptor (`lib/typert.remote-client.js`,
 *   the very file the installed package ships), and list/jump/fork/session
 *   (and back/forward, which answer a jump) also with seed 001's result
 *   schemas, so a browser client written against seed 001 works unchanged.
 * - Bad arguments get the typed error envelope with HTTP 200 (never a 500,
 *   never a hang: every call has its own timeout): service codes are asserted
 *   exactly; for rejections the gateway makes itself (missing/extra/wrong-typed
 *   args) the envelope shape is asserted and the code it uses is recorded in
 *   `argument-errors.json`.
 * - Reads have no side effects: `list`, `session` and `export` twice in a row
 *   answer identical values, and reads (and refused calls) write no sidecar.
 *
 * Evidence of every run (wire log, argument errors, validations, timings):
 * test/e2e/artifacts/remote/.
 */
import fs from 'node:fs'
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, expect, it } from 'vitest'
import { z } from 'zod'
import { SEED_001 } from '../support/seed-001.ts'
import type {
  BranchSummary,
  LinearExport,
  SessionTreeOutline,
  SessionTreeOutlineChanges,
  SessionTreeView,
  TreeNode,
} from '../../src/tree/types.ts'
import type { ChatPath } from '../../src/service/chat-path.ts'
import type { ForkResult, MoveResult, SessionStatus } from '../../src/service/wire.ts'
import { REPO_ROOT } from '../../dev/harness.ts'
import { SERVICE_CODES } from './support/api.ts'
import { saveArtifact } from './support/artifacts.ts'
import { dumpConfig, pluginAdd } from './support/dsh.ts'
import { messageText } from './support/fake-llm.ts'
import { snapshotSidecars } from './support/sidecar-files.ts'
import { notesWorkspace, readOrAnswerScript } from './support/demo-turns.ts'
import { describeWeb } from './support/web-suite.ts'

const PACKAGE = 'dsh-session-tree'
const PROFILE = 'web'
/**
 * The code the rc.8 gateway (`@deepseek-ai/dsh-api-gateway`) answers for
 * every argument error it refuses itself (missing/extra/wrong-typed args, a
 * malformed payload): `internal`, the message saying what was wrong. Observed,
 * not chosen; the record of every refusal is `argument-errors.json`.
 */
const GATEWAY_CODE = 'internal'
/** Per-call ceiling: a refused call answers at once; a move runs one maintenance turn (no model call). */
const CALL_TIMEOUT_MS = 20_000

// ------------------------------------------------------ the generated client

interface Codec {
  readonly mode: string
  readonly typeSymbol: string
  readonly schema: z.ZodType
}
interface Descriptor {
  readonly id: string
  readonly namespace: string
  readonly method: string
  readonly parameters: ReadonlyArray<{
    readonly name: string
    readonly wire: string
    readonly source: string
    readonly codec: Codec
  }>
  readonly result: Codec
}
interface RemoteModule {
  readonly TYPERT_REMOTE: { readonly package: string; readonly descriptors: readonly Descriptor[] }
}

const METHODS = [
  'list',
  'outline',
  'outlineChanges',
  'session',
  'export',
  'jump',
  'fork',
  'back',
  'forward',
  'label',
  'summarize',
  'chatPath',
] as const
type Method =
  | (typeof METHODS)[number]
  | (typeof WORKSPACE_METHODS)[number]
  | (typeof INTERCHANGE_METHODS)[number]
  | (typeof COMPARE_METHODS)[number]
  | (typeof SUMMARY_METHODS)[number]
  | (typeof LINEAGE_METHODS)[number]
  | (typeof EDGE_METHODS)[number]
  | (typeof LIVE_METHODS)[number]
  | (typeof PANEL_METHODS)[number]
/** Comparing two nodes: the conversation (compare.test.ts) and the checkpointed files (issue 24.3, workspace-panel.test.ts). */
const COMPARE_METHODS = ['compare', 'compareFiles', 'compareFileDiff'] as const
/** Import and export (their own suite: test/e2e/interchange.test.ts). */
const INTERCHANGE_METHODS = ['importSession', 'exportAs'] as const
/** Any method with its failure as data: what the Tree tab calls (dsh web's browser carrier keeps only the host's codes). */
const EDGE_METHODS = ['attempt'] as const
/** The push channel the Tree tab and the Chat hold instead of polling (issue 25.4, live-tree.test.ts). */
const LIVE_METHODS = ['watch'] as const
/** Any conversation move as one value, answered without the model's history: what the Tree tab sends (panel.test.ts). */
const PANEL_METHODS = ['moveBrief'] as const
/** The workspace checkpoint methods (exercised end to end in workspace.test.ts; here: present, and refusing an unknown session). */
const WORKSPACE_METHODS = [
  'files',
  'filesAt',
  'fileAt',
  'restorePreview',
  'restoreDiff',
  'restore',
  'carryPreview',
  'carryDiff',
  'carry',
] as const
/** Moves and summaries with options (issue 14: summaries the model writes). */
const SUMMARY_METHODS = ['jumpWith', 'forkWith', 'summarizeWith'] as const
/** New sessions from a node and orphaned trees (their own suites: test/e2e/lineage*.test.ts). */
const LINEAGE_METHODS = ['openAsNewSession', 'gc'] as const
/** Every method the plugin serves. */
const ALL_METHODS: readonly Method[] = [
  ...METHODS,
  ...INTERCHANGE_METHODS,
  ...WORKSPACE_METHODS,
  ...COMPARE_METHODS,
  ...SUMMARY_METHODS,
  ...LINEAGE_METHODS,
  ...EDGE_METHODS,
  ...LIVE_METHODS,
  ...PANEL_METHODS,
]

// ------------------------------------------------------ seed 001's contract

/** Which seed 001 schema a method's value must also satisfy (back/forward answer a jump). */
const SEED_FOR: Partial<Record<Method, z.ZodType>> = {
  list: SEED_001.list,
  session: SEED_001.session,
  jump: SEED_001.jump,
  back: SEED_001.jump,
  forward: SEED_001.jump,
  fork: SEED_001.fork,
}

// ------------------------------------------------------ the wire

/** `{type: 'server-response', rpcId, result: {ok: false, error: {code, message, details?}}}` */
const ErrorEnvelope = z.object({
  type: z.literal('server-response'),
  rpcId: z.string(),
  result: z.object({
    ok: z.literal(false),
    error: z.object({ code: z.string().min(1), message: z.string().min(1), details: z.unknown().optional() }),
  }),
})
const OkEnvelope = z.object({
  type: z.literal('server-response'),
  rpcId: z.string(),
  result: z.object({ ok: z.literal(true), value: z.unknown() }),
})

interface WireError {
  readonly code: string
  readonly message: string
  readonly details?: unknown
}

/** One recorded argument rejection (artifact `argument-errors.json`). */
interface Rejection {
  readonly case: string
  readonly endpoint: string
  readonly args: unknown
  readonly status: number
  readonly code: string
  readonly message: string
  /** `service` when the code is one of this package's codes (the call reached `ctx.sessionTree`), else `gateway`. */
  readonly layer: 'service' | 'gateway'
}

/** `promise`, or a rejection naming `label` after `ms` (a hang is a failure, not a stuck run). */
async function within<T>(label: string, promise: Promise<T>, ms = CALL_TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label}: no answer within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

const options = {
  name: 'remote',
  workspace: notesWorkspace,
  llm: { script: readOrAnswerScript(20) },
  // Installing and booting are steps of this suite.
  profiles: [],
  start: false,
}

describeWeb('remote API: every sessionTree method over HTTP in a real dsh web (stock harness)', options, (dsh) => {
  const rejections: Rejection[] = []
  const validations: Array<{ method: string; generated: boolean; seed001?: boolean }> = []
  dsh.evidence('argument-errors.json', rejections)
  dsh.evidence('validations.json', validations)
  let sessionId: string
  let descriptors: Map<string, Descriptor>
  /** Values of the read-only phase, compared after the refused calls. */
  let readOnly: { list: SessionTreeView; session: SessionStatus; export: LinearExport } | undefined
  /** The original tip and the first answer. */
  let tip: string
  let a1: string

  const { time } = dsh

  const descriptor = (method: Method | (typeof INTERCHANGE_METHODS)[number]): Descriptor => {
    const found = descriptors.get(method)
    if (!found) throw new Error(`the generated client has no descriptor for sessionTree/${method}`)
    return found
  }

  /**
   * One raw wire call: `POST /api/sessionTree/<method>` with the real envelope
   * (or `payload` as given), with a timeout. Asserts HTTP 200 and an envelope
   * echoing the rpcId; returns the envelope.
   */
  const wire = async (method: Method, payload: unknown, ms = CALL_TIMEOUT_MS): Promise<unknown> => {
    const endpoint = `sessionTree/${method}`
    const rpcId = randomUUID()
    const response = await within(
      `POST /api/${endpoint}`,
      dsh.api.post(`/api/${endpoint}`, { type: 'client-request', rpcId, method: endpoint, payload }),
      ms,
    )
    expect(
      response.status,
      `HTTP status of ${endpoint} ${JSON.stringify(payload)}: ${response.text.slice(0, 500)}`,
    ).toBe(200)
    expect(response.json, `an envelope from ${endpoint}`).toMatchObject({ type: 'server-response', rpcId })
    return response.json
  }

  /** A successful call: the value, parsed by the generated schema (and seed 001's, where it has one). */
  const callOk = async <T>(method: Method, args: Record<string, unknown>, ms = CALL_TIMEOUT_MS): Promise<T> => {
    const envelope = await wire(method, { args }, ms)
    const parsed = OkEnvelope.safeParse(envelope)
    if (!parsed.success)
      throw new Error(`sessionTree/${method} ${JSON.stringify(args)} did not succeed: ${JSON.stringify(envelope)}`)
    const value = parsed.data.result.value
    const generated = descriptor(method).result.schema.safeParse(value)
    expect(
      generated.success,
      `the generated ${method} result schema accepts the value: ${generated.error?.message ?? ''}`,
    ).toBe(true)
    const seed = SEED_FOR[method]
    const seeded = seed?.safeParse(value)
    if (seeded)
      expect(
        seeded.success,
        `seed 001's ${method} result schema accepts the value: ${seeded.error?.message ?? ''}`,
      ).toBe(true)
    validations.push({ method, generated: generated.success, ...(seeded ? { seed001: seeded.success } : {}) })
    return value as T
  }

  /** A refused call: the typed error envelope with HTTP 200; returns the error. */
  const callError = async (caseName: string, method: Method, payload: unknown): Promise<WireError> => {
    const envelope = await wire(method, payload)
    const parsed = ErrorEnvelope.safeParse(envelope)
    if (!parsed.success)
      throw new Error(
        `${caseName}: sessionTree/${method} ${JSON.stringify(payload)} did not answer the typed error envelope: ${JSON.stringify(envelope)}`,
      )
    const error = parsed.data.result.error
    rejections.push({
      case: caseName,
      endpoint: `sessionTree/${method}`,
      args: payload,
      status: 200,
      code: error.code,
      message: error.message,
      layer: SERVICE_CODES.has(error.code) ? 'service' : 'gateway',
    })
    return error
  }

  /** A refusal the service makes: exactly `code`. */
  const expectCode = async (
    caseName: string,
    method: Method,
    args: Record<string, unknown>,
    code: string,
  ): Promise<WireError> => {
    const error = await callError(caseName, method, { args })
    expect(error.code, `${caseName}: ${error.message}`).toBe(code)
    return error
  }

  const nodeWith = (view: SessionTreeView, text: string): TreeNode => {
    const found = view.nodes.find((n) => n.message?.content === text)
    if (!found) throw new Error(`no node with text ${JSON.stringify(text)}`)
    return found
  }

  beforeAll(async () => {
    // The generated client, imported after the build (which regenerates lib/typert.*).
    const remote = (await import(
      pathToFileURL(path.join(REPO_ROOT, 'lib', 'typert.remote-client.js')).href
    )) as RemoteModule
    descriptors = new Map(remote.TYPERT_REMOTE.descriptors.map((d) => [d.method, d]))
  }, 600_000)

  it('the generated client describes every method with seed 001 wire args', () => {
    expect([...descriptors.keys()].sort()).toEqual([...ALL_METHODS].sort())
    for (const method of ALL_METHODS) {
      const d = descriptor(method)
      expect(d.namespace).toBe('sessionTree')
      expect(d.result.mode).toBe('strict')
    }
    expect(descriptor('list').parameters.map((p) => p.wire)).toEqual(['agentId'])
    expect(descriptor('session').parameters.map((p) => p.wire)).toEqual(['agentId'])
    expect(descriptor('jump').parameters.map((p) => p.wire)).toEqual(['agentId', 'nodeId'])
    expect(descriptor('fork').parameters.map((p) => p.wire)).toEqual(['agentId', 'nodeId', 'branch'])
    expect(descriptor('jumpWith').parameters.map((p) => p.wire)).toEqual(['agentId', 'nodeId', 'options'])
    expect(descriptor('watch').parameters.map((p) => p.wire)).toEqual(['request'])
    expect(descriptor('moveBrief').parameters.map((p) => p.wire)).toEqual(['agentId', 'move'])
  })

  it('installs from the tarball; `dsh --profile web --dump-config` shows the layer; the shipped client is the one validated here', async () => {
    await time('pluginAdd', () => pluginAdd(dsh.home, PROFILE, dsh.plugin.tgz))
    const dump = await time('dumpConfig', () => dumpConfig(dsh.home, PROFILE))
    saveArtifact(dsh.artifacts, 'dump-config.yml', dump)
    expect(dump, 'the layer header of this package').toContain(`# == ${PACKAGE}\n`)
    const layer = dump.slice(dump.indexOf(`# == ${PACKAGE}\n`)).split(/\n# == /)[0] ?? ''
    expect(layer).toMatch(/^# == dsh-session-tree\n- id: session-tree\n {2}name: dsh-session-tree\n {2}config:\n/)
    expect(layer).toContain("sidecarRoot: !!js dshHomePath('session-tree')")
    const installed = path.join(
      dsh.home,
      'profiles',
      PROFILE,
      'node_modules',
      PACKAGE,
      'lib',
      'typert.remote-client.js',
    )
    expect(fs.readFileSync(installed, 'utf8')).toBe(
      fs.readFileSync(path.join(REPO_ROOT, 'lib', 'typert.remote-client.js'), 'utf8'),
    )
  }, 600_000)

  it('boots `dsh web` and converses for 3 turns, one with a real `read` tool call', async () => {
    await time('boot', () => dsh.startWeb())
    const ours = (await within('pluginInventory', dsh.api.pluginInventory())).filter((e) => e.moduleName === PACKAGE)
    expect(ours).toHaveLength(1)
    expect(ours[0]).toMatchObject({ enabled: true, fiberPhase: 'active' })
    ;({ sessionId } = await dsh.api.createSession({ cwd: dsh.work }))
    await time('turns', async () => {
      await dsh.api.converse(sessionId)
    })
    expect(dsh.llm.faults).toEqual([])
    expect(dsh.llm.chatRequests(), 'three answers and the follow-up after the tool result').toHaveLength(4)
    const tool = dsh.llm.chatRequests()[2]?.body.messages.at(-1)
    expect(tool?.role).toBe('tool')
    expect(messageText(tool!)).toContain('banana')
  }, 600_000)

  it('reads have no side effects: list, session and export twice answer identical values; no sidecar is written', async () => {
    const before = snapshotSidecars(dsh.home)
    const view1 = await time('reads', () => callOk<SessionTreeView>('list', { agentId: sessionId }))
    const view2 = await time('reads', () => callOk<SessionTreeView>('list', { agentId: sessionId }))
    expect(view2).toEqual(view1)
    const status1 = await time('reads', () => callOk<SessionStatus>('session', { agentId: sessionId }))
    const status2 = await time('reads', () => callOk<SessionStatus>('session', { agentId: sessionId }))
    expect(status2).toEqual(status1)
    const export1 = await time('reads', () => callOk<LinearExport>('export', { agentId: sessionId }))
    const export2 = await time('reads', () => callOk<LinearExport>('export', { agentId: sessionId }))
    expect(export2).toEqual(export1)
    // The outline is the list without branch paths.
    const outline = await time('reads', () => callOk<SessionTreeOutline>('outline', { agentId: sessionId }))
    // (and without the session's lineage, which `list` adds: test/e2e/lineage.test.ts)
    const { lineage: _lineage, ...listed } = view1 as SessionTreeView & { lineage?: unknown }
    expect(outline).toEqual({ ...listed, branches: view1.branches.map(({ nodeIds: _paths, ...branch }) => branch) })
    // What the Tree tab reads: the outline whole first, then only what changed since (nothing, here).
    const whole = await time('reads', () =>
      callOk<SessionTreeOutlineChanges>('outlineChanges', { agentId: sessionId, since: null }),
    )
    const { version, base, nodeCount, changedAt, ...wholeOutline } = whole
    expect({ base, nodeCount, changedAt }).toEqual({ base: null, nodeCount: outline.nodes.length, changedAt: [] })
    expect(wholeOutline).toEqual(outline)
    const since = await time('reads', () =>
      callOk<SessionTreeOutlineChanges>('outlineChanges', { agentId: sessionId, since: version }),
    )
    expect(since).toMatchObject({ base: version, version, nodeCount, changedAt: [], nodes: [] })
    readOnly = { list: view1, session: status1, export: export1 }
    saveArtifact(dsh.artifacts, 'read-only.json', readOnly)

    // What the conversation made: 3 prompts, 3 answers, the tool call with its result folded in.
    expect(view1.sessionId).toBe(sessionId)
    expect(view1.nodes.some((n) => n.type === 'tool_call' && n.message?.content.includes('banana'))).toBe(true)
    tip = nodeWith(view1, 'ANSWER to: third question').nodeId
    a1 = nodeWith(view1, 'ANSWER to: first question').nodeId
    expect(view1.cursor).toBe(tip)
    expect(status1).toMatchObject({ sessionId, cursor: tip, snapshotVersion: 1, surfaceMode: 'stock', quarantine: [] })
    expect(status1.nodeCount).toBe(view1.nodes.length)
    expect(export1.sessionId).toBe(sessionId)
    expect(export1.messages.at(-1)?.content).toBe('ANSWER to: third question')

    // No sidecar directory appears from reads (none for this session, nothing changed at all).
    expect(snapshotSidecars(dsh.home)).toEqual(before)
    expect(
      Object.keys(snapshotSidecars(dsh.home)).filter((name) => name.includes(sessionId.replace(/[^a-z0-9_-]/g, ''))),
    ).toEqual([])
  }, 600_000)

  it('refused calls answer the typed error envelope with the service code, and change nothing', async () => {
    const before = snapshotSidecars(dsh.home)
    await time('refusals', async () => {
      // Unknown session, on every method.
      const ghost = 'session-does-not-exist'
      const request = { move: { kind: 'jump', nodeId: a1 }, restore: 'both' }
      const ghostArgs: Record<
        (typeof METHODS)[number] | (typeof WORKSPACE_METHODS)[number],
        Record<string, unknown>
      > = {
        files: { agentId: ghost },
        filesAt: { agentId: ghost, nodeId: a1 },
        fileAt: { agentId: ghost, nodeId: a1, path: 'notes.txt' },
        restorePreview: { agentId: ghost, request },
        restoreDiff: { agentId: ghost, request, path: 'notes.txt' },
        restore: { agentId: ghost, request },
        carryPreview: { agentId: ghost, request: { from: a1 } },
        carryDiff: { agentId: ghost, request: { from: a1 }, path: 'notes.txt' },
        carry: { agentId: ghost, request: { from: a1 } },
        list: { agentId: ghost },
        outline: { agentId: ghost },
        outlineChanges: { agentId: ghost, since: null },
        session: { agentId: ghost },
        export: { agentId: ghost },
        jump: { agentId: ghost, nodeId: a1 },
        fork: { agentId: ghost, nodeId: a1, branch: 'ghost-branch' },
        back: { agentId: ghost },
        forward: { agentId: ghost },
        label: { agentId: ghost, nodeId: a1, label: 'ghost' },
        summarize: { agentId: ghost, branch: 'main' },
        chatPath: { agentId: ghost },
      }
      for (const method of [...METHODS, ...WORKSPACE_METHODS])
        await expectCode(`unknown session (${method})`, method, ghostArgs[method], 'SESSION_NOT_FOUND')

      // Unknown node.
      await expectCode('unknown node (jump)', 'jump', { agentId: sessionId, nodeId: 'no-such-node' }, 'NODE_NOT_FOUND')
      await expectCode(
        'unknown node (fork)',
        'fork',
        { agentId: sessionId, nodeId: 'no-such-node', branch: 'x' },
        'NODE_NOT_FOUND',
      )
      await expectCode(
        'label on unknown node',
        'label',
        { agentId: sessionId, nodeId: 'no-such-node', label: 'x' },
        'NODE_NOT_FOUND',
      )
      // Empty branch name; unknown branch; nothing to go back or forward to.
      await expectCode(
        'empty branch name (fork)',
        'fork',
        { agentId: sessionId, nodeId: a1, branch: '' },
        'INVALID_ARGUMENT',
      )
      await expectCode(
        'summarize unknown branch',
        'summarize',
        { agentId: sessionId, branch: 'no-such-branch' },
        'BRANCH_NOT_FOUND',
      )
      await expectCode('back with empty history', 'back', { agentId: sessionId }, 'HISTORY_EMPTY')
      await expectCode('forward with empty history', 'forward', { agentId: sessionId }, 'HISTORY_EMPTY')
      // An existing branch name.
      await expectCode(
        'fork onto the existing branch name "main"',
        'fork',
        { agentId: sessionId, nodeId: a1, branch: 'main' },
        'BRANCH_EXISTS',
      )
      // The same refusals through `attempt` (what the Tree tab calls): a successful envelope, the failure with our code in its value.
      const attempted = async (method: string, args: Record<string, unknown>): Promise<unknown> => {
        const envelope = (await wire('attempt', { args: { method, args } })) as {
          result: { ok: boolean; value?: unknown }
        }
        expect(envelope.result.ok, `attempt(${method}) answers ok: ${JSON.stringify(envelope)}`).toBe(true)
        expect(descriptor('attempt').result.schema.safeParse(envelope.result.value).success).toBe(true)
        return envelope.result.value
      }
      const failure = (code: string, message: unknown = expect.any(String)) => ({
        format: 'dsh-session-tree/attempt@2',
        ok: false,
        error: expect.objectContaining({ code, message }),
      })
      expect(await attempted('fork', { agentId: sessionId, nodeId: a1, branch: 'main' })).toEqual(
        failure('BRANCH_EXISTS'),
      )
      expect(await attempted('outline', { agentId: ghost })).toEqual(failure('SESSION_NOT_FOUND'))
      expect(await attempted('fork', { agentId: sessionId })).toEqual(
        failure('INTERNAL', expect.stringMatching(/missing "nodeId"/)),
      )
      expect(await attempted('attempt', {})).toEqual(failure('INVALID_ARGUMENT'))
      expect(await attempted('noSuchMethod', {})).toEqual(failure('INTERNAL'))
      const answered = (await attempted('session', { agentId: sessionId })) as {
        format: string
        ok: boolean
        json: string
      }
      expect(answered).toMatchObject({ format: 'dsh-session-tree/attempt@2', ok: true })
      expect(JSON.parse(answered.json)).toMatchObject({ sessionId })
    })
    expect(snapshotSidecars(dsh.home), 'refused calls write no sidecar').toEqual(before)
    expect(await callOk<SessionTreeView>('list', { agentId: sessionId })).toEqual(readOnly?.list)
    expect(await callOk<SessionStatus>('session', { agentId: sessionId })).toEqual(readOnly?.session)
    expect(dsh.llm.chatRequests(), 'no refused call reached the model').toHaveLength(4)
  }, 600_000)

  it('malformed args (missing, extra, wrong types, no args field) get the typed error envelope, never a 500 or a hang', async () => {
    const before = snapshotSidecars(dsh.home)
    const missing = (field: string) =>
      new RegExp(`^typert gateway: sessionTree/\\w+: args fields do not match the descriptor: missing "${field}"$`)
    const unexpected = (field: string) =>
      new RegExp(`^typert gateway: sessionTree/\\w+: args fields do not match the descriptor: unexpected "${field}"$`)
    const wrongType = (field: string) =>
      new RegExp(`^typert gateway: sessionTree/\\w+: wire field "${field}" failed boundary validation$`)
    const badPayload = /^Remote payload must contain exactly one plain-object args field$/
    const cases: Array<{ case: string; method: Method; payload: unknown; message: RegExp }> = [
      // missing
      { case: 'missing agentId (list)', method: 'list', payload: { args: {} }, message: missing('agentId') },
      {
        case: 'missing nodeId (jump)',
        method: 'jump',
        payload: { args: { agentId: sessionId } },
        message: missing('nodeId'),
      },
      {
        case: 'missing branch (fork)',
        method: 'fork',
        payload: { args: { agentId: sessionId, nodeId: a1 } },
        message: missing('branch'),
      },
      {
        case: 'missing label (label)',
        method: 'label',
        payload: { args: { agentId: sessionId, nodeId: a1 } },
        message: missing('label'),
      },
      // extra
      {
        case: 'extra field (session)',
        method: 'session',
        payload: { args: { agentId: sessionId, surprise: true } },
        message: unexpected('surprise'),
      },
      {
        case: 'extra field (jump)',
        method: 'jump',
        payload: { args: { agentId: sessionId, nodeId: a1, branch: 'main' } },
        message: unexpected('branch'),
      },
      // wrong types
      {
        case: 'nodeId: 5 (jump)',
        method: 'jump',
        payload: { args: { agentId: sessionId, nodeId: 5 } },
        message: wrongType('nodeId'),
      },
      {
        case: 'nodeId: 5 (fork)',
        method: 'fork',
        payload: { args: { agentId: sessionId, nodeId: 5, branch: 'typed' } },
        message: wrongType('nodeId'),
      },
      {
        case: 'agentId: null (list)',
        method: 'list',
        payload: { args: { agentId: null } },
        message: wrongType('agentId'),
      },
      {
        case: 'agentId: null (session)',
        method: 'session',
        payload: { args: { agentId: null } },
        message: wrongType('agentId'),
      },
      {
        case: 'agentId: null (jump)',
        method: 'jump',
        payload: { args: { agentId: null, nodeId: a1 } },
        message: wrongType('agentId'),
      },
      {
        case: 'label: 42 (label)',
        method: 'label',
        payload: { args: { agentId: sessionId, nodeId: a1, label: 42 } },
        message: wrongType('label'),
      },
      {
        case: 'branch: ["x"] (summarize)',
        method: 'summarize',
        payload: { args: { agentId: sessionId, branch: ['x'] } },
        message: wrongType('branch'),
      },
      // the payload itself
      { case: 'no args field', method: 'list', payload: {}, message: badPayload },
      { case: 'args is an array', method: 'list', payload: { args: [sessionId] }, message: badPayload },
      {
        case: 'args next to another field',
        method: 'list',
        payload: { args: { agentId: sessionId }, extra: 1 },
        message: badPayload,
      },
    ]
    await time('malformed', async () => {
      for (const c of cases) {
        const error = await callError(c.case, c.method, c.payload)
        // Refused by the gateway against the strict (generated) descriptor: the service never ran.
        expect(error, c.case).toMatchObject({ code: GATEWAY_CODE, message: expect.stringMatching(c.message) })
      }
    })
    saveArtifact(dsh.artifacts, 'argument-errors.json', rejections)
    // Nothing slipped through: no write, no change.
    expect(snapshotSidecars(dsh.home), 'malformed calls write no sidecar').toEqual(before)
    expect(await callOk<SessionTreeView>('list', { agentId: sessionId })).toEqual(readOnly?.list)
  }, 600_000)

  it('transport refusals: a wrong content type gets 415, a foreign Origin 403 (never a 500, never a hang)', async () => {
    const body = {
      type: 'client-request',
      rpcId: randomUUID(),
      method: 'sessionTree/list',
      payload: { args: { agentId: sessionId } },
    }
    const plain = await within(
      'text/plain POST',
      dsh.api.post('/api/sessionTree/list', JSON.stringify(body), { 'content-type': 'text/plain' }),
    )
    expect(plain.status, plain.text.slice(0, 300)).toBe(415)
    const foreign = await within(
      'foreign Origin POST',
      dsh.api.post('/api/sessionTree/list', body, { origin: 'http://evil.example.com' }),
    )
    expect(foreign.status, foreign.text.slice(0, 300)).toBe(403)
    saveArtifact(dsh.artifacts, 'transport-refusals.json', [
      { case: 'content-type text/plain', status: plain.status, body: plain.json ?? plain.text },
      { case: 'Origin http://evil.example.com', status: foreign.status, body: foreign.json ?? foreign.text },
    ])
  }, 600_000)

  it('moves over the wire: jump, back, forward, fork (and a duplicate fork), each validated', async () => {
    await time('moves', async () => {
      const jumped = await callOk<MoveResult>('jump', { agentId: sessionId, nodeId: a1 })
      expect(jumped).toMatchObject({ cursor: a1, mode: 'stock' })
      expect(jumped.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'ANSWER to: first question' })
      expect(jumped.switch?.noop).toBe(false)

      const back = await callOk<MoveResult>('back', { agentId: sessionId })
      expect(back).toMatchObject({ cursor: tip, mode: 'stock' })
      expect(back.messages.at(-1)).toMatchObject({ content: 'ANSWER to: third question' })
      const forward = await callOk<MoveResult>('forward', { agentId: sessionId })
      expect(forward).toMatchObject({ cursor: a1, mode: 'stock' })
      await expectCode('forward past the last move', 'forward', { agentId: sessionId }, 'HISTORY_EMPTY')

      const forked = await callOk<ForkResult>('fork', { agentId: sessionId, nodeId: a1, branch: 'experiment' })
      expect(forked).toMatchObject({ cursor: a1, branch: 'experiment', mode: 'stock' })
      expect(typeof forked.forkCount).toBe('number')
      await expectCode(
        'duplicate branch',
        'fork',
        { agentId: sessionId, nodeId: a1, branch: 'experiment' },
        'BRANCH_EXISTS',
      )

      const view = await callOk<SessionTreeView>('list', { agentId: sessionId })
      expect(view.activeBranch).toBe('experiment')
      expect(view.branches.map((b) => b.name)).toEqual(expect.arrayContaining(['main', 'experiment']))
    })
    expect(dsh.llm.chatRequests(), 'a move makes no model call').toHaveLength(4)
    expect(Object.keys(snapshotSidecars(dsh.home)).length, 'moves persist to the sidecar').toBeGreaterThan(0)
  }, 600_000)

  it('label and summarize over the wire, each validated', async () => {
    await time('annotations', async () => {
      const labeled = await callOk<TreeNode>('label', { agentId: sessionId, nodeId: a1, label: 'bookmark' })
      expect(labeled).toMatchObject({ nodeId: a1, label: 'bookmark' })
      const listed = await callOk<SessionTreeView>('list', { agentId: sessionId })
      expect(listed.nodes.find((n) => n.nodeId === a1)?.label).toBe('bookmark')
      const cleared = await callOk<TreeNode>('label', { agentId: sessionId, nodeId: a1, label: null })
      expect(cleared.nodeId).toBe(a1)
      expect(cleared.label).toBeUndefined()

      const summary = await callOk<BranchSummary>('summarize', { agentId: sessionId, branch: 'experiment' })
      expect(summary).toMatchObject({ branch: 'experiment', nodeId: a1 })
      expect(summary.summary).toMatch(/\S/)
      const main = await callOk<BranchSummary>('summarize', { agentId: sessionId, branch: 'main' })
      expect(main.branch).toBe('main')
      // The export digests the off-path branches: `main`, with the summary just written.
      const exported = await callOk<LinearExport>('export', { agentId: sessionId })
      expect(exported.branches).toEqual([main])
      expect(exported.messages.at(-1)?.content).toBe('ANSWER to: first question')

      await expectCode('empty label', 'label', { agentId: sessionId, nodeId: a1, label: '  ' }, 'INVALID_ARGUMENT')
      await callOk<TreeNode>('label', { agentId: sessionId, nodeId: tip, label: 'taken' })
      await expectCode('duplicate label', 'label', { agentId: sessionId, nodeId: a1, label: 'taken' }, 'LABEL_EXISTS')
      await expectCode(
        'empty branch name (summarize)',
        'summarize',
        { agentId: sessionId, branch: '' },
        'INVALID_ARGUMENT',
      )
    })
  }, 600_000)

  it('jump to null and back to the tip; the session still converses; final reads validate', async () => {
    await time('nullJump', async () => {
      const empty = await callOk<MoveResult>('jump', { agentId: sessionId, nodeId: null })
      expect(empty).toMatchObject({ cursor: null, messages: [] })
      const restored = await callOk<MoveResult>('jump', { agentId: sessionId, nodeId: tip })
      expect(restored.cursor).toBe(tip)
      expect(restored.messages.at(-1)).toMatchObject({ content: 'ANSWER to: third question' })
    })
    await time('turns', () => dsh.api.promptAndWait(sessionId, 'after the remote calls'))
    expect(dsh.llm.faults).toEqual([])
    const sent = dsh.llm
      .chatRequests()
      .at(-1)!
      .body.messages.filter((m) => m.role !== 'system')
      .map(messageText)
    expect(sent.at(-2)).toBe('ANSWER to: third question')
    expect(sent.at(-1)).toBe('after the remote calls')

    const view = await callOk<SessionTreeView>('list', { agentId: sessionId })
    const status = await callOk<SessionStatus>('session', { agentId: sessionId })
    await callOk<LinearExport>('export', { agentId: sessionId })
    const chat = await callOk<ChatPath>('chatPath', { agentId: sessionId })
    expect(chat).toMatchObject({ sessionId, revision: status.revision, tip: view.cursor })
    expect(status.cursor).toBe(view.cursor)
    expect(view.nodes.find((n) => n.nodeId === view.cursor)?.message?.content).toBe('ANSWER to: after the remote calls')
    expect(status.quarantine).toEqual([])
    // Every method answered at least once and every value validated.
    expect(new Set(validations.map((v) => v.method))).toEqual(new Set(METHODS))
    expect(validations.every((v) => v.generated && v.seed001 !== false)).toBe(true)
  }, 600_000)
})
