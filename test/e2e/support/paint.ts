/**
 * A page for measuring the Tree panel's first paint with the real bundle in
 * real Chromium (used by `npm run bench`, section "panel", and by the panel
 * e2e test): the host's module table (production React 18) and a stand-in
 * for the host's slots and remote namespace that validates every result with
 * the generated zod schemas, as the real client does.
 *
 * `baseline` measures, in the same page and the same moment, what any page
 * pays for the same data: parsing its JSON and painting 30 plain rows with
 * React. A first paint is read next to it, so a loaded machine shows as a
 * slower baseline, not as a slower panel.
 *
 * Erasable TypeScript only: plain Node runs it with type stripping (the bench).
 */
import { build } from 'esbuild'
import type { Browser, Page } from 'playwright-core'
import type { SessionTreeOutline } from '../../../src/types.ts'
import { REPO_ROOT } from '../../../dev/harness.ts'

export interface PaintRun {
  readonly firstPaintMs: number | undefined
  readonly listMs: number | undefined
  readonly renderMs: number | undefined
  readonly layoutMs: number | undefined
  readonly domRows: number
  readonly count: string | null | undefined
}

export interface PaintPage {
  /** Mount the panel on `view` (or on a generated linear chain) and read its performance marks. */
  measure(label: string, view: SessionTreeOutline | { chain: number }): Promise<PaintRun>
  /** Parse the same JSON and paint 30 plain React rows: the page's floor, in ms. */
  baseline(view: SessionTreeOutline): Promise<number>
  readonly page: Page
  close(): Promise<void>
}

/** Open a measuring page in `browser` with `bundle` (the text of `lib/client.js`). */
export async function openPaintPage(browser: Browser, bundle: string): Promise<PaintPage> {
  // The host's module table, as the DSH page seeds it: production React 18.
  const hostModules = await build({
    stdin: {
      contents: `import * as React from 'react'; import * as JSX from 'react/jsx-runtime'; import * as ReactDOM from 'react-dom'; import * as ReactDOMClient from 'react-dom/client';
        const table = { 'react': React, 'react/jsx-runtime': JSX, 'react-dom': ReactDOM, 'react-dom/client': ReactDOMClient };
        window.__hostRequire = (spec) => { if (!(spec in table)) throw new Error('not in the module table: ' + spec); return table[spec] };`,
      resolveDir: REPO_ROOT,
      loader: 'js',
    },
    bundle: true,
    format: 'iife',
    minify: true,
    write: false,
    define: { 'process.env.NODE_ENV': '"production"' },
  })
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  await page.setContent(
    '<!doctype html><html lang="en"><body style="margin:0"><div id="app" style="width:1280px;height:800px"></div></body></html>',
  )
  await page.addScriptTag({ content: hostModules.outputFiles[0]!.text })
  await page.addScriptTag({ content: 'window.__ModuleLoader__ = { load: (r) => { window.__registration = r } }' })
  await page.addScriptTag({ content: bundle })

  const measure = async (label: string, view: SessionTreeOutline | { chain: number }): Promise<PaintRun> => {
    // A page-side stand-in for the host: slots, and a remote namespace that validates every
    // result with the generated zod schemas, exactly as the real client does.
    const arg = { label, json: 'chain' in view ? '' : JSON.stringify(view), chain: 'chain' in view ? view.chain : 0 }
    return page.evaluate(async ({ label, json, chain }) => {
      const w = window as unknown as Record<string, any>
      const given: any = json ? JSON.parse(json) : { chain }
      // A long linear chain is generated here rather than shipped over the protocol.
      const view: any =
        'chain' in given
          ? {
              sessionId: label,
              cursor: `c${given.chain - 1}`,
              activeBranch: 'main',
              branches: [{ name: 'main', headId: `c${given.chain - 1}` }],
              nodes: Array.from({ length: given.chain }, (_, i) => ({
                nodeId: `c${i}`,
                parentId: i === 0 ? null : `c${i - 1}`,
                type: 'message',
                summary: `message ${i}`,
                createdAt: '2026-01-01T00:00:00.000Z',
                branch: 'main',
                message: { role: i % 2 ? 'assistant' : 'user', content: `message ${i}` },
              })),
            }
          : given
      // The panel reads `outlineChanges`; its first read is the whole outline (`base` null).
      const { nodes: all, ...position } = view
      const wire = JSON.stringify({
        ...position,
        version: 'paint:1',
        base: null,
        nodeCount: all.length,
        changedAt: [],
        nodes: all,
      })
      const exports = w.__registration.factory(w.__hostRequire)
      const registered: Array<{ options: any; component: any }> = []
      const descriptors = new Map<string, any>()
      const handlers: Record<string, (...args: any[]) => unknown> = {
        session: () => ({
          sessionId: view.sessionId,
          nodeCount: view.nodes.length,
          messageCount: view.nodes.length,
          branchCount: view.branches.length,
          cursor: view.cursor,
          activeBranch: view.activeBranch,
          currentPathLength: 1,
          snapshotVersion: 1,
          revision: 'r1',
          surfaceMode: 'stock',
          surfaceNote: 'bench',
          quarantine: [],
          sidecarWarnings: [],
        }),
        // As off the wire: the JSON text is parsed inside the call, then validated.
        outlineChanges: () => JSON.parse(wire),
        // The panel sends every call through `attempt` (src/service/attempt.ts): named wire args, the
        // result as JSON text, which the panel's decoder parses and validates; the outline's text is the wire text.
        attempt: (method: string, args: Record<string, unknown>) => ({
          format: 'dsh-session-tree/attempt@2',
          ok: true,
          json:
            method === 'outlineChanges'
              ? wire
              : JSON.stringify(
                  handlers[method]!(...descriptors.get(method).parameters.map((p: { wire: string }) => args[p.wire])),
                ),
        }),
      }
      const ctx: any = {
        effect: (fn: () => unknown) => fn(),
        get: () => undefined,
        inject: (_deps: unknown, fn: (c: unknown) => void) => fn(ctx),
        slots: {
          inject: (_n: string, fn: () => unknown) => fn(),
          register: (options: any, component: any) => (registered.push({ options, component }), () => {}),
        },
        remote: {
          $mount: async (contribution: any) => {
            for (const d of contribution.descriptors) descriptors.set(d.method, d)
            ctx.remote.sessionTree = Object.fromEntries(
              [...descriptors.keys()].map((m) => [
                m,
                async (...args: unknown[]) => ({
                  ok: true,
                  value: descriptors.get(m).result.schema.parse(handlers[m]!(...args)),
                }),
              ]),
            )
            return async () => {}
          },
        },
      }
      exports.apply(ctx, { intervalMs: 600_000 })
      const tab = registered.find((r) => r.options.name === 'conversation.view')!
      const app = document.getElementById('app')!
      w.__root?.unmount()
      app.replaceChildren()
      performance.clearMarks()
      performance.clearMeasures()
      const React = w.__hostRequire('react')
      const root = w.__hostRequire('react-dom/client').createRoot(app)
      w.__root = root
      root.render(React.createElement(tab.component, { sessionId: label, ...tab.options.inject(label) }))
      // No deadline: a page that never paints is caught by the caller's own time limit.
      while (performance.getEntriesByName('session-tree:first-paint').length === 0)
        await new Promise((r) => setTimeout(r, 5))
      const get = (name: string) => performance.getEntriesByName(name).at(0)?.duration
      const result = {
        firstPaintMs: get('session-tree:first-paint'),
        listMs: get('session-tree:list'),
        renderMs: get('session-tree:render'),
        layoutMs: get('session-tree:layout'),
        domRows: document.querySelectorAll('[role="treeitem"]').length,
        count: document.querySelector('.dst-count')?.textContent,
      }
      return result
    }, arg)
  }

  const baseline = (view: SessionTreeOutline): Promise<number> =>
    page.evaluate(async (json) => {
      const w = window as unknown as Record<string, any>
      const React = w.__hostRequire('react')
      const app = document.getElementById('app')!
      w.__root?.unmount()
      app.replaceChildren()
      const t0 = performance.now()
      const parsed = JSON.parse(json) as { nodes: { nodeId: string; summary: string }[] }
      const root = w.__hostRequire('react-dom/client').createRoot(app)
      w.__root = root
      root.render(
        React.createElement(
          'div',
          null,
          parsed.nodes
            .slice(0, 30)
            .map((n) => React.createElement('div', { key: n.nodeId, style: { height: 28 } }, n.summary)),
        ),
      )
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
      return performance.now() - t0
    }, JSON.stringify(view))

  return { measure, baseline, page, close: () => page.close() }
}
