/**
 * The generated typert artifacts (`lib/typert.*`, produced by `dev/typert.ts`
 * with the published generator):
 *
 * - they are exactly what the generator makes from today's src/ (regenerated
 *   into a temp dir, compared byte for byte), so they cannot drift;
 * - every result schema accepts the REAL outputs of the service (booted in a
 *   real cordis Context with the harness's real `SessionStore`) and rejects
 *   broken ones; the parameter schemas accept and reject what the wire
 *   contract says;
 * - the descriptors keep seed 001's contract: namespace `sessionTree`, direct
 *   invocation, wire args `agentId` / `nodeId` / `branch`, and results that
 *   seed 001's own result schemas (rebuilt below) still accept.
 */
import { execFile, execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@deepseek-ai/dsh-session'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { SEED_001 } from '../../support/seed-001.ts'
import SessionTreeService from '../../../src/index.ts'
import { assistant, newPiSession, user } from '../../support/pi.ts'
import { LogBuilder } from '../../support/log-builder.ts'
import { encodeSessionId } from '../../../src/sidecar/index.ts'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
const LIB = path.join(ROOT, 'lib')
const ARTIFACTS = [
  'typert.host.js',
  'typert.host.d.ts',
  'typert.remote-client.js',
  'typert.remote-client.d.ts',
  'typert.remote-client.d.ts.map',
]
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string
  exports: Record<string, unknown>
  files: string[]
  scripts: Record<string, string>
  devDependencies: Record<string, string>
}

// ------------------------------------------------------------ the artifacts

interface Codec {
  readonly mode: string
  readonly typeSymbol: string
  readonly schema: z.ZodType
}
interface Parameter {
  readonly name: string
  readonly wire: string
  readonly source: string
  readonly lookup?: string
  readonly codec: Codec
}
interface Descriptor {
  readonly id: string
  readonly service: string
  readonly namespace: string
  readonly method: string
  readonly implementation?: string
  readonly invocation: { readonly kind: string }
  readonly scope?: unknown
  readonly cancellation?: unknown
  readonly parameters: readonly Parameter[]
  readonly result: Codec
  readonly sourceLocation?: { readonly file: string; readonly line: number; readonly column: number }
}
interface RemoteModule {
  readonly TYPERT_REMOTE: { readonly package: string; readonly descriptors: readonly Descriptor[] }
  readonly default: unknown
}
interface HostModule {
  readonly TYPERT: {
    readonly package: string
    readonly face: string
    readonly invocations: readonly Descriptor[]
    readonly model: { readonly services: readonly { readonly key: string }[] }
  }
}

const remote = (await import(path.join(LIB, 'typert.remote-client.js'))) as RemoteModule
const host = (await import(path.join(LIB, 'typert.host.js'))) as HostModule
const { TYPERT_REMOTE } = remote
const descriptors = new Map(TYPERT_REMOTE.descriptors.map((d) => [d.method, d]))
function descriptor(method: string): Descriptor {
  const found = descriptors.get(method)
  if (!found) throw new Error(`no descriptor for sessionTree/${method}`)
  return found
}
const resultSchema = (method: string) => descriptor(method).result.schema
function paramSchema(method: string, wire: string): z.ZodType {
  const found = descriptor(method).parameters.find((p) => p.wire === wire)
  if (!found) throw new Error(`sessionTree/${method} has no wire arg ${wire}`)
  return found.codec.schema
}

/** The methods and their wire args, in order: seed 001's four plus ours. */
const WIRE = {
  list: ['agentId'],
  outline: ['agentId'],
  outlineChanges: ['agentId', 'since'],
  session: ['agentId'],
  export: ['agentId'],
  jump: ['agentId', 'nodeId'],
  jumpWith: ['agentId', 'nodeId', 'options'],
  fork: ['agentId', 'nodeId', 'branch'],
  forkWith: ['agentId', 'nodeId', 'branch', 'options'],
  back: ['agentId'],
  forward: ['agentId'],
  moveBrief: ['agentId', 'move'],
  label: ['agentId', 'nodeId', 'label'],
  summarize: ['agentId', 'branch'],
  summarizeWith: ['agentId', 'branch', 'options'],
  chatPath: ['agentId'],
  compare: ['agentId', 'a', 'b'],
  importSession: ['request'],
  attempt: ['method', 'args'],
  exportAs: ['request'],
  files: ['agentId'],
  filesAt: ['agentId', 'nodeId'],
  fileAt: ['agentId', 'nodeId', 'path'],
  compareFiles: ['agentId', 'a', 'b'],
  compareFileDiff: ['agentId', 'a', 'b', 'path'],
  restorePreview: ['agentId', 'request'],
  restoreDiff: ['agentId', 'request', 'path'],
  restore: ['agentId', 'request'],
  carryPreview: ['agentId', 'request'],
  carryDiff: ['agentId', 'request', 'path'],
  carry: ['agentId', 'request'],
  openAsNewSession: ['agentId', 'nodeId'],
  gc: ['dryRun'],
  watch: ['request'],
} as const
type Method = keyof typeof WIRE
const METHODS = Object.keys(WIRE) as Method[]

/** Required (non-optional) top-level fields of each result type, read off src/tree/types.ts and src/service/wire.ts. */
const REQUIRED: Record<Method, readonly string[]> = {
  list: ['sessionId', 'cursor', 'activeBranch', 'nodes', 'branches'],
  outline: ['sessionId', 'cursor', 'activeBranch', 'nodes', 'branches'],
  outlineChanges: [
    'sessionId',
    'cursor',
    'activeBranch',
    'branches',
    'version',
    'base',
    'nodeCount',
    'changedAt',
    'nodes',
  ],
  session: [
    'sessionId',
    'nodeCount',
    'messageCount',
    'branchCount',
    'cursor',
    'activeBranch',
    'currentPathLength',
    'snapshotVersion',
    'revision',
  ],
  export: ['sessionId', 'messages', 'branches'],
  jump: ['cursor', 'messages', 'mode'],
  jumpWith: ['cursor', 'messages', 'mode'],
  fork: ['cursor', 'branch', 'forkCount', 'messages', 'mode'],
  forkWith: ['cursor', 'branch', 'forkCount', 'messages', 'mode'],
  back: ['cursor', 'messages', 'mode'],
  forward: ['cursor', 'messages', 'mode'],
  moveBrief: ['cursor', 'mode'],
  label: ['nodeId', 'parentId', 'type', 'summary', 'createdAt', 'branch'],
  summarize: ['branch', 'nodeId', 'summary', 'createdAt'],
  summarizeWith: ['branch', 'nodeId', 'summary', 'createdAt'],
  chatPath: ['sessionId', 'revision', 'mode', 'watermark', 'tip', 'hidden', 'switches', 'forks'],
  compare: ['ancestor', 'commonLength', 'a', 'b', 'rows', 'changedRows', 'omittedRows', 'pathLengths'],
  importSession: ['sessionId', 'dryRun', 'report', 'cwd', 'cursor', 'title', 'events', 'sidecar', 'preview'],
  attempt: ['format', 'ok'],
  exportAs: ['format', 'path', 'bytes', 'lines', 'content', 'fileSessionId', 'fromImport'],
  files: ['status', 'nodes', 'restores'],
  filesAt: ['nodeId', 'files'],
  fileAt: ['nodeId', 'path'],
  compareFiles: ['a', 'b', 'files', 'tracked'],
  compareFileDiff: ['path', 'diff'],
  restorePreview: ['target', 'plan', 'status'],
  restoreDiff: ['path', 'current', 'diff'],
  restore: ['restore', 'target'],
  carryPreview: ['from', 'at', 'common', 'entries', 'blocked', 'stat', 'status'],
  carryDiff: ['path', 'theirs', 'result'],
  carry: ['from', 'at', 'common', 'files', 'taken', 'merged', 'marked', 'mine'],
  openAsNewSession: ['sessionId', 'title', 'nodeId', 'messages', 'seedEvents', 'adopted'],
  gc: ['scannedAt', 'orphans', 'removed', 'problems', 'dryRun'],
  watch: ['changed'],
}

// ------------------------------------------------------- zod introspection

interface Def {
  readonly type: string
  readonly innerType?: z.ZodType
  readonly options?: readonly z.ZodType[]
  readonly shape?: Record<string, z.ZodType>
  readonly element?: z.ZodType
  readonly left?: z.ZodType
  readonly right?: z.ZodType
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def

/** The alternatives of a schema once optional/readonly/nullable wrappers, unions and intersections are looked through (lazy stays opaque). */
function alternatives(schema: z.ZodType): z.ZodType[] {
  const def = defOf(schema)
  if ((def.type === 'optional' || def.type === 'readonly' || def.type === 'nullable') && def.innerType)
    return alternatives(def.innerType)
  if (def.type === 'union' && def.options) return def.options.flatMap(alternatives)
  if (def.type === 'intersection' && def.left && def.right)
    return [...alternatives(def.left), ...alternatives(def.right)]
  return [schema]
}
const shapesOf = (schema: z.ZodType) =>
  alternatives(schema)
    .map(defOf)
    .filter((d) => d.type === 'object')
    .map((d) => d.shape!)
const elementsOf = (schema: z.ZodType) =>
  alternatives(schema)
    .map(defOf)
    .filter((d) => d.type === 'array')
    .map((d) => d.element!)

/** Paths of fields that `seed` knows and `ours` lacks (recursively through objects and arrays). */
function missingFields(seed: z.ZodType, ours: z.ZodType, at = '$'): string[] {
  const problems: string[] = []
  const ourShapes = shapesOf(ours)
  for (const seedShape of shapesOf(seed)) {
    if (ourShapes.length === 0) {
      problems.push(`${at}: not an object in ours`)
      continue
    }
    for (const [key, seedField] of Object.entries(seedShape)) {
      const ourField = ourShapes.find((shape) => key in shape)?.[key]
      if (ourField === undefined) problems.push(`${at}.${key}`)
      else problems.push(...missingFields(seedField, ourField, `${at}.${key}`))
    }
  }
  const ourElements = elementsOf(ours)
  for (const seedElement of elementsOf(seed)) {
    if (ourElements.length === 0) problems.push(`${at}[]: not an array in ours`)
    else problems.push(...missingFields(seedElement, ourElements[0]!, `${at}[]`))
  }
  return problems
}

/** Top-level keys an object schema requires (its field schema rejects `undefined`). */
function requiredKeys(schema: z.ZodType): string[] {
  const [shape] = shapesOf(schema)
  if (!shape) throw new Error('not an object schema')
  return Object.entries(shape)
    .filter(([, field]) => !field.safeParse(undefined).success)
    .map(([key]) => key)
    .sort()
}

/** A value of the wrong JSON type for a field currently holding `value`. */
const wrongType = (value: unknown): unknown => (typeof value === 'string' || value === null ? 42 : 'wrong')
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T
const accepts = (schema: z.ZodType, value: unknown) => schema.safeParse(value).success

// --------------------------------------------------- seed 001's contract (test/support/seed-001.ts)

/** Seed 001's wire args (its `agent` parameter travels as `agentId`). */
const SEED_001_WIRE = {
  list: ['agentId'],
  jump: ['agentId', 'nodeId'],
  fork: ['agentId', 'nodeId', 'branch'],
  session: ['agentId'],
} as const

// ----------------------------------------------------- real service outputs

const roots: string[] = []
let ctx: Context | undefined
const outputs = new Map<Method, unknown[]>(METHODS.map((m) => [m, []]))

beforeAll(async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'typert-sidecar-'))
  roots.push(root)
  ctx = new Context()
  ctx.plugin(SessionStore)
  await ctx.plugin(SessionTreeService, { sidecarRoot: root, surfaceMode: 'auto' })
  await new Promise((r) => setTimeout(r, 0))
  const service = (ctx as unknown as { sessionTree: SessionTreeService }).sessionTree
  const session = ctx.sessions.create()
  new LogBuilder(session)
    .userTurn('q1', 'a1', {
      usage: true,
      tools: [
        { name: 'read', args: { file_path: 'f', lines: [1, 2], deep: { ok: true, none: null } }, result: 'text' },
        { name: 'grep', args: { q: 'x' }, result: 'no match', isError: true },
      ],
    })
    .userTurn('q2', 'a2', { usage: true })
  const id = session.id
  const record = <T>(method: Method, value: T): T => {
    outputs.get(method)!.push(value)
    return value
  }
  const first = record('list', await service.list(id))
  const a1 = first.nodes.find((n) => n.summary === 'a1')!.nodeId
  const q2 = first.nodes.find((n) => n.summary === 'q2')!.nodeId
  record('outline', await service.outline(id))
  const whole = record('outlineChanges', await service.outlineChanges(id, null))
  record('session', await service.session(id))
  record('export', await service.export(id))
  record('chatPath', await service.chatPath(id))
  const last = first.nodes.at(-1)!.nodeId
  record('compare', await service.compare(id, a1, last))
  record('compare', await service.compare(id, last, first.nodes[0]!.nodeId))
  record('jump', await service.jump(id, a1))
  record('jump', await service.jump(id, null))
  record('back', await service.back(id))
  record('forward', await service.forward(id))
  record('fork', await service.fork(id, a1, 'alt'))
  record('label', await service.label(id, q2, 'second question'))
  record('summarize', await service.summarize(id, 'main'))
  record('summarizeWith', await service.summarizeWith(id, 'main', { writer: 'extractive' }))
  record('jumpWith', await service.jumpWith(id, a1, { summary: { kind: 'summarize' } }))
  record(
    'forkWith',
    await service.forkWith(id, a1, 'alt-2', { summary: { kind: 'custom', instructions: 'focus on files' } }),
  )
  record('moveBrief', await service.moveBrief(id, { kind: 'jump', nodeId: q2 }))
  record('moveBrief', await service.moveBrief(id, { kind: 'back' }))
  record(
    'moveBrief',
    await service.moveBrief(id, { kind: 'fork', nodeId: a1, branch: 'alt-3', summary: { kind: 'summarize' } }),
  )
  record('label', await service.label(id, q2, null))
  record('jump', await service.jump(id, q2))
  record('list', await service.list(id))
  record('outline', await service.outline(id))
  record('outlineChanges', await service.outlineChanges(id, whole.version))
  record('session', await service.session(id))
  record('export', await service.export(id))
  record('chatPath', await service.chatPath(id))
  const held = (await service.session(id)).revision!
  record('watch', await service.watch({ sessions: [{ agentId: id, revision: '' }] }, new AbortController().signal))
  record('watch', await service.watch({ sessions: [{ agentId: id, revision: held }] }, AbortSignal.abort()))
  const pi = newPiSession()
  pi.appendMessage(user('imported question'))
  pi.appendMessage(assistant('imported answer', { thinking: 'kept, never sent' }))
  const content = fs.readFileSync(pi.getSessionFile()!, 'utf8')
  record('importSession', await service.importSession({ path: null, content, format: 'auto', dryRun: true, cwd: null }))
  // No host gateway in this context: the failure as data (the real gateway's answers: test/e2e/remote.test.ts).
  record('attempt', await service.attempt('outline', { agentId: id }))
  record('attempt', await service.attempt('attempt', {}))
  record('exportAs', await service.exportAs({ agentId: id, format: 'markdown', path: null, inline: true }))
  record('exportAs', await service.exportAs({ agentId: id, format: 'pi', path: null, inline: true }))
  // The workspace methods, on a session whose one tool call wrote two files.
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'typert-work-'))
  roots.push(work)
  fs.writeFileSync(path.join(work, 'a.txt'), 'one\n')
  const files = ctx.sessions.create(undefined, { meta: { cwd: fs.realpathSync(work) } })
  new LogBuilder(files).userTurn('edit', 'done', {
    tools: [{ name: 'write', args: { file_path: 'a.txt' }, result: 'ok' }],
  })
  const callSeq = files.events.find((e) => e.type === 'tool/call')!.seq
  const workspace = await service.workspaces.get(files.id, fs.realpathSync(work))
  if (!workspace.ok) throw new Error(workspace.error.message)
  const point = { key: 2 * callSeq, node: `e${callSeq}`, call: 'call_x', tool: 'write', w: files.seq - 1 }
  workspace.value.captureBefore(point, path.join(fs.realpathSync(work), 'a.txt'))
  workspace.value.captureBefore(point, path.join(fs.realpathSync(work), 'b.txt'))
  fs.writeFileSync(path.join(work, 'a.txt'), 'two\n')
  fs.writeFileSync(path.join(work, 'b.txt'), 'new\n')
  workspace.value.captureAfter(point)
  const fid = files.id
  const prompt = (await service.list(fid)).nodes.find((n) => n.summary === 'edit')!.nodeId
  record('files', await service.files(fid))
  record('files', await service.files(id))
  record('filesAt', await service.filesAt(fid, prompt))
  record('filesAt', await service.filesAt(fid, null))
  record('fileAt', await service.fileAt(fid, prompt, 'a.txt'))
  record('fileAt', await service.fileAt(fid, prompt, 'b.txt'))
  const call = `e${callSeq}`
  record('compareFiles', await service.compareFiles(fid, prompt, call))
  record('compareFiles', await service.compareFiles(fid, null, null))
  record('compareFileDiff', await service.compareFileDiff(fid, prompt, call, 'a.txt'))
  record('compareFileDiff', await service.compareFileDiff(fid, null, call, 'b.txt'))
  const request = { move: { kind: 'jump' as const, nodeId: prompt }, restore: 'files' as const }
  record('restorePreview', await service.restorePreview(fid, request))
  record('restoreDiff', await service.restoreDiff(fid, request, 'a.txt'))
  record('restore', await service.restore(fid, request))
  record('restore', await service.restore(fid, { move: { kind: 'jump', nodeId: prompt }, restore: 'conversation' }))
  // The files at the call, carried to the prompt where the conversation now is.
  record('carryPreview', await service.carryPreview(fid, { from: call }))
  record('carryDiff', await service.carryDiff(fid, { from: call }, 'a.txt'))
  record('carry', await service.carry(fid, { from: call }))
  // A new session from the files session (it has a working directory); the real host side runs in test/e2e/lineage*.test.ts.
  const made = record('openAsNewSession', await service.openAsNewSession(fid, prompt))
  // gc compares the sidecars with the stored sessions: a stand-in persistence lists the live ones and the new one.
  ctx.provide('sessionPersistence')
  ;(ctx as unknown as { set(name: string, value: unknown): void }).set('sessionPersistence', {
    list: async () => [...ctx!.sessions.list().map((s) => ({ id: s.id })), { id: made.sessionId }],
  })
  fs.mkdirSync(path.join(root, encodeSessionId('session-gone')))
  fs.writeFileSync(path.join(root, encodeSessionId('session-gone'), 'journal.jsonl'), '')
  record('gc', await service.gc(true))
  record('gc', await service.gc(false))
})

afterAll(async () => {
  await ctx?.fiber.dispose()
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
})

// ------------------------------------------------------------------- tests

describe('typert artifacts: generated, committed, never drifting', () => {
  it('package.json exports ./typert and ./remote exactly as the generator validates, and lists the five files', () => {
    expect(manifest.exports['./typert']).toEqual({ types: './lib/typert.host.d.ts', default: './lib/typert.host.js' })
    expect(manifest.exports['./remote']).toEqual({
      types: './lib/typert.remote-client.d.ts',
      default: './lib/typert.remote-client.js',
    })
    expect(manifest.exports['./types']).toBeDefined()
    for (const file of ARTIFACTS) expect(manifest.files).toContain(`lib/${file}`)
    // The build compiles first, then generates from the same sources (other steps may follow).
    expect(manifest.scripts.build).toMatch(/tsc -p tsconfig.build.json && node dev\/typert\.ts( &&|$)/)
    expect(manifest.devDependencies['@deepseek-ai/dsh-typert-generator']).toBe('0.0.1-rc.1')
    const require = createRequire(path.join(ROOT, 'package.json'))
    expect(require.resolve(`${manifest.name}/typert`)).toBe(path.join(LIB, 'typert.host.js'))
    expect(require.resolve(`${manifest.name}/remote`)).toBe(path.join(LIB, 'typert.remote-client.js'))
  })

  it('each artifact starts with the line saying what produced it (except the JSON source map)', () => {
    for (const file of ARTIFACTS.filter((f) => !f.endsWith('.map'))) {
      const firstLine = fs.readFileSync(path.join(LIB, file), 'utf8').split('\n', 1)[0]
      expect(firstLine, file).toMatch(/^\/\* Generated by @deepseek-ai\/dsh-typert-generator .*do not edit\. \*\/$/)
    }
    const map = JSON.parse(fs.readFileSync(path.join(LIB, 'typert.remote-client.d.ts.map'), 'utf8')) as {
      file: string
      sources: string[]
    }
    // Names and source, no positions: moving a line of src/ leaves the committed map alone.
    expect(map).toMatchObject({
      file: 'typert.remote-client.d.ts',
      sources: ['../src/service/service.ts'],
      mappings: '',
    })
  })

  it('no artifact carries a source position (a line moved in src/ does not change lib/)', () => {
    for (const file of ARTIFACTS.filter((f) => f.endsWith('.js')))
      expect(fs.readFileSync(path.join(LIB, file), 'utf8'), file).not.toMatch(/sourceLocation|"line":\d/)
  })

  it('regenerating from src/ into a temp dir gives byte-identical files', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'typert-regen-'))
    roots.push(out)
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(ROOT, 'dev', 'typert.ts'), '--out', out],
      { cwd: ROOT },
    )
    expect(stdout).toMatch(/typert: wrote .* \(@deepseek-ai\/dsh-typert-generator@0\.0\.1-rc\.1; generator \d+ ms/)
    for (const file of ARTIFACTS) {
      const fresh = fs.readFileSync(path.join(out, file))
      const inTree = fs.readFileSync(path.join(LIB, file))
      expect(inTree.equals(fresh), `lib/${file} differs from what src/ generates: run \`npm run build\``).toBe(true)
      // CI's `npm install` runs `prepare` (= build), which rewrites lib/ before the tests:
      // there, compare with the committed blob as well, so a stale commit cannot pass.
      if (process.env.CI) {
        let committed: Buffer
        try {
          committed = execFileSync('git', ['show', `HEAD:lib/${file}`], {
            cwd: ROOT,
            maxBuffer: 64 << 20,
            stdio: ['ignore', 'pipe', 'pipe'],
          })
        } catch {
          throw new Error(
            `lib/${file} is not committed (git show HEAD:lib/${file} failed): run \`npm run build\` and commit lib/typert.*`,
          )
        }
        expect(
          committed.equals(fresh),
          `committed lib/${file} differs from what src/ generates: run \`npm run build\` and commit lib/typert.*`,
        ).toBe(true)
      }
    }
  }, 600_000)
})

describe('descriptors: seed 001 wire contract', () => {
  it('one direct descriptor per remote method in namespace sessionTree, args named as on the wire', () => {
    expect(TYPERT_REMOTE.package).toBe(manifest.name)
    expect(remote.default).toBe(TYPERT_REMOTE)
    expect([...descriptors.keys()].sort()).toEqual([...METHODS].sort())
    for (const method of METHODS) {
      const d = descriptor(method)
      expect(d).toMatchObject({
        id: `${manifest.name}#sessionTree/${method}`,
        service: 'sessionTree',
        namespace: 'sessionTree',
        method,
        invocation: { kind: 'direct' },
      })
      expect(d.implementation, method).toBeUndefined()
      expect(d.scope, method).toBeUndefined()
      // Only the push channel is cancellable (the browser aborts it when the shown sessions change).
      expect(d.cancellation, method).toEqual(method === 'watch' ? { parameter: 'signal' } : undefined)
      expect(
        d.parameters.map((p) => p.wire),
        method,
      ).toEqual(WIRE[method])
      for (const p of d.parameters) {
        expect(p, `${method}.${p.wire}`).toMatchObject({ name: p.wire, source: 'json', codec: { mode: 'strict' } })
        expect(p.lookup).toBeUndefined()
        expect(typeof p.codec.schema.safeParse).toBe('function')
      }
      expect(d.result.mode).toBe('strict')
      expect(d.result.typeSymbol).toMatch(new RegExp(`^${manifest.name}/(tree|types)#[A-Z]\\w+$`))
      // Left out by dev/typert.ts so that moving a line of src/ does not churn lib/.
      expect(d.sourceLocation, method).toBeUndefined()
    }
  })

  it('seed 001 endpoints keep their wire args in order', () => {
    for (const [method, wires] of Object.entries(SEED_001_WIRE))
      expect(descriptor(method).parameters.map((p) => p.wire)).toEqual(wires)
  })

  it('the host manifest carries the same invocations and the sessionTree service model', () => {
    const { TYPERT } = host
    expect(TYPERT).toMatchObject({ package: manifest.name, face: 'host' })
    const strip = (value: unknown) => JSON.stringify(value, (key, v: unknown) => (key === 'schema' ? undefined : v))
    expect(strip(TYPERT.invocations)).toBe(strip(TYPERT_REMOTE.descriptors))
    expect(TYPERT.model.services.map((s) => s.key)).toContain('sessionTree')
  })

  it('every field of seed 001 result schemas (list/jump/fork/session) exists in ours, recursively', () => {
    for (const [method, seed] of Object.entries(SEED_001))
      expect(missingFields(seed, resultSchema(method)), method).toEqual([])
    // and the check itself sees a missing field
    expect(missingFields(SEED_001.fork, z.object({ cursor: z.string(), branch: z.string() }))).toEqual(['$.forkCount'])
  })
})

describe('parameter schemas', () => {
  it('agentId is a string everywhere', () => {
    for (const method of METHODS.filter((m) => (WIRE[m] as readonly string[]).includes('agentId'))) {
      const schema = paramSchema(method, 'agentId')
      expect(accepts(schema, 'agent-1'), method).toBe(true)
      for (const bad of [1, null, undefined, {}, ['a']])
        expect(accepts(schema, bad), `${method} agentId ${JSON.stringify(bad)}`).toBe(false)
    }
  })

  it('importSession and exportAs take one request object: nullable path, closed format sets, agentId a string', () => {
    const importRequest = paramSchema('importSession', 'request')
    expect(accepts(importRequest, { path: '/a/b.jsonl', content: null, format: 'auto', dryRun: true, cwd: null })).toBe(
      true,
    )
    for (const bad of [
      { path: 1, content: null, format: 'auto', dryRun: true, cwd: null },
      { path: null, content: null, format: 'gemini', dryRun: true, cwd: null },
      { path: null, content: 'x', format: 'pi', dryRun: 'yes', cwd: null },
    ]) {
      expect(accepts(importRequest, bad), JSON.stringify(bad)).toBe(false)
    }
    const exportRequest = paramSchema('exportAs', 'request')
    expect(accepts(exportRequest, { agentId: 'agent-1', format: 'claude-code', path: null, inline: true })).toBe(true)
    for (const bad of [
      { agentId: 1, format: 'pi', path: null, inline: true },
      { agentId: 'a', format: 'html', path: null, inline: true },
    ]) {
      expect(accepts(exportRequest, bad), JSON.stringify(bad)).toBe(false)
    }
  })

  it('jump nodeId: string or null (seed 001), never a number or missing', () => {
    const schema = paramSchema('jump', 'nodeId')
    expect(accepts(schema, 'n1')).toBe(true)
    expect(accepts(schema, null)).toBe(true)
    for (const bad of [5, undefined, true, {}]) expect(accepts(schema, bad), JSON.stringify(bad)).toBe(false)
  })

  it('fork and label nodeId, fork and summarize branch: strings only', () => {
    for (const [method, wire] of [
      ['fork', 'nodeId'],
      ['fork', 'branch'],
      ['label', 'nodeId'],
      ['summarize', 'branch'],
    ] as const) {
      const schema = paramSchema(method, wire)
      expect(accepts(schema, 'x')).toBe(true)
      for (const bad of [null, 5, undefined])
        expect(accepts(schema, bad), `${method}.${wire} ${JSON.stringify(bad)}`).toBe(false)
    }
  })

  it('label label: a string sets, null clears; numbers are rejected', () => {
    const schema = paramSchema('label', 'label')
    expect(accepts(schema, 'bookmark')).toBe(true)
    expect(accepts(schema, null)).toBe(true)
    for (const bad of [5, undefined, false]) expect(accepts(schema, bad), JSON.stringify(bad)).toBe(false)
  })
})

describe('result schemas against real service outputs', () => {
  it('every remote method produced outputs (a real Context, the real SessionStore)', () => {
    for (const method of METHODS) expect(outputs.get(method)!.length, method).toBeGreaterThan(0)
    const list = outputs.get('list')![1] as { branches: { name: string; summary?: unknown }[] }
    expect(list.branches.map((b) => b.name)).toEqual(expect.arrayContaining(['main', 'alt']))
    expect(list.branches.find((b) => b.name === 'main')?.summary).toBeDefined()
  })

  it('the schemas require exactly the fields the result types require', () => {
    for (const method of METHODS)
      expect(requiredKeys(resultSchema(method)), method).toEqual([...REQUIRED[method]].sort())
  })

  it('moveBrief and restore answer the move without the model history; the seed moves still carry it', () => {
    const briefs = [...outputs.get('moveBrief')!, ...outputs.get('restore')!.map((r) => (r as { move?: unknown }).move)]
    const moves = briefs.filter((m) => m !== undefined) as Array<Record<string, unknown>>
    expect(moves.length).toBeGreaterThanOrEqual(4)
    for (const move of moves) {
      expect(move).not.toHaveProperty('messages')
      expect(move).not.toHaveProperty('forkCount')
      expect(move).toHaveProperty('cursor')
      expect(move).toHaveProperty('mode')
    }
    expect((outputs.get('moveBrief')![2] as { branch?: string }).branch).toBe('alt-3')
    for (const method of ['jump', 'back', 'forward', 'fork'] as const)
      for (const answer of outputs.get(method)!) expect(answer).toHaveProperty('messages')
  })

  it('every real output passes its schema, as returned and after the JSON hop', () => {
    for (const method of METHODS) {
      for (const [index, output] of outputs.get(method)!.entries()) {
        const where = `${method}#${index}`
        const direct = resultSchema(method).safeParse(output)
        expect(direct.success, `${where}: ${direct.error?.message}`).toBe(true)
        expect(clone(output), `${where} is plain JSON`).toEqual(output)
        const wire = resultSchema(method).safeParse(clone(output))
        expect(wire.success, `${where} (JSON): ${wire.error?.message}`).toBe(true)
        expect(clone(wire.data), `${where}: the schema drops nothing`).toEqual(clone(output))
      }
    }
  })

  it('a missing required field or a wrong type is rejected, for every required field of every result', () => {
    for (const method of METHODS) {
      const output = clone(outputs.get(method)![0]) as Record<string, unknown>
      for (const key of REQUIRED[method]) {
        const { [key]: _dropped, ...without } = output
        expect(accepts(resultSchema(method), without), `${method} without ${key}`).toBe(false)
        expect(
          accepts(resultSchema(method), { ...output, [key]: wrongType(output[key]) }),
          `${method} with ${key}: ${JSON.stringify(wrongType(output[key]))}`,
        ).toBe(false)
      }
      expect(accepts(resultSchema(method), null), `${method} null`).toBe(false)
      expect(accepts(resultSchema(method), 'text'), `${method} text`).toBe(false)
    }
  })

  it('broken nested values are rejected too', () => {
    type Tree = { nodes: Record<string, unknown>[]; branches: Record<string, unknown>[] }
    const list = () => clone(outputs.get('list')![1]) as Tree
    const broken: [string, Method, unknown][] = [
      [
        'list: node without nodeId',
        'list',
        ((t) => {
          delete t.nodes[0]!.nodeId
          return t
        })(list()),
      ],
      [
        'list: node parentId a number',
        'list',
        ((t) => {
          t.nodes[1]!.parentId = 7
          return t
        })(list()),
      ],
      [
        'list: unknown node type',
        'list',
        ((t) => {
          t.nodes[0]!.type = 'bogus'
          return t
        })(list()),
      ],
      [
        'list: message with an unknown role',
        'list',
        ((t) => {
          t.nodes[0]!.message = { role: 'robot', content: 'x' }
          return t
        })(list()),
      ],
      [
        'list: branch nodeIds not strings',
        'list',
        ((t) => {
          t.branches[0]!.nodeIds = [1]
          return t
        })(list()),
      ],
      ['list: branchHeads value null', 'list', { ...list(), branchHeads: { main: null } }],
      [
        'list: metadata with a function',
        'list',
        ((t) => {
          t.nodes[0]!.metadata = { f: () => 1 }
          return t
        })(list()),
      ],
      [
        'jump: message content not a string',
        'jump',
        ((m) => ({ ...m, messages: [{ role: 'user', content: 1 }] }))(clone(outputs.get('jump')![0]) as object),
      ],
      ['jump: unknown surface mode', 'jump', { ...(clone(outputs.get('jump')![0]) as object), mode: 'magic' }],
      ['fork: cursor null', 'fork', { ...(clone(outputs.get('fork')![0]) as object), cursor: null }],
      [
        'session: snapshotVersion 2',
        'session',
        { ...(clone(outputs.get('session')![0]) as object), snapshotVersion: 2 },
      ],
      [
        'session: quarantine entry without reason',
        'session',
        { ...(clone(outputs.get('session')![0]) as object), quarantine: [{ seq: 1, type: 't' }] },
      ],
      ['label: labels are strings', 'label', { ...(clone(outputs.get('label')![0]) as object), label: 3 }],
      [
        'chatPath: a hidden range is not a pair',
        'chatPath',
        { ...(clone(outputs.get('chatPath')![0]) as object), hidden: [[1, 2, 3]] },
      ],
      [
        'chatPath: fork row of an unknown kind',
        'chatPath',
        {
          ...(clone(outputs.get('chatPath')![0]) as object),
          forks: [{ seq: 1, nodeId: 'e1', row: 'robot', index: 1, count: 2, targets: ['a', 'b'] }],
        },
      ],
      [
        'summarize: fallback not a boolean',
        'summarize',
        { ...(clone(outputs.get('summarize')![0]) as object), fallback: 'yes' },
      ],
    ]
    for (const [label, method, value] of broken) expect(accepts(resultSchema(method), value), label).toBe(false)
  })

  it("seed 001's own result schemas accept our real outputs (list/jump/fork/session)", () => {
    for (const [method, seed] of Object.entries(SEED_001)) {
      for (const [index, output] of outputs.get(method as Method)!.entries()) {
        for (const value of [output, clone(output)]) {
          const parsed = seed.safeParse(value)
          expect(parsed.success, `${method}#${index}: ${parsed.error?.message}`).toBe(true)
        }
      }
    }
    // Moves other than jump answer the same shape.
    for (const method of ['back', 'forward', 'fork'] as const)
      for (const output of outputs.get(method)!) expect(accepts(SEED_001.jump, output), method).toBe(true)
  })
})
