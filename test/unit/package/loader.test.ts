/**
 * Loader composition: the plugin boots from its OWN `cordis.patch.yml` row
 * (read from the file, `!!js dshHomePath(...)` evaluated by the real Loader)
 * next to the real session store, serves its tree, writes its sidecar where
 * the row says, and disposing it removes every listener.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Context } from '@deepseek-ai/cordis'
import Include from '@deepseek-ai/cordis-plugin-include'
import Loader from '@deepseek-ai/cordis-plugin-loader'
import SessionStore from '@deepseek-ai/dsh-session'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as plugin from '../../../src/index.ts'
import { LogBuilder } from '../../support/log-builder.ts'

const ROOT = join(import.meta.dirname, '..', '..', '..')
let root: string | undefined
let context: (Context & Record<string, any>) | undefined

afterEach(async () => {
  await context?.fiber.dispose()
  context = undefined
  if (root) rmSync(root, { recursive: true, force: true })
  root = undefined
})

/** Our bundle patch's insert rows, verbatim, as a Loader config list. */
function ownRows(): string {
  const patch = readFileSync(join(ROOT, 'cordis.patch.yml'), 'utf8')
  const body = patch.split('\n').filter((line) => !line.startsWith('#'))
  const start = body.findIndex((line) => line.trim() === '- insert:')
  expect(start, 'cordis.patch.yml is one insert list').toBeGreaterThanOrEqual(0)
  // Rows are indented four spaces under `- insert:`; unindent them into a top-level list.
  return body
    .slice(start + 1)
    .map((line) => line.replace(/^ {4}/, ''))
    .join('\n')
}

async function compose(before?: (ctx: Context & Record<string, any>) => void) {
  root = mkdtempSync(join(tmpdir(), 'tree-loader-'))
  const config = join(root, 'cordis.yml')
  writeFileSync(config, `- name: '@deepseek-ai/dsh-session'\n${ownRows()}\n`)
  const ctx = new Context() as Context & Record<string, any>
  context = ctx
  before?.(ctx)
  ctx.baseUrl = pathToFileURL(root).href + '/'
  const home = join(root, 'home')
  ctx.provide('dshHomePath')
  ctx.dshHomePath = (sub: string) => join(home, sub)
  await ctx.plugin(Loader)
  ctx.loader.builtins.include = Include
  const modules = new Map<string, unknown>([
    ['@deepseek-ai/dsh-session', SessionStore],
    ['dsh-session-tree', plugin],
  ])
  ctx.loader.internal = {
    version: 'v2',
    async import(specifier: string) {
      if (modules.has(specifier)) return modules.get(specifier)
      // Other entries of this package (`dsh-session-tree/<entry>`) load from their sources.
      const sub = /^dsh-session-tree\/([a-z-]+)$/.exec(specifier)?.[1]
      if (sub) return import(pathToFileURL(join(ROOT, 'src', sub, 'index.ts')).href)
      throw new Error(`unexpected Loader import: ${specifier}`)
    },
  } as never
  await ctx.loader.create({ name: 'cordis:include', config: { path: pathToFileURL(config).href } })
  await ctx.loader.await()
  return { ctx, home }
}

describe('Loader composition from cordis.patch.yml', () => {
  it('boots the row, serves the tree, persists under the configured home, and disposes cleanly', async () => {
    const { ctx, home } = await compose()
    const entries = [...ctx.loader.entries()] as { id: string; fiber?: unknown; options: { name: string } }[]
    const row = entries.find((entry) => (entry.options as { id?: string }).id === 'session-tree')
    expect(row?.options.name).toBe('dsh-session-tree')
    expect(row?.fiber, 'the session-tree row is running').toBeDefined()
    expect(ctx.sessionTree).toBeDefined()
    const session = ctx.sessions.create()
    const log = new LogBuilder(session).userTurn('q1', 'a1')
    const view = await ctx.sessionTree.list(session.id)
    expect(view.nodes.map((n: { summary: string }) => n.summary)).toEqual(['q1', 'a1'])
    expect((await ctx.sessionTree.session(session.id)).surfaceMode).toBe('projection')
    await ctx.sessionTree.label(session.id, view.nodes[1]!.nodeId, 'answer')
    // `sidecarRoot: !!js dshHomePath('session-tree')` was evaluated by the Loader.
    expect(existsSync(join(home, 'session-tree'))).toBe(true)

    const sync = ctx.sessionTree.sync
    expect(sync.get(session.id)).toBeDefined()
    await ctx.fiber.dispose()
    context = undefined
    expect(sync.get(session.id)).toBeUndefined()
    log.userTurn('q2', 'a2')
    expect(sync.get(session.id)).toBeUndefined()
  })

  /**
   * dsh-TUI's four services as stand-ins that record what is registered (the
   * real ones run in test/e2e/tui.test.ts); each is a Cordis service of its
   * own, as dsh-TUI's rows provide them.
   */
  function tuiServices(ctx: Context & Record<string, any>) {
    const registered: string[] = []
    const service = (name: string, methods: Record<string, (...args: any[]) => unknown>) => {
      ctx.plugin({
        name: `stand-in-${name}`,
        apply(inner: Context & Record<string, any>) {
          inner.provide(name, methods)
        },
      })
    }
    const track = (what: string) => {
      registered.push(what)
      return () => registered.splice(registered.indexOf(what), 1)
    }
    service('tuiScenes', { register: (d: { id: string }) => track(`scene:${d.id}`), open: () => true, close() {} })
    service('tuiCommandTrees', { register: (p: { root: string }) => track(`tree:${p.root}`) })
    service('tuiShortcuts', { register: (combo: string) => track(`shortcut:${combo}`) })
    service('tuiRenderers', { register: (type: string) => track(`renderer:${type}`) })
    return registered
  }

  const TUI = ['renderer:session-tree/switch', 'scene:session-tree', 'shortcut:alt+t', 'tree:session-tree']

  it('the terminal row loads without dsh-TUI (nothing of it registered) and registers when its services come later', async () => {
    const { ctx } = await compose()
    const row = ([...ctx.loader.entries()] as { fiber?: unknown; options: { id?: string } }[]).find(
      (entry) => entry.options.id === 'session-tree-tui',
    )
    expect(row?.fiber, 'the session-tree-tui row is running').toBeDefined()
    const registered = tuiServices(ctx)
    // Cordis runs the inject blocks once the services are there.
    await vi.waitUntil(() => registered.length >= TUI.length, { timeout: 10_000 })
    expect([...registered].sort()).toEqual(TUI)
    await ctx.fiber.dispose()
    context = undefined
    expect(registered).toEqual([])
  })

  it('the terminal row registers at once when dsh-TUI’s services are there first', async () => {
    let registered: string[] = []
    await compose((ctx) => {
      registered = tuiServices(ctx)
    })
    expect([...registered].sort()).toEqual(TUI)
  })
})
