/**
 * Builds the browser half, `lib/client.js` (+ `.map`), from `src/client/`
 * with esbuild, in the DSH client module format that `dsh web` serves at
 * `/plugins/dsh-session-tree/client.js` and the page's module loader runs:
 *
 *   window.__ModuleLoader__.load({ id: "dsh-session-tree", factory: (require) => {
 *     var module = { exports: {} }; var exports = module.exports;
 *     ...CommonJS bundle...
 *     return module.exports; } });
 *
 * `require` is the host's module table: react, react/jsx-runtime, react-dom,
 * @deepseek-ai/cordis and the two ui packages stay external (one copy, the
 * host's); everything else — the generated remote client
 * (`lib/typert.remote-client.js`) and zod — is bundled. The build fails when
 * the bundle would require anything the host does not provide, or inline a
 * `@deepseek-ai/*` package (a second copy of a host package).
 *
 * Runs on the repository's Node 22 (type stripping):
 *
 *   node dev/build-client.ts            write lib/client.js and lib/client.js.map
 *   node dev/build-client.ts --out DIR  write them to DIR instead
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type Metafile } from 'esbuild'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The package name: the module id the page registers the factory under. */
export const CLIENT_ID = 'dsh-session-tree'

/** What the host's module table answers (`PLATFORM_MODULES` of the DSH web shell). */
export const HOST_MODULES = [
  'react',
  'react/jsx-runtime',
  'react-dom',
  'react-dom/client',
  '@deepseek-ai/cordis',
  '@deepseek-ai/dsh-client-ui-slots',
  '@deepseek-ai/dsh-client-ui-primitives',
] as const

export interface ClientBuild {
  readonly file: string
  readonly bytes: number
  /** Host modules the bundle requires. */
  readonly requires: readonly string[]
  /** Bundled inputs by package (`(src)` for this package's own files). */
  readonly packages: Readonly<Record<string, number>>
  readonly ms: number
}

function packageOf(input: string): string {
  const at = input.lastIndexOf('node_modules/')
  if (at === -1) return input.startsWith('lib/') ? '(generated)' : '(src)'
  const rest = input.slice(at + 'node_modules/'.length).split('/')
  return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!
}

export async function buildClient(outDir: string = path.join(REPO_ROOT, 'lib')): Promise<ClientBuild> {
  const started = performance.now()
  const file = path.join(outDir, 'client.js')
  const result = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: [path.join(REPO_ROOT, 'src', 'client', 'index.ts')],
    outfile: file,
    bundle: true,
    format: 'cjs',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    external: [...HOST_MODULES],
    define: { 'process.env.NODE_ENV': '"production"' },
    minify: true,
    legalComments: 'none',
    sourcemap: 'linked',
    sourcesContent: true,
    charset: 'utf8',
    metafile: true,
    logLevel: 'silent',
    banner: {
      js: `window.__ModuleLoader__.load({ id: ${JSON.stringify(CLIENT_ID)}, factory: (require) => {\nvar module = { exports: {} }; var exports = module.exports;`,
    },
    footer: { js: 'return module.exports; } });' },
  })
  for (const warning of result.warnings) console.warn(`build-client: ${warning.text}`)
  const metafile = result.metafile as Metafile
  const packages: Record<string, number> = {}
  for (const [input, info] of Object.entries(metafile.inputs)) {
    const name = packageOf(input)
    packages[name] = (packages[name] ?? 0) + info.bytes
    if (name.startsWith('@deepseek-ai/'))
      throw new Error(
        `build-client: ${input} would be bundled: a @deepseek-ai package must come from the host (or be a type-only import)`,
      )
  }
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint !== undefined)
  const requires = [...new Set((output?.imports ?? []).filter((i) => i.external).map((i) => i.path))].sort()
  const unknown = requires.filter((spec) => !(HOST_MODULES as readonly string[]).includes(spec))
  if (unknown.length > 0)
    throw new Error(
      `build-client: the bundle requires ${unknown.join(', ')}, which the host's module table does not provide`,
    )
  if (!packages['(generated)'])
    throw new Error('build-client: the generated remote client (lib/typert.remote-client.js) is not in the bundle')
  return { file, bytes: fs.statSync(file).size, requires, packages, ms: performance.now() - started }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out')
  const out = at === -1 ? undefined : path.resolve(process.argv[at + 1] ?? '')
  const built = await buildClient(out)
  const kb = (n: number): string => `${(n / 1024).toFixed(1)} KiB`
  const inputs = Object.entries(built.packages)
    .sort((a, b) => b[1] - a[1])
    .map(([name, bytes]) => `${name} ${kb(bytes)}`)
    .join(', ')
  console.log(
    `build-client: ${path.relative(process.cwd(), built.file) || built.file} ${kb(built.bytes)} in ${built.ms.toFixed(0)} ms; requires ${built.requires.join(', ')}; inputs ${inputs}`,
  )
}
