/**
 * The shape of `src/`, checked on the real files: layers point one way,
 * each layer fails only with the error codes it owns (or a lower layer's),
 * and the tree's `Invalid` is caught only in `tree/` (callers take its checks
 * as results, through `validated`).
 * A file's length is not a rule: it holds one concept, whatever its length
 * (the formatter keeps its lines, `test/unit/repo/format.test.ts`).
 *
 * Layers, lowest first (a file may import its own layer and any lower one):
 *
 *   tree < outline < sidecar < workspace < harness < surface < interchange < service < tool < tui < cli
 *
 * - `tree/`: the pure conversation tree; imports nothing outside `tree/`, no package at all.
 * - `outline/`: the outline a person reads (rows, search, filters), pure like `tree/`; shared by
 *   the browser's Tree tab and the terminal's scene.
 * - `sidecar/`: crash-safe files beside the harness log (the tree's durable marks).
 * - `workspace/`: file checkpoints per node (journals through the sidecar's framing).
 * - `harness/`: the projector and sync that follow a harness session's events,
 *   the live-agent slice (`live.ts`), log markers and warnings.
 * - `surface/`: the three ways a move reaches the model history (native, stock, projection).
 * - `interchange/`: other agents' sessions in and out (builds harness logs with the surface planner).
 * - `service/`: the `ctx.sessionTree` plugin and its wire vocabulary.
 * - `tool/`: the model tools and `/tree`, on the service's in-process API.
 * - `tui/`: the terminal half (a dsh-TUI scene, command, shortcut and transcript rows), node-side.
 * - `cli/`: the `dsh-session-tree` bin.
 * - The entry points `index.ts`, `types.ts` and `invariant.ts` sit on top.
 * - `client/` (the browser bundle) stands apart: it imports `tree/`, `outline/`, the
 *   generated remote client (`lib/typert.*`), types only from `types.ts`, and
 *   the two pure log recognisers the Chat shares with the service
 *   (`harness/marker.ts`, `service/chat-switches.ts`) so both read the log alike,
 *   and the one typed lookup of host services (`harness/host.ts`, no imports).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { TREE_ERROR_CODES } from '../../../src/tree/errors.ts'
import { SIDECAR_ERROR_CODES } from '../../../src/sidecar/errors.ts'
import { WORKSPACE_ERROR_CODES } from '../../../src/workspace/errors.ts'
import { SURFACE_ERROR_CODES } from '../../../src/surface/errors.ts'
import { INTERCHANGE_ERROR_CODES } from '../../../src/interchange/errors.ts'

const SRC = resolve(import.meta.dirname, '..', '..', '..', 'src')

export const LAYERS = [
  'tree',
  'outline',
  'sidecar',
  'workspace',
  'harness',
  'surface',
  'interchange',
  'service',
  'tool',
  'tui',
  'cli',
] as const
const ENTRY_POINTS = new Set(['index.ts', 'types.ts', 'invariant.ts'])
/** What `client/` may import besides itself and `tree/` (values); `types.ts` is for types only. */
const CLIENT_SHARED = new Set([
  'harness/marker.ts',
  'harness/log-event.ts',
  'service/chat-switches.ts',
  'harness/host.ts',
])

/** The error codes each layer owns; a layer may fail with its own codes and any lower layer's. */
const OWNED: Readonly<Record<string, readonly string[]>> = {
  tree: Object.keys(TREE_ERROR_CODES),
  sidecar: Object.keys(SIDECAR_ERROR_CODES),
  workspace: Object.keys(WORKSPACE_ERROR_CODES),
  surface: Object.keys(SURFACE_ERROR_CODES),
  interchange: Object.keys(INTERCHANGE_ERROR_CODES),
}

export interface ImportEdge {
  readonly from: string
  readonly to: string
  readonly typeOnly: boolean
  readonly line: number
}

function sourceFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path))
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

const posix = (path: string): string => path.split(sep).join('/')

/** Every module specifier a file names: imports, re-exports, `import()` calls and `import('…')` types. */
export function importsOf(file: string, text: string): { specifier: string; typeOnly: boolean; line: number }[] {
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  )
  const found: { specifier: string; typeOnly: boolean; line: number }[] = []
  const add = (node: ts.Node, specifier: ts.Expression | undefined, typeOnly: boolean): void => {
    if (specifier && ts.isStringLiteralLike(specifier)) {
      found.push({
        specifier: specifier.text,
        typeOnly,
        line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
      })
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)))
      add(node, node.moduleSpecifier, typeOnly)
    } else if (ts.isExportDeclaration(node)) {
      const typeOnly =
        node.isTypeOnly ||
        (node.exportClause !== undefined &&
          ts.isNamedExports(node.exportClause) &&
          node.exportClause.elements.length > 0 &&
          node.exportClause.elements.every((e) => e.isTypeOnly))
      add(node, node.moduleSpecifier, typeOnly)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal as ts.Expression, true)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0], false)
    } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
      // `declare module '…'` augments that module: it depends on it like a type import.
      add(node, node.name, true)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** `tree/ops.ts` → `tree`; a root file is its own name; outside `src/` → `null`. */
function layerOf(path: string): string | null {
  if (path.startsWith('../')) return null
  const slash = path.indexOf('/')
  return slash === -1 ? path : path.slice(0, slash)
}

function rank(layer: string): number {
  if (ENTRY_POINTS.has(layer)) return LAYERS.length
  return (LAYERS as readonly string[]).indexOf(layer)
}

/** Why an import breaks the layering, or `undefined` when it is allowed. */
export function violation(from: string, specifier: string, typeOnly: boolean): string | undefined {
  const source = layerOf(from)!
  if (!specifier.startsWith('.')) {
    return source === 'tree' || source === 'outline' ? `${source}/ imports no package (${specifier})` : undefined
  }
  const to = posix(relative(SRC, resolve(SRC, dirname(from), specifier)))
  const target = layerOf(to)
  if (source === 'client') {
    if (target === 'client' || target === 'tree' || target === 'outline' || CLIENT_SHARED.has(to)) return undefined
    if (to.startsWith('../lib/typert.')) return undefined
    if (to === 'types.ts' && typeOnly) return undefined
    return `the browser bundle may import tree/, outline/, lib/typert.*, types only from types.ts, and ${[...CLIENT_SHARED].join(', ')}; not ${to}`
  }
  if (target === null) return `${to} is outside src/`
  if (target === 'client') return `only the browser bundle imports client/ (${to})`
  if (target === source) return undefined
  const [a, b] = [rank(source), rank(target)]
  if (a < 0) return `${source}/ is not in the layer order; add it to LAYERS`
  if (b < 0) return `${target}/ is not in the layer order; add it to LAYERS`
  return b <= a ? undefined : `${source}/ imports the higher layer ${target}/ (${to})`
}

function scan(): { files: Map<string, string>; problems: string[] } {
  const files = new Map<string, string>()
  const problems: string[] = []
  for (const file of sourceFiles(SRC)) {
    const path = posix(relative(SRC, file))
    const text = readFileSync(file, 'utf8')
    files.set(path, text)
    for (const { specifier, typeOnly, line } of importsOf(path, text)) {
      const why = violation(path, specifier, typeOnly)
      if (why) problems.push(`src/${path}:${line}: ${why}`)
    }
  }
  return { files, problems }
}

describe('architecture', () => {
  const { files, problems } = scan()

  it('reads every source file (the scan is not vacuous)', () => {
    for (const layer of LAYERS)
      expect(
        [...files.keys()].some((path) => path.startsWith(`${layer}/`)),
        layer,
      ).toBe(true)
    const edges = [...files].flatMap(([path, text]) => importsOf(path, text))
    expect(edges.length).toBeGreaterThan(300)
  })

  it('no import points to a higher layer', () => {
    expect(problems).toEqual([])
  })

  it('the rule catches an upward import, a package in the tree, and the browser reaching the service', () => {
    expect(violation('harness/projector.ts', '../service/wire.ts', true)).toMatch(/higher layer service/)
    expect(violation('surface/mode.ts', '../service/wire.ts', true)).toMatch(/higher layer service/)
    expect(violation('tree/ops.ts', '../harness/live.ts', true)).toMatch(/higher layer harness/)
    expect(violation('sidecar/durable.ts', '../workspace/types.ts', true)).toMatch(/higher layer workspace/)
    expect(violation('tree/ops.ts', '@deepseek-ai/dsh-session', true)).toMatch(/no package/)
    expect(violation('outline/layout.ts', 'react', true)).toMatch(/no package/)
    expect(violation('outline/layout.ts', '../harness/live.ts', true)).toMatch(/higher layer harness/)
    expect(violation('client/model.ts', '../outline/index.ts', false)).toBeUndefined()
    expect(violation('tui/scene.ts', '../outline/index.ts', false)).toBeUndefined()
    expect(violation('tool/command.ts', '../tui/index.ts', false)).toMatch(/higher layer tui/)
    expect(violation('client/model.ts', '../service/service.ts', true)).toMatch(/browser bundle/)
    expect(violation('client/model.ts', '../types.ts', false)).toMatch(/browser bundle/)
    expect(violation('service/move.ts', '../client/model.ts', true)).toMatch(/only the browser/)
    expect(violation('tool/actions.ts', '../service/service.ts', true)).toBeUndefined()
    expect(violation('client/model.ts', '../types.ts', true)).toBeUndefined()
  })

  it('the import reader sees every form an import takes', () => {
    const text = [
      "import a from './a.ts'",
      "import type { B } from './b.ts'",
      "import { type C } from './c.ts'",
      "export * from './d.ts'",
      "export type { E } from './e.ts'",
      "type F = import('./f.ts').F",
      "const g = await import('./g.ts')",
      "declare module './h.ts' { interface H { x: 1 } }",
    ].join('\n')
    expect(importsOf('x.ts', text).map(({ specifier, typeOnly }) => [specifier, typeOnly])).toEqual([
      ['./a.ts', false],
      ['./b.ts', true],
      ['./c.ts', true],
      ['./d.ts', false],
      ['./e.ts', true],
      ['./f.ts', true],
      ['./g.ts', false],
      ['./h.ts', true],
    ])
  })

  it('each layer fails only with codes it owns or a lower layer owns', () => {
    const wrong: string[] = []
    for (const [path, text] of files) {
      const layer = layerOf(path)!
      // The service's vocabulary is the union of all; the client only reads codes.
      if (rank(layer) < 0 || rank(layer) >= rank('service') || layer === 'client') continue
      // What a layer may produce: the codes of the layers at or below it that own codes.
      const allowed = new Set(
        Object.entries(OWNED)
          .filter(([owner]) => rank(owner) <= rank(layer))
          .flatMap(([, codes]) => codes),
      )
      wrong.push(...foreignCodes(text, allowed).map((code) => `src/${path}: ${code} belongs to a higher layer`))
    }
    expect(wrong).toEqual([])
    expect(
      foreignCodes(
        "return fail('SIDECAR_IO', 'x')\nfail<number>('NODE_NOT_FOUND', 'y')",
        new Set(Object.keys(TREE_ERROR_CODES)),
      ),
    ).toEqual(['SIDECAR_IO'])
  })

  it('a name has one import path: only the entry points, the index barrels and the layer faces re-export', () => {
    const reexporting = [...files]
      .filter(([path, text]) => !REEXPORT_FACES.has(path) && !path.endsWith('/index.ts') && reexports(text))
      .map(([path]) => `src/${path}`)
    expect(reexporting).toEqual([])
    const cases: ReadonlyArray<readonly [string, boolean]> = [
      ["export { nodeIdForSeq, type NodeSource } from './surface-mirror.ts'", true],
      ["export type * from './compare-types.ts'", true],
      ["export {\n  a,\n  b,\n} from './x.ts'", true],
      ["export { local }\nexport const from = 1\nimport { x } from './x.ts'", false],
      ["import type { TextPart, Other } from '../tree/types.ts'\nexport type { TextPart }", true],
      ["import { a as b } from './a.ts'\nexport { b }", true],
      ["import { a } from './a.ts'\nexport { a as b }", true],
      ["export * as ns from './a.ts'", true],
      ["import * as ns from './a.ts'\nexport { ns }", true],
      ["import X, { y } from './a.ts'\nexport { X } // the default", true],
      ["import X from './a.ts'\nexport default X", true],
      ["import { a } from './a.ts'\nconst b = a\nexport { b }", false],
    ]
    for (const [text, expected] of cases) expect(reexports(text), text).toBe(expected)
  })

  it("the tree's Invalid is caught only in tree/ (callers above take its checks as results: validated)", () => {
    const catching = [...files]
      .filter(([path, text]) => !path.startsWith('tree/') && catchesInvalid(text))
      .map(([path]) => `src/${path}`)
    expect(catching).toEqual([])
    expect(catchesInvalid("} catch (error) {\n  if (error instanceof Invalid) return fail('X', error.reason)")).toBe(
      true,
    )
    expect(catchesInvalid('const reason = (error as Invalid).reason')).toBe(true)
    expect(catchesInvalid("throw new Invalid('overlay must be an object')")).toBe(false)
  })
})

/**
 * The modules that name what another holds on purpose: the package's entry points, the tree's types (its durable
 * and summary halves), the wire (everything a remote method carries), the host's agent types (`live.ts`: the
 * one seam to the harness package) and the service's error vocabulary.
 */
const REEXPORT_FACES = new Set([
  ...ENTRY_POINTS,
  'tree/types.ts',
  'service/wire.ts',
  'service/carry-wire.ts',
  'service/lineage-wire.ts',
  'service/workspace-wire.ts',
  'harness/live.ts',
  'service/errors.ts',
])

/** Whether a source text re-exports another module's names: `export … from`, or `export { x }` of an imported `x`. */
function reexports(text: string): boolean {
  if (/^export\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+'/m.test(text)) return true
  // An export specifier names the local binding first (`export { a as b }` exports the local `a`); an import's last.
  const specifiers = (list: string, side: 'local' | 'bound'): string[] =>
    list
      .split(',')
      .map((item) => item.replace(/^\s*type\s+/, '').split(/\s+as\s+/))
      .map((parts) => (side === 'local' ? parts[0]! : parts.at(-1)!).trim())
      .filter(Boolean)
  const imported = new Set<string>()
  for (const [, head] of text.matchAll(/^import\s+(?:type\s+)?([^'"]*?)\s+from\s+'/gm)) {
    const braces = /\{([^}]*)\}/.exec(head!)
    if (braces) for (const name of specifiers(braces[1]!, 'bound')) imported.add(name)
    // A default or namespace binding: `import X, { y }`, `import * as ns`.
    const bare = head!.replace(/\{[^}]*\}/, '').replace(/\*\s+as\s+/, '')
    for (const name of bare.split(',')) if (name.trim() !== '') imported.add(name.trim())
  }
  for (const [, list] of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}\s*(?:;\s*)?(?:\/\/.*)?$/gm))
    if (specifiers(list!, 'local').some((name) => imported.has(name))) return true
  const byDefault = /^export\s+default\s+(\w+)\s*;?\s*$/m.exec(text)
  return byDefault !== null && imported.has(byDefault[1]!)
}

/** Whether a source text picks the tree's `Invalid` out of a caught error. */
function catchesInvalid(text: string): boolean {
  return /\binstanceof\s+Invalid\b|\bas\s+Invalid\b/.test(text)
}

/** The codes a source text fails with (`fail('CODE', …)`) that are not in `allowed`. */
function foreignCodes(text: string, allowed: ReadonlySet<string>): string[] {
  return [...text.matchAll(/\bfail(?:<[^>]*>)?\(\s*'([A-Z_]+)'/g)]
    .map((match) => match[1]!)
    .filter((code) => !allowed.has(code))
}
