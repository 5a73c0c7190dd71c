/**
 * The browser bundle as the DSH page loads it: `dev/build-client.ts` output
 * (built here into a temp dir) registers one factory with
 * `window.__ModuleLoader__.load`, requires only what the host's module table
 * provides, bundles the generated remote client, and exports `apply` and
 * `inject`. The manifest carries what `dsh web` needs to serve it.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import vm from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildClient, CLIENT_ID, HOST_MODULES, REPO_ROOT, type ClientBuild } from '../../../dev/build-client.ts'

const require = createRequire(import.meta.url)
let out: string
let built: ClientBuild

beforeAll(async () => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-session-tree-client-'))
  built = await buildClient(out)
}, 600_000)

afterAll(() => {
  fs.rmSync(out, { recursive: true, force: true })
})

describe('lib/client.js', () => {
  it('is one __ModuleLoader__.load({ id, factory }) call that yields apply and inject', () => {
    const code = fs.readFileSync(built.file, 'utf8')
    expect(code.startsWith(`window.__ModuleLoader__.load({ id: "${CLIENT_ID}", factory: (require) => {`)).toBe(true)
    expect(code).toMatch(/return module\.exports; } }\);\n\/\/# sourceMappingURL=client\.js\.map\n?$/)
    const registrations: Array<{ id: string; factory: (req: (spec: string) => unknown) => unknown }> = []
    const requested: string[] = []
    const sandbox = {
      window: { __ModuleLoader__: { load: (r: (typeof registrations)[number]) => registrations.push(r) } },
    }
    vm.runInNewContext(code, sandbox, { filename: 'client.js' })
    expect(registrations.map((r) => r.id)).toEqual([CLIENT_ID])
    const exports = registrations[0]!.factory((spec) => {
      requested.push(spec)
      if (!(HOST_MODULES as readonly string[]).includes(spec))
        throw new Error(`require(${spec}) is not in the host module table`)
      return require(spec)
    }) as { apply: unknown; inject: unknown; name: unknown }
    expect(typeof exports.apply).toBe('function')
    expect(exports.inject).toEqual(['slots', 'remote'])
    expect(exports.name).toBe(CLIENT_ID)
    expect([...new Set(requested)].sort()).toEqual(['react', 'react/jsx-runtime'])
  })

  it('bundles the generated remote client and zod, and no @deepseek-ai package', () => {
    expect(built.requires).toEqual(['react', 'react/jsx-runtime'])
    expect(Object.keys(built.packages)).toEqual(expect.arrayContaining(['(src)', '(generated)', 'zod']))
    expect(Object.keys(built.packages).filter((p) => p.startsWith('@deepseek-ai/'))).toEqual([])
    const map = JSON.parse(fs.readFileSync(`${built.file}.map`, 'utf8')) as { sources: string[] }
    expect(map.sources.some((s) => s.endsWith('lib/typert.remote-client.js'))).toBe(true)
    expect(map.sources.filter((s) => s.includes('src/client/')).length).toBeGreaterThan(5)
  })

  it('is what the manifest declares: dsh.client, exports["./client"], a Loader row, and shipped files', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      name: string
      exports: Record<string, unknown>
      files: string[]
      dsh: { client?: { platform?: string; immediately?: boolean }; bundle?: { patch?: string } }
    }
    expect(manifest.name).toBe(CLIENT_ID)
    // `immediately`: dsh web fetches the bundle with its first tier, before it opens any history (docs/chat.md).
    expect(manifest.dsh.client).toEqual({ platform: 'web', immediately: true })
    expect(manifest.exports['./client']).toEqual({ default: './lib/client.js' })
    expect(manifest.files).toContain('lib')
    // Only packages with an enabled Loader row are scanned for a client: the bundle patch inserts one.
    const patch = fs.readFileSync(path.join(REPO_ROOT, manifest.dsh.bundle!.patch!), 'utf8')
    expect(patch).toMatch(new RegExp(`name: ${CLIENT_ID}\\s*$`, 'm'))
  })
})
